"""WSGI entry point of the devices' own web process (gunicorn casino.wsgi_devices).

The devices' requests come here on a port of their own (the load balancer routes
/devices/ to it), so a flood of API requests, which queue for the web process's workers,
never delays a heartbeat. A signed heartbeat takes the short path of casino.wsgi
(devices/heartbeat_wsgi.py); every other request goes through Django with the URLs of
casino/urls_devices.py: the devices' endpoints and the probes, every other path a 404 in
the one JSON body. The middleware is the web process's (the request id, /metrics, the
error bodies, the host check, the HTTPS redirect), so a device's answer is the same from
either process; the web process keeps answering /devices/v1/ too.
"""

import os
from collections.abc import Callable, Iterable
from typing import Any

from django.core.handlers.wsgi import WSGIHandler
from django.http import HttpRequest, HttpResponseBase

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

from casino import wsgi  # sets Django up (after the variable), and the heartbeat's short path

DEVICES_URLCONF = "casino.urls_devices"


class DevicesHandler(WSGIHandler):
    """Django's WSGI handler resolving every path with DEVICES_URLCONF."""

    def get_response(self, request: HttpRequest) -> HttpResponseBase:
        request.urlconf = DEVICES_URLCONF  # as a middleware may set it: Django resolves by it
        return super().get_response(request)


django_application = DevicesHandler()


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    """A signed heartbeat to the short path, anything else to Django with the devices' URLs."""
    if wsgi.heartbeat_is(environ):
        return wsgi.heartbeat_application(environ, start_response)
    return django_application(environ, start_response)
