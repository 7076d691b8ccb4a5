"""Where heartbeats land: last-seen times and used nonces, kept off the database's rows.

With Redis (the production profile) a heartbeat is one round trip: a Lua script claims
the nonce (SET NX EX) and, only if it was new, writes the device's last-seen time into a
sorted set per kind (ZADD). The watch reads the sorted sets; `heartbeats_flush` writes
the times back to the Device rows in batches. A sorted set swept by the watch detects
silence reliably, where key-expiry notifications would fire whenever Redis gets round to
the key (docs/adr/0006-device-credentials-and-heartbeats.md).

With no Redis (the embedded default) the database stands in: fine for a demo floor,
not for thousands of heartbeats a second.
"""

import functools
from collections.abc import Callable
from datetime import datetime
from functools import cache
from typing import Any, Protocol, TypeVar

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

# Refuse a revoked key; claim the nonce; only a new one writes the heartbeat, and never
# moves a device's time back (GT). KEYS: nonce key, sorted set, revoked set. ARGV: nonce
# lifetime (s), last-seen score, member, key id.
_CLAIM = """
if redis.call('SISMEMBER', KEYS[3], ARGV[4]) == 1 then return -1 end
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then
  redis.call('ZADD', KEYS[2], 'GT', ARGV[2], ARGV[3])
  return 1
end
return 0
"""


F = TypeVar("F", bound=Callable[..., Any])


class StoreUnavailable(Exception):
    """The heartbeat store cannot be reached (the endpoints answer 503)."""


class Revoked(Exception):
    """The credential was revoked: its heartbeats are refused at once, cache or not."""


def _reached(method: F) -> F:
    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        import redis

        try:
            return method(*args, **kwargs)
        except redis.RedisError as error:
            raise StoreUnavailable(str(error)) from error

    return wrapper  # type: ignore[return-value]


class Store(Protocol):
    def heartbeat(self, device_id: int, kind: str, key_id: str, nonce: str, at: float) -> bool:
        """Claim the nonce and record the heartbeat; False (nothing written) if it was used;
        Revoked if the credential was."""

    def revoke(self, key_id: str) -> None:
        """Refuse this credential's heartbeats from now on."""

    def nonce_claim(self, key_id: str, nonce: str, at: float) -> bool:
        """Claim a nonce for a request that is not a heartbeat; False if it was used."""

    def seen(self, kind: str) -> dict[int, float]:
        """Every device of the kind that has been heard from: id → last heartbeat (Unix s)."""

    def forget(self, device_id: int, kind: str) -> None:
        """Drop a retired device."""

    def nonces_prune(self, before: float) -> int:
        """Forget nonces seen before `before` (Redis lets them expire by themselves)."""


def nonce_lifetime() -> int:
    """A nonce is kept as long as its timestamp could still be accepted, and then some."""
    return 2 * settings.CASINO_DEVICE_CLOCK_SKEW_SECONDS + 5


class RedisStore:
    def __init__(self, url: str, prefix: str = "casino:devices:") -> None:
        import redis

        self.client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        self.prefix = prefix
        self._claim = self.client.register_script(_CLAIM)

    def _seen_key(self, kind: str) -> str:
        return f"{self.prefix}seen:{kind}"

    def _nonce_key(self, key_id: str, nonce: str) -> str:
        return f"{self.prefix}nonce:{key_id}:{nonce}"

    def _claim_args(
        self, device_id: int, kind: str, key_id: str, nonce: str, at: float
    ) -> dict[str, list]:
        keys = [self._nonce_key(key_id, nonce), self._seen_key(kind), f"{self.prefix}revoked"]
        return {"keys": keys, "args": [nonce_lifetime(), repr(at), device_id, key_id]}

    @_reached
    def heartbeat(self, device_id: int, kind: str, key_id: str, nonce: str, at: float) -> bool:
        claimed = self._claim(**self._claim_args(device_id, kind, key_id, nonce, at))
        if claimed == -1:
            raise Revoked(key_id)
        return bool(claimed)

    @_reached
    def heartbeats(self, beats: list[tuple[int, str, str, str, float]]) -> int:
        """Many heartbeats in one pipeline (the bench's fast path); how many were new."""
        pipe = self.client.pipeline(transaction=False)
        for beat in beats:
            self._claim(**self._claim_args(*beat), client=pipe)
        return sum(1 for r in pipe.execute() if int(r) == 1)

    @_reached
    def revoke(self, key_id: str) -> None:
        self.client.sadd(f"{self.prefix}revoked", key_id)

    @_reached
    def nonce_claim(self, key_id: str, nonce: str, at: float) -> bool:
        key = self._nonce_key(key_id, nonce)
        return bool(self.client.set(key, "1", nx=True, ex=nonce_lifetime()))

    @_reached
    def seen(self, kind: str) -> dict[int, float]:
        pairs = self.client.zrange(self._seen_key(kind), 0, -1, withscores=True)
        return {int(member): score for member, score in pairs}

    @_reached
    def forget(self, device_id: int, kind: str) -> None:
        self.client.zrem(self._seen_key(kind), device_id)

    def nonces_prune(self, before: float) -> int:
        return 0

    def clear(self) -> None:
        """Remove every key of this store (tests and the bench use their own prefix)."""
        batch: list[bytes] = []
        for key in self.client.scan_iter(match=f"{self.prefix}*", count=1000):
            batch.append(key)
            if len(batch) == 1000:
                self.client.unlink(*batch)
                batch = []
        if batch:
            self.client.unlink(*batch)


class DatabaseStore:
    """The embedded default: the Device row's last_seen_at, and a row per nonce."""

    def heartbeat(self, device_id: int, kind: str, key_id: str, nonce: str, at: float) -> bool:
        from django.db.models import Q

        from devices.models import Device, DeviceCredential

        if DeviceCredential.objects.filter(key_id=key_id, revoked_at__isnull=False).exists():
            raise Revoked(key_id)
        with transaction.atomic():
            if not self.nonce_claim(key_id, nonce, at):
                return False
            moment = _moment(at)
            Device.objects.filter(
                Q(last_seen_at__isnull=True) | Q(last_seen_at__lt=moment), pk=device_id
            ).update(last_seen_at=moment)
        return True

    def revoke(self, key_id: str) -> None:
        pass  # the heartbeat reads the row

    def nonce_claim(self, key_id: str, nonce: str, at: float) -> bool:
        from devices.models import DeviceNonce

        try:
            with transaction.atomic():
                DeviceNonce.objects.create(key_id=key_id, nonce=nonce, seen_at=_moment(at))
        except IntegrityError:
            return False
        return True

    def seen(self, kind: str) -> dict[int, float]:
        from devices.models import Device

        rows = Device.objects.filter(kind=kind, last_seen_at__isnull=False)
        return {pk: seen.timestamp() for pk, seen in rows.values_list("pk", "last_seen_at")}

    def forget(self, device_id: int, kind: str) -> None:
        pass

    def nonces_prune(self, before: float) -> int:
        from devices.models import DeviceNonce

        return DeviceNonce.objects.filter(seen_at__lt=_moment(before)).delete()[0]


def _moment(at: float) -> datetime:
    return datetime.fromtimestamp(at, tz=timezone.get_current_timezone())


@cache
def store() -> Store:
    """The store the settings name: CASINO_DEVICE_STORE_URL (redis://...) or the database."""
    url = settings.CASINO_DEVICE_STORE_URL
    if url.startswith(("redis://", "rediss://")):
        return RedisStore(url, settings.CASINO_DEVICE_STORE_PREFIX)
    return DatabaseStore()
