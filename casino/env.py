"""Reading settings from the environment: typed, with the variable named in every error."""

import os
from collections.abc import Mapping

from django.core.exceptions import ImproperlyConfigured

from webhooks.addresses import Network, allowed_networks_refusals, networks_parse

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    """A string variable, or the default when unset."""
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    """A yes/no variable (1/0, true/false, yes/no, on/off)."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r}: expected one of 1/0, true/false, yes/no, on/off")


def env_int(name: str, default: int) -> int:
    """An integer variable."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r}: expected a whole number") from None


def env_time(name: str, default: str) -> str:
    """A time of day, ``HH:MM`` (24 hours)."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    hours, sep, minutes = raw.strip().partition(":")
    if not (sep and hours.isdigit() and minutes.isdigit() and len(minutes) == 2) or not (
        0 <= int(hours) <= 23 and 0 <= int(minutes) <= 59
    ):
        raise ImproperlyConfigured(f"{name}={raw!r}: expected a time of day, HH:MM")
    return f"{int(hours):02d}:{minutes}"


def env_float(name: str, default: float) -> float:
    """A number variable."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r}: expected a number") from None


def env_json(name: str, default: dict) -> dict:
    """A JSON object variable."""
    import json

    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = json.loads(raw)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise ImproperlyConfigured(f"{name}={raw!r}: expected a JSON object")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated list variable."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_site_url(name: str, default: str) -> str:
    """The address people reach the floor at, for links sent outside a request (email):
    an absolute http(s) URL, without a trailing slash."""
    raw = os.environ.get(name)
    value = (default if raw is None or raw.strip() == "" else raw).strip().rstrip("/")
    scheme, sep, rest = value.partition("://")
    host = rest.split("/", 1)[0]
    if scheme not in ("http", "https") or not sep or not host or any(c in value for c in "?# "):
        raise ImproperlyConfigured(
            f"{name}={raw!r}: expected an absolute address such as https://floor.example.com"
        )
    return value


def site_url_default(hosts: list[str], *, production: bool) -> str:
    """CASINO_SITE_URL when unset: https:// and the first allowed host's name in
    production (as deploy/compose.yaml's probe takes it), the development server else."""
    if production:
        names = [host.lstrip(".") for host in hosts if host.strip("*.")]
        return f"https://{names[0]}" if names else ""
    return "http://127.0.0.1:8000"


_RATE_UNITS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hour": 3600}


def env_rate(name: str, default: str) -> tuple[int, int] | None:
    """A request budget, "<requests>/<seconds>" ("1200/60", "1200/min", "20/s", "100/30s"),
    as (requests, seconds); "off" for none."""
    raw = os.environ.get(name)
    text = (default if raw is None or raw.strip() == "" else raw).strip().lower()
    if text == "off":
        return None
    count, slash, per = text.partition("/")
    per = per.strip() if slash else ""
    digits = per.rstrip("abcdefghijklmnopqrstuvwxyz")
    unit = per[len(digits) :]
    try:
        requests = int(count)
        if not per:
            raise ValueError(per)  # "1200" or "1200/": the window is not named
        seconds = (int(digits) if digits else 1) * (_RATE_UNITS[unit] if unit else 1)
    except (KeyError, ValueError):
        requests = seconds = 0
    if requests < 1 or seconds < 1:
        raise ImproperlyConfigured(
            f"{name}={raw!r}: expected <requests>/<seconds> (e.g. 1200/60, 1200/min, 20/s), "
            "both 1 or more, or off"
        )
    return requests, seconds


def networks_setting(name: str, default: str) -> list[Network]:
    """A comma-separated list of networks (10.20.0.0/16) or addresses."""
    raw = os.environ.get(name)
    try:
        return networks_parse(default if raw is None else raw)
    except ValueError as error:
        raise ImproperlyConfigured(f"{name}={raw!r}: {error}") from None


