"""Fixtures of the API fuzz tests.

- `fuzz_floor`: a realistic floor, built once per module through the services inside a
  transaction that is rolled back after the module: an open compliant table of every
  game with a round in progress and its wagers (Sic Bo also has a settled round, so
  resolutions and ledger entries exist), a compliant table not yet open, devices heard
  from, reserve equipment sets, a submitted Rules Submission and layout, and a second
  certificate holder's table (which the token must not see).
- The callers: a staff superuser signed in (a session cookie, with the CSRF cookie and
  header a browser sends) and an integrator's API token for the first holder.
- `wsgi_app`: the Django project as a WSGI application, called in-process. As Django's
  test client does, the handler does not close the database connection around a
  request, so every request runs inside the test's transaction (rolled back after).
- `server_errors`: the traceback of every exception that became a 500.
"""

import traceback
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import got_request_exception, request_finished, request_started
from django.db import close_old_connections, transaction
from django.middleware.csrf import _get_new_csrf_string
from django.test import Client, override_settings
from django.utils import timezone

from casino.models import (
    ApiWrite,
    AuditEntry,
    CertificateHolder,
    EquipmentSet,
    Layout,
    RulesSubmission,
    SetInPlay,
    Table,
)
from casino.services.api_tokens import token_issue
from casino.services.layouts import layout_submit
from casino.services.submissions import submission_draft, submission_submit
from devices.models import Device, DeviceEvent
from games.models import LedgerEntry, LedgerLine, Resolution, Round, Wager
from tests.casino.floor_fixtures import (
    FULL_LAYOUTS,
    compliant_table,
    operations,
    set_new,
    staff,
)
from tests.devices.device_fixtures import heard
from tests.games.round_fixtures import opened, place, result, settle, wager
from webhooks.delivery import event_fan_out
from webhooks.events import ROUND_SETTLED
from webhooks.models import Delivery, Endpoint
from webhooks.payloads import event_body
from webhooks.services import event_record, secret_new

M = timedelta(minutes=1)

# The URL segment of each resource, and its model: ids in paths are drawn from these.
RESOURCES: dict[str, Any] = {
    "certificate-holders": CertificateHolder,
    "tables": Table,
    "rules-submissions": RulesSubmission,
    "layouts": Layout,
    "equipment-sets": EquipmentSet,
    "sets-in-play": SetInPlay,
    "rounds": Round,
    "wagers": Wager,
    "resolutions": Resolution,
    "ledger-entries": LedgerEntry,
    "ledger-lines": LedgerLine,
    "devices": Device,
    "device-events": DeviceEvent,
    "audit-entries": AuditEntry,
    "api-writes": ApiWrite,
    "webhook-endpoints": Endpoint,
    "webhook-deliveries": Delivery,
}

# A wager each game's engine takes, and a result it takes, for the realistic requests.
GAME_WAGERS: dict[str, list[dict[str, Any]]] = {
    "craps": [wager("ann", "pass", "10")],
    "high_roll_dice": [wager("ann", "pip:5", "10"), wager("ann", "like_kind:4", "10")],
    "pai_gow": [wager("ann", "pai_gow", "10", position=1)],
    "sic_bo": [wager("ann", "small", "10"), wager("bob", "big", "25.00")],
    "three_dice_football": [wager("ann", "touchdown", "5")],
}
# Wagers the API may still take on the rounds above (a player's second Pip Street Wager,
# or a taken Pai Gow position, would be refused).
API_WAGERS: dict[str, list[dict[str, Any]]] = {
    "craps": [wager("bob", "pass", "10")],
    "high_roll_dice": [wager("bob", "pip:3", "10"), wager("bob", "like_kind:2", "10")],
    "pai_gow": [wager("bob", "pai_gow", "10", position=2)],
    "sic_bo": [wager("cy", "small", "10"), wager("cy", "big", "25.00")],
    "three_dice_football": [wager("bob", "touchdown", "5")],
}
GAME_RESULTS: dict[str, dict[str, Any]] = {
    "craps": {"event": "throw", "payload": [3, 4]},
    "high_roll_dice": {"event": "throw", "payload": [2, 2, 2, 3, 3, 4, 4, 5, 6, 1]},
    "pai_gow": {"event": "reveal", "payload": True},
    "sic_bo": {"event": "throw", "payload": [1, 2, 3]},
    "three_dice_football": {"event": "throw", "payload": {"green": [2, 5], "red": 3}},
}
WEBHOOK_URL = "http://127.0.0.1:9/fuzz"
# A section to void under: Sic Bo's and Pai Gow's are in games/flow.py VOIDS (and refused
# unless the shaker is automated or tiles are dealt); the others void nothing (422).
VOID_SECTIONS = {
    "craps": "623a.8(b)",
    "high_roll_dice": "675a.4(b)",
    "pai_gow": "621a.10(c)",
    "sic_bo": "625a.7(c)",
    "three_dice_football": "661a.5(b)",
}


