"""The Pai Gow table as an immutable value, and what each event does to it.

A round: ``wagers`` (and a ``bank`` from the second round on), the ``deal`` ("no more
bets", § 621a.5(c)), each player's ``set``, the dealer's hands set the house way once
every player has set his, any ``surrender``, then ``reveal``, which settles. An
``irregularity`` may void hands or the round (§ 621a.10). The table remembers across
rounds only what the player bank rules need (§ 621a.9(b)-(d), (h)) and the used ids.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal

from games.rules.core import (
    MalformedInput,
    Rejection,
    Resolution,
    RuleViolation,
    StepOutcome,
    Wager,
    cite,
    format_money,
    parse_amount,
)
from games.rules.core.ids import NO_IDS, UsedIds
from games.rules.core.money import has_whole_cents
from games.rules.core.wagers import parse_wagers, take_wagers
from games.rules.pai_gow.deal import Dealt, deal_from_payload
from games.rules.pai_gow.dealing import DEAD_HAND, DEALER, PLACES, POSITIONS
from games.rules.pai_gow.house_way import Setting, house_way
from games.rules.pai_gow.options import RNG, PaiGowOptions
from games.rules.pai_gow.ranking import hand_strength
from games.rules.pai_gow.settlement import Centre, Decision, decide, vigorish
from games.rules.pai_gow.tiles import Tile, parse_tiles, tiles_text

KIND = "pai_gow"
HOUSE_WAY = "house_way"
ZERO = Decimal("0.00")


@dataclass(frozen=True)
class Bank:
    """The player banking this round (§ 621a.9), his chips and the dealer's wager against him."""

    player: str
    wager: str  # the id of his one wager, whose position holds the bank's hand
    co_bank: bool
    chips: Decimal
    dealer_wager: Decimal  # zero when co-banking (§ 621a.9(e)) or waived (§ 621a.9(h))


@dataclass(frozen=True)
class Round:
    """One round in play: wagers by id, the bank, the tiles dealt, the hands set."""

    wagers: tuple[Wager, ...] = ()
    bank: Bank | None = None
    dealt: Dealt | None = None
    settings: Mapping[str, Setting] = field(default_factory=dict)  # wager id -> hands
    decided: Mapping[str, Resolution] = field(default_factory=dict)  # surrendered or voided

    def wager(self, wager_id: str) -> Wager | None:
        """The wager of this round with that id, decided or not."""
        return next((w for w in self.wagers if w.id == wager_id), None)

    def bank_place(self) -> str | None:
        """The betting position of the bank's wager, where the bank's hand is dealt."""
        if self.bank is None:
            return None
        return next(position(w) for w in self.wagers if w.id == self.bank.wager)

    def live(self) -> tuple[Wager, ...]:
        """Wagers not yet decided, in the order of the betting positions."""
        return tuple(
            sorted(
                (w for w in self.wagers if w.id not in self.decided),
                key=lambda w: int(position(w)),
            )
        )

    def must_set(self) -> tuple[Wager, ...]:
        """Live wagers whose player sets his own hands (the dealer sets a co-bank's)."""
        bank = self.bank
        return tuple(w for w in self.live() if not (bank and bank.co_bank and w.id == bank.wager))

    def all_set(self) -> bool:
        """Every player has set his hands, so the dealer sets his (§ 621a.8(c))."""
        return self.dealt is not None and all(w.id in self.settings for w in self.must_set())


@dataclass(frozen=True)
class PaiGowTable:
    """The round in play and what the bank rules remember of the rounds before it."""

    round: Round = field(default_factory=Round)
    rounds_played: int = 0  # since the start of the game (§ 621a.9(b))
    last_bank: str | None = None  # who banked the last round (§ 621a.9(c))
    # Each player's wagers in the last round with no player bank (§ 621a.9(d)(1), (h)).
    last_against_dealer: Mapping[str, Decimal] = field(default_factory=dict)
    wager_ids: UsedIds = NO_IDS


def position(wager: Wager) -> str:
    """The betting position a wager was placed on, "1" to "6"."""
    return str(wager.extra["position"])


