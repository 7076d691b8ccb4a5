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
from django.db.models import Q
from django.utils import timezone
from redis.exceptions import NoScriptError

from casino.redis_connect import is_redis, master_address, redis_from_url
from devices.models import Device, DeviceCredential, DeviceNonce

# One heartbeat's claim, given the epoch the store began at (written when it was first
# found empty, after the credentials that end were copied in from the database; a script
# finding none answers -2: Redis lost its data, rebuild first). A credential that has
# ended (-1) is refused; so is a request signed before the store began (-3), since a nonce
# it used may have been lost with the rest. Then claim the nonce; only a new one writes
# the heartbeat, and never moves a device's time back (GT).
_CLAIM_ONE = """
local function claim(ends_key, epoch, nonce_key, seen_key, lifetime, at, member, key_id, signed)
  local ends = redis.call('HGET', ends_key, key_id)
  if ends and tonumber(at) >= tonumber(ends) then return -1 end
  if tonumber(signed) < tonumber(epoch) then return -3 end
  if redis.call('SET', nonce_key, '1', 'NX', 'EX', lifetime) then
    redis.call('ZADD', seen_key, 'GT', at, member)
    return 1
  end
  return 0
end
"""

# One request counted in a budget's fixed window (casino/api/throttles.py): the count so
# far, the counter made to expire with its window.
_SPEND_ONE = """
local function spend(counter, expiry)
  local count = redis.call('INCR', counter)
  if count == 1 then redis.call('EXPIRE', counter, expiry) end
  return count
end
"""

# A heartbeat. KEYS: nonce key, sorted set, ends hash, epoch key, and the key's budget's
# counter if it has one. ARGV: nonce lifetime (s), last-seen score (the server's now),
# member, key id, signed at (Unix s), and the budget's requests and the counter's expiry
# (s). The budget is counted in the same trip (fixed windows, casino/api/throttles.py),
# once the store is known to be begun (an answer of -2 is sent again); over it (-4),
# nothing else is done.
_CLAIM = (
    _CLAIM_ONE
    + _SPEND_ONE
    + """
local epoch = redis.call('GET', KEYS[4])
if not epoch then return -2 end
if KEYS[5] and spend(KEYS[5], ARGV[7]) > tonumber(ARGV[6]) then return -4 end
return claim(KEYS[3], epoch, KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5])
"""
)

# Many heartbeats, each claimed as _CLAIM claims one (the pipelined path: one call a batch
# rather than one a heartbeat, the epoch read once); one answer each, in order. KEYS: ends
# hash, epoch key, then a nonce key and a sorted set a heartbeat. ARGV: nonce lifetime (s),
# then last-seen score, member, key id and signed at a heartbeat.
_CLAIMS = (
    _CLAIM_ONE
    + """
local epoch = redis.call('GET', KEYS[2])
local answers = {}
for i = 1, (#KEYS - 2) / 2 do
  if epoch then
    local k, a = 2 * i + 1, 4 * i - 2
    answers[i] = claim(KEYS[1], epoch, KEYS[k], KEYS[k + 1], ARGV[1],
                       ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3])
  else
    answers[i] = -2
  end
end
return answers
"""
)

# The same for a request that is not a heartbeat (its credential was read from the
# database). KEYS: nonce key, epoch key. ARGV: nonce lifetime (s), signed at (Unix s).
_NONCE = """
local epoch = redis.call('GET', KEYS[2])
if not epoch then return -2 end
if tonumber(ARGV[2]) < tonumber(epoch) then return -3 end
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then return 1 end
return 0
"""

# Record when credentials end, keeping the earlier end where one is known (a stale read
# of the database never lengthens a credential); then, if ARGV[1] is not empty, mark the
# store as begun at that time (NX: the first rebuild wins). KEYS: ends hash, epoch key.
# ARGV: epoch or '', then key id, end (Unix s) pairs.
_ENDS = """
for i = 2, #ARGV, 2 do
  local was = redis.call('HGET', KEYS[1], ARGV[i])
  if not was or tonumber(ARGV[i + 1]) < tonumber(was) then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  end
end
if ARGV[1] ~= '' then redis.call('SET', KEYS[2], ARGV[1], 'NX') end
return 1
"""

