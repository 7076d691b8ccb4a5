"""Celery tasks and the worker self-check (ping) that shows the queues are served."""
