"""The live floor page (issue 9): every table with its game, status, round in progress,
equipment due times, device health and last results.

`floor_snapshot` is the one reading of the floor, JSON-ready; the page at /floor/ renders
it server-side and then polls /floor/data.json every two seconds (casino/static/floor/).
The REST API's /api/v1/floor/ serves the same snapshot. Its queries are a fixed handful,
however many tables the floor has: tables, rounds in progress (with their settlement
requests, for the alerts), last results and their events, sets in play, devices.

A settlement request that failed, or was sent CASINO_SETTLEMENT_MAX_SENDS times, is an
alert at its table (`settlement_alert`): its round is the table's round in progress (it
stays "result entered"), so the alert comes with that round's row, in no query of its own.
So does a round waiting on a device since "no more bets" (`device_wait`, gaming/waits.py),
an alert once it has waited CASINO_DEVICE_WAIT_SECONDS: whether the step it waits for is
recorded is a subquery of the rounds' own.
"""

import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any, NamedTuple

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.db.models import Count, OuterRef, QuerySet, Subquery, Sum
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from rest_framework.renderers import JSONRenderer

from casino import floor_cache
from casino.api import throttles
from casino.api.errors import throttled_response
from casino.charts import p_text
from casino.models import SetInPlay, Table
from casino.rules.equipment import DUE_SOON, OVERDUE, REQUIRED_SETS, schedule_state
from casino.rules.words import composition_label, game_label, money_text, variant_label
from casino.services.equipment import set_limit_of
from devices.models import Device
from devices.selectors import Seen, seen_of
from devices.watch import threshold
from games import flow
from games.models import Round, RoundEvent, SettlementRequest
from games.rules.pai_gow.dealing import DEAD_HAND, DEALER, starting_place
from games.services.alerts import Alert, request_alert
from games.services.fairness import floor_fairness
from games.services.hold import current_gaming_day, floor_hold
from gaming.round_views import floor_summaries
from gaming.waits import WaitedDevice, ended_annotation, waiting_data, waiting_of
from webhooks.models import Endpoint

VIEW = "casino.view_table"
log = logging.getLogger(__name__)
LAST_RESULTS = 5
POLL_SECONDS = 2

# The floor page's words for a set's schedule state, and for a device's health.
DUE = {OVERDUE: "overdue", DUE_SOON: "soon"}  # anything else: "ok"
OK, STALE, DOWN = "ok", "stale", "down"
# The words beside each colour (floor.js has the same): colour is never the only sign.
DUE_WORDS = {"ok": "in date", "soon": "due soon", "overdue": "overdue"}
HEALTH_WORDS = {OK: "ok", STALE: "stale", DOWN: "down"}

# The events that say what a round's result was (the rest of a round is wagering, tile
# settings and reveals): read for the last results only.
_RESULT_EVENTS = sorted(
    (set().union(*flow.RESULT_EVENTS.values()) - {"set", "surrender", "reveal"})
    | {"no_roll", "bank"}
)
_VOIDED = "voided"


# -- The snapshot ------------------------------------------------------------------------

# Each query's columns: the snapshot reads values, never model instances (issue 21: building
# and filling models was half of a read's time).
_TABLE = (
    "id",
    "number",
    "holder__name",
    "game",
    "variant",
    "status",
    "status_changed_at",
    "automated_shaker",
    "closed_at",
)
_REQUEST = (  # the round in progress's settlement request, for its alert
    "id",
    "created_at",
    "sent_at",
    "sends",
    "settled_at",
    "settled_by",
    "failures",
    "failure_kind",
    "error",
    "first_failed_at",
    "last_failed_at",
)
# The round's own columns its state is read by (gaming.round_views.floor_summaries).
_STATE = ("game", "options", "cache_token", "previous_id")
_CURRENT = (
    *("id", "table_id", "number", "status", "opened_at", "wager_count", "wagered", *_STATE),
    *("closed_at", "wait_ended"),  # for a wait on a device (gaming/waits.py), with options
    *(f"settlement_request__{name}" for name in _REQUEST),
)
_RESULT = ("id", "table_id", "number", "status", "result_at", "opened_at", *_STATE)
_SET = (
    "table_id",
    "composition",
    "put_in_play_at",
    "due_at",
    "warn_from",
    "limit",
    "locked_in_automated_shaker",
    "equipment_set__identifier",
    "equipment_set__meets_603a_12_c",
)
_DEVICE = (
    "id",
    "table_id",
    "kind",
    "serial_number",
    "status",
    "position",
    "last_seen_at",
    "status_changed_at",
)
_TABLE_STATUS = dict(Table.Status.choices)
_ROUND_STATUS = dict(Round.Status.choices)
_DEVICE_STATUS = dict(Device.Status.choices)
_DEVICE_KIND = dict(Device._meta.get_field("kind").choices)