# A request that is not a heartbeat counted in its budget (a heartbeat's own call counts
# it, _CLAIM). KEYS: the counter. ARGV: its expiry (s).
_COUNT = _SPEND_ONE + "return spend(KEYS[1], ARGV[1])\n"


F = TypeVar("F", bound=Callable[..., Any])

# Heartbeats a script call on the pipelined path (RedisStore.heartbeats): Redis runs
# nothing else meanwhile, about a millisecond.
_BATCH = 250


def _bulk(*parts: bytes) -> bytes:
    """Bulk strings in Redis's protocol (RESP): $length, the bytes, each line ending CRLF."""
    return b"".join(b"$%d\r\n%s\r\n" % (len(part), part) for part in parts)


class StoreUnavailable(Exception):
    """The heartbeat store cannot be reached (the endpoints answer 503)."""


class Revoked(Exception):
    """The credential was revoked: its heartbeats are refused at once, cache or not."""


class OverBudget(Exception):
    """The key has spent its budget of this window: nothing was recorded. `wait` is the
    whole seconds until the window ends (Retry-After)."""

    def __init__(self, wait: int) -> None:
        self.wait = wait
        super().__init__(wait)


class Budget(Protocol):
    """A request budget's window as casino/api/throttles.py gives it (`Window`)."""

    key: str  # the window's counter
    requests: int  # the most it lets through
    kept: int  # the counter's expiry (s)
    wait: int  # whole seconds until the window ends


class SignedBeforeStart(Exception):
    """The request was signed before the store began (Redis came back empty since): its
    nonce may have been used and lost, so it is refused as a possible replay."""


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
    # Whether `heartbeat` counts a budget in its own call (else the caller counts it).
    counts_budgets: bool

    def heartbeat(
        self,
        device_id: int,
        kind: str,
        key_id: str,
        nonce: str,
        at: float,
        signed_at: float | None = None,
        budget: Budget | None = None,
    ) -> bool:
        """Claim the nonce and record the heartbeat at `at` (the server's now); False
        (nothing written) if it was used; Revoked if the credential has ended;
        SignedBeforeStart if `signed_at` is before the store began (None: the heartbeat
        comes from no signed request, so there is nothing to replay). A store that
        `counts_budgets` counts `budget` first, in the same call: OverBudget, nothing
        recorded, once it is spent; the others take no budget."""

    def budget_count(self, budget: Budget) -> int:
        """Count one request in `budget`'s window: how many it holds now (a store that
        `counts_budgets` only)."""

    def revoke(self, key_id: str, at: float = 0.0) -> None:
        """Refuse this credential's heartbeats from `at` (Unix s; 0: from now) on."""

    def ends_copy(self, ends: dict[str, float]) -> None:
        """Record when these credentials end (the watch copies them from the database)."""

    def nonce_claim(
        self, key_id: str, nonce: str, at: float, signed_at: float | None = None
    ) -> bool:
        """Claim a nonce for a request that is not a heartbeat; False if it was used;
        SignedBeforeStart if `signed_at` is before the store began."""

    def seen(self, kind: str) -> dict[int, float]:
        """Every device of the kind that has been heard from: id → last heartbeat (Unix s)."""

    def forget(self, device_id: int, kind: str) -> None:
        """Drop a retired device."""

    def nonces_prune(self, before: float) -> int:
        """Forget nonces seen before `before` (Redis lets them expire by themselves)."""


def nonce_lifetime() -> int:
    """A nonce is kept as long as its timestamp could still be accepted, and then some."""
    return 2 * settings.CASINO_DEVICE_CLOCK_SKEW_SECONDS + 5


def credential_ends(since: float | None = None) -> dict[str, float]:
    """Every credential the database says has ended or will end: key id → Unix seconds
    (0 for revoked, or of a retired device), for a store that lost what it knew; with
    `since`, only those revoked or ending since then (what a cache may still hold)."""
    if since is None:
        ended = (
            Q(revoked_at__isnull=False)
            | Q(expires_at__isnull=False)
            | Q(device__status=Device.Status.RETIRED)
        )
    else:
        moment = _moment(since)
        ended = Q(revoked_at__gte=moment) | Q(expires_at__gte=moment)
    ends: dict[str, float] = {}
    rows = DeviceCredential.objects.filter(ended).values_list(
        "key_id", "revoked_at", "expires_at", "device__status"
    )
    for key_id, revoked_at, expires_at, status in rows:
        if revoked_at is not None or status == Device.Status.RETIRED:
            ends[key_id] = 0.0
        else:
            ends[key_id] = expires_at.timestamp()
    return ends


