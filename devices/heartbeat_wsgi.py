"""A signed heartbeat answered without Django's handler (issue 21, part 4).

casino.wsgi sends every POST to /devices/v1/heartbeat here. A heartbeat this path can
answer exactly as Django would (a host the settings allow, the scheme they want, a body
within the limit, a credential already in this process's cache, a sound timestamp,
signature and body) it records with the store's one call, the key's budget counted in it
(devices.views.heartbeat_record), and answers 204 with the headers Django's own answer to
a heartbeat carried in this process (learnt from the first one, which goes to Django): no
request object, no middleware chain. What that chain does for a 204 it does here: the
request id (casino/logs.py), the request's time and status (casino/api/metrics.py).

Anything else goes on to Django's handler (casino.wsgi.HeartbeatHandler) untouched: every
refusal (Django words it, logs it and counts it), a credential to read from the database,
a database store, a middleware this path does not know. A heartbeat the store refused goes
on with the store's answer (views.STORE_ANSWERED), so Django refuses it without calling
the store again.
"""

import io
import json
import time
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.http.request import split_domain_port, validate_host

from casino.api.metrics import request_count
from casino.logs import REQUEST_ID_HEADER, request_id_from
from devices import auth, signing, views
from devices.signing import SignatureRefused
from devices.store import RedisStore, store

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]

# The middleware on the heartbeat's way (casino.wsgi) whose answer to a sound heartbeat
# is the same every time but for the request id, given the scheme (the HSTS header): the
# headers Django gave one are then the headers of all. Any other list: every heartbeat
# goes to Django.
KNOWN_MIDDLEWARE = (
    "casino.logs.RequestIdMiddleware",
    "casino.api.metrics.MetricsMiddleware",
    "casino.api.middleware.ErrorBodyMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
)
NO_CONTENT = "204 No Content"


@lru_cache(maxsize=64)
def _host_allowed(host: str, allowed: tuple[str, ...]) -> bool:
    # As HttpRequest.get_host judges the Host header (the first host of each kind cached).
    domain, _port = split_domain_port(host)
    return bool(domain) and validate_host(domain, list(allowed))


def _secure(environ: dict[str, Any]) -> bool:
    """HttpRequest.is_secure() for this environ (behind a proxy, its header decides)."""
    if settings.SECURE_PROXY_SSL_HEADER:
        header, secure_value = settings.SECURE_PROXY_SSL_HEADER
        value = environ.get(header)
        if value is not None:
            return value.split(",", 1)[0].strip() == secure_value
    return environ.get("wsgi.url_scheme") == "https"


class HeartbeatPath:
    """The WSGI application for POST /devices/v1/heartbeat: a sound heartbeat answered
    here, anything else by `handler` (Django's, with `middleware` on its way)."""

    def __init__(self, handler: WsgiApp, middleware: Iterable[str], view_name: str) -> None:
        self.handler = handler
        self.known = tuple(middleware) == KNOWN_MIDDLEWARE
        self.view_name = view_name
        # The headers of Django's 204 to a heartbeat, by whether it came over HTTPS; and
        # where its request id stood among them.
        self.answers: dict[bool, tuple[list[tuple[str, str]], int]] = {}

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        started = time.perf_counter()
        secure, sound = self._checked(environ) if self.known else (None, None)
        if secure is None:
            return self.handler(environ, start_response)
        answer = self.answers.get(secure)
        if answer is None:  # Django's 204, if it gives one, is every sound one's
            return self.handler(environ, self._learning(secure, start_response))
        if sound is None:
            return self.handler(environ, start_response)
        try:
            new: bool | Exception = views.heartbeat_record(*sound)
        except Exception as error:  # the store's refusals, an outage: Django answers them
            new = error
        if new is not True:
            environ[views.STORE_ANSWERED] = views.StoreAnswered(new)
            return self.handler(environ, start_response)
        headers, at = answer
        headers = headers.copy()
        headers[at] = (REQUEST_ID_HEADER, request_id_from(environ))
        start_response(NO_CONTENT, headers)
        request_count(self.view_name, "POST", 204, time.perf_counter() - started)
        return []

    def _checked(self, environ: dict[str, Any]) -> tuple[bool | None, tuple | None]:
        """Whether the request came over HTTPS (None: a request this path would not answer
        whatever its body: its host, its scheme, its length), and, for a heartbeat it may
        answer, what views.heartbeat_record needs: (caller, nonce, signed at, now). The
        body is read here and put back for Django."""
        if (
            settings.USE_X_FORWARDED_HOST
            or settings.DISALLOWED_USER_AGENTS
            or settings.PREPEND_WWW
            or not isinstance(store(), RedisStore)
        ):
            return None, None
        if "SCRIPT_URL" in environ or "REDIRECT_URL" in environ:
            return None, None  # mod_rewrite's: Django's request.path may read them
        host = environ.get("HTTP_HOST")
        if not host or not _host_allowed(host, tuple(settings.ALLOWED_HOSTS)):
            return None, None
        secure = _secure(environ)
        if settings.SECURE_SSL_REDIRECT and not secure:
            return None, None
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return None, None
        if not 0 < length <= settings.CASINO_DEVICE_MAX_BODY_BYTES:
            return None, None
        body = environ["wsgi.input"].read(length)
        environ["wsgi.input"] = io.BytesIO(body)
        now = views.clock()
        try:
            key_id, timestamp, nonce, signature = signing.headers_read(environ)
            signing.timestamp_check(timestamp, now, settings.CASINO_DEVICE_CLOCK_SKEW_SECONDS)
            caller = auth.caller_cached(key_id, now)
            if caller is None:  # Django reads it from the database (and keeps it)
                return secure, None
            signing.signature_check(
                caller.secret, "POST", environ["PATH_INFO"], timestamp, nonce, body, signature
            )
            sent = json.loads(body)
        except (SignatureRefused, ValueError, RecursionError):  # UnicodeDecodeError: a ValueError
            return secure, None
        if not isinstance(sent, dict) or len(sent) != 1:
            return secure, None
        device = sent.get("device")
        if type(device) is not int or device != caller.device_id:  # a bool is no id
            return secure, None
        return secure, (caller, nonce, float(timestamp), now)

    def _learning(self, secure: bool, start_response: StartResponse) -> StartResponse:
        """`start_response` that keeps the headers of Django's 204 to a sound heartbeat."""

        def start(status: str, headers: list[tuple[str, str]], *exc_info: Any) -> Any:
            names = [name for name, _ in headers]
            if status == NO_CONTENT and names.count(REQUEST_ID_HEADER) == 1:
                self.answers[secure] = (list(headers), names.index(REQUEST_ID_HEADER))
            return start_response(status, headers, *exc_info)

        return start