@dataclass
class FuzzFloor:
    """What the fuzz tests know of the floor they hit."""

    holder: CertificateHolder
    other_holder: CertificateHolder
    superuser: Any
    integrator: Any
    session_key: str
    csrf_token: str
    token_key: str
    tables: dict[str, int] = field(default_factory=dict)  # game -> its open table
    idle_table: int = 0  # compliant, not open
    free_table: int = 0  # open, no round in progress: a round may start
    reserve_sets: dict[str, int] = field(default_factory=dict)  # composition -> a set
    submitted_submission: int = 0
    submitted_layout: int = 0
    ids: dict[str, list[int]] = field(default_factory=dict)
    # Requests that the services accept (or refuse for a reason of the floor, not of the
    # request's form): round id -> body.
    round_wagers: dict[int, dict[str, Any]] = field(default_factory=dict)
    round_results: dict[int, dict[str, Any]] = field(default_factory=dict)
    round_voids: dict[int, dict[str, Any]] = field(default_factory=dict)

    def staff_credentials(self) -> tuple[dict[str, str], dict[str, str]]:
        """Headers and cookies of the superuser's browser: the session, and CSRF."""
        cookies = {settings.SESSION_COOKIE_NAME: self.session_key, "csrftoken": self.csrf_token}
        return {"X-CSRFToken": self.csrf_token}, cookies

    def token_credentials(self) -> tuple[dict[str, str], dict[str, str]]:
        """Headers and cookies of the integrator: the token only."""
        return {"Authorization": f"Bearer {self.token_key}"}, {}

    def all_ids(self) -> list[int]:
        return sorted({pk for pks in self.ids.values() for pk in pks})


def floor_build() -> FuzzFloor:
    """The floor (see the module's docstring), half an hour before the wall clock: the
    API acts at the wall clock, after every record here."""
    start = timezone.now() - 30 * M
    ops = operations()
    floor = {}
    for game in GAME_WAGERS:
        floor[game] = compliant_table(game, now=start, open_table=True).table
    idle = compliant_table("sic_bo", now=start).table  # compliant, not open: it may open
    free = compliant_table("craps", now=start, open_table=True).table  # a round may start
    holder = floor["craps"].holder

    rounds: dict[str, list[Round]] = {}
    # A settled Sic Bo round: resolutions and the settlement's ledger entry.
    settled = opened(floor["sic_bo"], now=start + M)
    place(settled, *GAME_WAGERS["sic_bo"], now=start + 2 * M)
    result(settled, "throw", [1, 2, 3], now=start + 3 * M)
    settle(settled, now=start + 4 * M)
    for game, table in floor.items():
        round_ = opened(table, now=start + 5 * M)
        place(round_, *GAME_WAGERS[game], now=start + 6 * M)
        rounds.setdefault(game, []).append(round_)

    # Reserve sets to put in play or change to, a submitted Rules Submission (version 2)
    # and a submitted layout for compliance to decide on.
    reserve = {
        composition: set_new(holder, f"RESERVE-{n}", composition, now=start).pk
        for n, composition in enumerate(("five_dice", "three_dice", "tiles_32", "ten_dice"))
    }
    draft = submission_draft(
        holder,
        "sic_bo",
        variants=["standard"],
        table_types=["manual"],
        options={},
        by=ops,
        now=start + 7 * M,
    )
    submission_submit(draft, by=ops, now=start + 7 * M)
    layout = Layout.objects.create(
        holder=holder,
        name="Sic Bo layout submitted",
        game="sic_bo",
        variant="standard",
        elements=FULL_LAYOUTS[("sic_bo", "standard")],
        created_at=start + 7 * M,
        created_by=ops,
    )
    layout_submit(layout, by=ops, now=start + 7 * M)

    # A second certificate holder: its rows are 404 to the token.
    other = CertificateHolder.objects.create(name="Other Holder Casino")
    Table.objects.create(
        holder=other,
        number="OT-01",
        game="craps",
        variant="craps",
        min_wager=Decimal("5"),
        max_wager=Decimal("500"),
    )
    set_new(other, "OTHER-1", "five_dice", now=start)

    superuser = get_user_model().objects.create_superuser(
        "fuzz_admin", "fuzz_admin@example.com", "fuzz-admin-password"
    )
    browser = Client()
    browser.force_login(superuser)
    session_key = browser.cookies[settings.SESSION_COOKIE_NAME].value
    integrator = staff("fuzz_integrator", "integrator")
    _, token_key = token_issue(
        user=integrator, holder=holder, name="fuzz", by=ops, now=timezone.now()
    )
    # One recorded API write of the token (a refusal: the table has a round in progress).
    Client().post(
        "/api/v1/rounds/",
        {"table": floor["craps"].pk},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {token_key}",
        HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()),
    )
    heard(*Device.objects.all(), now=timezone.now())  # every device live now
    # A webhook endpoint (on 127.0.0.1, where nothing listens: nothing is sent here) with
    # the settled round's delivery. Written as a row: registration refuses a loopback URL in
    # production, which the live run is (tests/webhooks test registration's checks).
    Endpoint.objects.create(
        holder=holder,
        url=WEBHOOK_URL,
        events=["round.settled"],
        secret=secret_new(),
        created_at=start + 8 * M,
        created_by=ops,
    )
    event = event_record(
        ROUND_SETTLED, table=settled.table, data={"round": settled.pk}, now=start + 8 * M
    )
    event_fan_out(event.pk, body_of=event_body, now=start + 8 * M)

    built = FuzzFloor(
        holder=holder,
        other_holder=other,
        superuser=superuser,
        integrator=integrator,
        session_key=session_key,
        csrf_token=_get_new_csrf_string(),
        token_key=token_key,
        tables={game: table.pk for game, table in floor.items()},
        idle_table=idle.pk,
        free_table=free.pk,
        reserve_sets=reserve,
        submitted_submission=draft.pk,
        submitted_layout=layout.pk,
    )
    built.ids = {
        name: sorted(model.objects.values_list("pk", flat=True))
        for name, model in RESOURCES.items()
    }
    for game, in_progress in rounds.items():
        for round_ in in_progress:
            built.round_wagers[round_.pk] = {"wagers": API_WAGERS[game]}
            built.round_results[round_.pk] = GAME_RESULTS[game]
            built.round_voids[round_.pk] = {"section": VOID_SECTIONS[game]}
    return built


