"""The floor snapshot in the shared cache (issue 21): at most a second old, and rebuilt at
once after a change to what it shows.

Every web process shares Django's default cache (settings.CACHES: Redis in production, the
broker's unless CASINO_CACHE_URL says otherwise; files under CASINO_DATA_DIR in the
embedded default). A snapshot is kept under a key that names the floor's version and the
caller's scope (the whole floor, or one certificate holder's tables), for SECONDS:

- A save or delete of a table, its certificate holder, an equipment set or a set in play,
  a round, a round's event (a wager, a result), a settlement request or a device bumps the
  version once the transaction commits (post_save / post_delete, connected by the casino
  app; senders named by label, so this module imports no app above it). Readers then miss
  and build the snapshot afresh: the change shows at once. So does a flush or a migration
  (post_migrate), which saves no row.
- What changes without a row, a device's live heartbeat (the Redis store) and a stuck
  settlement's age, is never more than SECONDS behind: the entry expires.
- The version is read before the snapshot is built, so a change that commits meanwhile
  files the old rows under the old version, which nobody reads again.
- Writes the signals miss (`QuerySet.update`, `bulk_create`: the outbox's send counts,
  wagers, which come with their round's event anyway) show within SECONDS.
- A snapshot built inside a transaction that has changed the floor and not yet committed
  is served to its caller and never stored: other processes must not see those rows.

The keys carry the database's name, so two databases sharing one Redis never share a floor.
"""

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.models.signals import post_delete, post_migrate, post_save

SECONDS = 1  # an entry's life: the page polls every 2 s and is never more than 2 s behind
WATCHED = (
    "casino.CertificateHolder",
    "casino.EquipmentSet",
    "casino.SetInPlay",
    "casino.Table",
    "devices.Device",
    "games.Round",
    "games.RoundEvent",
    "games.SettlementRequest",
)
log = logging.getLogger(__name__)
EVERYTHING = "all"  # a staff session's scope: the whole floor

T = TypeVar("T")


def _prefix() -> str:
    return f"floor:{settings.DATABASES[DEFAULT_DB_ALIAS]['NAME']}"


def holder_scope(holder_id: int | None) -> str:
    """The cache scope of a caller bounded to a certificate holder (None: everything)."""
    return EVERYTHING if holder_id is None else f"holder-{holder_id}"


def version() -> int:
    """The floor's version now (0 before any change was recorded)."""
    return cache.get(f"{_prefix()}:version") or 0


def version_bump() -> None:
    """A new version: every snapshot cached before it is no longer read."""
    key = f"{_prefix()}:version"
    try:
        cache.incr(key)
    except ValueError:  # no version yet (or evicted): start one, or count on another's
        if not cache.add(key, 1, timeout=None):
            cache.incr(key)


def floor_changed(**_: Any) -> None:
    """A change to what the floor shows: bump the version when it commits (once for each
    transaction however many rows it saves; at once outside a transaction)."""
    connection = connections[DEFAULT_DB_ALIAS]
    if connection.in_atomic_block and _bump_pending(connection):
        return
    # robust: a cache that cannot be reached logs, and never fails a write that committed.
    transaction.on_commit(version_bump, robust=True)


def _bump_pending(connection: Any) -> bool:
    # run_on_commit holds (savepoint ids, callback, robust) until the commit; a savepoint
    # rolled back takes its own entries with it.
    return any(entry[1] is version_bump for entry in connection.run_on_commit)


def cached(scope: str, build: Callable[[], T]) -> T:
    """The scope's snapshot from the cache, or `build()`'s, stored for SECONDS. A cache
    that cannot answer costs speed, never the floor: the snapshot is built."""
    try:
        key = f"{_prefix()}:{version()}:{scope}"
        found = cache.get(key)
    except Exception as error:  # the backend's own (redis-py's, the file system's)
        log.warning("the floor snapshot is built uncached: the cache failed (%s)", error)
        return build()
    if found is not None:
        return found
    built = build()
    connection = connections[DEFAULT_DB_ALIAS]
    if not (connection.in_atomic_block and _bump_pending(connection)):
        try:
            cache.set(key, built, timeout=SECONDS)
        except Exception as error:
            log.warning("the floor snapshot was not cached: the cache failed (%s)", error)
    return built


def connect() -> None:
    """Bump the version on every save or delete of a WATCHED model, and after migrate or
    flush (the casino app's ready())."""
    for label in WATCHED:
        post_save.connect(floor_changed, sender=label, dispatch_uid=f"floor-cache-{label}-save")
        post_delete.connect(floor_changed, sender=label, dispatch_uid=f"floor-cache-{label}-del")
    post_migrate.connect(_migrated, dispatch_uid="floor-cache-migrate")


def _migrated(**_: Any) -> None:
    try:
        version_bump()
    except Exception as error:  # a migration never fails for the cache
        log.warning("the floor's version was not bumped after migrate: %s", error)
