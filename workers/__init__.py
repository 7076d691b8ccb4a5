"""Celery tasks and the worker self-check (ping) that shows the queues are served.

Its place in the layers (docs/architecture.md): an entry point. A task takes ids and
calls one service of any layer; nothing imports the tasks (services send them by name).
"""