class _Event(NamedTuple):
    """A result event as `result_text` reads it."""

    event: str
    payload: Any


Row = dict[str, Any]


def floor_snapshot(*, now: datetime, tables: QuerySet[Table] | None = None) -> dict[str, Any]:
    """The floor at `now` as JSON-ready data: {"at": iso, "tables": [...]}.

    Five flat queries (tables with their last results' ids, rounds in progress, those
    results, their result events, sets in play, devices) and one read of the heartbeat
    store per device kind; the views serve it through `floor_read`, from the cache."""
    everything = tables is None
    rows = list(_with_last_results(Table.objects.all() if tables is None else tables))
    ids = [table["id"] for table in rows]

    def mine(queryset: QuerySet) -> QuerySet:
        # The whole floor needs no list of ids (and no IN clause the size of the floor).
        return queryset if everything else queryset.filter(table_id__in=ids)

    current = {
        round_["table_id"]: round_
        for round_ in mine(Round.objects.filter(status__in=Round.IN_PROGRESS))
        .annotate(
            wager_count=Count("wagers"),
            wagered=Sum("wagers__amount"),
            wait_ended=ended_annotation(),
        )
        .values(*_CURRENT)
    }
    results = _last_results(rows)
    sets: dict[int, list[Row]] = {}
    for row in mine(SetInPlay.objects.filter(removed_at__isnull=True)).values(*_SET):
        sets.setdefault(row["table_id"], []).append(row)
    devices: dict[int, list[Row]] = {}
    found = list(mine(Device.objects.exclude(status=Device.Status.RETIRED)).values(*_DEVICE))
    seen = seen_of((d["id"], d["kind"], d["last_seen_at"]) for d in found)
    for device in found:
        devices.setdefault(device["table_id"], []).append(device)
    urls = _AdminUrls()
    states = _states(rows, current, results)

    return {
        "at": now.isoformat(),
        "tables": [
            _table(
                table,
                now,
                current.get(table["id"]),
                results.get(table["id"], []),
                sets.get(table["id"], []),
                devices.get(table["id"], []),
                seen,
                urls,
                states.get(table["id"]),
            )
            for table in rows
        ],
    }


def floor_json(*, holder_id: int | None = None) -> bytes:
    """The snapshot now as JSON (DRF's JSONRenderer's bytes), as the page and the API serve
    it: from the shared cache, at most casino.floor_cache.SECONDS old and rebuilt at once
    after a change. `holder_id` bounds it to one certificate holder's tables (an API
    token's), cached apart: each scope's snapshot is served as built, never filtered."""

    return floor_cache.FLOOR.cached(
        floor_cache.holder_scope(holder_id), lambda: floor_build(holder_id=holder_id)
    )


def floor_build(*, holder_id: int | None = None) -> bytes:
    """The snapshot now as JSON, built afresh (`floor_json` keeps it in the cache)."""
    tables = None if holder_id is None else Table.objects.filter(holder_id=holder_id)
    return JSONRenderer().render(floor_snapshot(now=timezone.now(), tables=tables))


def floor_read(*, holder_id: int | None = None) -> dict[str, Any]:
    """`floor_json`'s snapshot as data (the same as `floor_snapshot`'s: it is JSON-ready)."""
    return json.loads(floor_json(holder_id=holder_id))


