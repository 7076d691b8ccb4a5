"""The wager ids a table has taken, so an id is used once: immutable, and cheap to extend.

A table's state is a new value after every event. Copying one growing frozenset on every
wagers event made a long session quadratic (a Craps table takes tens of thousands of wagers
a day), so the ids are kept in levels of decreasing size, merged like a binary counter:
adding is amortised O(log n) copies, a lookup checks O(log n) sets.
"""

from collections.abc import Iterable, Set
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class UsedIds:
    """Every id taken so far; `levels` are disjoint sets, each larger than the next."""

    levels: tuple[frozenset[str], ...] = ()

    def __contains__(self, wager_id: object) -> bool:
        return any(wager_id in level for level in self.levels)

    def taken_of(self, wager_ids: Set[str]) -> set[str]:
        """Those of `wager_ids` already taken: one set operation a level, not one a wager."""
        taken: set[str] = set()
        for level in self.levels:
            if not level.isdisjoint(wager_ids):
                taken |= level.intersection(wager_ids)
        return taken

    def __len__(self) -> int:
        return sum(len(level) for level in self.levels)

    def with_ids(self, new_ids: Iterable[str]) -> "UsedIds":
        """These ids taken too (ids already taken are the caller's to refuse)."""
        merged = frozenset(new_ids)
        if not merged:
            return self
        levels = list(self.levels)
        while levels and len(levels[-1]) <= len(merged):
            merged = levels.pop() | merged
        return UsedIds((*levels, merged))


NO_IDS = UsedIds()  # a fresh table's
