"""gunicorn settings for the web process, from the environment."""

import multiprocessing
import os

bind = f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2 + 1))
timeout = int(os.environ.get("WEB_TIMEOUT", "30"))
graceful_timeout = 30
accesslog = "-"
errorlog = "-"
# The load balancer in front terminates TLS and sets X-Forwarded-Proto.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