def taken_positions(wagers: "list[Wager] | tuple[Wager, ...]") -> set[str]:
    """The betting positions holding a wager: one wager a position (§ 621a.2(b)(2))."""
    return {position(w) for w in wagers}


def _rejected(violation: RuleViolation) -> StepOutcome:
    return StepOutcome(rejected=(Rejection(violation.message, cite=violation.cite),))


# --- wagers -------------------------------------------------------------------------


def wagers_place(
    options: PaiGowOptions, table: PaiGowTable, payload: object
) -> tuple[PaiGowTable, StepOutcome]:
    """Pai Gow wagers on the betting positions (§ 621a.5)."""
    wagers = parse_wagers(payload, "wagers")
    for i, wager in enumerate(wagers):
        spot = wager.extra.get("position")
        if isinstance(spot, bool) or not isinstance(spot, (int, str)):
            raise MalformedInput(f"wagers[{i}].position", "must be a betting position 1 to 6")
    current = table.round

    def admit(index: int, wager: Wager, taken: object) -> Wager | Rejection:
        refusal = _check_wager(options, current, [*current.wagers, *taken], wager)  # type: ignore[misc]
        if refusal is not None:
            return refusal
        return replace(wager, extra={**wager.extra, "position": str(wager.extra["position"])})

    result = take_wagers(wagers, table.wager_ids, admit)
    new_round = replace(current, wagers=(*current.wagers, *result.taken))
    outcome = StepOutcome(accepted=result.accepted, rejected=result.rejected)
    return replace(table, round=new_round, wager_ids=result.used), outcome


def _check_wager(
    options: PaiGowOptions, current: Round, placed: list[Wager], wager: Wager
) -> Rejection | None:
    """Raises RuleViolation for what chapter 621a forbids; returns the refusal of a posted
    limit, which is the certificate holder's own and carries no chapter citation."""
    if wager.id == DEALER:
        return Rejection(
            f"{DEALER!r} names the dealer's hands in a set event; use another id", wager.id
        )
    if current.dealt is not None:
        raise RuleViolation(
            'No wager may be made after "no more bets"; this round is dealt', cite("621a.5(c)")
        )
    if wager.kind != KIND:
        raise RuleViolation(
            f"Pai Gow has one wager, {KIND!r}; not {wager.kind!r}", cite("621a.5(a)")
        )
    spot = str(wager.extra["position"])
    if spot not in POSITIONS:
        raise RuleViolation(
            f"Position {spot} is not a betting position; they are 1 to 6", cite("621a.2(a)")
        )
    if wager.amount <= 0 or not has_whole_cents(wager.amount):
        raise RuleViolation(
            "A wager is value chips: a positive amount in whole cents", cite("621a.5(a)")
        )
    limit_error = options.limits.refusal(wager.amount)
    if limit_error is not None:
        return Rejection(limit_error, wager.id)
    if spot in taken_positions(placed):
        raise RuleViolation(f"Position {spot} already has a wager", cite("621a.2(b)(2)"))
    own = [int(position(w)) for w in placed if w.player == wager.player]
    bank = current.bank
    if bank is not None and bank.player == wager.player:
        raise RuleViolation("The bank may wager on only one betting area", cite("621a.9(f)"))
    if own:
        _check_adjacent(options, own, int(spot))
    if bank is not None:
        _check_cover(bank, [*placed, wager])
    return None


def _check_adjacent(options: PaiGowOptions, own: list[int], spot: int) -> None:
    section = cite("621a.5(d)")
    if not options.adjacent_betting_areas:
        raise RuleViolation("This table allows a wager on one betting area per player", section)
    if len(own) >= 2:
        raise RuleViolation("A player may wager on at most two adjacent betting areas", section)
    if abs(own[0] - spot) != 1:
        raise RuleViolation(
            f"A second wager must be on a betting area next to position {own[0]}", section
        )


