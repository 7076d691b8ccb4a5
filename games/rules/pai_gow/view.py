"""The Pai Gow table as an integrator draws it, and what it takes now: the bank (§ 621a.9)
and what the bank rules remember, where the deal started (§ 621a.6(c)), each hand's state
(waiting for the deal, to be set, set, surrendered, void), and the dealer's hands once
every player has set his (§ 621a.8(c)). Each test asks the rule its event asks (table.py)."""

from games.rules.core import format_money
from games.rules.pai_gow.dealing import DEALER, POSITIONS
from games.rules.pai_gow.house_way import Setting, house_way
from games.rules.pai_gow.options import RNG, PaiGowOptions
from games.rules.pai_gow.table import (
    KIND,
    PaiGowTable,
    Round,
    bank_closed_refusal,
    may_surrender,
    position,
    reveal_refusal,
    taken_positions,
)
from games.rules.pai_gow.tiles import tiles_text

GAME = "pai_gow"


def state_summary(options: PaiGowOptions, table: PaiGowTable) -> dict[str, object]:
    """Who banks, whether the tiles are dealt and where the deal started."""
    current = table.round
    dealt = current.dealt
    return {
        "game": GAME,
        "bank": None if current.bank is None else current.bank.player,
        "dealt": dealt is not None,
        "starting_place": None if dealt is None else dealt.starting_place,
    }


def state_view(options: PaiGowOptions, table: PaiGowTable) -> dict[str, object]:
    """The bank, the deal, the dealer's hands and every hand at the table."""
    current = table.round
    dealt, bank = current.dealt, current.bank
    shown = dealt is not None and current.all_set()
    return {
        **state_summary(options, table),
        "rounds_played": table.rounds_played,
        "last_bank": table.last_bank,
        "banker": None
        if bank is None
        else {
            "player": bank.player,
            "wager": bank.wager,
            "co_bank": bank.co_bank,
            "chips": format_money(bank.chips),
            "dealer_wager": format_money(bank.dealer_wager),
        },
        "dealing": None
        if dealt is None
        else {"count": dealt.count, "starting_place": dealt.starting_place, "style": dealt.style},
        "dealer": _setting(house_way(dealt.hands[DEALER], options.house_way_tiebreak))
        if shown and dealt
        else None,
        "hands": [_hand(current, wager_id) for wager_id in (w.id for w in current.wagers)],
    }


def _setting(setting: Setting) -> dict[str, list[str]]:
    return {"high": tiles_text(setting.high), "low": tiles_text(setting.low)}


def _hand(current: Round, wager_id: str) -> dict[str, object]:
    wager = current.wager(wager_id)
    assert wager is not None
    decided = current.decided.get(wager_id)
    setting = current.settings.get(wager_id)
    bank = current.bank
    if decided is not None:
        state = "surrendered" if decided.extra.get("surrendered") else "void"
    elif current.dealt is None:
        state = "waiting"
    elif setting is not None:
        state = "set"
    elif bank is not None and bank.co_bank and wager_id == bank.wager:
        state = "dealer_sets"  # § 621a.9(e): the dealer sets a co-bank's hands
    else:
        state = "to_set"
    dealt = current.dealt
    return {
        "wager": wager.id,
        "player": wager.player,
        "position": int(position(wager)),
        "amount": format_money(wager.amount),
        "bank": bank is not None and bank.wager == wager_id,
        "state": state,
        "tiles": None if dealt is None else tiles_text(dealt.hands[position(wager)]),
        "set": None if setting is None else _setting(setting),
    }


def kinds_now(options: PaiGowOptions, table: PaiGowTable) -> tuple[str, ...]:
    """The one wager while the round is not dealt and a betting position is free."""
    current = table.round
    if current.dealt is not None or len(taken_positions(current.wagers)) >= len(POSITIONS):
        return ()
    return (KIND,)


def events_now(options: PaiGowOptions, table: PaiGowTable) -> tuple[str, ...]:
    """Before the deal: wagers, the bank, the deal, and where the generator gives the start
    the irregularity of its giving none (§ 621a.6(a)(1), `no_starting_position`). After it:
    settings, a surrender once the dealer's hands are set, the reveal once every player has
    set, an irregularity."""
    current = table.round
    if current.dealt is None:
        events = ["wagers"] if kinds_now(options, table) else []
        if options.player_banking and bank_closed_refusal(table) is None:
            events.append("bank")
        events.append("deal")
        return (*events, "irregularity") if options.starting_position == RNG else tuple(events)
    events = ["set"]
    if any(may_surrender(current, w.id) for w in current.live()):
        events.append("surrender")
    if reveal_refusal(current) is None:
        events.append("reveal")
    return (*events, "irregularity")
