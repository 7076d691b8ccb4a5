"""The rounds' admin (issue 7): operations run rounds through it, compliance reviews and
posts adjusting entries. Each button calls one service; a refusal changes nothing.

The admin stamps actions with the wall clock, so tables here open a little before it.
"""

from datetime import timedelta
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.test import Client, RequestFactory
from django.utils import timezone

from games.models import (
    LedgerEntry,
    Round,
    RoundEvent,
    SettlementRequest,
    Wager,
)
from games.services import alerts
from games.services.outbox import SETTLE_TASK
from games.services.settlement import SettlementError, request_failure_record, round_settle
from gaming.rounds import result_enter, round_open, wagers_place
from tests.casino.floor_fixtures import compliance, compliant_table, operations
from tests.games.test_settlement_outbox import Broker

pytestmark = pytest.mark.django_db

SMALL = {"player": "p1", "kind": "small", "amount": "10"}


def recently() -> Any:
    return timezone.now() - timedelta(hours=1)


def login(client: Client, user: Any) -> Any:
    user.is_staff = True
    user.save()
    client.force_login(user)
    return user


@pytest.fixture
def ops_client(client: Client) -> Client:
    login(client, operations())
    return client


@pytest.fixture
def compliance_client(client: Client) -> Client:
    login(client, compliance())
    return client


def round_at(game: str = "sic_bo") -> Round:
    """A round open for wagers at a compliant, open table."""
    table = compliant_table(game, now=recently(), open_table=True).table
    return round_open(table, by=operations(), now=timezone.now())


def settled_round() -> Round:
    """A Sic Bo round with one wager, thrown and settled as a worker would."""
    round_ = round_at("sic_bo")
    wagers_place(round_, [SMALL], by=operations(), now=timezone.now())
    result_enter(round_, "throw", [1, 2, 3], by=operations(), now=timezone.now())
    assert round_settle(round_.settlement_request.pk) == "settled"
    round_.refresh_from_db()
    return round_


def act(client: Client, round_: Round, action: str, **data: Any) -> Any:
    return client.post(f"/admin/games/round/{round_.pk}/act/{action}/", data, follow=True)


def said(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]]


# -- Who sees what -----------------------------------------------------------------------


