"""The two players of a generated game: the engine (`games.scenario`) and the floor.

The floor plays it as tests/games/round_fixtures.py does: a compliant table whose Rules
Submission has the game's options, the round services (open, wagers, the other wagering
events, "no more bets", the result, a no roll, a void, the generators' numbers from their
own devices) or the REST API that calls them, and the worker's settlement of each round's
request. After every round each wager's resolution (result, net, cite) must be the
engine's, and the ledger must balance.
"""

import json
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, Protocol
from unittest import mock

from django.db.models import F, Sum
from django.test import Client
from django.utils import timezone

from casino.models import Table
from casino.rules.submissions import LIMIT_OPTIONS, PER_TABLE_OPTIONS
from casino.services.api_tokens import token_issue
from devices.gates import device_of
from devices.models import Device
from games import flow
from games.models import LedgerLine, Resolution, Round, RoundEvent, SettlementRequest
from games.replay import engine_events
from games.rules.core import format_money
from games.rules.registry import engine_get
from games.scenario import run_scenario
from games.services.round_state import state_after_replayed
from games.services.rounds import working_wagers
from games.services.settlement import round_settle
from gaming.rounds import (
    generator_number_post,
    no_more_bets,
    no_roll,
    result_enter,
    round_event,
    round_open,
    round_void,
    wagers_place,
)
from tests.casino import floor_fixtures
from tests.casino.floor_fixtures import T0, compliant_table, holder_get, operations, staff
from tests.devices.device_fixtures import heard, register
from tests.differential.generator import Game, Step

Decided = dict[str, tuple[str, str, str]]  # wager id -> (result, net, cite)


class Disagreement(AssertionError):
    """The two paths differ, or the floor refused or failed a step of a valid game."""


@dataclass
class Where:
    """Where the game is, for the failure message."""

    game: Game
    test: str  # the test's node id, for the replay line
    round: int = 0
    index: int = -1
    step: Step | None = None

    def replay(self) -> str:
        return (
            f"DIFFERENTIAL_SEED={self.game.seed} .venv/bin/pytest '{self.test}' "
            "-p no:cacheprovider -q"
        )

    def message(self, what: str) -> str:
        at = f"round {self.round}" if self.round else "before the first round"
        if self.step is not None:
            at += f", step {self.index} {self.step!r}"[:400]
        elif self.index >= 0:
            at += f", settled after its {self.index} steps"
        return (
            f"{self.game.game} ({self.game.variant}) seed {self.game.seed}, {at}: {what}\n"
            f"  options: {self.game.options}\n"
            f"  replay: {self.replay()}"
        )


@contextmanager
def _at(where: Where) -> Iterator[None]:
    try:
        yield
    except Disagreement:
        raise
    except Exception as error:  # a refusal or a crash of a step the engine takes
        raise Disagreement(where.message(f"{type(error).__name__}: {error}")) from error


def engine_rounds(generated: Game) -> tuple[list[Decided], tuple[str, ...]]:
    """Each round's resolutions by the engine alone, and the wagers left open."""
    result = run_scenario(generated.scenario())
    steps = iter(result["steps"])
    own = engine_events(engine_get(generated.game))
    rounds: list[Decided] = []
    seen: set[str] = set()
    for index, steps_of_round in enumerate(generated.rounds, start=1):
        decided: Decided = {}
        for step in steps_of_round:
            if _name(step) not in own:
                continue
            played = next(steps)
            if played["rejected"]:
                raise AssertionError(
                    f"{generated.game} seed {generated.seed} round {index}: the generator kept a "
                    "step the engine "
                    f"rejects: {played['rejected']}"
                )
            for r in played["resolutions"]:
                assert r["wager"] not in seen, f"{r['wager']} resolved twice by the engine"
                seen.add(r["wager"])
                decided[r["wager"]] = (r["result"], r["net"], r["cite"])
        rounds.append(decided)
    return rounds, tuple(result["open"])


def _name(step: Step) -> str:
    ((event, _),) = step.items()
    return event


# --- the floor ----------------------------------------------------------------------------


