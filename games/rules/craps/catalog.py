"""What a Craps table offers under its options: every wager kind with its name and
paragraph (bets.py), its payouts (paytables.py), when it is made and taken down
(placement.py's TIMING and REMOVAL, the data its checks enforce), its limits and the PAR
records that price it. The kinds are `every_bet`'s, offered as `offered_check` says: the
PAR sheet's and `kinds_now`'s own list.
"""

from decimal import Decimal

from games.rules.core.offer import Moment, Offer, Payout, posted
from games.rules.craps import bets, paytables
from games.rules.craps.bets import Bet, every_bet
from games.rules.craps.options import ODDS_POINT_PAIRS, CrapsOptions
from games.rules.craps.paytables import POINT_NUMBERS, Odds
from games.rules.craps.placement import (
    ANY_REMOVAL,
    ANY_TIME,
    FIRE_BET_AMOUNTS,
    REMOVAL,
    TIMING,
    UNITS,
    offered,
)

MADE_ANY_TIME = Moment(ANY_TIME, "623a.4(a)")
_ODDS_MADE = Moment("once the point (or come point) of the bet they support is set", "623a.6")
_LINE_KINDS = frozenset(t.key for t in bets.LINE_BETS)
_ODDS_LIMIT = "odds are limited by the bet they support: up to the table's multiple (§ 623a.6(e))"


def wager_catalog(options: CrapsOptions) -> tuple[Offer, ...]:
    """Every wager the table offers, in the order of § 623a.3(a), odds after the line bets."""
    offers = [_offer(options, bet) for bet in every_bet() if offered(bet, options)]
    lines = sum(1 for offer in offers if offer.kind in _LINE_KINDS)
    offers.insert(lines, _odds_offer(options))
    return tuple(offers)


def _offer(options: CrapsOptions, bet: Bet) -> Offer:
    wager_type = bet.wager_type
    timing = TIMING.get(wager_type)
    made = (
        MADE_ANY_TIME
        if timing is None
        else Moment(timing.made, timing.section or wager_type.section)
    )
    removal = REMOVAL.get(wager_type, ANY_REMOVAL)
    down = Moment(removal.words, removal.section, removal.ever)
    minimum, maximum = posted(options.limits)
    note = None
    if wager_type is bets.FIRE:  # § 623a.11(b)(1) sets the Fire Bet's own limits
        minimum, maximum = Decimal(FIRE_BET_AMOUNTS[0]), Decimal(FIRE_BET_AMOUNTS[-1])
        note = "whole dollars (§ 623a.11(b)(1))"
    elif wager_type in UNITS:
        note = (
            f"in units of {UNITS[wager_type]}: a multiple of ${UNITS[wager_type]} ({bet.section})"
        )
    payouts, paid_under = _payouts(options, bet)
    payouts += _power_odds(options, bet)
    return Offer(
        kind=bet.kind,
        label=_label(bet),
        section=bet.section,
        payouts=payouts,
        paid_under=paid_under,
        made=made,
        reduced=down,
        removed=down,
        minimum=minimum,
        maximum=maximum,
        par_kinds=(bet.kind,),
        limits_note=note,
    )


def _label(bet: Bet) -> str:
    """The paragraph's name, with the number or faces it is made on."""
    name = bet.wager_type.name
    if bet.faces is not None:
        return f"{bet.faces[0]}-{bet.faces[1]} {name}"
    if bet.number is not None:
        return f"{name} on {bet.number}"
    return name


def _odds_offer(options: CrapsOptions) -> Offer:
    payouts = tuple(
        Payout(f"taken on {n} (Pass, Come)", paytables.TAKING_ODDS[n].text) for n in POINT_NUMBERS
    ) + tuple(
        Payout(f"laid against {n} (Don't Pass, Don't Come)", paytables.LAYING_ODDS[n].text)
        for n in POINT_NUMBERS
    )
    return Offer(
        kind=bets.ODDS.key,
        label=bets.ODDS.name,
        section=bets.ODDS.section,
        payouts=payouts,
        paid_under="623a.6(a)(2)-(d)(2)",
        made=_ODDS_MADE,
        reduced=Moment(ANY_REMOVAL.words, ANY_REMOVAL.section),
        removed=Moment(ANY_REMOVAL.words, ANY_REMOVAL.section),
        minimum=None,
        maximum=None,
        par_kinds=tuple(
            f"odds:{line.key}:{point}" for line in bets.LINE_BETS for point in POINT_NUMBERS
        ),
        limits_note=f"{_ODDS_LIMIT}, {_odds_times(options)}",
    )