def _check_cover(bank: Bank, wagers: list[Wager]) -> None:
    """§ 621a.9(d)(2): the bank's chips cover every wager against it, the dealer's too."""
    against = sum((w.amount for w in wagers if w.id != bank.wager), ZERO) + bank.dealer_wager
    if bank.chips < against:
        raise RuleViolation(
            f"The bank has ${format_money(bank.chips)} on the table and the wagers against it "
            f"total ${format_money(against)}",
            cite("621a.9(d)(2)"),
        )


# --- the bank -------------------------------------------------------------------------

_BANK_FIELDS = ("player", "co_bank", "chips", "dealer_wager")


def bank_take(
    options: PaiGowOptions, table: PaiGowTable, payload: object
) -> tuple[PaiGowTable, StepOutcome]:
    """A player accepts the bank for this round (§ 621a.9(c)-(h))."""
    if not isinstance(payload, dict):
        raise MalformedInput("bank", 'must be an object such as {"player": "p3", "co_bank": false}')
    for name in payload:
        if name not in _BANK_FIELDS:
            raise MalformedInput(
                f"bank.{name}", f"is not a bank field; they are {', '.join(_BANK_FIELDS)}"
            )
    player = payload.get("player")
    if not isinstance(player, str) or not player:
        raise MalformedInput("bank.player", "must be a non-empty string")
    co_bank = payload.get("co_bank", False)
    if not isinstance(co_bank, bool):
        raise MalformedInput("bank.co_bank", "must be true or false")
    chips = _optional_amount(payload, "chips")
    directed = _optional_amount(payload, "dealer_wager")
    try:
        bank = _bank(options, table, player, co_bank, chips, directed)
    except RuleViolation as violation:
        return table, _rejected(violation)
    new_table = replace(table, round=replace(table.round, bank=bank))
    summary = {
        "bank": {
            "player": bank.player,
            "co_bank": bank.co_bank,
            "chips": format_money(bank.chips),
            "dealer_wager": format_money(bank.dealer_wager),
        }
    }
    return new_table, StepOutcome(extra=summary)


def _optional_amount(payload: dict, name: str) -> Decimal | None:
    if name not in payload:
        return None
    amount = parse_amount(payload[name], f"bank.{name}")
    if amount < 0 or not has_whole_cents(amount):
        raise MalformedInput(f"bank.{name}", "must be an amount in whole cents, zero or more")
    return amount


def bank_closed_refusal(table: PaiGowTable) -> RuleViolation | None:
    """Why no player may take the bank now, whoever asks (§ 621a.9(b), (c)), or None."""
    current = table.round
    if current.dealt is not None:
        return RuleViolation("The bank is taken before the tiles are dealt", cite("621a.9(c)"))
    if current.bank is not None:
        return RuleViolation(
            f"{current.bank.player} is already the bank this round", cite("621a.9(c)")
        )
    if table.rounds_played == 0:
        return RuleViolation(
            "A player may not be the bank at the start of the game", cite("621a.9(b)")
        )
    return None


def _bank(
    options: PaiGowOptions,
    table: PaiGowTable,
    player: str,
    co_bank: bool,
    chips: Decimal | None,
    directed: Decimal | None,
) -> Bank:
    current = table.round
    if not options.player_banking:
        raise RuleViolation("This table does not offer the bank to players", cite("621a.9(a)"))
    if co_bank and not options.co_banking:
        raise RuleViolation("This table does not offer co-banking", cite("621a.9(e)"))
    closed = bank_closed_refusal(table)
    if closed is not None:
        raise closed
    if table.last_bank == player:
        raise RuleViolation(
            "A player may not bank two consecutive rounds of play", cite("621a.9(c)")
        )
    if player not in table.last_against_dealer:
        raise RuleViolation(
            f"{player} placed no wager against the dealer in the last round with no player bank",
            cite("621a.9(d)(1)"),
        )
    own = [w for w in current.wagers if w.player == player]
    if len(own) != 1:
        raise RuleViolation(
            "The bank wagers on exactly one betting area, where the bank's hand is dealt"
            + ("" if own else f"; {player} has no wager this round"),
            cite("621a.9(f)"),
        )
    wager = own[0]
    if chips is None:
        chips = wager.amount
    if chips < wager.amount:
        raise RuleViolation(
            "The bank's chips on the table include his own wager", cite("621a.9(d)(2)")
        )
    dealer_wager = ZERO
    if not co_bank:  # § 621a.9(e), (h): no dealer's wager against a co-bank
        usual = options.dealer_wager_against_bank
        if usual is None:
            usual = table.last_against_dealer[player]
        if directed is not None and directed > usual:
            raise RuleViolation(
                f"The bank may direct only a lesser dealer's wager than ${format_money(usual)}",
                cite("621a.9(h)"),
            )
        dealer_wager = usual if directed is None else directed
    elif directed:
        raise RuleViolation("The dealer may not wager against a co-bank", cite("621a.9(e)"))
    bank = Bank(player, wager.id, co_bank, chips, dealer_wager)
    _check_cover(bank, list(current.wagers))
    return bank