@pytest.mark.parametrize("user", [operations, compliance])
def test_both_roles_see_the_lists_and_a_rounds_page(client: Client, user: Any):
    login(client, user())
    round_ = settled_round()
    for model in ("round", "ledgerentry", "settlementrequest"):
        assert client.get(f"/admin/games/{model}/").status_code == 200, model
    page = client.get(f"/admin/games/round/{round_.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "1.1" in html and "small" in html  # the wager
    assert "Round settled" in html and "Wagers placed" in html  # its ledger entries
    assert round_.rules_hash in html
    entry = LedgerEntry.objects.filter(round=round_).first()
    assert client.get(f"/admin/games/ledgerentry/{entry.pk}/change/").status_code == 200


def test_operations_sees_the_dealer_buttons_and_compliance_does_not(client: Client):
    round_ = round_at("sic_bo")
    url = f"/admin/games/round/{round_.pk}/change/"
    login(client, operations())
    html = client.get(url).content.decode()
    assert 'value="Place wagers"' in html and 'value="No more bets"' in html
    assert 'value="Void the round"' in html  # Sic Bo has a void (§ 625a.7(c))
    assert 'value="Post the adjusting entry"' not in html
    assert 'value="Open a round"' in client.get("/admin/games/round/").content.decode()
    login(client, compliance())
    html = client.get(url).content.decode()
    assert 'value="Place wagers"' not in html and 'value="Enter the result"' not in html
    assert 'value="Open a round"' not in client.get("/admin/games/round/").content.decode()


def test_a_game_without_voids_shows_no_void_button(ops_client: Client):
    round_ = round_at("high_roll_dice")
    html = ops_client.get(f"/admin/games/round/{round_.pk}/change/").content.decode()
    assert 'value="Enter the result"' in html
    assert 'value="Void the round"' not in html and 'value="Record the event"' not in html


def test_nothing_is_added_changed_or_deleted_through_forms():
    request = RequestFactory().get("/admin/")
    request.user = get_user_model().objects.create_superuser("root", "", "x")
    for model in (Round, LedgerEntry, SettlementRequest):
        model_admin = admin.site._registry[model]
        assert model_admin.has_add_permission(request) is False, model
        assert model_admin.has_change_permission(request) is False, model
        assert model_admin.has_delete_permission(request) is False, model


# -- Running a round -------------------------------------------------------------------


def test_operations_opens_a_round_at_an_open_table(ops_client: Client):
    table = compliant_table("sic_bo", now=recently(), open_table=True).table
    response = ops_client.post("/admin/games/round/open/", {"table": table.pk}, follow=True)
    round_ = Round.objects.get(table=table)
    assert response.redirect_chain[-1][0] == f"/admin/games/round/{round_.pk}/change/"
    assert said(response) == [f"{round_} is open for wagers."]
    # A second round while this one is in progress is refused, with the reason.
    response = ops_client.post("/admin/games/round/open/", {"table": table.pk}, follow=True)
    assert said(response) == [
        f"Opening a round at {table.number} refused: {round_} is wagering open"
    ]
    assert Round.objects.filter(table=table).count() == 1


def test_placing_wagers_writes_the_wager_rows(ops_client: Client):
    round_ = round_at("sic_bo")
    wagers = '[{"player": "p1", "kind": "small", "amount": "10"}, ' + (
        '{"player": "p2", "kind": "triple:4", "amount": "5"}]'
    )
    response = act(ops_client, round_, "wagers", wagers=wagers)
    assert said(response) == [f"Place wagers at {round_}: done; the round is wagering open."]
    rows = Wager.objects.filter(round=round_).order_by("ref")
    assert [(w.ref, w.player, w.kind, str(w.amount)) for w in rows] == [
        (f"{round_.number}.1", "p1", "small", "10.00"),
        (f"{round_.number}.2", "p2", "triple:4", "5.00"),
    ]
    event = RoundEvent.objects.get(round=round_, event="wagers")
    assert (event.source, event.entered_by.username) == ("dealer", "olive_ops")


def test_an_engine_refusal_is_shown_and_nothing_is_written(ops_client: Client):
    round_ = round_at("sic_bo")
    response = act(
        ops_client,
        round_,
        "wagers",
        wagers='[{"player": "p1", "kind": "small", "amount": "10"}, '
        '{"player": "p2", "kind": "small", "amount": "1"}]',
    )
    [message] = said(response)
    assert message.startswith(
        f"Place wagers at {round_} refused: {round_.number}.2: The table minimum wager is $5.00."
    )
    assert not Wager.objects.exists()
    assert not RoundEvent.objects.exists()
    assert not LedgerEntry.objects.exists()


def test_invalid_json_names_the_field_and_writes_nothing(ops_client: Client):
    round_ = round_at("sic_bo")
    response = act(ops_client, round_, "wagers", wagers="[{player: p1}]")
    assert said(response) == [
        f"Place wagers at {round_}: Wagers: not valid JSON: "
        "Expecting property name enclosed in double quotes (line 1, column 3)"
    ]
    response = act(ops_client, round_, "result", event="throw", payload="1, 2, 3]")
    assert said(response)[0].startswith(f"Enter the result at {round_}: Payload: not valid JSON")
    assert not RoundEvent.objects.exists()


def test_a_throw_that_ends_a_sic_bo_round_writes_its_settlement_request(ops_client: Client):
    round_ = round_at("sic_bo")
    wagers_place(round_, [SMALL], by=operations(), now=timezone.now())
    act(ops_client, round_, "no_more_bets")
    response = act(ops_client, round_, "result", event="throw", payload="[1, 2, 3]")
    assert said(response) == [
        f"Enter the result at {round_}: done; the round is result entered, settling."
    ]
    round_.refresh_from_db()
    assert round_.status == Round.Status.RESULT_ENTERED
    request = SettlementRequest.objects.get(round=round_)
    assert request.settled_at is None and request.sends == 1
    assert [e.event for e in round_.events.order_by("seq")] == ["wagers", "no_more_bets", "throw"]


def test_a_sic_bo_no_roll_returns_every_wager(ops_client: Client):
    round_ = round_at("sic_bo")
    wagers_place(round_, [SMALL], by=operations(), now=timezone.now())
    act(ops_client, round_, "no_roll")
    round_.refresh_from_db()
    assert round_.status == Round.Status.RESULT_ENTERED
    assert SettlementRequest.objects.filter(round=round_).exists()


def test_compliance_cannot_place_wagers(compliance_client: Client):
    round_ = round_at("sic_bo")
    response = compliance_client.post(
        f"/admin/games/round/{round_.pk}/act/wagers/",
        {"wagers": '[{"player": "p1", "kind": "small", "amount": "10"}]'},
    )
    assert response.status_code == 403
    assert not Wager.objects.exists() and not RoundEvent.objects.exists()
    response = compliance_client.post("/admin/games/round/open/", {"table": round_.table_id})
    assert response.status_code == 403


def test_a_dealer_view_takes_only_posts(ops_client: Client):
    round_ = round_at("sic_bo")
    assert ops_client.get(f"/admin/games/round/{round_.pk}/act/no_more_bets/").status_code == 405
    round_.refresh_from_db()
    assert round_.status == Round.Status.OPEN


# -- Adjusting entries -----------------------------------------------------------------


def test_compliance_posts_an_adjusting_entry_to_a_settled_round(compliance_client: Client):
    round_ = settled_round()
    page = compliance_client.get(f"/admin/games/round/{round_.pk}/change/").content.decode()
    assert 'value="Post the adjusting entry"' in page
    response = act(
        compliance_client,
        round_,
        "adjust",
        memo="short-paid p1 by the dealer",
        lines='[["player", "p1", "5.00"], ["inventory", "", "-5.00"]]',
    )
    assert said(response) == [f"Post the adjusting entry at {round_}: done; the round is settled."]
    entry = LedgerEntry.objects.get(round=round_, kind=LedgerEntry.Kind.ADJUSTMENT)
    assert entry.memo == "short-paid p1 by the dealer"
    assert entry.posted_by.username == "carl_compliance"
    assert sorted((line.account, line.player, str(line.amount)) for line in entry.lines.all()) == [
        ("inventory", "", "-5.00"),
        ("player", "p1", "5.00"),
    ]


def test_an_adjusting_entry_that_does_not_balance_is_refused(compliance_client: Client):
    round_ = settled_round()
    response = act(
        compliance_client,
        round_,
        "adjust",
        memo="typo",
        lines='[["player", "p1", "5.00"], ["inventory", "", "-4.00"]]',
    )
    assert said(response) == [
        f"Post the adjusting entry at {round_} refused: the lines sum to 1.00, not zero"
    ]
    assert not LedgerEntry.objects.filter(kind=LedgerEntry.Kind.ADJUSTMENT).exists()


def test_operations_cannot_post_an_adjusting_entry(ops_client: Client):
    round_ = settled_round()
    page = ops_client.get(f"/admin/games/round/{round_.pk}/change/").content.decode()
    assert 'value="Post the adjusting entry"' not in page
    response = ops_client.post(
        f"/admin/games/round/{round_.pk}/act/adjust/",
        {"memo": "x", "lines": '[["player", "p1", "5.00"], ["inventory", "", "-5.00"]]'},
    )
    assert response.status_code == 403
    assert not LedgerEntry.objects.filter(kind=LedgerEntry.Kind.ADJUSTMENT).exists()


# -- Settlement requests ---------------------------------------------------------------


def test_send_again_sends_only_the_pending_requests(ops_client: Client):
    round_ = round_at("sic_bo")
    wagers_place(round_, [SMALL], by=operations(), now=timezone.now())
    result_enter(round_, "throw", [1, 2, 3], by=operations(), now=timezone.now())
    pending = SettlementRequest.objects.get(round=round_)
    done = settled_round().settlement_request
    response = ops_client.post(
        "/admin/games/settlementrequest/",
        {"action": "send_again", "_selected_action": [pending.pk, done.pk], "index": 0},
        follow=True,
    )
    assert said(response) == ["1 already settled: not sent.", "Sent 1 of 1 pending request(s)."]
    listed = ops_client.get("/admin/games/settlementrequest/?state=pending").context["cl"]
    assert [r.pk for r in listed.result_list] == [pending.pk]


def stuck_requests() -> dict[str, SettlementRequest]:
    """One request in each status, on the wall clock: settled; pending (sent now); failed
    (the engine refused its round); sent CASINO_SETTLEMENT_MAX_SENDS (10) times, the last
    an hour ago."""
    requests = {"settled": settled_round().settlement_request}
    for name in ("pending", "failed", "too_many_sends"):
        round_ = round_at("sic_bo")
        wagers_place(round_, [SMALL], by=operations(), now=timezone.now())
        result_enter(round_, "throw", [1, 2, 3], by=operations(), now=timezone.now())
        requests[name] = SettlementRequest.objects.get(round=round_)
    failed = requests["failed"]
    request_failure_record(failed.pk, SettlementError(f"{failed.round} is refused on replay"))
    SettlementRequest.objects.filter(pk=requests["too_many_sends"].pk).update(
        sends=10, sent_at=timezone.now() - timedelta(hours=1)
    )
    return {name: SettlementRequest.objects.get(pk=r.pk) for name, r in requests.items()}


def test_a_settlement_request_s_status_is_a_column_and_a_filter(ops_client: Client):
    requests = stuck_requests()
    listed = ops_client.get("/admin/games/settlementrequest/")
    html = listed.content.decode()
    for words in ("settled", "pending", "failed", "too many sends"):
        assert f">{words}</strong>" in html, words
    for status, request in requests.items():
        page = ops_client.get(f"/admin/games/settlementrequest/?state={status}")
        assert [r.pk for r in page.context["cl"].result_list] == [request.pk], status


def test_a_failed_request_s_page_shows_the_failure_and_what_to_do(ops_client: Client):
    failed = stuck_requests()["failed"]
    html = ops_client.get(f"/admin/games/settlementrequest/{failed.pk}/change/").content.decode()
    assert f"SettlementError: {failed.round} is refused on replay" in html
    assert "Refused on replay" in html  # the kind
    assert "compliance compares the round" in html  # the guidance
    assert ">failed</strong>" in html
    round_page = ops_client.get(f"/admin/games/round/{failed.round_id}/change/").content.decode()
    assert f"failed, sent 1 time(s): SettlementError: {failed.round} is refused" in round_page


def test_send_again_clears_a_failure_and_a_send_count_at_the_limit(ops_client: Client, monkeypatch):
    broker = Broker()
    monkeypatch.setattr("games.services.outbox.current_app", broker)
    requests = stuck_requests()
    failed, too_many = requests["failed"], requests["too_many_sends"]
    response = ops_client.post(
        "/admin/games/settlementrequest/",
        {"action": "send_again", "_selected_action": [failed.pk, too_many.pk], "index": 0},
        follow=True,
    )
    assert said(response) == ["Sent 2 of 2 pending request(s)."]
    assert broker.sent == [(SETTLE_TASK, [failed.pk]), (SETTLE_TASK, [too_many.pk])]
    failed.refresh_from_db()
    too_many.refresh_from_db()
    assert (failed.failures, failed.failure_kind, failed.error, failed.first_failed_at) == (
        0,
        "",
        "",
        None,
    )
    assert (failed.sends, too_many.sends) == (2, 1)
    now = timezone.now()
    assert {alerts.request_status(r, now) for r in (failed, too_many)} == {alerts.PENDING}
    logged = LogEntry.objects.filter(object_id=str(failed.pk)).get()
    assert logged.change_message == (
        f"Sent again, clearing failed: SettlementError: {failed.round} is refused on replay"
    )
    assert LogEntry.objects.get(object_id=str(too_many.pk)).change_message == (
        "Sent again, clearing too_many_sends: sent 10 times"
    )