class _AdminUrls:
    """Admin change pages: each model's reversed once per snapshot, the pk put in after
    (reverse per row was a tenth of the snapshot's time)."""

    _PK = "__pk__"  # the admin's <path:object_id> takes any text

    def __init__(self) -> None:
        self._patterns: dict[str, str] = {}

    def change(self, model: str, pk: int) -> str:
        """`reverse("admin:<model>_change", args=[pk])`."""
        if model not in self._patterns:
            self._patterns[model] = reverse(f"admin:{model}_change", args=[self._PK])
        return self._patterns[model].replace(self._PK, str(pk))


def _with_last_results(tables: QuerySet[Table]) -> QuerySet[Table]:
    """Each table's columns with the ids of its last LAST_RESULTS rounds with a result.

    One index probe each on (table, number), however long the floor's history: ranking
    every round of every table (a window function) would read them all, every poll.
    """
    done = (
        Round.objects.filter(table=OuterRef("pk"), result_at__isnull=False)
        .order_by("-number")
        .values("pk")
    )
    results = {f"result_{n}": Subquery(done[n : n + 1]) for n in range(LAST_RESULTS)}
    return tables.annotate(**results).values(*_TABLE, *results)


def _last_results(tables: Sequence[Row]) -> dict[int, list[Row]]:
    """Those rounds by table, newest first, each with its result events in order (under
    "events"): two queries."""
    ids = [
        pk
        for table in tables
        for n in range(LAST_RESULTS)
        if (pk := table[f"result_{n}"]) is not None
    ]
    if not ids:
        return {}
    events: dict[int, list[_Event]] = {}
    for event in (
        RoundEvent.objects.filter(round_id__in=ids, event__in=_RESULT_EVENTS)
        .order_by("round_id", "seq")
        .values_list("round_id", "event", "payload")
    ):
        events.setdefault(event[0], []).append(_Event(event[1], event[2]))
    found: dict[int, list[Row]] = {}
    for round_ in Round.objects.filter(pk__in=ids).order_by("table_id", "-number").values(*_RESULT):
        round_["events"] = events.get(round_["id"], [])
        found.setdefault(round_["table_id"], []).append(round_)
    return found


def _table(
    table: Row,
    now: datetime,
    current: Row | None,
    results: list[Row],
    sets: list[Row],
    devices: list[Row],
    seen: Mapping[int, Seen],
    urls: _AdminUrls,
    state: dict[str, Any] | None,
) -> dict[str, Any]:
    in_play = {row["composition"] for row in sets}
    variant = table["variant"]
    return {
        "id": table["id"],
        "number": table["number"],
        "holder": table["holder__name"],
        "game": {"key": table["game"], "name": game_label(table["game"])},
        # The variant's name in the table's own game (Table.get_variant_display).
        "variant": {"key": variant, "name": variant_label(table["game"], variant)},
        "status": table["status"],
        "status_display": _TABLE_STATUS.get(table["status"], table["status"]),
        "status_changed_at": _iso(table["status_changed_at"]),
        "admin_url": urls.change("casino_table", table["id"]),
        "round": None if current is None else _round(current, urls),
        "equipment": [_set(row, table, now) for row in sets],
        "missing_sets": [
            composition_label(composition)
            for composition in REQUIRED_SETS.get((table["game"], variant), ())
            if composition not in in_play
        ],
        "devices": [_device(device, seen[device["id"]].at, now, urls) for device in devices],
        "last_results": [_result(round_, urls) for round_ in results],
        "settlement_alert": _alert(current, now, urls),
        "device_wait": _device_wait(table, current, devices, now),
        "state": state,
    }