# --- the deal -------------------------------------------------------------------------


def tiles_deal(
    options: PaiGowOptions, table: PaiGowTable, payload: object
) -> tuple[PaiGowTable, StepOutcome]:
    """ "No more bets" and the deal (§ 621a.6, § 621a.7, § 621a.9(g)-(l))."""
    current = table.round
    if current.dealt is not None:
        return table, _rejected(RuleViolation("This round is already dealt", cite("621a.6(d)")))
    with_wager = {position(w) for w in current.wagers}
    try:
        dealt = deal_from_payload(options, payload, with_wager, current.bank_place())
    except RuleViolation as violation:
        return table, _rejected(violation)
    new_round = replace(current, dealt=dealt)
    extra = dealt.describe()
    if new_round.all_set():  # nobody has hands to set: the dealer sets his at once
        extra.update(_dealer_shown(options, new_round))
    return replace(table, round=new_round), StepOutcome(extra=extra)


# --- setting the hands -------------------------------------------------------------------


def hands_set(
    options: PaiGowOptions, table: PaiGowTable, payload: object
) -> tuple[PaiGowTable, StepOutcome]:
    """Players set their hands (§ 621a.8(a), (b)); the dealer sets his once all have."""
    if not isinstance(payload, dict) or not payload:
        raise MalformedInput(
            "set", 'must be an object such as {"w1": {"high": [...], "low": [...]}}'
        )
    current = table.round
    was_set = current.all_set()
    rejected: list[Rejection] = []
    resets: list[dict[str, object]] = []
    settings = dict(current.settings)
    for key in sorted(payload, key=lambda k: _set_turn(current, k)):
        raw = payload[key]
        if key == DEALER:
            continue  # the dealer's own setting is checked once the players' are in
        where = f"set.{key}"
        try:
            setting, reset = _player_setting(options, current, settings, key, raw, where)
        except RuleViolation as violation:
            rejected.append(Rejection(violation.message, key, violation.cite))
            continue
        settings[key] = setting
        if reset is not None:
            resets.append(reset)
    new_round = replace(current, settings=settings)
    extra: dict[str, object] = {}
    if DEALER in payload:
        try:
            reset = _dealer_setting(options, new_round, payload[DEALER])
        except RuleViolation as violation:
            rejected.append(Rejection(violation.message, cite=violation.cite))
        else:
            if reset is not None:
                resets.append(reset)
    if not was_set and new_round.all_set():
        extra.update(_dealer_shown(options, new_round))
    if resets:
        extra["reset"] = resets
    outcome = StepOutcome(rejected=tuple(rejected), extra=extra)
    return replace(table, round=new_round), outcome