class Clock:
    """The services' injected clock: a second further at every call."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def floor_table(generated: Game, now: datetime = T0) -> Table:
    """A compliant, open table whose Rules Submission and own settings give these options,
    at a certificate holder of its own (a holder has one submission per game)."""
    options = dict(generated.options)
    per_table = (*PER_TABLE_OPTIONS[generated.game], *LIMIT_OPTIONS)
    submission = {k: v for k, v in options.items() if k not in per_table}
    holder = f"Differential {generated.game} {generated.seed} {uuid.uuid4().hex[:6]}"
    with mock.patch.object(floor_fixtures, "holder_get", lambda: holder_get(holder)):
        floor = compliant_table(
            generated.game,
            generated.variant,
            now=now,
            operation=str(options.get("table_type", "manual")),
            automated_shaker=options.get("shaker") == "automated",
            power_odds=_power_odds_offered(generated.game, options),
            min_wager=str(options["min_wager"]),
            max_wager=str(options["max_wager"]),
            options=submission,
            open_table=True,
        )
    table = floor.table
    steps = [s for rnd in generated.rounds for s in rnd]
    if any("power_odds" in s for s in steps):
        _device(table, "power_odds_rng", now)  # § 623b.5: the selection is the generator's
    if any(isinstance(s.get("deal"), dict) and "rng" in s["deal"] for s in steps):
        _device(table, "pai_gow_rng", now)  # § 621a.6(a)(1)
    return table


def _power_odds_offered(game: str, options: dict[str, Any]) -> bool:
    """Whether the scenario's Craps options offer Power Odds (the engine's default does)."""
    return game == "craps" and bool(engine_get(game).parse_options(options).power_odds)


def selection_before_throw(round_: Round, event: str, clock: "Clock") -> Round:
    """§ 623b.5(c): at a table offering Power Odds the generator selects before every throw,
    and the floor takes no throw before it. A scenario's throw with no `power_odds` step
    before it is the engine's "nothing selected", so the generator selects nothing (`{}`)."""
    if event != "throw" or round_.game != "craps" or not round_.options.get("power_odds"):
        return round_
    if round_.events.filter(event="power_odds").exists():
        return round_
    generator = device_of(round_.table, "power_odds_rng")
    return result_enter(round_, "power_odds", {}, by=generator, now=clock())


def _device(table: Table, kind: str, now: datetime) -> Device:
    found = device_of(table, kind)
    if found is None:
        found = register(table, kind, now=now).device
        heard(found, now=now)
    return Device.objects.get(pk=found.pk)


def settle_here(request: SettlementRequest, clock: "Clock") -> str:
    """What the worker does with a round's settlement request, called in this process."""
    return round_settle(request.pk, worker="differential", now=clock())


def floor_play(
    generated: Game,
    engine: list[Decided],
    open_after: tuple[str, ...],
    test: str,
    settle: Callable[[SettlementRequest, "Clock"], str] = settle_here,
    api: bool = False,
) -> int:
    """Play the game on the floor round by round; compare each round with the engine's.
    `settle` settles each round's request (here, or by waiting for a worker); `api` plays
    through the REST API as an integrator (at the wall clock, which the API uses) rather
    than the round services. The number of rounds played."""
    where = Where(generated, test)
    start = timezone.now() - timedelta(minutes=5) if api else T0
    with _at(where):
        table = floor_table(generated, start)
        driver: Driver = ApiDriver(table, start) if api else ServiceDriver(table)
    clock = Clock(start + timedelta(minutes=1))
    engine_options = _described(generated.game, generated.options)
    for number, steps in enumerate(generated.rounds, start=1):
        where.round, where.index, where.step = number, -1, None
        with _at(where):
            round_ = driver.open(clock)
        if round_.number != number:
            raise Disagreement(where.message(f"the floor opened round {round_.number}"))
        if _described(round_.game, round_.options) != engine_options:
            raise Disagreement(
                where.message(f"the round's options {round_.options} are not the scenario's")
            )
        for index, step in enumerate(steps):
            where.index, where.step = index, step
            with _at(where):
                round_ = driver.step(round_, step, clock)
        where.index, where.step = len(steps), None
        with _at(where):
            round_ = Round.objects.get(pk=round_.pk)
            # Settled already when a worker took the request the result sent on commit
            # before this read (a quick worker): `settle` then finds it settled.
            if round_.status not in (Round.Status.RESULT_ENTERED, Round.Status.SETTLED):
                raise Disagreement(where.message(f"the round is {round_.status} after its steps"))
            request = SettlementRequest.objects.get(round=round_)
            outcome = settle(request, clock)
        if outcome != "settled":
            raise Disagreement(where.message(f"settlement said {outcome!r}"))
        # Every event by the API, but a device's own report (a Power Odds selection).
        sources = (RoundEvent.Source.INTEGRATOR, RoundEvent.Source.DEVICE)
        if api and round_.events.exclude(source__in=sources).exists():
            raise Disagreement(where.message("an event of the round did not come by the API"))
        decisions_compare(where, engine[number - 1], floor_decided(round_))
        with _at(where):
            problems = books_problems(table)
        if problems:
            raise Disagreement(where.message("the ledger: " + "; ".join(problems[:5])))
    where.round, where.step = len(generated.rounds), None
    floor_open = working_wagers(Table.objects.get(pk=table.pk))
    if tuple(floor_open) != tuple(open_after):
        raise Disagreement(
            where.message(f"open after the game: engine {open_after}, floor {floor_open}")
        )
    # The state after the game rebuilt from the recorded events alone (no cached state).
    last = Round.objects.filter(table=table).order_by("-number").first()
    if last is not None:
        replayed = engine_get(generated.game).open_wagers(state_after_replayed(last))
        if tuple(replayed) != tuple(open_after):
            raise Disagreement(
                where.message(f"replayed from its events, open: {replayed}; engine {open_after}")
            )
    return len(generated.rounds)