def _states(
    tables: Sequence[Row], current: Mapping[int, Row], results: Mapping[int, list[Row]]
) -> dict[int, Any]:
    """Each table's summary of its state (the point, the shooter, the drive ...), by table id:
    after its round in progress's last event, else after its last round (a fresh table's if
    it closed since); none for a table that never played. From the shared cache, with the
    rows already read (gaming.round_views.floor_summaries)."""
    latest: dict[int, Round] = {}
    fresh = set()
    for table in tables:
        row = current.get(table["id"])
        if row is None and results.get(table["id"]):
            row = results[table["id"]][0]
            if not flow.game_carries(table["closed_at"], row["opened_at"]):
                fresh.add(row["id"])
        if row is not None:
            # An unsaved Round from the values, as the cache's key and a replay read it.
            latest[table["id"]] = Round(
                pk=row["id"],
                table_id=table["id"],
                status=row["status"],
                **{name: row[name] for name in _STATE},
            )
    summaries = floor_summaries(list(latest.values()), fresh)
    return {table_id: summaries[round_.pk] for table_id, round_ in latest.items()}


def _round(round_: Row, urls: _AdminUrls) -> dict[str, Any]:
    return {
        "id": round_["id"],
        "number": round_["number"],
        "status": round_["status"],
        "status_display": _ROUND_STATUS.get(round_["status"], round_["status"]),
        "opened_at": _iso(round_["opened_at"]),
        "wagers": round_["wager_count"],
        "wagered": _amount(round_["wagered"]),
        "admin_url": urls.change("games_round", round_["id"]),
    }


def _alert(current: Row | None, now: datetime, urls: _AdminUrls) -> dict[str, Any] | None:
    """The round in progress's stuck settlement, or None."""
    if current is None or current["settlement_request__id"] is None:
        return None
    # An unsaved request from the values, for games.services.alerts (a few a floor at most).
    request = SettlementRequest(
        **{name: current[f"settlement_request__{name}"] for name in _REQUEST}
    )
    alert: Alert | None = request_alert(request, now)
    if alert is None:
        return None
    return {
        "round": {"id": current["id"], "number": current["number"]},
        "request_id": alert.request_id,
        "status": alert.status,
        "status_display": alert.label,
        "kind": alert.kind,
        "error": alert.error,
        "since": _iso(alert.since),
        "last_failed_at": _iso(alert.last_failed_at),
        "failures": alert.failures,
        "sends": alert.sends,
        "guidance": alert.guidance,
        "admin_url": urls.change("games_settlementrequest", alert.request_id),
    }


def _device_wait(
    table: Row, current: Row | None, devices: list[Row], now: datetime
) -> dict[str, Any] | None:
    """The round in progress waiting on a device since "no more bets", or None."""
    if current is None:
        return None
    kinds = {
        device["kind"]: WaitedDevice(device["id"], device["serial_number"], device["status"])
        for device in devices
    }
    waiting = waiting_of(
        round_id=current["id"],
        round_number=current["number"],
        table_id=table["id"],
        table_number=table["number"],
        game=table["game"],
        options=current["options"],
        status=current["status"],
        closed_at=current["closed_at"],
        ended=current["wait_ended"],
        device_of=kinds.get,
    )
    if waiting is None:
        return None
    data = waiting_data(waiting, now)
    return {**data, "since": _iso(waiting.since), "alert_at": _iso(waiting.alert_at)}


def _set(row: Row, table: Row, now: datetime) -> dict[str, Any]:
    due_at, warn_from, limit = set_limit_of(
        game=table["game"],
        automated_shaker=table["automated_shaker"],
        composition=row["composition"],
        locked_in_automated_shaker=row["locked_in_automated_shaker"],
        meets_603a_12_c=row["equipment_set__meets_603a_12_c"],
        put_in_play_at=row["put_in_play_at"],
        due_at=row["due_at"],
        warn_from=row["warn_from"],
        limit=row["limit"],
    )
    # The rules' own reading: in date up to and including the moment the limit runs out.
    state = schedule_state(due_at, due_at - warn_from, now)
    return {
        "composition": composition_label(row["composition"]),
        "set": row["equipment_set__identifier"],
        "put_in_play_at": _iso(row["put_in_play_at"]),
        "due_at": _iso(due_at),
        "warn_from": _iso(warn_from),
        "limit": limit,
        "due": DUE.get(state, OK),
    }