def _setting_from(
    options: PaiGowOptions,
    raw: object,
    tiles: tuple[Tile, ...],
    where: str,
    *,
    high_first: bool = True,
) -> Setting:
    """A setting as the event writes it, checked against the four tiles dealt (and, for a
    player, that the high hand does not rank below the low hand)."""
    if raw == HOUSE_WAY:
        return house_way(tiles, options.house_way_tiebreak)
    if not isinstance(raw, dict) or set(raw) != {"high", "low"}:
        raise MalformedInput(where, 'must be "house_way" or {"high": [2 tiles], "low": [2 tiles]}')
    high = parse_tiles(raw["high"], 2, f"{where}.high")
    low = parse_tiles(raw["low"], 2, f"{where}.low")
    if sorted((*high, *low)) != sorted(tiles):
        raise RuleViolation(
            f"The hands must be set from the four tiles dealt: {', '.join(tiles_text(tiles))}",
            cite("621a.8(a)"),
        )
    if high_first and hand_strength(*high) < hand_strength(*low):
        raise RuleViolation(
            "The high hand ranks below the low hand; the high hand must be the higher ranking",
            cite("621a.1"),
        )
    return Setting(high, low)


def _player_setting(
    options: PaiGowOptions,
    current: Round,
    settings: dict[str, Setting],
    key: str,
    raw: object,
    where: str,
) -> tuple[Setting, dict[str, object] | None]:
    dealt = current.dealt
    if dealt is None:
        raise RuleViolation("No tiles have been dealt this round", cite("621a.8(a)"))
    wager = current.wager(key)
    if wager is None or wager.id in current.decided:
        raise RuleViolation(f"{key!r} is not a wager in play this round", cite("621a.8(a)"))
    if key in settings:
        raise RuleViolation(
            f"The hands of {key!r} are set and may not be changed", cite("621a.8(b)")
        )
    bank = current.bank
    if bank is not None and bank.co_bank and key == bank.wager:
        raise RuleViolation("When co-banking, the dealer sets the bank's hands", cite("621a.9(e)"))
    _check_set_order(current, settings, wager)
    tiles = dealt.hands[position(wager)]
    is_bank = bank is not None and key == bank.wager
    setting = _setting_from(options, raw, tiles, where, high_first=not is_bank)
    if is_bank:
        # § 621a.10(f): a bank's hands not set the house way are reset and play goes on.
        proper = house_way(tiles, options.house_way_tiebreak)
        if setting.strengths != proper.strengths:
            return proper, _reset_note(key, setting, proper)
        return proper, None
    return setting, None


def _set_turn(current: Round, key: str) -> int:
    """0 for a hand its player sets first under § 621a.5(d), 1 for his second: a set event
    applies every first hand before any second one, whatever the order of its keys."""
    wager = next((w for w in current.live() if w.id == key), None)
    if wager is None:
        return 0
    own = sorted(
        (w for w in current.live() if w.player == wager.player),
        key=lambda w: (-w.amount, int(position(w))),
    )
    return own.index(wager)


def _check_set_order(current: Round, settings: dict[str, Setting], wager: Wager) -> None:
    """§ 621a.5(d): a player's second hand waits until his first is set."""
    if _set_turn(current, wager.id) == 0:
        return
    first = next(w for w in current.live() if w.player == wager.player and w.id != wager.id)
    if first.id in settings:
        return
    reason = "the larger wager" if wager.amount != first.amount else "counterclockwise order"
    raise RuleViolation(
        f"Set the hands of {first.id!r} (position {position(first)}) first: {reason}",
        cite("621a.5(d)"),
    )


def _dealer_setting(
    options: PaiGowOptions, current: Round, raw: object
) -> dict[str, object] | None:
    """The dealer's hands as he set them: reset to the house way if they differ (§ 621a.10(f))."""
    if not current.all_set():
        raise RuleViolation(
            "The dealer sets his hands after every player has set his", cite("621a.8(c)")
        )
    assert current.dealt is not None
    tiles = current.dealt.hands[DEALER]
    setting = _setting_from(options, raw, tiles, f"set.{DEALER}", high_first=False)
    proper = house_way(tiles, options.house_way_tiebreak)
    if setting.strengths != proper.strengths:
        return _reset_note(DEALER, setting, proper)
    return None


def _reset_note(hand: str, setting: Setting, proper: Setting) -> dict[str, object]:
    return {
        "hand": hand,
        "set": _setting_text(setting),
        "reset_to": _setting_text(proper),
        "cite": cite("621a.10(f)"),
    }