class RedisStore:
    """Heartbeats, nonces and ended credentials in Redis, which may lose them all: the store
    notices (its epoch key is gone), copies the ended credentials back from the database
    and refuses requests signed before that moment (docs/deploy.md)."""

    counts_budgets = True

    def __init__(
        self,
        url: str,
        prefix: str = "casino:devices:",
        ends_read: Callable[[], dict[str, float]] = credential_ends,
    ) -> None:
        self.client = redis_from_url(
            url, settings.CASINO_REDIS_MASTER_NAME, socket_timeout=2, socket_connect_timeout=2
        )
        self.prefix = prefix
        self.ends_read = ends_read
        self._claim = self.client.register_script(_CLAIM)
        self._claims = self.client.register_script(_CLAIMS)
        self._nonce = self.client.register_script(_NONCE)
        self._ends = self.client.register_script(_ENDS)
        self._count = self.client.register_script(_COUNT)

    def _seen_key(self, kind: str) -> str:
        return f"{self.prefix}seen:{kind}"

    def _nonce_key(self, key_id: str, nonce: str) -> str:
        return f"{self.prefix}nonce:{key_id}:{nonce}"

    @property
    def ends_key(self) -> str:
        return f"{self.prefix}ends"

    @property
    def epoch_key(self) -> str:
        """The epoch of the primary this client reaches. Through Sentinel each primary has
        its own: a replica promoted holds what was copied to it, but perhaps not the last
        nonces or ends its old primary took, so the store begins again on it (its epoch key
        is missing) as on a Redis that came back empty."""
        primary = master_address(self.client)
        return f"{self.prefix}epoch:{primary}" if primary else f"{self.prefix}epoch"

    def _primary_kept(self, primary: str, key_id: str) -> None:
        """SignedBeforeStart if the primary changed during a call made with `primary`'s
        epoch: the answer came from a primary whose epoch was not checked."""
        if master_address(self.client) != primary:
            raise SignedBeforeStart(key_id)

    def _claim_args(
        self,
        device_id: int,
        kind: str,
        key_id: str,
        nonce: str,
        at: float,
        signed_at: float | None = None,
        budget: Budget | None = None,
    ) -> dict[str, list]:
        keys = [
            self._nonce_key(key_id, nonce),
            self._seen_key(kind),
            self.ends_key,
            self.epoch_key,
        ]
        signed = 1e300 if signed_at is None else signed_at  # None: no request to replay
        args = [nonce_lifetime(), repr(at), device_id, key_id, repr(float(signed))]
        if budget is not None:
            keys.append(f"{self.prefix}{budget.key}")
            args += [budget.requests, budget.kept]
        return {"keys": keys, "args": args}

    @_reached
    def begin(self, at: float) -> float:
        """If Redis lost the store (no epoch), copy the ended credentials back from the
        database and mark it begun at `at`; the epoch in force (Unix s)."""
        epoch_key = self.epoch_key
        epoch = self.client.get(epoch_key)
        if epoch is None:
            ends = self.ends_read()
            pairs = [item for key_id, end in ends.items() for item in (key_id, repr(float(end)))]
            self._ends(keys=[self.ends_key, epoch_key], args=[repr(float(at)), *pairs])
            epoch = self.client.get(epoch_key)
            # An earlier primary's epoch goes: were it promoted again, it begins again too.
            for key in self.client.scan_iter(match=f"{self.prefix}epoch*"):
                if key.decode() != epoch_key:
                    self.client.delete(key)
        return float(epoch)

    @_reached
    def heartbeat(
        self,
        device_id: int,
        kind: str,
        key_id: str,
        nonce: str,
        at: float,
        signed_at: float | None = None,
        budget: Budget | None = None,
    ) -> bool:
        primary = master_address(self.client)
        args = self._claim_args(device_id, kind, key_id, nonce, at, signed_at, budget)
        claimed = self._evalsha(self._claim, **args)
        if claimed == -2:  # Redis came back empty: nothing is taken until it is rebuilt
            self.begin(at)
            claimed = self._evalsha(self._claim, **args)
        self._primary_kept(primary, key_id)
        if claimed == -4 and budget is not None:  # -4 only where a budget was sent
            raise OverBudget(budget.wait)
        if claimed == -1:
            raise Revoked(key_id)
        if claimed in (-2, -3):
            raise SignedBeforeStart(key_id)
        return bool(claimed)

    def _evalsha(self, script: Any, keys: list, args: list) -> Any:
        """`script(keys=keys, args=args)` as redis-py runs it (EVALSHA, the script loaded
        again if Redis does not know it), the command packed here: redis-py's packing costs
        a heartbeat about as much CPU as the rest of the call."""
        parts = [script.sha, len(keys), *keys, *args]
        packed = b"*%d\r\n" % (len(parts) + 1) + _bulk(
            b"EVALSHA", *(str(p).encode() for p in parts)
        )
        pool = self.client.connection_pool
        connection = pool.get_connection()
        try:
            connection.send_packed_command([packed], check_health=False)
            try:
                return connection.read_response()
            except NoScriptError:  # Redis restarted since the script was loaded
                self.client.script_load(script.script)
                connection.send_packed_command([packed], check_health=False)
                return connection.read_response()
        except BaseException:
            connection.disconnect()  # an answer may be left unread on it
            raise
        finally:
            pool.release(connection)

    @_reached
    def heartbeats(self, beats: list[tuple[int, str, str, str, float]]) -> int:
        """Many heartbeats, (device id, kind, key id, nonce, at) each, claimed as `heartbeat`
        claims one, a batch of them a script call, the calls pipelined; how many were new.
        A refused one (revoked, a used nonce) is not counted.

        The commands are packed here, not by redis-py (whose packing, an argument at a
        time, costs more than Redis's running of the script), and written a batch at a
        time, so Redis runs a batch while the next is packed: in all one write and one
        read, unless Redis lost its data (the store begun again) or its scripts (loaded
        again), when the batches it did not run are sent once more."""
        batches = [beats[start : start + _BATCH] for start in range(0, len(beats), _BATCH)]
        new, again = self._claims_run(batches)
        if again:
            self.begin(beats[0][4])
            new += self._claims_run(again)[0]
        return new

    def _claims_run(self, batches: list[list]) -> tuple[int, list[list]]:
        """Claim these batches; (new heartbeats, the batches to send again: Redis had lost
        its data or did not know the script). Unknown to Redis, the script is loaded here."""
        pool = self.client.connection_pool
        connection = pool.get_connection()
        new, again, unknown = 0, [], False
        try:
            for batch in batches:
                connection.send_packed_command([self._claims_packed(batch)], check_health=False)
            for batch in batches:
                try:
                    answers = connection.read_response()
                except NoScriptError:  # Redis restarted since the script was loaded
                    again.append(batch)
                    unknown = True
                    continue
                if answers and answers[0] == -2:  # Redis lost its data: begin again
                    again.append(batch)
                    continue
                new += answers.count(1)
        except BaseException:
            connection.disconnect()  # answers may be left unread on it
            raise
        finally:
            pool.release(connection)
        if unknown:
            self.client.script_load(self._claims.script)
        return new, again

    def _claims_packed(self, beats: list[tuple[int, str, str, str, float]]) -> bytes:
        """EVALSHA of _CLAIMS for these heartbeats, in Redis's protocol (RESP)."""
        keys, args = [], []
        nonce_prefix = f"{self.prefix}nonce:"
        for device_id, kind, key_id, nonce, at in beats:
            keys.append(_bulk(f"{nonce_prefix}{key_id}:{nonce}".encode(),
                              self._seen_key(kind).encode()))  # fmt: skip
            # Signed at 1e300: as `heartbeat` with no signed request, nothing to replay.
            args.append(_bulk(repr(at).encode(), str(device_id).encode(), key_id.encode(),
                              b"1e+300"))  # fmt: skip
        count = len(beats)
        return b"".join(
            [
                b"*%d\r\n" % (3 + 2 + 2 * count + 1 + 4 * count),
                _bulk(b"EVALSHA", self._claims.sha.encode(), b"%d" % (2 + 2 * count)),
                _bulk(self.ends_key.encode(), self.epoch_key.encode()),
                *keys,
                _bulk(str(nonce_lifetime()).encode()),
                *args,
            ]
        )

    @_reached
    def budget_count(self, budget: Budget) -> int:
        return int(self._count(keys=[f"{self.prefix}{budget.key}"], args=[budget.kept]))

    @_reached
    def revoke(self, key_id: str, at: float = 0.0) -> None:
        self.ends_copy({key_id: at})

    @_reached
    def ends_copy(self, ends: dict[str, float]) -> None:
        """Record when these credentials end (an earlier end already known stays)."""
        if ends:
            pairs = [item for key_id, at in ends.items() for item in (key_id, repr(float(at)))]
            self._ends(keys=[self.ends_key, self.epoch_key], args=["", *pairs])

    @_reached
    def nonce_claim(
        self, key_id: str, nonce: str, at: float, signed_at: float | None = None
    ) -> bool:
        signed = 1e300 if signed_at is None else signed_at
        primary = master_address(self.client)
        args = {
            "keys": [self._nonce_key(key_id, nonce), self.epoch_key],
            "args": [nonce_lifetime(), repr(float(signed))],
        }
        claimed = self._nonce(**args)
        if claimed == -2:
            self.begin(at)
            claimed = self._nonce(**args)
        self._primary_kept(primary, key_id)
        if claimed in (-2, -3):
            raise SignedBeforeStart(key_id)
        return bool(claimed)

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
    """The embedded default: the Device row's last_seen_at, and a row per nonce. It loses
    nothing the database keeps, so it has no epoch. A heartbeat's budget is the caller's
    to count (in the cache)."""

    counts_budgets = False

    def heartbeat(
        self,
        device_id: int,
        kind: str,
        key_id: str,
        nonce: str,
        at: float,
        signed_at: float | None = None,
        budget: Budget | None = None,
    ) -> bool:
        moment = _moment(at)
        ended = Q(revoked_at__isnull=False) | Q(expires_at__lte=moment)
        if DeviceCredential.objects.filter(ended, key_id=key_id).exists():
            raise Revoked(key_id)
        with transaction.atomic():
            if not self.nonce_claim(key_id, nonce, at):
                return False
            Device.objects.filter(
                Q(last_seen_at__isnull=True) | Q(last_seen_at__lt=moment), pk=device_id
            ).update(last_seen_at=moment)
        return True

    def revoke(self, key_id: str, at: float = 0.0) -> None:
        pass  # the heartbeat reads the row

    def ends_copy(self, ends: dict[str, float]) -> None:
        pass  # the heartbeat reads the row

    def nonce_claim(
        self, key_id: str, nonce: str, at: float, signed_at: float | None = None
    ) -> bool:
        try:
            with transaction.atomic():
                DeviceNonce.objects.create(key_id=key_id, nonce=nonce, seen_at=_moment(at))
        except IntegrityError:
            return False
        return True

    def seen(self, kind: str) -> dict[int, float]:
        rows = Device.objects.filter(kind=kind, last_seen_at__isnull=False)
        return {pk: seen.timestamp() for pk, seen in rows.values_list("pk", "last_seen_at")}

    def forget(self, device_id: int, kind: str) -> None:
        pass

    def nonces_prune(self, before: float) -> int:
        return DeviceNonce.objects.filter(seen_at__lt=_moment(before)).delete()[0]


def _moment(at: float) -> datetime:
    return datetime.fromtimestamp(at, tz=timezone.get_current_timezone())


@cache
def store() -> Store:
    """The store the settings name: CASINO_DEVICE_STORE_URL (redis://..., sentinel://...) or
    the database."""
    url = settings.CASINO_DEVICE_STORE_URL
    if is_redis(url):
        return RedisStore(url, settings.CASINO_DEVICE_STORE_PREFIX)
    return DatabaseStore()
