"""The append-only double-entry ledger: every entry's lines sum to zero.

Accounts are per table: each player's, the layout (stakes at risk, not yet decided), the
table inventory (the house's chips), and fees (the vigorish and the Extra Roll purchase).
A line's amount is the change to that account's balance: a player's line of +10 is ten
dollars to the player.
"""

from django.conf import settings
from django.db import models

from casino.models.append_only import AppendOnly
from casino.rules.text import PLAYER_NAME_KEPT_LENGTH


class LedgerEntry(AppendOnly):
    """One posting: a placement, a round's settlement or an adjustment. `key` is unique,
    so the same posting can never be made twice."""

    class Kind(models.TextChoices):
        PLACEMENT = "placement", "Wagers placed"
        SETTLEMENT = "settlement", "Round settled"
        ADJUSTMENT = "adjustment", "Adjusting entry"

    key = models.CharField(max_length=80, unique=True)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    table = models.ForeignKey("casino.Table", on_delete=models.PROTECT, related_name="+")
    round = models.ForeignKey(
        "games.Round", on_delete=models.PROTECT, related_name="ledger_entries"
    )
    posted_at = models.DateTimeField()
    posted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    memo = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]
        verbose_name_plural = "ledger entries"
        permissions = [("adjust_ledger", "Can post an adjusting entry to a settled round")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.round}"


class LedgerLine(AppendOnly):
    """One side of a posting."""

    class Account(models.TextChoices):
        PLAYER = "player", "Player"
        LAYOUT = "layout", "Layout (stakes at risk)"
        INVENTORY = "inventory", "Table inventory"
        FEES = "fees", "Fees (vigorish, Extra Roll)"

    class Kind(models.TextChoices):
        STAKE = "stake", "Stake placed"
        STAKE_RETURNED = "stake_returned", "Stake returned"
        STAKE_LOST = "stake_lost", "Stake lost"
        STAKE_REDUCED = "stake_reduced", "Stake reduced"
        WINNINGS = "winnings", "Winnings at the posted odds"
        PAYOUT_LIMIT_REDUCTION = "payout_limit_reduction", "Payout limit reduction"
        VIGORISH = "vigorish", "Vigorish"
        EXTRA_ROLL = "extra_roll", "Extra Roll purchase"
        ADJUSTMENT = "adjustment", "Adjustment"

    entry = models.ForeignKey(LedgerEntry, on_delete=models.PROTECT, related_name="lines")
    table = models.ForeignKey("casino.Table", on_delete=models.PROTECT, related_name="+")
    account = models.CharField(max_length=16, choices=Account.choices)
    player = models.CharField(max_length=PLAYER_NAME_KEPT_LENGTH, blank=True)
    wager = models.ForeignKey(
        "games.Wager", on_delete=models.PROTECT, null=True, blank=True, related_name="ledger_lines"
    )
    kind = models.CharField(max_length=32, choices=Kind.choices)
    amount = models.DecimalField(max_digits=14, decimal_places=2)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["table", "account", "player"], name="ledger_balance")]

    def __str__(self) -> str:
        who = f"{self.account}:{self.player}" if self.player else self.account
        return f"{who} {self.amount:+} {self.kind}"