def _setting_text(setting: Setting) -> dict[str, object]:
    text: dict[str, object] = {"high": tiles_text(setting.high), "low": tiles_text(setting.low)}
    if setting.rule is not None:
        text["cite"] = cite(setting.rule)
    return text


def _dealer_shown(options: PaiGowOptions, current: Round) -> dict[str, object]:
    """The dealer's (and a co-bank's) hands as the dealer sets them the house way."""
    assert current.dealt is not None
    tiebreak = options.house_way_tiebreak
    dealer = house_way(current.dealt.hands[DEALER], tiebreak)
    shown: dict[str, object] = {"dealer": _setting_text(dealer)}
    bank, place = current.bank, current.bank_place()
    if (
        bank is not None
        and place is not None
        and bank.co_bank
        and bank.wager not in current.decided
    ):
        tiles = current.dealt.hands[place]
        shown["co_bank"] = _setting_text(house_way(tiles, tiebreak))
    return shown


# --- surrender, irregularities ----------------------------------------------------------


def may_surrender(current: Round, wager_id: str) -> bool:
    """Every hand but the bank's may surrender (§ 621a.8(e)), once the dealer's are set."""
    return current.all_set() and not (current.bank is not None and wager_id == current.bank.wager)


def wagers_surrender(table: PaiGowTable, payload: object) -> tuple[PaiGowTable, StepOutcome]:
    """§ 621a.8(e): after the dealer's hands are set, before the player's are revealed."""
    if not isinstance(payload, list) or not all(isinstance(i, str) for i in payload):
        raise MalformedInput("surrender", "must be a list of wager ids")
    current = table.round
    decided = dict(current.decided)
    rejected: list[Rejection] = []
    resolutions: list[Resolution] = []
    section = cite("621a.8(e)")
    for wager_id in payload:
        wager = current.wager(wager_id)
        error = None
        if wager is None or wager_id in decided:
            error = f"{wager_id!r} is not a wager in play this round"
        elif not current.all_set():
            error = "A player may surrender only after the dealer's hands have been set"
        elif not may_surrender(current, wager_id):
            error = "The bank may not surrender"
        if error is not None:
            rejected.append(Rejection(error, wager_id, section))
            continue
        assert wager is not None
        resolution = Resolution(wager_id, "lose", -wager.amount, section, {"surrendered": "true"})
        decided[wager_id] = resolution
        resolutions.append(resolution)
    new_round = replace(current, decided=decided)
    outcome = StepOutcome(rejected=tuple(rejected), resolutions=tuple(resolutions))
    return replace(table, round=new_round), outcome


IRREGULARITIES = ("wrong_positions", "exposed_tile", "no_starting_position")


