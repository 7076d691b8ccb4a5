"""What each chapter says about the table itself: seats and how it is operated."""

from dataclasses import dataclass

MANUAL = "manual"
HYBRID = "hybrid"
ELECTRONIC = "electronic"
OPERATIONS = (MANUAL, HYBRID, ELECTRONIC)


@dataclass(frozen=True)
class Seating:
    """The betting positions a chapter allows: exactly, at most, or not stated."""

    most: int | None
    exact: bool
    cite: str

    def refusal(self, seats: int) -> str | None:
        """Why `seats` is not allowed, or None."""
        if seats < 1:
            return "a table has at least one betting position"
        if self.most is None:
            return None
        if self.exact and seats != self.most:
            return f"the table has betting positions for {self.most} players ({self.cite})"
        if seats > self.most:
            return f"the table has betting positions for up to {self.most} players ({self.cite})"
        return None


# (game, variant) -> seating. Chapter 623a sets no number for a Craps table (only its
# length, § 623a.2(b)), nor chapter 625a for Sic Bo: docs/regulations.md.
SEATING: dict[tuple[str, str], Seating] = {
    ("craps", "craps"): Seating(None, False, "§ 623a.2"),
    ("craps", "mini_craps"): Seating(9, False, "58 Pa. Code § 623a.2(c)"),
    ("high_roll_dice", "10_dice"): Seating(6, False, "58 Pa. Code § 675a.1(a)"),
    ("high_roll_dice", "6_dice"): Seating(6, False, "58 Pa. Code § 675a.1(a)"),
    ("pai_gow", "standard"): Seating(6, True, "58 Pa. Code § 621a.2(a)"),
    ("sic_bo", "standard"): Seating(None, False, "§ 625a.1"),
    ("three_dice_football", "standard"): Seating(16, False, "58 Pa. Code § 661a.2(a)"),
}

# Only Craps is played on hybrid and fully automated electronic tables (§ 623b.2(a),
# § 623b.4(a)); every other chapter describes a table run by a dealer.
OPERATIONS_BY_GAME: dict[str, tuple[str, ...]] = {
    "craps": OPERATIONS,
    "high_roll_dice": (MANUAL,),
    "pai_gow": (MANUAL,),
    "sic_bo": (MANUAL,),
    "three_dice_football": (MANUAL,),
}

# An automated Sic Bo shaker, § 625a.1(d)(2); no other game has one.
AUTOMATED_SHAKER_GAMES = ("sic_bo",)