def _device(device: Row, seen: datetime | None, now: datetime, urls: _AdminUrls) -> dict[str, Any]:
    ago = None if seen is None else max(0, int((now - seen).total_seconds()))
    return {
        "id": device["id"],
        "kind": _DEVICE_KIND.get(device["kind"], device["kind"]),
        "serial": device["serial_number"],
        "status": device["status"],
        "status_display": _DEVICE_STATUS.get(device["status"], device["status"]),
        "position": device["position"],
        "last_seen_at": _iso(seen),
        "seconds_since_seen": ago,
        "health": _health(device, seen, now),
        "admin_url": urls.change("devices_device", device["id"]),
    }


def _health(device: Row, seen: datetime | None, now: datetime) -> str:
    """ok: active and heard from within its kind's allowance; down: faulted or out of
    order; stale: anything else (silent, never heard from, or marked stale)."""
    if device["status"] in (Device.Status.FAULTED, Device.Status.OUT_OF_ORDER):
        return DOWN
    if device["status"] != Device.Status.ACTIVE:
        return STALE
    # The watch may not have run yet: judge the silence at `now`, as it would.
    last = seen or device["status_changed_at"]
    return OK if (now - last).total_seconds() <= threshold(device["kind"])[2] else STALE


def _result(round_: Row, urls: _AdminUrls) -> dict[str, Any]:
    text, voided = result_text(round_["game"], round_["events"])
    status = _VOIDED if voided else round_["status"]
    return {
        "id": round_["id"],
        "number": round_["number"],
        "result": text,
        "status": status,
        "status_display": "Voided" if voided else _ROUND_STATUS.get(status, status),
        "at": _iso(round_["result_at"]),
        "admin_url": urls.change("games_round", round_["id"]),
    }


# -- A result, readably ------------------------------------------------------------------


def result_text(game: str, events: Iterable[RoundEvent | _Event]) -> tuple[str, bool]:
    """A round's result in a few words (dice "3-4-5", a Pai Gow starting position), and
    whether the round was voided; from its result events in order."""
    events = list(events)
    for event in events:
        section = _void_section(game, event.event, event.payload)
        if section:
            return f"void (§ {section}): every wager returned", True
    if game == "pai_gow":
        return _pai_gow_text(events), False
    parts = []
    for event in events:
        if event.event == "throw":
            parts = [_throw_text(game, event.payload)]  # the last throw is the result
        elif event.event == "extra_roll":
            parts.append(f"Extra Roll {_dice(event.payload)}")
        elif event.event == "no_roll" and game in flow.NO_ROLL_IN_ENGINE:
            parts = ["no roll: every wager returned"]
    return ", ".join(parts) or "no result recorded", False


def _void_section(game: str, event: str, payload: object) -> str | None:
    for section, (void_event, void_payload) in flow.VOIDS.get(game, {}).items():
        if event != void_event:
            continue
        if isinstance(void_payload, Mapping):
            if isinstance(payload, Mapping) and all(
                payload.get(k) == v for k, v in void_payload.items()
            ):
                return section
        elif payload == void_payload:
            return section
    return None


def _dice(faces: object) -> str:
    if isinstance(faces, list) and all(isinstance(f, int) for f in faces):
        return "-".join(str(f) for f in faces)
    return str(faces)


def _throw_text(game: str, payload: object) -> str:
    if game == "three_dice_football" and isinstance(payload, Mapping):
        return f"green {_dice(payload.get('green'))}, red {payload.get('red')}"
    if game == "craps" and isinstance(payload, list) and all(isinstance(f, int) for f in payload):
        return f"{_dice(payload)} ({sum(payload)})"
    return _dice(payload)


def _pai_gow_text(events: list[RoundEvent | _Event]) -> str:
    deal = next((e for e in events if e.event == "deal"), None)
    if deal is None or not isinstance(deal.payload, Mapping):
        return "not dealt"
    payload = deal.payload
    if "dice" in payload and isinstance(payload["dice"], list):
        faces = payload["dice"]
        how = f"dice {_dice(faces)}"
        count = sum(f for f in faces if isinstance(f, int))
    elif isinstance(payload.get("rng"), int):
        count = payload["rng"]
        how = f"generator {count}"
    else:
        return "hands dealt as given"
    if any(e.event == "bank" for e in events):
        # A player bank's count begins at the bank's position (§ 621a.9(j)).
        return f"{how}: count {count} from the bank"
    return f"{how}: starts at {_place(starting_place(max(count, 1)))}"


