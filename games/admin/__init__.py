"""The rounds' admin (issue 7): operations run rounds, compliance reviews and corrects.

Rounds, their events, wagers, resolutions and the ledger are written only by
games.services; the admin shows them read-only and its buttons call those services.
"""

from games.admin import ledger, outbox, rounds

__all__ = ["ledger", "outbox", "rounds"]