def _odds_times(options: CrapsOptions) -> str:
    """The multiple in words: one for every point, or one for each pair of points."""
    by_point = options.odds_multiples_by_point
    if by_point is None:
        return f"{options.max_odds_multiple} times"
    return ", ".join(
        f"{multiple} times on the {low} and {high}"
        for multiple, (low, high) in zip(by_point, ODDS_POINT_PAIRS, strict=True)
    )


def _win(odds: Odds, when: str = "wins") -> tuple[Payout, ...]:
    return (Payout(when, odds.text),)


def _payouts(options: CrapsOptions, bet: Bet) -> tuple[tuple[Payout, ...], str]:
    """The bet's paytable lines and the paragraph that pays it."""
    wager_type, number = bet.wager_type, bet.number
    even = paytables.EVEN_MONEY
    if wager_type in bets.LINE_BETS:
        lines = _win(even)
        if wager_type in (bets.DONT_PASS, bets.DONT_COME):
            lines += (Payout("12 on its first roll", "returned"),)
        return lines, "623a.5(a)"
    if number is not None and wager_type in _BY_NUMBER:
        table, section = _BY_NUMBER[wager_type]
        lines = _win(table[number])
        if wager_type in (bets.BUY, bets.LAY):
            when = "on a win"
            if options.vig_collected == "on_placement":
                back = "returned" if options.vig_returned_on_removal else "kept"
                when = f"on placement, {back} if the bet is taken down"
            vig = f"{options.vig_percent}% of the wager, collected {when}"
            lines += (Payout("vigorish (§ 623a.5(g)(3))", vig),)
        return lines, section
    if wager_type is bets.FIELD:
        return (
            Payout("3, 4, 9, 10 or 11", even.text),
            Payout("2 or 12", paytables.FIELD[2].text),
        ), "623a.5(a)"
    if wager_type in _SINGLE:
        return _win(_SINGLE[wager_type]), "623a.5(a)"
    if wager_type is bets.C_AND_E:
        return (
            Payout("2, 3 or 12 (half as Any Craps)", paytables.ANY_CRAPS.text),
            Payout("11 (half as 11 in One Roll)", paytables.ELEVEN.text),
        ), "623a.5(b)"
    if wager_type in (bets.HORN, bets.HORN_HIGH, bets.WHIRL):
        share = {bets.HORN: "a quarter", bets.HORN_HIGH: "a fifth", bets.WHIRL: "a fifth"}
        lines = tuple(
            Payout(f"{n} ({share[wager_type]} of the wager)", odds.text)
            for n, odds in paytables.HORN_NUMBER.items()
        )
        if wager_type is bets.HORN_HIGH:
            lines += (Payout(f"{number} (a fifth more)", paytables.HORN_NUMBER[number].text),)
        if wager_type is bets.WHIRL:
            lines += (Payout("7 (a fifth, as Any Seven)", paytables.ANY_SEVEN.text),)
        section = {bets.HORN: "623a.5(c)", bets.HORN_HIGH: "623a.5(d)", bets.WHIRL: "623a.5(e)"}
        return lines, section[wager_type]
    if wager_type is bets.HOP:
        faces = bet.faces or (0, 0)
        pair = faces[0] == faces[1]
        return _win(paytables.HOP_PAIR if pair else paytables.HOP_NOT_PAIR), "623a.5(a)"
    if wager_type is bets.SIX_SEVEN_EIGHT:
        return (
            Payout("a 6 or 8 thrown as a pair", paytables.SIX_SEVEN_EIGHT_PAIR.text),
            Payout("any other 6, 7 or 8", even.text),
        ), "623a.5(a)"
    return _side_payouts(options, bet)