def _place(place: str) -> str:
    if place == DEALER:
        return "the dealer"
    if place == DEAD_HAND:
        return "the Dead Hand"
    return f"position {place}"


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _amount(value: Decimal | None) -> str:
    return str((value or Decimal(0)).quantize(Decimal("0.01")))


# -- The page and its data ---------------------------------------------------------------


def _staff(request: HttpRequest) -> bool:
    return request.user.is_authenticated and request.user.is_staff


@never_cache
def floor_page(request: HttpRequest) -> HttpResponse:
    """The floor page: rendered here first, then kept live by casino/static/floor/floor.js."""
    if not _staff(request):
        return redirect_to_login(request.get_full_path(), reverse("admin:login"))
    if not request.user.has_perm(VIEW):
        raise PermissionDenied(f"{request.user} may not view the floor (needs {VIEW})")
    snapshot = floor_read()
    badges = _badges()
    context = {
        "tables": [
            {**_for_page(table, snapshot["at"]), "badges": badges.get(str(table["id"]), [])}
            for table in snapshot["tables"]
        ],
        "summary": summary(snapshot),
        "as_of": _local(snapshot["at"], "%H:%M:%S"),
        "time_zone": settings.TIME_ZONE,
        "poll_ms": POLL_SECONDS * 1000,
        "poll_seconds": POLL_SECONDS,
        "links": admin_links(),
        "statistics_ms": STATISTICS_SECONDS * 1000,
        "badges": badges,
        # Nothing at the tables waits on a webhook: a disabled endpoint is told in the
        # header when the page loads (not polled), with the admin's list one click away.
        "webhooks_disabled": Endpoint.objects.filter(disabled_at__isnull=False).count(),
        "webhooks_disabled_url": reverse("admin:webhooks_endpoint_changelist") + "?state=disabled",
    }
    return render(request, "floor/floor.html", context)


def _badges() -> dict[str, list[dict[str, str]]]:
    """The statistics badges by table id; none, logged, if they cannot be computed: the
    floor page shows the floor whatever befalls the statistics (floor.js tries again)."""
    try:
        return statistics_read()["tables"]
    except Exception:  # the page must not fall with a figure that could not be computed
        log.exception("floor page: the statistics badges could not be computed")
        return {}


def _over_budget(user: Any, reading: Iterable[str] = ()) -> tuple[HttpResponse | None, Any]:
    """Count a staff member's poll against the user's budget (casino/api/throttles.py: the
    one the user's API calls through the session spend too), reading `reading` in the same
    trip: (the 429 to answer or None, what was read; None if the cache failed). A poll
    signed out or by a user who is not staff is refused before it, as cheaply (nothing
    read, nothing counted: the address's budget is the whole site's behind a balancer)."""
    taken = throttles.take("user", str(user.pk), reading)
    if taken.wait:
        detail = throttles.refusal_text("user", taken.wait)
        return throttled_response(detail, taken.wait), None
    return None, taken.found


@never_cache
def floor_data(request: HttpRequest) -> HttpResponse:
    """The floor snapshot as JSON, for the page's polling (401 signed out, 403 no right,
    429 over the user's budget)."""
    user = request.user
    if not user.is_authenticated:
        return JsonResponse({"detail": "Sign in to the admin to see the floor."}, status=401)
    if not user.is_staff:
        return JsonResponse({"detail": f"Viewing the floor needs {VIEW}."}, status=403)
    # The budget, the user's right and the floor's entry in one trip (casino/floor_cache.py);
    # so a poll the right then refuses has spent one of the budget.
    scope = floor_cache.viewer_scope(user.pk, VIEW)
    reading = [*floor_cache.VIEWERS.keys(scope), *floor_cache.FLOOR.keys(floor_cache.EVERYTHING)]
    refused, found = _over_budget(user, reading)
    if refused is not None:
        return refused
    if not floor_cache.VIEWERS.serve(found, scope, lambda: user.has_perm(VIEW)):
        return JsonResponse({"detail": f"Viewing the floor needs {VIEW}."}, status=403)
    body = floor_cache.FLOOR.serve(found, floor_cache.EVERYTHING, floor_build)
    return HttpResponse(body, content_type="application/json")


