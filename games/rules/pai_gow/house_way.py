"""Setting hands: the three ways to split four tiles, and the house way of § 621a.8(d).

The dealer's hands are always set the house way; so are the hands of a player bank,
or the dealer resets them (§ 621a.10(f)), and of a co-bank, which the dealer sets
(§ 621a.9(e)). A player may ask to have his own hands set the same way.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, cached_property

from games.rules.pai_gow.ranking import (
    LOWEST_PAIR,
    SUPREME_PAIR,
    Hand,
    hand_strength,
    hand_value,
    pair_rank,
)
from games.rules.pai_gow.tiles import TILE_RANK, Tile

# Values the dealer plays together when he holds no pair, Wong or Gong (§ 621a.8(d)(3)).
SEVEN_EIGHT_NINE = (7, 8, 9)
# Where (d)(2) or (d)(3) allows several settings, the one with the strongest low hand (then
# high hand), or the strongest high hand (then low): the Rules Submission's
# `house_way_tiebreak` (docs/regulations.md, Pai Gow reading 6).
LOW_HAND = "low_hand"
HIGH_HAND = "high_hand"
TIEBREAKS = (LOW_HAND, HIGH_HAND)


@dataclass(frozen=True)
class Setting:
    """A high hand and a low hand; `rule` is the paragraph that chose it, if one did."""

    high: Hand
    low: Hand
    rule: str | None = None

    @cached_property
    def strengths(self) -> tuple[int, int]:
        """(high, low) hand strengths: all a comparison with another setting needs."""
        return hand_strength(*self.high), hand_strength(*self.low)


def splits(tiles: Sequence[Tile]) -> tuple[Setting, ...]:
    """The three ways to form two hands from four tiles, the stronger hand as the high hand."""
    a, b, c, d = tiles
    settings = []
    for one, other in (((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c))):
        if hand_strength(*other) > hand_strength(*one):
            one, other = other, one
        settings.append(Setting(one, other))
    return tuple(settings)


def _plays_a_pair(hand: Hand) -> bool:
    rank = pair_rank(*hand)
    return rank is not None and rank <= LOWEST_PAIR


def _strongest(settings: Sequence[Setting], rule: str, tiebreak: str) -> Setting:
    """Our reading where several settings qualify: by default the one whose low hand is
    strongest, then whose high hand is (the rule's combination is played either way; the
    dealer, who wins copies, keeps the weaker of his two hands as strong as he can); with
    `tiebreak` HIGH_HAND the strongest high hand, then low hand."""
    if tiebreak == HIGH_HAND:
        best = max(settings, key=lambda setting: setting.strengths)
    else:
        best = max(settings, key=lambda setting: setting.strengths[::-1])
    return Setting(best.high, best.low, rule)


def house_way(tiles: Sequence[Tile], tiebreak: str = LOW_HAND) -> Setting:
    """The dealer's setting of four tiles under § 621a.8(d)(1)-(4), `tiebreak` choosing
    among several settings a paragraph allows (LOW_HAND or HIGH_HAND)."""
    return _house_way(tuple(sorted(tiles)), tiebreak)


@cache  # 8,130 different four-tile hands (by kind of tile) exist in a set, per tiebreak
def _house_way(tiles: tuple[Tile, ...], tiebreak: str = LOW_HAND) -> Setting:
    candidates = splits(tiles)
    # (1) The Supreme Pair is played as the Supreme Pair.
    supreme = [s for s in candidates if pair_rank(*s.high) == SUPREME_PAIR]
    if supreme:
        return _strongest(supreme, "621a.8(d)(1)", tiebreak)
    # (2) If possible, always play a pair, Wong or Gong.
    with_pair = [s for s in candidates if _plays_a_pair(s.high) or _plays_a_pair(s.low)]
    if with_pair:
        return _strongest(with_pair, "621a.8(d)(2)", tiebreak)
    # (3) Otherwise two tiles together with a value of nine, eight or seven.
    seven_to_nine = [
        s
        for s in candidates
        if hand_value(*s.high) in SEVEN_EIGHT_NINE or hand_value(*s.low) in SEVEN_EIGHT_NINE
    ]
    if seven_to_nine:
        return _strongest(seven_to_nine, "621a.8(d)(3)", tiebreak)
    # (4) Otherwise the highest-ranking tile with the lowest-ranking tile. With no pair
    # among the four, no two of them share a rank (tiles of equal rank form a pair).
    by_rank = sorted(tiles, key=lambda tile: TILE_RANK[tile])
    highest_with_lowest = frozenset((by_rank[0], by_rank[3]))
    for setting in candidates:
        if highest_with_lowest in (frozenset(setting.high), frozenset(setting.low)):
            return Setting(setting.high, setting.low, "621a.8(d)(4)")
    raise AssertionError("one of the three splits pairs the highest with the lowest tile")