# § 623b.5(d): the eligible wagers' Power Odds keys (table.power_odds_select), with the part
# of the wager each raises; the others are raised as a whole.
_POWER_ODDS_PARTS = {
    "horn": (
        ("horn:3-11", "3 or 11 (a quarter of the wager)"),
        ("horn:2-12", "2 or 12 (a quarter)"),
    ),
    "c_and_e": (
        ("c_and_e:craps", "2, 3 or 12 (the whole wager)"),
        ("c_and_e:11", "11 (the whole wager)"),
    ),
}


def _power_odds(options: CrapsOptions, bet: Bet) -> tuple[Payout, ...]:
    """Where the table offers Power Odds, an eligible wager's increased odds when the
    generator selects it for the throw (§ 623b.5(c), (d)): one of the two the text lists."""
    if not options.power_odds:
        return ()
    parts = _POWER_ODDS_PARTS.get(bet.kind, ((bet.kind, ""),))
    return tuple(
        Payout(
            f"{what + ' ' if what else ''}selected for Power Odds (§ 623b.5(d))",
            " or ".join(odds.text for odds in paytables.POWER_ODDS[key]),
        )
        for key, what in parts
        if key in paytables.POWER_ODDS
    )


def _side_payouts(options: CrapsOptions, bet: Bet) -> tuple[tuple[Payout, ...], str]:
    """The side wagers' paytables, as the Rules Submission selects them."""
    wager_type = bet.wager_type
    if wager_type is bets.FIRE:
        table = paytables.FIRE_BET[options.fire_bet_paytable or "A"]
        return tuple(
            Payout(f"{points}{' or more' if points == 6 else ''} unique points made", o.text)
            for points, o in table.items()
        ), "623a.5(f)"
    if wager_type is bets.HOT_ROLLER:
        table = paytables.HOT_ROLLER[options.hot_roller_paytable or "A"]
        return tuple(
            Payout(f"{count} numbers' combinations completed", o.text) for count, o in table.items()
        ), "623b.1(h)"
    if wager_type is bets.LUCKY_SHOOTER:
        table = paytables.LUCKY_SHOOTER[options.lucky_shooter_paytable or "A"]
        words = {
            paytables.LUCKY_SHOOTER_POINT_AND_FIVE: "the five other points and the point",
            paytables.LUCKY_SHOOTER_SEVEN_OR_ELEVEN: "a 7 or 11 on the first roll",
        }
        return tuple(
            Payout(words.get(key, f"{key} of the other five points"), o.text)  # type: ignore[call-overload]
            for key, o in table.items()
        ), "623b.2(e)"
    if wager_type in bets.BONUS_CRAPS:
        table = paytables.BONUS_CRAPS[options.bonus_craps_paytable or "1"]
        return _win(table[wager_type.key]), "623b.3(c)"
    # The Hot Shooter Jackpot (§ 623b.4(d)-(e)), band by band: the count takes in the 7 out
    # (docs/regulations.md, Craps reading 15), so the catalog says so.
    counted = "throws, the 7 out included"
    bands = paytables.HOT_SHOOTER
    lines = tuple(
        Payout(
            f"{first} or more {counted}"
            if i == 0
            else f"{first} to {bands[i - 1][0] - 1} {counted}",
            o.text,
        )
        for i, (first, o) in enumerate(bands)
    )
    pushed = f"{paytables.HOT_SHOOTER_LOSES_UP_TO + 1} to {paytables.HOT_SHOOTER_PUSH_UP_TO}"
    lines += (Payout(f"{pushed} {counted}", "returned"),)
    return lines, "623b.4(e)"


_BY_NUMBER = {
    bets.PLACE: (paytables.PLACE_TO_WIN, "623a.5(a)"),
    bets.PLACE_LOSE: (paytables.PLACE_TO_LOSE, "623a.5(a)"),
    bets.BUY: (paytables.BUY, "623a.5(g)(1)"),
    bets.LAY: (paytables.LAY, "623a.5(g)(2)"),
    bets.HARD: (paytables.HARDWAY, "623a.5(a)"),
}
_SINGLE = {
    bets.ANY_SEVEN: paytables.ANY_SEVEN,
    bets.ANY_CRAPS: paytables.ANY_CRAPS,
    bets.CRAPS_2: paytables.CRAPS_TWO,
    bets.CRAPS_3: paytables.CRAPS_THREE,
    bets.CRAPS_12: paytables.CRAPS_TWELVE,
    bets.ELEVEN: paytables.ELEVEN,
}
