"""The floor snapshot in the shared cache (issue 21): at most a second old, and rebuilt at
once after a change to what it shows (casino/versioned.py says how).

What bumps it: a save or delete of a table, its certificate holder, an equipment set or a
set in play, a round, a round's event (a wager, a result), a settlement request or a
device. What changes without a row, a device's live heartbeat (the Redis store) and a
stuck settlement's age, is never more than SECONDS behind: the entry expires. A snapshot
is kept per scope: the whole floor (a staff session), or one certificate holder's tables
(an API token's), each served as it was built, never filtered per request.

The entry is the snapshot as JSON (DRF's JSONRenderer's bytes): the API sends it as it is.

Whether a signed-in user may see the floor (its data polled by the page) is kept too
(`VIEWERS`, read with the floor's entry in one trip): a change to any user, group,
permission or membership bumps it on commit, so a role taken away stops at once.
"""

from django.conf import settings

from casino.versioned import VersionedCache

SECONDS = 1  # an entry's life: the page polls every 2 s and is never more than 2 s behind
FLOOR = VersionedCache(
    "floor",
    watched=(
        "casino.CertificateHolder",
        "casino.EquipmentSet",
        "casino.SetInPlay",
        "casino.Table",
        "devices.Device",
        "games.Round",
        "games.RoundEvent",
        "games.SettlementRequest",
    ),
    seconds=SECONDS,
)
VIEWERS = VersionedCache(
    "floor-viewer",
    watched=(settings.AUTH_USER_MODEL, "auth.Group", "auth.Permission"),
    seconds=60,
)
EVERYTHING = "all"  # a staff session's scope: the whole floor


def holder_scope(holder_id: int | None) -> str:
    """The cache scope of a caller bounded to a certificate holder (None: everything)."""
    return EVERYTHING if holder_id is None else f"holder-{holder_id}"


def viewer_scope(user_id: int, permission: str) -> str:
    """The VIEWERS scope of a user's answer for a permission."""
    return f"user-{user_id}:{permission}"
