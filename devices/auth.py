"""Who is calling: a signed request checked against the credential it names.

Heartbeats read the credential from a per-process cache (CASINO_DEVICE_CREDENTIAL_CACHE_SECONDS,
a few minutes), so the fast path reads no row either; a revocation, or the end of a
rotation's grace, still stops them at once, because the store refuses an ended key in the
same call that records the heartbeat (devices/store.py), and a Redis store that lost its
data copies the ended keys back from the database before it takes another heartbeat.
Reports and fault conditions, which change rounds and statuses, always read the credential
from the database.
"""

import time
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.http import HttpRequest

from devices import signing
from devices.models import Device, DeviceCredential
from devices.signing import SignatureRefused


@dataclass(frozen=True)
class Caller:
    """A device whose signature checked out: what the endpoints need to know of it."""

    key_id: str
    device_id: int
    table_id: int
    kind: str
    position: int | None
    secret: str
    until: float | None  # Unix seconds the credential stops working at, if it does


_cache: dict[str, tuple[Caller, float]] = {}


def _fresh(hit: tuple[Caller, float] | None) -> bool:
    return (
        hit is not None
        and time.monotonic() - hit[1] <= settings.CASINO_DEVICE_CREDENTIAL_CACHE_SECONDS
    )


def caller_for(key_id: str, now: float, *, cached: bool) -> Caller:
    """The credential's device, or SignatureRefused if it is unknown, revoked or expired."""
    hit = _cache.get(key_id) if cached else None
    if hit is None or not _fresh(hit):
        hit = (_load(key_id, now), time.monotonic())
        _cache[key_id] = hit
    caller = hit[0]
    if caller.until is not None and now >= caller.until:
        raise SignatureRefused(f"the credential {key_id} has been revoked or has expired")
    return caller


def caller_cached(key_id: str, now: float) -> Caller | None:
    """The credential's device as this process's cache holds it, when it is there, fresh
    and has not ended; else None (`caller_for` reads it from the database, or refuses)."""
    hit = _cache.get(key_id)
    if hit is None or not _fresh(hit):
        return None
    caller = hit[0]
    return caller if caller.until is None or now < caller.until else None


def forget(key_id: str) -> None:
    """Drop a cached credential (the store said it was revoked)."""
    _cache.pop(key_id, None)


def _load(key_id: str, now: float) -> Caller:
    credential = (
        DeviceCredential.objects.select_related("device")
        .filter(key_id=key_id)
        .order_by()  # one row by a unique key: no join for the model's ordering
        .only("key_id", "salt", "expires_at", "revoked_at", "device__table_id", "device__kind",
              "device__position", "device__status")
        .first()
    )  # fmt: skip
    if credential is None:
        raise SignatureRefused(f"no device credential {key_id}")
    device = credential.device
    ends = [t for t in (credential.expires_at, credential.revoked_at) if t is not None]
    until = min(t.timestamp() for t in ends) if ends else None
    if device.status == Device.Status.RETIRED:
        until = 0.0
    return Caller(
        key_id=key_id,
        device_id=device.pk,
        table_id=device.table_id,
        kind=device.kind,
        position=device.position,
        secret=signing.secret_for(key_id, credential.salt),
        until=until,
    )


def request_verify(request: HttpRequest, now: float, *, cached: bool) -> tuple[Caller, str, float]:
    """The caller, the request's nonce and when it was signed (Unix s); SignatureRefused for
    any failed check. The nonce is claimed by the caller of this function, once the rest of
    the request is sound."""
    key_id, timestamp, nonce, signature = signing.headers_read(request.META)
    signing.timestamp_check(timestamp, now, settings.CASINO_DEVICE_CLOCK_SKEW_SECONDS)
    caller = caller_for(key_id, now, cached=cached)
    signing.signature_check(
        caller.secret, request.method or "", request.path, timestamp, nonce, request.body, signature
    )
    return caller, nonce, float(timestamp)


def moment(now: float) -> datetime:
    from django.utils import timezone

    return datetime.fromtimestamp(now, tz=timezone.get_current_timezone())