def irregularity(
    options: PaiGowOptions, table: PaiGowTable, payload: object
) -> tuple[PaiGowTable, StepOutcome]:
    """§ 621a.10(c)-(e): hands void and wagers returned; and, before any tile is dealt, a
    round whose random number generator gives no starting position (§ 621a.6(a)(1))."""
    if not isinstance(payload, dict) or payload.get("kind") not in IRREGULARITIES:
        raise MalformedInput("irregularity.kind", f"must be one of {', '.join(IRREGULARITIES)}")
    current = table.round
    if payload["kind"] == "no_starting_position":
        return _no_starting_position(options, table)
    if current.dealt is None:
        return table, _rejected(
            RuleViolation("No tiles have been dealt this round", cite("621a.10"))
        )
    if payload["kind"] == "wrong_positions":
        return _void_round(table, "621a.10(c)")
    place = payload.get("place")
    if not isinstance(place, str) or place not in (*PLACES, "bank"):
        raise MalformedInput("irregularity.place", f"must be one of {', '.join((*PLACES, 'bank'))}")
    void = payload.get("void", False)
    if not isinstance(void, bool):
        raise MalformedInput("irregularity.void", "must be true or false")
    bank_place = current.bank_place()
    if place == "bank":
        if bank_place is None:
            violation = RuleViolation("No player is banking this round", cite("621a.10(e)"))
            return table, _rejected(violation)
        place = bank_place
    if place in (DEALER, bank_place) and current.all_set():
        # § 621a.8(c), § 621a.9(n): once every player has set, these hands are shown anyway.
        violation = RuleViolation(
            "The dealer's and the bank's hands are turned face up once every player has "
            "set his; nothing is exposed out of turn",
            cite("621a.8(c)"),
        )
        return table, _rejected(violation)
    at_place = [w for w in current.wagers if position(w) == place]
    if place in (DEALER, DEAD_HAND, bank_place) or not at_place:
        return _void_round(table, "621a.10(e)")
    wager = at_place[0]
    if wager.id in current.decided:
        violation = RuleViolation(
            f"The hand at position {place} is already decided", cite("621a.10(d)")
        )
        return table, _rejected(violation)
    if not void:
        return table, StepOutcome(extra={"exposed": place, "played_out": True})
    if wager.id in current.settings:
        violation = RuleViolation(
            "The player decides to void his hand before setting it", cite("621a.10(d)")
        )
        return table, _rejected(violation)
    resolution = Resolution(wager.id, "push", ZERO, cite("621a.10(d)"), {"void_hand": "true"})
    was_set = current.all_set()
    new_round = replace(current, decided={**current.decided, wager.id: resolution})
    if not new_round.live():  # the last hand in play voided: nothing is left to reveal
        return _next_round(replace(table, round=new_round)), StepOutcome(resolutions=(resolution,))
    extra = _dealer_shown(options, new_round) if not was_set and new_round.all_set() else {}
    return replace(table, round=new_round), StepOutcome(resolutions=(resolution,), extra=extra)


def _no_starting_position(
    options: PaiGowOptions, table: PaiGowTable
) -> tuple[PaiGowTable, StepOutcome]:
    """docs/regulations.md, Devices: the generator the Rules Submission gives the starting
    position to gives no number, and no tile is dealt: the round cannot be dealt as
    § 621a.6 says, so it is void and every wager returned, as the chapter does when the deal
    cannot stand (§ 621a.10(c), (e)). A shaker's bad throw is a "no roll" instead."""
    if options.starting_position != RNG:
        violation = RuleViolation(
            'The Pai Gow shaker gives the starting position here: a bad throw is a "no roll" '
            "and the dealer shakes again",
            cite("621a.10(a)"),
        )
        return table, _rejected(violation)
    if table.round.dealt is not None:
        violation = RuleViolation(
            "The tiles are dealt: the starting position was given", cite("621a.6(a)(1)")
        )
        return table, _rejected(violation)
    return _void_round(table, "621a.6(a)(1)")


def _void_round(table: PaiGowTable, section: str) -> tuple[PaiGowTable, StepOutcome]:
    """Every hand void and every wager returned; the round is as if never played."""
    resolutions = tuple(Resolution(w.id, "push", ZERO, cite(section)) for w in table.round.live())
    return replace(table, round=Round()), StepOutcome(resolutions=resolutions)


# --- revealing and settling -------------------------------------------------------------------


def reveal_refusal(current: Round) -> RuleViolation | None:
    """Why the hands may not be revealed yet (§ 621a.8(c), (f)), or None."""
    if current.dealt is None:
        return RuleViolation("No tiles have been dealt this round", cite("621a.8(f)"))
    unset = [w.id for w in current.must_set() if w.id not in current.settings]
    if unset:
        return RuleViolation(
            f"Every player sets his hands before the dealer reveals them; not yet set: "
            f"{', '.join(unset)}",
            cite("621a.8(c)"),
        )
    return None


def hands_reveal(
    options: PaiGowOptions, table: PaiGowTable, payload: object
) -> tuple[PaiGowTable, StepOutcome]:
    """Every hand compared with the dealer's or the bank's, paid or collected (§ 621a.8(f)-(k),
    § 621a.9(n)-(r)); the round ends."""
    if payload is not True:
        raise MalformedInput("reveal", "must be true")
    current = table.round
    refusal = reveal_refusal(current)
    if refusal is not None:
        return table, _rejected(refusal)
    extra: dict[str, object] = {}
    if current.bank is None:
        resolutions = _settle_against_dealer(options, current)
    else:
        resolutions, summary = _settle_against_bank(options, current, current.bank)
        extra.update(summary)
    return _next_round(table), StepOutcome(resolutions=resolutions, extra=extra)


