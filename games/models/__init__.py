"""Rounds, their wagers and resolutions, the ledger, and the settlement outbox."""

from games.models.ledger import LedgerEntry, LedgerLine
from games.models.outbox import SettlementRequest
from games.models.rounds import Resolution, Round, RoundEvent, Wager

__all__ = [
    "LedgerEntry",
    "LedgerLine",
    "Resolution",
    "Round",
    "RoundEvent",
    "SettlementRequest",
    "Wager",
]
