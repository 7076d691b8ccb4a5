"""Reads kept in the shared cache under a version that every change to what they show
bumps when it commits (issue 21): the floor snapshot (casino/floor_cache.py) and who an
API token acts as (casino/api/auth.py).

Every web process shares Django's default cache (settings.CACHES: Redis in production, the
broker's unless CASINO_CACHE_URL says otherwise; files under CASINO_DATA_DIR in the
embedded default). An entry's key names its cache, the database and a scope; it holds the
version it was built under, read with it in one trip and served only while it is current:

- A save or delete of a watched model (post_save, post_delete, m2m_changed; senders named
  by label, so this module imports no app) bumps the version once the transaction commits,
  once a transaction however many rows it saves. Readers then miss and read afresh: the
  change shows at once. A flush or a migration (post_migrate) bumps it too.
- The version is read before the entry is built, so a change that commits meanwhile files
  the old rows under the old version, which nobody serves again (versions are random: one
  never comes back).
- A connection whose open transaction has changed a watched model reads past the cache and
  stores nothing: others must not see rows that may roll back, and it must see its own.
- A cache that cannot answer costs speed, never the read: the entry is built.
- Every entry expires after `seconds`, which bounds what the signals miss (`update()`,
  `bulk_create`, a change that commits while the cache is unreachable).

The keys carry the database's name, so two databases sharing one Redis never share an entry.
"""

import logging
import uuid
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.models.signals import m2m_changed, post_delete, post_migrate, post_save

log = logging.getLogger(__name__)
T = TypeVar("T")


class VersionedCache:
    """One cache of reads: `cached(scope, build)`, bumped by changes to `watched`."""

    def __init__(self, name: str, *, watched: Iterable[str], seconds: float) -> None:
        self.name = name
        self.watched = tuple(watched)
        self.seconds = seconds

    def _prefix(self) -> str:
        return f"{self.name}:{settings.DATABASES[DEFAULT_DB_ALIAS]['NAME']}"

    def bump(self) -> None:
        """A new version: every entry cached before it is no longer read. A random one,
        written in one trip (nothing needs versions in order, only new ones)."""
        cache.set(f"{self._prefix()}:version", uuid.uuid4().hex, timeout=None)

    def changed(self, **_: Any) -> None:
        """A change to what the cache shows: bump the version when it commits (at once
        outside a transaction)."""
        if self.pending():
            return
        # robust: a cache that cannot be reached logs, and never fails a write that committed.
        transaction.on_commit(self.bump, robust=True)

    def pending(self) -> bool:
        """This connection's open transaction has changed what the cache shows."""
        connection = connections[DEFAULT_DB_ALIAS]
        # run_on_commit holds (savepoint ids, callback, robust) until the commit; a savepoint
        # rolled back takes its own entries with it.
        return connection.in_atomic_block and any(
            entry[1] == self.bump for entry in connection.run_on_commit
        )

    def keys(self, scope: str) -> tuple[str, str]:
        """The version's key and the scope's entry's, to read in one trip (`read`)."""
        return f"{self._prefix()}:version", f"{self._prefix()}:entry:{scope}"

    def cached(self, scope: str, build: Callable[[], T]) -> T:
        """The scope's entry from the cache, or `build()`'s, stored for `seconds` (None never:
        an unknown token is looked up again, so the database answers, or its outage shows).

        One trip: the version and the entry in one read; an entry is kept with the version
        read before it was built, and served only while that is still the version."""
        if self.pending():
            return build()
        return self.serve(read(self.keys(scope), self.name), scope, build)

    def serve(self, found: dict[str, Any] | None, scope: str, build: Callable[[], T]) -> T:
        """The scope's entry among `found` (what `read` gave for `keys(scope)`, maybe with
        other caches' keys: one trip for several) if current, else `build()`'s, stored."""
        if found is None or self.pending():  # the cache failed, or rows not yet committed
            return build()
        version_key, key = self.keys(scope)
        version = found.get(version_key) or "0"
        entry = found.get(key)
        if entry is not None and entry[0] == version:
            return entry[1]
        built = build()
        if built is not None and not self.pending():  # nothing found is read again next time
            try:
                cache.set(key, (version, built), timeout=self.seconds)
            except Exception as error:
                log.warning("%s not cached: the cache failed: %s", self.name, error)
        return built

    def connect(self, *, m2m: Iterable[Any] = ()) -> None:
        """Bump on every save or delete of a watched model, every change to the `m2m`
        through models, and after migrate or flush (an app's ready())."""
        for label in self.watched:
            uid = f"{self.name}-{label}"
            post_save.connect(self.changed, sender=label, weak=False, dispatch_uid=f"{uid}-save")
            post_delete.connect(self.changed, sender=label, weak=False, dispatch_uid=f"{uid}-del")
        for through in m2m:
            m2m_changed.connect(
                self.changed, sender=through, weak=False, dispatch_uid=f"{self.name}-{through}"
            )
        post_migrate.connect(self._migrated, weak=False, dispatch_uid=f"{self.name}-migrate")

    def _migrated(self, **_: Any) -> None:
        try:
            self.bump()
        except Exception as error:  # a migration never fails for the cache
            log.warning("%s: the version was not bumped after migrate: %s", self.name, error)


def read(keys: Iterable[str], name: str) -> dict[str, Any] | None:
    """The keys' values in one trip (several caches' at once), or None if the cache failed."""
    try:
        return cache.get_many(list(keys))
    except Exception as error:  # the backend's own (redis-py's, the file system's)
        log.warning("%s read past the cache, which failed: %s", name, error)
        return None
