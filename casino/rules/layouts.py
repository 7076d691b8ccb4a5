"""What an approved layout must show, chapter by chapter (§ 601a.10(a) approves it).

A layout records its elements as a mapping: element key -> true, or a count for the
areas a chapter numbers (Fire Bet and Hot Roller areas). Some elements are needed only
when the Rules Submission offers a wager or sets a payout limit; some may be a sign
posted at the table instead (payout odds, payout limit).
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass

Options = Mapping[str, object]  # the engine's describe_options of the table


@dataclass(frozen=True)
class Element:
    """One thing the layout must contain; `alternative` may stand in for it (a sign)."""

    key: str
    label: str
    cite: str
    needed_when: Callable[[Options], bool] | None = None  # None: always
    alternative: str | None = None
    most: int | None = None  # for a counted element: no more than this many areas


def _offered(option: str) -> Callable[[Options], bool]:
    return lambda options: options.get(option) not in (None, False, "none")


def _electronic(options: Options) -> bool:
    return options.get("table_type") == "electronic"


def _not_manual(options: Options) -> bool:
    return options.get("table_type") in ("electronic", "hybrid")


NAME_OR_LOGO = "name_or_logo"
PAYOUT_ODDS_SIGN = "payout_odds_sign"
PAYOUT_LIMIT_SIGN = "payout_limit_sign"

# Elements a layout may record that are signs, not printed on the cloth.
SIGNS = {
    PAYOUT_ODDS_SIGN: "a sign identifying the payout odds, posted at the table",
    PAYOUT_LIMIT_SIGN: "a sign identifying the payout limit, posted at the table",
}

_HRD_COMMON = (
    Element(NAME_OR_LOGO, "the name or logo of the certificate holder", "§ 675a.1(b)(1)"),
    Element(
        "pip_street_dice",
        "at each betting position, six dice showing one to six, the two-spot farthest left "
        "and the one-spot farthest right (Pip Street)",
        "§ 675a.1(b)(2)(iii)",
    ),
    Element(
        "payout_odds",
        "the payout odds for all permissible wagers",
        "§ 675a.1(b)(3)",
        alternative=PAYOUT_ODDS_SIGN,
    ),
    Element(
        "payout_limit_inscription",
        "inscriptions advising patrons of the payout limit",
        "§ 675a.1(b)(4)",
        needed_when=lambda options: options.get("payout_limit") not in (None, "none"),
        alternative=PAYOUT_LIMIT_SIGN,
    ),
    Element(
        "throw_box",
        'a throw box with areas labeled "Ace" through "Six"',
        "§ 675a.1(b)(5)",
    ),
)

_CRAPS_COMMON = (
    Element(NAME_OR_LOGO, "the name or logo of the certificate holder", "§ 623a.2(d)(1)"),
    Element(
        "wager_areas",
        "specific areas for the placement of the wagers authorized under § 623a.3",
        "§ 623a.2(d)(2)",
    ),
    Element("no_call_bets", 'the words "no call bets"', "§ 623a.2(d)(3)"),
    Element(
        "fire_bet_areas",
        "numbered Fire Bet areas (no more than 16) around the perimeter",
        "§ 623a.2(d)(4)(i)",
        needed_when=_offered("fire_bet_paytable"),
        most=16,
    ),
    Element(
        "fire_bet_relocation_area",
        "the numbered area in front of the boxperson for relocating Fire Bets",
        "§ 623a.2(d)(4)(ii)",
        needed_when=_offered("fire_bet_paytable"),
    ),
    Element(
        "fire_bet_wall_notice",
        "on the inside wall: the Fire Bet payout odds, that Fire Bets are accepted only "
        "before a shooter's initial come out roll, and the Fire Bet wager limitations",
        "§ 623a.2(d)(4)(iii)",
        needed_when=_offered("fire_bet_paytable"),
    ),
    Element(
        "hot_roller_areas",
        "numbered Hot Roller areas (no more than 16) around the perimeter",
        "§ 623b.1(a)(2)(i)",
        needed_when=_offered("hot_roller_paytable"),
        most=16,
    ),
    Element(
        "hot_roller_relocation_area",
        "the numbered area in front of the boxperson for relocating Hot Roller wagers",
        "§ 623b.1(a)(2)(ii)",
        needed_when=_offered("hot_roller_paytable"),
    ),
    Element(
        "hot_roller_marker_area",
        "the marker button area showing each way to make 4, 5, 6, 8, 9 and 10",
        "§ 623b.1(a)(2)(iii)",
        needed_when=_offered("hot_roller_paytable"),
    ),
    Element(
        "hot_roller_payout_odds",
        "the payout odds for the Hot Roller wager",
        "§ 623b.1(a)(2)(iv)",
        needed_when=_offered("hot_roller_paytable"),
    ),
    Element(
        "make_em_all",
        'the Bonus Craps areas, with the wager named "Make \'em All"',
        "§ 623b.3(b)",
        needed_when=_offered("bonus_craps_paytable"),
    ),
    Element(
        "lucky_shooter_electronic_area",
        "an electronic Lucky Shooter area for each player",
        "§ 623b.2(b)",
        needed_when=lambda o: _electronic(o) and _offered("lucky_shooter_paytable")(o),
    ),
    Element(
        "hot_shooter_electronic_area",
        "an electronic Hot Shooter Jackpot area for each player",
        "§ 623b.4(b)",
        needed_when=lambda o: _not_manual(o) and _offered("hot_shooter_jackpot")(o),
    ),
)

ELEMENTS: dict[tuple[str, str], tuple[Element, ...]] = {
    ("high_roll_dice", "10_dice"): (
        *_HRD_COMMON,
        Element(
            "like_kind_circles",
            "at each betting position, seven circles for two of a kind through eight of a "
            "kind (Like Kind Boulevard)",
            "§ 675a.1(b)(2)(i)",
        ),
        Element(
            "millionaire_row_circles",
            "at each betting position, circles for nine and ten of a kind and the "
            'inscription "First Roll Side Bet" (Millionaire Row)',
            "§ 675a.1(b)(2)(ii)",
        ),
        Element(
            "equal_value_inscription",
            "an inscription that all Pip Street and Like Kind Boulevard Wagers and the "
            "purchase of an Extra Roll must be of equal value",
            "§ 675a.1(b)(2)(iv)",
        ),
        Element(
            "extra_roll_sensor",
            "an extra-roll sensor at each betting position",
            "§ 675a.1(b)(2)(v)",
        ),
    ),
    ("high_roll_dice", "6_dice"): (
        *_HRD_COMMON,
        Element(
            "like_kind_circles",
            "at each betting position, five circles for two through six of a kind and one "
            "circle for no matches (Like Kind Boulevard)",
            "§ 675a.6(b)(1)",
        ),
        Element(
            "equal_value_inscription",
            "an inscription that all wagers must be of equal value",
            "§ 675a.6(b)(3)",
        ),
    ),
    ("craps", "craps"): _CRAPS_COMMON,
    ("craps", "mini_craps"): _CRAPS_COMMON,
    ("pai_gow", "standard"): (
        Element(NAME_OR_LOGO, "the name or logo of the certificate holder", "§ 621a.2(b)(1)"),
        Element(
            "betting_areas",
            "a separate betting area for the Pai Gow wager of each player",
            "§ 621a.2(b)(2)",
        ),
        Element(
            "dead_hand_area",
            "an area to the left of the dealer for the four tiles of the Dead Hand",
            "§ 621a.2(b)(3)",
        ),
    ),
    ("sic_bo", "standard"): (
        Element(NAME_OR_LOGO, "the name or logo of the certificate holder", "§ 625a.1(c)(1)"),
        Element(
            "wager_areas",
            "specific areas for the placement of the wagers authorized under § 625a.3",
            "§ 625a.1(c)(2)",
        ),
        Element(
            "payout_odds",
            "the payout odds for all permissible wagers",
            "§ 625a.1(c)(3)",
            alternative=PAYOUT_ODDS_SIGN,
        ),
        Element(
            "illuminated_wager_area",
            "an area depicting every wager of § 625a.3, lit by the electrical device",
            "§ 625a.1(b)",
        ),
    ),
    ("three_dice_football", "standard"): (
        Element(NAME_OR_LOGO, "the name or logo of the certificate holder", "§ 661a.2(b)(1)"),
        Element(
            "wager_areas",
            "specific areas for the wagers of § 661a.3(b) and (d)",
            "§ 661a.2(b)(2)",
        ),
        Element(
            "payout_odds",
            "inscriptions of the payout odds for all permissible wagers",
            "§ 661a.2(b)(3)",
            alternative=PAYOUT_ODDS_SIGN,
        ),
        Element(
            "football_field",
            "a football field with two end zones, two 10 and two 20 yard lines, and each "
            "yard from 1 through 23 labeled",
            "§ 661a.2(b)(4)",
        ),
        Element(
            "downs_area",
            "areas for 1st, 2nd and 3rd Down, 1st, 2nd and 3rd & Goal, and Extra Point",
            "§ 661a.2(b)(5)",
        ),
        Element("game_length_area", "a game length area labeled 1 through 6", "§ 661a.2(b)(6)"),
    ),
}


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def element_keys(game: str, variant: str) -> tuple[str, ...]:
    """Every element (and sign) a layout of this game and variant may record."""
    keys = [element.key for element in ELEMENTS[(game, variant)]]
    keys += [
        sign for sign in SIGNS if any(e.alternative == sign for e in ELEMENTS[(game, variant)])
    ]
    return tuple(keys)


def layout_refusals(
    game: str, variant: str, elements: Mapping[str, object], options: Options | None
) -> list[str]:
    """What the layout lacks, each with its section, or has that its game knows nothing of.

    `options` None checks only what every layout of the game needs (at approval);
    with the table's options it also checks what the offered wagers need (at opening).
    """
    known = element_keys(game, variant)
    counted = {e.key: e for e in ELEMENTS[(game, variant)] if e.most is not None}
    refusals = []
    for key, value in elements.items():
        if key not in known:
            refusals.append(
                f"{key!r} is not an element of a {game} layout; the elements are "
                + ", ".join(known)
            )
        elif key in counted:
            element = counted[key]
            if value is not False and not _is_count(value):
                refusals.append(
                    f"{key} is a number of areas, or false (58 Pa. Code {element.cite})"
                )
            elif _is_count(value) and value > element.most:  # type: ignore[operator]
                refusals.append(
                    f"no more than {element.most} {key.replace('_', ' ')} "
                    f"(58 Pa. Code {element.cite}); the layout has {value}"
                )
        elif not isinstance(value, bool):
            refusals.append(f"{key} is true (shown) or false (not shown), not {value!r}")
    for element in ELEMENTS[(game, variant)]:
        value = elements.get(element.key)
        if element.needed_when is not None and (
            options is None or not element.needed_when(options)
        ):
            continue
        present = value is True or (element.most is not None and _is_count(value))
        if not present and element.alternative and elements.get(element.alternative) is True:
            present = True
        if not present:
            instead = f", or {SIGNS[element.alternative]}" if element.alternative else ""
            refusals.append(
                f"the layout lacks {element.label}{instead} (58 Pa. Code {element.cite})"
            )
    return refusals
