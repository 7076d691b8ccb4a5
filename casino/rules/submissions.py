"""Rules Submissions (§ 601a.2): what a certificate holder may choose, checked by the engines.

A submission is filed per certificate holder and game. It says which variants it covers
(the 6-dice variation only if selected, § 675a.6(a)), on which kinds of table (Craps:
manual, hybrid, fully automated electronic), and the engine's options. What differs from
table to table (the variant, the table type, a Sic Bo table's automated shaker and the
posted limits) comes from the table: `table_options` lays it over the submission's
options, and the engine's own `parse_options` checks the result, so each rule stays in
one place (the HRD payout limit floor, the odds multiple, the vigorish, ...).
"""

from collections.abc import Mapping, Sequence
from decimal import Decimal

from casino.rules.tables import HYBRID, OPERATIONS_BY_GAME
from games.rules.catalog import GAMES_BY_KEY
from games.rules.core import MalformedInput
from games.rules.registry import engine_get

# Options each table sets for itself; a submission that names one is refused.
PER_TABLE_OPTIONS: dict[str, tuple[str, ...]] = {
    "craps": ("variant", "table_type"),
    "high_roll_dice": ("dice",),
    "sic_bo": ("shaker",),
    "pai_gow": (),
    "three_dice_football": (),
}
LIMIT_OPTIONS = ("min_wager", "max_wager")
# What a Rules Submission offers only where it says so: Power Odds "if specified in its
# Rules Submission" (§ 623b.5(a)). The engine's own default (offered) serves the scenario
# contract; a submission on the floor that does not name the option does not offer them.
NOT_OFFERED_UNLESS_NAMED: dict[str, dict[str, object]] = {"craps": {"power_odds": False}}


def _variant_options(game: str, variant: str) -> dict[str, object]:
    if game == "craps":
        return {"variant": variant}
    if game == "high_roll_dice":
        return {"dice": 6 if variant == "6_dice" else 10}
    return {}


def table_options(
    game: str,
    variant: str,
    operation: str,
    automated_shaker: bool,
    minimum: Decimal | None,
    maximum: Decimal | None,
    submission_options: Mapping[str, object],
    power_odds: bool | None = None,
) -> dict[str, object]:
    """The engine options at one table: the submission's, with the table's own laid over.
    `power_odds`: whether the table offers Power Odds (a Craps table's own choice, where the
    submission offers them); None, as the submission says (its PAR sheets, its checks)."""
    defaults = NOT_OFFERED_UNLESS_NAMED.get(game, {})
    raw = {**defaults, **submission_options, **_variant_options(game, variant)}
    if game == "craps":
        raw["table_type"] = operation
        if power_odds is not None:
            raw["power_odds"] = power_odds and power_odds_offered(submission_options)
    if game == "sic_bo":
        raw["shaker"] = "automated" if automated_shaker else "manual"
    if minimum is not None:
        raw["min_wager"] = str(minimum)
    if maximum is not None:
        raw["max_wager"] = str(maximum)
    return raw


def power_odds_offered(submission_options: Mapping[str, object]) -> bool:
    """Whether a Craps Rules Submission offers Power Odds (§ 623b.5(a)): only if it says so
    (JSON true, or "true" as the engine's options take it)."""
    value = submission_options.get("power_odds")
    return value is True or value == "true"  # not 1, which the engine refuses


def engine_refusals(game: str, raw: Mapping[str, object]) -> list[str]:
    """Every option the engine refuses, each with the engine's message.

    An engine stops at the first bad option; dropping it and asking again finds the rest.
    """
    engine = engine_get(game)
    remaining = dict(raw)
    refusals: list[str] = []
    for _ in range(len(raw) + 1):
        try:
            engine.parse_options(remaining)
        except MalformedInput as error:
            name = error.field.removeprefix("options.")
            refusals.append(f"{name}: {error.message}")
            if remaining.pop(name, None) is None:
                break  # a refusal of the options together, not of one option
        else:
            break
    return refusals