def admin_links() -> list[tuple[str, str]]:
    """The admin pages the floor page links to."""
    return [
        ("Admin", reverse("admin:index")),
        ("Tables", reverse("admin:casino_table_changelist")),
        ("Rounds", reverse("admin:games_round_changelist")),
        ("Devices", reverse("admin:devices_device_changelist")),
        ("Hold and dice", reverse("admin:casino_table_statistics")),
        ("Equipment schedule", reverse("admin:casino_setinplay_schedule")),
    ]


def summary(snapshot: Mapping[str, Any]) -> dict[str, int]:
    """Counts for the page's header: tables by status, sets overdue, devices not ok,
    settlements stuck, rounds waiting on a device past the setting."""
    tables = snapshot["tables"]
    return {
        "open": sum(t["status"] == Table.Status.OPEN for t in tables),
        "suspended": sum(t["status"] == Table.Status.SUSPENDED for t in tables),
        "closed": sum(t["status"] == Table.Status.CLOSED for t in tables),
        "overdue": sum(s["due"] == "overdue" for t in tables for s in t["equipment"]),
        "devices_not_ok": sum(d["health"] != OK for t in tables for d in t["devices"]),
        "settlements_stuck": sum(t["settlement_alert"] is not None for t in tables),
        "rounds_waiting": sum(bool(t["device_wait"] and t["device_wait"]["alert"]) for t in tables),
    }


def _local(iso: str | None, pattern: str = "%Y-%m-%d %H:%M") -> str:
    """A snapshot time in the casino's time zone (settings.TIME_ZONE), as floor.js writes it."""
    if iso is None:
        return ""
    moment = datetime.fromisoformat(iso)
    return timezone.localtime(moment, timezone.get_default_timezone()).strftime(pattern)


def _short(iso: str | None, today: str) -> str:
    """HH:MM on the snapshot's own day, the date too before it (as floor.js)."""
    full = _local(iso)
    return full[11:] if full[:10] == today else full


def ago_text(seconds: int | None) -> str:
    """How long ago a device was last heard from, in the unit that reads best."""
    if seconds is None:
        return "never heard from"
    for unit, size, below in (("s", 1, 120), ("min", 60, 7200), ("h", 3600, 172800)):
        if seconds < below:
            return f"seen {seconds // size} {unit} ago"
    return f"seen {seconds // 86400} days ago"


def _for_page(table: Mapping[str, Any], at: str) -> dict[str, Any]:
    """A table of the snapshot with its times written out for the template."""
    today = _local(at)[:10]
    page = dict(table)
    page["since_text"] = _short(table["status_changed_at"], today)
    if table["round"] is not None:
        opened = _short(table["round"]["opened_at"], today)
        page["round"] = {**table["round"], "opened_text": opened}
    page["equipment"] = [
        {**s, "due_text": _local(s["due_at"]), "word": DUE_WORDS[s["due"]]}
        for s in table["equipment"]
    ]
    page["devices"] = [
        {**d, "seen_text": ago_text(d["seconds_since_seen"]), "word": HEALTH_WORDS[d["health"]]}
        for d in table["devices"]
    ]
    page["last_results"] = [{**r, "at_text": _short(r["at"], today)} for r in table["last_results"]]
    if table["settlement_alert"] is not None:
        alert = table["settlement_alert"]
        page["settlement_alert"] = {**alert, "since_text": _short(alert["since"], today)}
    if table["device_wait"] is not None:
        wait = table["device_wait"]
        page["device_wait"] = {**wait, "since_text": _local(wait["since"], "%H:%M:%S")}
    return page


