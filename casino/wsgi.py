"""WSGI entry point (gunicorn casino.wsgi).

A signed heartbeat (POST /devices/v1/heartbeat) is the floor's most frequent request by
far: every device sends one every few seconds. A sound one is answered without Django's
handler (devices/heartbeat_wsgi.py: its checks, the store's one call with the key's
budget in it, a 204 with the headers Django gave the first one); every other heartbeat
takes a shorter way through Django. `HeartbeatHandler` is Django's own WSGI handler (the
same request class, the request signals that look after the database connections, the
same exception handling and error pages, the same 4xx/5xx log lines) around the view the
URLconf routes the path to (`devices.views.heartbeat`: the signature, the timestamp, the
credential, then the store's one call for the key's budget, the nonce and a revocation),
with no URL resolving and only the middleware that acts on a heartbeat: settings.MIDDLEWARE
in its order, less `HEARTBEAT_SKIPPED`. So the one error body, the 413 for a body over the
limit, the 503 for an outage, the host check, the HTTPS redirect and the security headers
are the full stack's. Every other request goes to Django, and so would a heartbeat under
a script name.
"""

import os
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.handlers.exception import convert_exception_to_response
from django.core.handlers.wsgi import WSGIHandler
from django.core.wsgi import get_wsgi_application
from django.http import HttpRequest, HttpResponse
from django.urls import resolve, reverse
from django.utils.module_loading import import_string

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
django_application = get_wsgi_application()

from devices.heartbeat_wsgi import HeartbeatPath  # noqa: E402 - needs Django set up first

# Middleware with nothing to do for a signed heartbeat: static files (WhiteNoise answers
# only under STATIC_URL); the session, the user and the audit actor (a device has no
# session, and a heartbeat writes no audited row: the actor would be nobody either way;
# the one difference is that Django's answer carries `Vary: Cookie`, because the audit
# middleware reads request.user); CSRF (the view is csrf_exempt); messages (no page).
HEARTBEAT_SKIPPED = frozenset(
    {
        "whitenoise.middleware.WhiteNoiseMiddleware",
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
        "casino.audit.AuditActorMiddleware",
        "django.middleware.csrf.CsrfViewMiddleware",
        "django.contrib.messages.middleware.MessageMiddleware",
    }
)


# The hooks Django calls from around the URL resolver, which this handler has not: a
# middleware with one would not act on a heartbeat (HeartbeatHandler refuses to start).
RESOLVER_HOOKS = ("process_view", "process_exception", "process_template_response")


class HeartbeatHandler(WSGIHandler):
    """Django's WSGI handler with the heartbeat view in place of the URL resolver, and only
    the middleware of settings.MIDDLEWARE that acts on a heartbeat. A middleware added to
    the settings is on the way too, unless it is in HEARTBEAT_SKIPPED; one with a hook that
    only the URL resolver's side calls stops it from starting, rather than being passed by."""

    def load_middleware(self, is_async: bool = False) -> None:
        self._view_middleware: list = []
        self._template_response_middleware: list = []
        self._exception_middleware: list = []
        # The view the URLconf routes the path to (devices.views.heartbeat), with its match
        # on the request as Django's resolver leaves it (the metrics' view label reads it).
        match = resolve(reverse("device-heartbeat"))

        def view(request: HttpRequest) -> HttpResponse:
            request.resolver_match = match
            return match.func(request)

        chain = convert_exception_to_response(view)
        self.middleware_paths = [p for p in settings.MIDDLEWARE if p not in HEARTBEAT_SKIPPED]
        self.view_name = match.view_name
        for path in reversed(self.middleware_paths):
            middleware = import_string(path)(chain)
            hooks = [hook for hook in RESOLVER_HOOKS if hasattr(middleware, hook)]
            if hooks:
                raise ImproperlyConfigured(
                    f"{path} has {', '.join(hooks)}, which the heartbeat's handler would not"
                    " call: put it in casino.wsgi.HEARTBEAT_SKIPPED, or make it act without"
                )
            chain = convert_exception_to_response(middleware)
        self._middleware_chain = chain


def _heartbeat_path() -> str | None:
    """The heartbeat's PATH_INFO, when Django would see the same path (no script name)."""
    if settings.FORCE_SCRIPT_NAME:
        return None
    return reverse("device-heartbeat")


def heartbeat_path(handler: HeartbeatHandler) -> HeartbeatPath:
    """A sound heartbeat answered without Django's handler, anything else by `handler`."""
    return HeartbeatPath(handler, handler.middleware_paths, handler.view_name)


HEARTBEAT_PATH = _heartbeat_path()
heartbeat_application = heartbeat_path(HeartbeatHandler())


def heartbeat_is(environ: dict[str, Any]) -> bool:
    """Whether the request is for `heartbeat_application`: a POST to the heartbeat's path."""
    return (
        environ.get("PATH_INFO") == HEARTBEAT_PATH
        and environ.get("REQUEST_METHOD") == "POST"
        and not environ.get("SCRIPT_NAME")
    )


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    """A signed heartbeat to `heartbeat_application`, anything else to Django."""
    if heartbeat_is(environ):
        return heartbeat_application(environ, start_response)
    return django_application(environ, start_response)
