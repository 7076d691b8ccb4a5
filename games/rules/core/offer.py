"""What a table offers, as each engine describes it: every wager kind with its name, its
payouts, when it may be made, reduced and removed, its limits, the section that defines it
and the PAR records that price it.

Each engine builds these from its own data (the wager types and their paragraphs, the
paytables, the timing and removal rules its checks enforce), so the API's catalog, the
round's `next` and the PAR sheet list the same kinds, named once.
"""

from dataclasses import dataclass
from decimal import Decimal

from games.rules.core.limits import TableLimits
from games.rules.core.money import format_money


@dataclass(frozen=True)
class Moment:
    """When a rule lets a wager be made, reduced or removed: in words, and the section;
    `allowed` False when it never may (the words say why)."""

    words: str
    section: str
    allowed: bool = True


@dataclass(frozen=True)
class Payout:
    """One line of a wager's paytable: what it pays when `when` happens."""

    when: str
    pays: str


@dataclass(frozen=True)
class Offer:
    """One wager kind a table offers under its options.

    `reduced` and `removed` say when the wager may be reduced and taken down (never, with
    the section, where it stays until decided). `minimum` and `maximum` are None where no
    limit is posted; `limits_note` says what else bounds the amount (units, the bet odds
    support).
    """

    kind: str
    label: str
    section: str
    payouts: tuple[Payout, ...]
    paid_under: str
    made: Moment
    reduced: Moment
    removed: Moment
    minimum: Decimal | None
    maximum: Decimal | None
    par_kinds: tuple[str, ...]
    limits_note: str | None = None

    def describe(self) -> dict[str, object]:
        """The offer as JSON-ready values (amounts as strings)."""
        return {
            "kind": self.kind,
            "label": self.label,
            "section": self.section,
            "payouts": [{"when": p.when, "pays": p.pays} for p in self.payouts],
            "paid_under": self.paid_under,
            "made": _moment(self.made),
            "reduced": _moment(self.reduced),
            "removed": _moment(self.removed),
            "minimum": None if self.minimum is None else format_money(self.minimum),
            "maximum": None if self.maximum is None else format_money(self.maximum),
            "limits_note": self.limits_note,
            "par_kinds": list(self.par_kinds),
        }


def _moment(moment: Moment) -> dict[str, object]:
    return {"words": moment.words, "section": moment.section, "allowed": moment.allowed}


def never_taken_down(section: str) -> Moment:
    """A chapter with no take-down: the engine takes none, the wager stays until decided."""
    return Moment("never: the chapter makes no provision; it stays until decided", section, False)


def posted(limits: TableLimits) -> tuple[Decimal | None, Decimal | None]:
    """The table's posted minimum and maximum, for a wager they bound."""
    return limits.minimum, limits.maximum


def wager_summary(wager_id: str, player: str, kind: str, amount: Decimal) -> dict[str, object]:
    """A wager as every game's state view shows it."""
    return {"id": wager_id, "player": player, "kind": kind, "amount": format_money(amount)}