def _settle_against_dealer(options: PaiGowOptions, current: Round) -> tuple[Resolution, ...]:
    assert current.dealt is not None
    dealer = house_way(current.dealt.hands[DEALER], options.house_way_tiebreak)
    return tuple(
        _resolution(options, wager, decide(current.settings[wager.id], dealer))
        for wager in current.live()
    )


def _resolution(
    options: PaiGowOptions, wager: Wager, decision: Decision, against: str | None = None
) -> Resolution:
    extra = {} if against is None else {"against": against}
    if decision.result == "win":
        vig = vigorish(wager.amount, options.vig_rounding)
        extra["vig"] = format_money(vig)
        return Resolution(wager.id, "win", wager.amount - vig, cite(decision.section), extra)
    net = -wager.amount if decision.result == "lose" else ZERO
    return Resolution(wager.id, decision.result, net, cite(decision.section), extra)


def _settle_against_bank(
    options: PaiGowOptions, current: Round, bank: Bank
) -> tuple[tuple[Resolution, ...], dict[str, object]]:
    """§ 621a.9(n)-(r): the dealer's wager, then each player's, against the bank's hands;
    losers to the centre, winners paid from it, the bank (or co-bank) pays or takes the rest."""
    assert current.dealt is not None
    tiebreak = options.house_way_tiebreak
    banker = house_way(current.dealt.hands[current.bank_place()], tiebreak)  # type: ignore[index]
    losing = sum((-r.net for r in current.decided.values() if r.result == "lose"), ZERO)
    winning = ZERO
    summary: dict[str, object] = {}
    if bank.dealer_wager > 0:
        dealer = decide(house_way(current.dealt.hands[DEALER], tiebreak), banker)
        if dealer.result == "win":
            winning += bank.dealer_wager
        elif dealer.result == "lose":
            losing += bank.dealer_wager
        summary["dealer_wager"] = {
            "amount": format_money(bank.dealer_wager),
            "result": dealer.result,
            "cite": cite("621a.9(n)"),
        }
    resolutions = []
    for wager in current.live():
        if wager.id == bank.wager:
            continue
        resolution = _resolution(options, wager, decide(current.settings[wager.id], banker), "bank")
        if resolution.result == "win":
            winning += wager.amount
        elif resolution.result == "lose":
            losing += wager.amount
        resolutions.append(resolution)
    centre = Centre(losing, winning, bank.co_bank, options.vig_rounding)
    section = cite("621a.9(r)" if bank.co_bank else "621a.9(o)")
    net = centre.bank_net
    result = "win" if net > 0 else "lose" if net < 0 else "push"
    bank_extra = {"bank": "co_bank" if bank.co_bank else "bank", "vig": format_money(centre.vig)}
    resolutions.append(Resolution(bank.wager, result, net, section, bank_extra))  # type: ignore[arg-type]
    summary["centre"] = {
        "losing": format_money(centre.losing),
        "winning": format_money(centre.winning),
        "from_bank": format_money(centre.from_bank),
        "surplus": format_money(centre.surplus),
        "vig": format_money(centre.vig),
        "table_inventory": format_money(centre.table_inventory),
        "cite": section,
    }
    return tuple(resolutions), summary


def _next_round(table: PaiGowTable) -> PaiGowTable:
    """The round is over: what the bank rules remember of it (§ 621a.9(b)-(d))."""
    current = table.round
    last_against_dealer = table.last_against_dealer
    if current.bank is None:
        totals: dict[str, Decimal] = {}
        for wager in current.wagers:
            totals[wager.player] = totals.get(wager.player, ZERO) + wager.amount
        last_against_dealer = totals
    return replace(
        table,
        round=Round(),
        rounds_played=table.rounds_played + 1,
        last_bank=current.bank.player if current.bank else None,
        last_against_dealer=last_against_dealer,
    )