# Committed in casino/settings.py for development: public, so never a production key.
DEVELOPMENT_SECRET_KEY = "development-only-key-never-used-in-production"
# Django's own advice (check W009) and what `secrets.token_urlsafe(50)` gives at least.
MIN_KEY_LENGTH = 50


# /metrics's bearer token (casino/api/metrics.py): a guessable one shows the floor to anyone.
MIN_METRICS_TOKEN_LENGTH = 32


def production_refusals(environ: Mapping[str, str]) -> list[str]:
    """Each unsafe or missing setting of DJANGO_ENV=production, one line each (none: safe).

    Never echoes a key: the message lands in logs.
    """
    required = ("DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS", "DATABASE_URL", "CELERY_BROKER_URL")
    problems = [f"{name} is not set" for name in required if not environ.get(name)]
    if not environ.get("CASINO_DEVICE_KEY"):
        # Else device secrets derive from DJANGO_SECRET_KEY: rotating it re-keys every
        # device, and one leaked key gives both.
        problems.append("CASINO_DEVICE_KEY is not set (device secrets derive from it)")
    for name in ("DJANGO_SECRET_KEY", "CASINO_DEVICE_KEY"):
        key = environ.get(name, "")
        if key == DEVELOPMENT_SECRET_KEY:
            problems.append(f"{name} is the development key committed in casino/settings.py")
        elif key and len(key) < MIN_KEY_LENGTH:
            problems.append(
                f"{name} has {len(key)} characters; {MIN_KEY_LENGTH} or more are required"
            )
    device_key = environ.get("CASINO_DEVICE_KEY")
    if device_key and device_key == environ.get("DJANGO_SECRET_KEY"):
        problems.append("CASINO_DEVICE_KEY is DJANGO_SECRET_KEY: give each its own key")
    metrics_token = environ.get("CASINO_METRICS_TOKEN", "")
    if metrics_token and len(metrics_token) < MIN_METRICS_TOKEN_LENGTH:
        problems.append(
            f"CASINO_METRICS_TOKEN has {len(metrics_token)} characters; "
            f"{MIN_METRICS_TOKEN_LENGTH} or more are required"
        )
    problems += _webhook_refusals(environ)
    debug = environ.get("DJANGO_DEBUG", "").strip().lower()
    if debug in _TRUE:
        problems.append(
            f"DJANGO_DEBUG={environ['DJANGO_DEBUG']!r}: debug pages show settings and code"
        )
    hosts = [h.strip() for h in environ.get("DJANGO_ALLOWED_HOSTS", "").split(",")]
    # Django's only wildcard is "*"; "*.example.com" matches nothing and means a "*" was
    # intended. A leading dot (".example.com") names one domain and is allowed.
    wild = [h for h in hosts if "*" in h]
    if wild:
        problems.append(
            f"DJANGO_ALLOWED_HOSTS has the wildcard {', '.join(map(repr, wild))}: "
            "name each host (a leading dot allows one domain's subdomains)"
        )
    return problems


def _webhook_refusals(environ: Mapping[str, str]) -> list[str]:
    """Webhooks go over https only, and never to the floor's own machines (loopback), the
    metadata service (link-local), multicast or "any address" (webhooks/addresses.py)."""
    problems = []
    if environ.get("CASINO_WEBHOOK_HTTPS_ONLY", "").strip().lower() in _FALSE - {""}:
        problems.append("CASINO_WEBHOOK_HTTPS_ONLY is off: webhooks go over https only")
    try:
        networks = networks_parse(environ.get("CASINO_WEBHOOK_ALLOWED_NETWORKS", ""))
    except ValueError as error:
        return [*problems, f"CASINO_WEBHOOK_ALLOWED_NETWORKS: {error}"]
    problems += [
        f"CASINO_WEBHOOK_ALLOWED_NETWORKS: {refusal}: a webhook may never go there"
        for refusal in allowed_networks_refusals(networks)
    ]
    return problems
