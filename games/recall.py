"""Game recall: replay a settled round through the engine from the record alone and show
that its stored resolutions are reproduced, each with its citation.

The state the round started in is rebuilt from the events of its chain (never from the
cached state), with each round's own stored options.
"""

from dataclasses import dataclass
from decimal import Decimal

from games.models import Resolution, Round
from games.replay import play, round_begun, rules_hash
from games.rules.registry import engine_get
from games.services.round_state import state_after_replayed


@dataclass(frozen=True)
class Decision:
    """One wager's decision, stored and replayed (None where one side has none)."""

    wager: str
    stored: tuple[str, Decimal, str] | None
    replayed: tuple[str, Decimal, str] | None

    @property
    def reproduced(self) -> bool:
        return self.stored is not None and self.stored == self.replayed


@dataclass(frozen=True)
class Recall:
    round: Round
    rules_hash_now: str
    earlier_rounds: int
    decisions: tuple[Decision, ...]

    @property
    def all_reproduced(self) -> bool:
        return all(d.reproduced for d in self.decisions)


def round_recall(round_: Round) -> Recall:
    """Replay the round from its chain's events and pair each decision with the stored one."""
    engine = engine_get(round_.game)
    options = engine.parse_options(round_.options)
    earlier = 0
    if round_.previous_id is None:
        state = engine.new_state(options)
    else:
        state = round_begun(engine, options, state_after_replayed(round_.previous))
        earlier = _chain_length(round_) - 1
    events = [(e.seq, e.event, e.payload) for e in round_.events.order_by("seq")]
    _, played = play(engine, options, state, events)
    replayed = {r.wager: (r.result, r.net, r.cite) for p in played for r in p.outcome.resolutions}
    stored = {
        r.wager.ref: (r.result, r.net, r.cite)
        for r in Resolution.objects.filter(round=round_).select_related("wager")
    }
    order = list(dict.fromkeys([*stored, *replayed]))
    decisions = tuple(Decision(ref, stored.get(ref), replayed.get(ref)) for ref in order)
    return Recall(round_, rules_hash(round_.game), earlier, decisions)


def _chain_length(round_: Round) -> int:
    length, current = 1, round_
    while current.previous_id is not None:
        current = Round.objects.only("previous_id").get(pk=current.previous_id)
        length += 1
    return length