@pytest.fixture(scope="module")
def fuzz_floor(django_db_setup, django_db_blocker) -> Iterator[FuzzFloor]:
    """The floor, once per module; everything it wrote is rolled back after the module
    (the tests' own transactions nest inside as savepoints)."""
    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            built = floor_build()
            yield built
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


@pytest.fixture(scope="module")
def wsgi_app() -> Iterator[WSGIHandler]:
    """The project as WSGI; the connection is kept open across requests (see above)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield WSGIHandler()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture
def server_errors() -> Iterator[list[str]]:
    """The traceback of each exception the app turned into a 500, during the test."""
    found: list[str] = []

    def record(sender: Any, request: Any = None, **kwargs: Any) -> None:
        found.append(traceback.format_exc())

    got_request_exception.connect(record, weak=False)
    try:
        yield found
    finally:
        got_request_exception.disconnect(record)


@pytest.fixture(autouse=True)
def _no_budgets() -> Iterator[None]:
    """The fuzzing sends thousands of requests a minute from one token, one user and one
    address: budgets would answer most of them 429 before the views they fuzz. The budgets
    have their own tests (tests/api/test_throttles.py)."""
    names = ("TOKEN", "USER", "ANONYMOUS", "DEVICE", "PROBE")
    with override_settings(**{f"CASINO_THROTTLE_{name}": None for name in names}):
        yield


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """How many generated requests the fuzz test sent, per operation and caller."""
    import sys

    fuzz = sys.modules.get("tests.api_fuzz.test_schemathesis")
    sent = getattr(fuzz, "SENT", None)
    if not sent:
        return
    counts = sorted(sent.values())
    operations = len({label for label, _ in sent})
    terminalreporter.write_sep("-", "api fuzz")
    terminalreporter.write_line(
        f"{sum(counts)} generated requests: {operations} operations x {len(fuzz.CALLERS)} "
        f"callers, {counts[0]} to {counts[-1]} each"
    )
    statuses = ", ".join(f"{status}: {n}" for status, n in sorted(fuzz.STATUSES.items()))
    terminalreporter.write_line(f"statuses: {statuses}")