# -- The statistics badges (issue 23) ---------------------------------------------------

# The floor page's statistics badges (issue 23): at a table, "hold out of band" when its
# hold this gaming day is past its threshold, and "dice look loaded" when a dice set in
# play there fails the fairness test, each linking to the chart behind it.
#
# Kept apart from the floor snapshot, which is rebuilt every second or so and whose read is
# benchmarked (issue 21): the hold of every table with play today and the fairness of
# every set in play read every decided wager and every throw, so they are computed at most
# once every STATISTICS_SECONDS and kept in the shared cache (casino/cache.py); the first
# reader after the entry expires pays. The page renders the badges with the tables, and
# floor.js polls /floor/statistics.json every STATISTICS_SECONDS to keep them, drawing them into
# each card as it draws the snapshot. A badge is thus at most a minute late: these are
# figures over a day or a set's life, not the round in play.

STATISTICS_SECONDS = 60
STATISTICS_KEY = "floor-statistics:v1"


def statistics_build(now: datetime | None = None) -> dict[str, Any]:
    """Today's alerts, JSON-ready: {"at", "day", "tables": {table id: [badge, ...]}}.

    A badge: {"kind": "hold" or "dice", "text", "detail", "url"}; only tables with an
    alert appear. Every table's figures are in the admin's floor report (its "url")."""
    now = now or timezone.now()
    day = current_gaming_day()
    tables: dict[str, list[dict[str, str]]] = {}
    for hold in floor_hold(day):
        if not hold.alert:
            continue
        url = reverse("admin:casino_table_hold", args=[hold.table_id])
        tables.setdefault(str(hold.table_id), []).append(
            {
                "kind": "hold",
                "text": "hold out of band",
                "detail": (
                    f"z = {hold.z_score} (alert at ±{hold.threshold}): won "
                    f"{money_text(hold.win)}, theory {money_text(hold.theoretical_win)}"
                ),
                "url": f"{url}?day={day.isoformat()}",
            }
        )
    loaded = [fairness for fairness in floor_fairness() if fairness.alert]
    # Fairness names a set's table by number (unique only per holder): its id from the
    # set's time in play now, in one query.
    at_table = dict(
        SetInPlay.objects.filter(
            removed_at__isnull=True, equipment_set_id__in=[f.set_id for f in loaded]
        ).values_list("equipment_set_id", "table_id")
    )
    for fairness in loaded:
        table_id = at_table.get(fairness.set_id)
        if table_id is None:
            continue
        tables.setdefault(str(table_id), []).append(
            {
                "kind": "dice",
                "text": "dice look loaded",
                "detail": (
                    f"set {fairness.identifier}: p = {p_text(fairness.overall.p_value)} "
                    f"over {fairness.throws} throws (alert under "
                    f"{fairness.threshold.normalize():f})"
                ),
                "url": reverse("admin:casino_equipmentset_fairness", args=[fairness.set_id]),
            }
        )
    return {
        "at": now.isoformat(),
        "day": day.isoformat(),
        "tables": tables,
        "report_url": reverse("admin:casino_table_statistics"),
    }


def statistics_read() -> dict[str, Any]:
    """`statistics_build`'s answer from the shared cache, at most STATISTICS_SECONDS old."""
    found = cache.get(STATISTICS_KEY)
    if found is None:
        found = statistics_build()
        cache.set(STATISTICS_KEY, found, STATISTICS_SECONDS)
    return found


@never_cache
def floor_statistics(request: HttpRequest) -> HttpResponse:
    """The badges as JSON, for the floor page's polling (401 signed out, 403 no right,
    429 over the caller's budget)."""
    user = request.user
    if not user.is_authenticated:
        return JsonResponse({"detail": "Sign in to the admin to see the floor."}, status=401)
    if not (user.is_staff and user.has_perm(VIEW)):
        return JsonResponse({"detail": f"Viewing the floor needs {VIEW}."}, status=403)
    refused, _ = _over_budget(user)
    if refused is not None:
        return refused
    return JsonResponse(statistics_read())