def books_problems(table: Table) -> list[str]:
    """The ledger invariants of tests/games/round_fixtures.py (`books_balance_check`), in a
    few grouped queries so hundreds of rounds at one table stay linear: every entry sums to
    zero; each resolved wager's player lines sum to its net; the layout holds exactly the
    stakes of the wagers not yet resolved."""
    lines = LedgerLine.objects.filter(table=table)
    problems = [
        f"entry {row['entry__key']} sums to {row['total']}"
        for row in lines.values("entry__key").annotate(total=Sum("amount")).exclude(total=0)
    ]
    nets = dict(Resolution.objects.filter(wager__table=table).values_list("wager__ref", "net"))
    mine = dict(
        lines.filter(
            account=LedgerLine.Account.PLAYER, wager__isnull=False, player=F("wager__player")
        )
        .values("wager__ref")
        .annotate(total=Sum("amount"))
        .values_list("wager__ref", "total")
    )
    problems += [
        f"{ref}: its player lines sum to {mine.get(ref)}, its net is {net}"
        for ref, net in nets.items()
        if mine.get(ref) != net
    ]
    layout = lines.filter(account=LedgerLine.Account.LAYOUT)
    total = layout.aggregate(total=Sum("amount"))["total"] or ZERO
    open_stakes = (
        layout.filter(wager__isnull=False, wager__resolution__isnull=True).aggregate(
            total=Sum("amount")
        )["total"]
        or ZERO
    )
    if total != open_stakes:
        problems.append(f"the layout holds {total}, the stakes still open are {open_stakes}")
    return problems


ZERO = Decimal("0.00")


def _described(game: str, options: dict[str, Any]) -> dict[str, object]:
    engine = engine_get(game)
    return engine.describe_options(engine.parse_options(options))


def floor_decided(round_: Round) -> Decided:
    """The resolutions the round's settlement wrote, by wager ref."""
    return {
        r.wager.ref: (r.result, format_money(r.net), r.cite)
        for r in Resolution.objects.filter(round=round_).select_related("wager")
    }


def decisions_compare(where: Where, engine: Decided, floor: Decided) -> None:
    if engine == floor:
        return
    lines = []
    for ref in sorted(set(engine) | set(floor), key=_ref_key):
        if engine.get(ref) != floor.get(ref):
            lines.append(f"    {ref}: engine {engine.get(ref)}, floor {floor.get(ref)}")
    raise Disagreement(where.message("the resolutions differ:\n" + "\n".join(lines)))


def _ref_key(ref: str) -> tuple[int, ...]:
    return tuple(int(part) for part in ref.split(".") if part.isdigit())


class Driver(Protocol):
    def open(self, clock: Clock) -> Round: ...

    def step(self, round_: Round, step: Step, clock: Clock) -> Round: ...