def submission_refusals(
    game: str, variants: Sequence[str], table_types: Sequence[str], options: object
) -> list[str]:
    """Everything wrong with a submission's choices, each naming the option and section."""
    if game not in GAMES_BY_KEY:
        return [f"unknown game {game!r}"]
    if not _is_names(variants) or not _is_names(table_types):
        return ["variants and table types are lists of names"]
    refusals: list[str] = []
    known_variants = dict(GAMES_BY_KEY[game].variants)
    if not variants:
        refusals.append("a submission covers at least one variant of the game")
    refusals += [
        f"{game} has no variant {v!r}; choose from {', '.join(known_variants)}"
        for v in variants
        if v not in known_variants
    ]
    allowed_types = OPERATIONS_BY_GAME[game]
    if not table_types:
        refusals.append("a submission covers at least one kind of table")
    refusals += [
        f"{game} is not played on a {t!r} table; choose from {', '.join(allowed_types)}"
        for t in table_types
        if t not in allowed_types
    ]
    if not isinstance(options, Mapping):
        return [*refusals, "options must be a JSON object of option names and values"]
    per_table = [name for name in options if name in PER_TABLE_OPTIONS[game]]
    refusals += [f"{name}: set on each table, not in the Rules Submission" for name in per_table]
    if len(refusals) > len(per_table):
        return refusals  # the variants or table types are wrong: no engine to run them by
    options = {name: value for name, value in options.items() if name not in per_table}
    places: dict[str, list[str]] = {}  # refusal -> where it applies
    for variant in variants:
        for table_type in table_types:
            raw = table_options(game, variant, table_type, False, None, None, options)
            for refusal in engine_refusals(game, raw):
                places.setdefault(refusal, []).append(f"{known_variants[variant]}, {table_type}")
    refusals += [f"{refusal} [{'; '.join(where)}]" for refusal, where in places.items()]
    if game == "craps":
        refusals += _craps_table_type_refusals(table_types, options)
    return refusals


def _is_names(value: object) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)


def _craps_table_type_refusals(
    table_types: Sequence[str], options: Mapping[str, object]
) -> list[str]:
    refusals = []
    lucky = options.get("lucky_shooter_paytable")
    if lucky not in (None, "none") and "electronic" not in table_types:
        refusals.append(
            "lucky_shooter_paytable: the Lucky Shooter wager is offered only on a fully "
            "automated electronic table, and this submission covers none "
            "(58 Pa. Code § 623b.2(a))"
        )
    hot = options.get("hot_shooter_jackpot")
    if hot in (True, "true") and not {"electronic", HYBRID} & set(table_types):
        refusals.append(
            "hot_shooter_jackpot: the Hot Shooter Jackpot wager is offered only on an "
            "electronic or hybrid table, and this submission covers neither "
            "(58 Pa. Code § 623b.4(a))"
        )
    return refusals


# Option -> the PAR kinds whose house edge it sets (a prefix ending in ":" covers a
# family, such as every Buy Bet). Shown beside the option before a submission is approved.
OPTION_WAGERS: dict[str, dict[str, tuple[str, ...]]] = {
    "craps": {
        "max_odds_multiple": ("odds:",),
        "buy_lay": ("buy:", "lay:"),
        "vig_percent": ("buy:", "lay:"),
        "vig_collected": ("buy:", "lay:"),
        "fire_bet_paytable": ("fire",),
        "hot_roller_paytable": ("hot_roller",),
        "lucky_shooter_paytable": ("lucky_shooter",),
        "bonus_craps_paytable": ("all_small", "all_tall", "make_em_all"),
        "power_odds": ("power_odds:",),
        "hot_shooter_jackpot": ("hot_shooter",),
    },
    "high_roll_dice": {"dice": ("pip:", "like_kind:", "millionaire:", "extra_roll")},
    "pai_gow": {"house_way_tiebreak": ("pai_gow",)},
    "sic_bo": {},
    "three_dice_football": {},
}


def wagers_of_option(game: str, option: str, kinds: Sequence[str]) -> list[str]:
    """The PAR kinds among `kinds` whose house edge `option` sets."""
    prefixes = OPTION_WAGERS.get(game, {}).get(option, ())
    return [
        kind
        for kind in kinds
        if any(kind.startswith(p) if p.endswith(":") else kind == p for p in prefixes)
    ]
