"""The event types as data (webhooks/events.py): each builder gives exactly its type's
fields, and a body is the Standard Webhooks payload {"type", "timestamp", "data"}."""

import json
from datetime import UTC, datetime, timedelta, timezone
from itertools import takewhile
from pathlib import Path

import pytest

from devices.rules import DICE, NUMBER, SELECTION, WAIT_REPORTS
from games.apis import ResolutionSerializer, RoundSerializer
from webhooks import events

AT = datetime(2026, 3, 2, 13, 0, 5, tzinfo=UTC)


BUILT = {
    events.TABLE_STATUS_CHANGED: events.table_status_data(
        table=4, table_number="SB-01", game="sic_bo", status="suspended", was="open", changed_at=AT
    ),
    events.DEVICE_STATUS_CHANGED: events.device_status_data(
        device=7,
        kind="illumination_device",
        serial_number="SBI-3001",
        position=None,
        table=4,
        table_number="SB-01",
        status="stale",
        was="active",
        event="stale",
        detail="silent for 31 s",
        changed_at=AT,
    ),
    events.EQUIPMENT_DUE_SOON: events.equipment_due_data(
        set_in_play=9,
        equipment_set=12,
        identifier="SB-01-D1",
        composition="three_dice",
        table=4,
        table_number="SB-01",
        due_at=AT + timedelta(hours=2),
        warn_from=AT,
        limit="24 hours (58 Pa. Code § 625a.2(b))",
    ),
    events.SETTLEMENT_ALERT: events.settlement_alert_data(
        request=3,
        round=11,
        round_number=2,
        table=4,
        table_number="SB-01",
        game="sic_bo",
        status="failed",
        kind="refused",
        error="SettlementError: ...",
        since=AT,
        failures=1,
        sends=1,
        guidance="Hold the table.",
    ),
    events.ROUND_WAITING_ON_DEVICE: events.round_waiting_data(
        table=4,
        table_number="PG-01",
        game="pai_gow",
        wait={
            "round": {"id": 11, "number": 2},
            "kind": "pai_gow_rng",
            "kind_display": "Pai Gow random number generator",
            "device": {"id": 7, "serial": "R1", "status": "active", "status_display": "Active"},
            "report": "number",
            "step": "the starting number",
            "cite": "58 Pa. Code § 621a.6(a)(1)",
            "since": AT,
            "alert_at": AT,
            "alert": True,
            "ways_out": [{"way": "void", "section": "621a.6(a)(1)", "text": "Void the round."}],
            "guidance": "The generator R1 at PG-01 has not given the starting number.",
        },
    ),
    events.ENDPOINT_DISABLED: events.endpoint_disabled_data(
        endpoint=2,
        url="https://hooks.example.com/",
        disabled_at=AT,
        reason="...",
        failures=40,
        failing_since=AT - timedelta(days=1),
    ),
    events.EQUIPMENT_OVERDUE: None,  # the same builder as due soon
    events.ROUND_SETTLED: None,  # built from the API's rows (tests/webhooks/test_api.py)
}


def test_every_event_type_has_a_sentence_and_a_test_here():
    assert set(events.EVENT_TYPES) == set(BUILT)
    for kind in events.EVENT_TYPES.values():
        assert kind.sentence.endswith(".") and len(kind.sentence) > 20, kind.name
    assert [(name, name) for name in events.EVENT_TYPES] == events.CHOICES


@pytest.mark.parametrize("name", [name for name, data in BUILT.items() if data is not None])
def test_each_builder_gives_exactly_its_types_fields(name):
    assert tuple(BUILT[name]) == events.EVENT_TYPES[name].fields


def test_overdue_has_the_fields_of_due_soon():
    assert (
        events.EVENT_TYPES[events.EQUIPMENT_OVERDUE].fields
        == events.EVENT_TYPES[events.EQUIPMENT_DUE_SOON].fields
    )


def test_moments_are_written_in_utc_with_a_z():
    eastern = timezone(timedelta(hours=-5))
    assert events.iso(datetime(2026, 3, 2, 8, 0, 5, tzinfo=eastern)) == "2026-03-02T13:00:05Z"
    assert events.iso(None) is None
    assert BUILT[events.TABLE_STATUS_CHANGED]["changed_at"] == "2026-03-02T13:00:05Z"


def test_a_body_is_the_standard_webhooks_payload():
    data = BUILT[events.TABLE_STATUS_CHANGED]
    assert events.envelope(events.TABLE_STATUS_CHANGED, AT, data) == {
        "type": "table.status_changed",
        "timestamp": "2026-03-02T13:00:05Z",
        "data": data,
    }


def test_unknown_names_are_named():
    assert events.names_unknown(["round.settled", "round.setled", 3]) == ["round.setled", 3]


def test_the_waiting_sentence_names_only_what_a_round_waits_for():
    """A round waits on a number, on dice and on a Power Odds selection (devices/rules.py
    WAITS): the sentence names what it may wait for, no more."""
    sentence = events.EVENT_TYPES[events.ROUND_WAITING_ON_DEVICE].sentence
    for report, word in ((NUMBER, "number"), (DICE, "throw"), (SELECTION, "selection")):
        assert (word in sentence) == (report in WAIT_REPORTS), word


def test_docs_round_settled_example_has_every_field_the_api_gives():
    """docs/api.md's round.settled shows the round as GET /rounds/ lists it, state, next
    and device_wait included (review finding W7), and the resolutions' fields."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    after = text.split("`round.settled`, for a Sic Bo round with two wagers:\n\n", 1)[1]
    block = "\n".join(takewhile(lambda line: line.startswith("    "), after.splitlines()))
    example = json.loads(block)
    assert example["type"] == "round.settled"
    assert list(example["data"]["round"]) == list(RoundSerializer().fields)
    for resolution in example["data"]["resolutions"]:
        assert list(resolution) == list(ResolutionSerializer().fields)