class ServiceDriver:
    """The round services, as the admin and the stand-in dealer call them."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.by = operations()

    def open(self, clock: Clock) -> Round:
        return round_open(self.table, by=self.by, now=clock())

    def step(self, round_: Round, step: Step, clock: Clock) -> Round:
        ((event, payload),) = step.items()
        game, by = round_.game, self.by
        if event in flow.WAGERING_EVENTS[game]:
            if event != "wagers":
                return round_event(round_, event, payload, by=by, now=clock())
            assert isinstance(payload, list)
            bare = [{k: v for k, v in w.items() if k != "id"} for w in payload]
            rows = wagers_place(round_, bare, by=by, now=clock())
            _refs_check([row.ref for row in rows], payload)
            return round_
        round_ = Round.objects.get(pk=round_.pk)
        if round_.status == Round.Status.OPEN:
            round_ = no_more_bets(round_, by=by, now=clock())
        table = round_.table
        if event == "no_roll":
            return no_roll(round_, by=by, now=clock())
        section = _void_section(game, event, payload)
        if section is not None:
            return round_void(round_, section, by=by, now=clock())
        if event == "power_odds":
            by = device_of(table, "power_odds_rng")
        if game == "sic_bo" and event == "throw" and table.automated_shaker:
            by = device_of(table, "automated_shaker")  # its own dice (§ 625a.7(d))
        if event == "deal" and isinstance(payload, dict) and "rng" in payload:
            generator = device_of(table, "pai_gow_rng")
            generator_number_post(round_, payload["rng"], by=generator, now=clock())
            payload = {k: v for k, v in payload.items() if k != "rng"}
        round_ = selection_before_throw(round_, event, clock)
        return result_enter(round_, event, payload, by=by, now=clock())


class ApiDriver:
    """The REST API as an integrator's floor system uses it: a token bound to the table's
    certificate holder, an Idempotency-Key on every write. It takes the events the API
    has endpoints for (generator.API_EVENTS)."""

    def __init__(self, table: Table, now: datetime) -> None:
        self.table = table
        user = staff(f"integrator_{table.pk}", "integrator")
        _, key = token_issue(
            user=user, holder=table.holder, name="differential", by=operations(), now=now
        )
        self.client = Client(headers={"Authorization": f"Bearer {key}"})

    def _post(self, path: str, body: object = None) -> dict[str, Any]:
        headers = {"Idempotency-Key": str(uuid.uuid4())}
        if body is None:  # no body (the test client's post() would send a multipart one)
            response = self.client.generic("POST", path, headers=headers)
        else:
            data = json.dumps(body)
            response = self.client.post(
                path, data=data, content_type="application/json", headers=headers
            )
        if response.status_code not in (200, 201):
            raise AssertionError(
                f"POST {path} {body!r} answered {response.status_code}: "
                f"{response.content.decode(errors='replace')[:600]}"
            )
        return response.json()

    def open(self, clock: Clock) -> Round:
        answer = self._post("/api/v1/rounds/", {"table": self.table.pk})
        return Round.objects.get(pk=answer["id"])

    def step(self, round_: Round, step: Step, clock: Clock) -> Round:
        ((event, payload),) = step.items()
        game, path = round_.game, f"/api/v1/rounds/{round_.pk}"
        if event == "wagers":
            assert isinstance(payload, list)
            bare = [{k: v for k, v in w.items() if k != "id"} for w in payload]
            answer = self._post(f"{path}/wagers/", {"wagers": bare})
            _refs_check([w["ref"] for w in answer["wagers"]], payload)
            return round_
        if event in flow.WAGERING_EVENTS[game]:
            self._post(f"{path}/events/", {"event": event, "payload": payload})
            return round_
        if Round.objects.get(pk=round_.pk).status == Round.Status.OPEN:
            self._post(f"{path}/no-more-bets/")
        section = _void_section(game, event, payload)
        if event == "no_roll":
            self._post(f"{path}/no-roll/")
        elif section is not None:
            self._post(f"{path}/void/", {"section": section})
        else:
            # The generator's selection is the device's report, not the API's.
            selection_before_throw(Round.objects.get(pk=round_.pk), event, clock)
            self._post(f"{path}/result/", {"event": event, "payload": payload})
        return Round.objects.get(pk=round_.pk)


def _void_section(game: str, event: str, payload: object) -> str | None:
    """The section under which the floor voids the round with this engine event, if any."""
    for section, (void_event, void_payload) in flow.VOIDS.get(game, {}).items():
        if (event, payload) == (void_event, void_payload):
            return section
    return None


def _refs_check(refs: list[str], payload: list) -> None:
    ids = [w["id"] for w in payload]
    if refs != ids:
        raise AssertionError(f"the floor named the wagers {refs}, the scenario {ids}")
