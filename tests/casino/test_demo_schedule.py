"""The demo floor's reserve (issue 35, item 1): every changeout the chapters describe is
recorded from the equipment schedule in one step, the overdue MC-01's included."""

import re
from itertools import cycle

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from casino.demo import (
    COMPLIANCE_USERNAME,
    OVERDUE_TABLE,
    RESERVE_PER_KIND,
    RESERVE_STOCK,
    demo_floor_load,
)
from casino.models import EquipmentSet, SetInPlay, Table
from casino.rules.equipment import REASONS
from casino.services.schedule import equipment_schedule, reserve_on_hand
from gaming.tables import opening_refusals

pytestmark = pytest.mark.django_db

SCHEDULE = "/admin/casino/setinplay/schedule/"


@pytest.fixture
def holder():
    return demo_floor_load(now=timezone.now().replace(microsecond=0))


@pytest.fixture
def officer(client: Client) -> Client:
    client.force_login(get_user_model().objects.get(username=COMPLIANCE_USERNAME))
    return client


def preselected(html: str, pk: int) -> str | None:
    """The new set the row's form offers first (its selected option's value)."""
    select = re.search(rf'<select id="new-set-{pk}".*?</select>', html, re.S)
    assert select is not None
    chosen = re.search(r'<option value="(\d+)" selected>', select.group(0))
    return chosen.group(1) if chosen else None


def test_the_reserve_holds_sets_of_every_kind(holder):
    stocked = EquipmentSet.objects.filter(
        holder=holder, identifier__startswith="R-", status=EquipmentSet.Status.RESERVE
    )
    for (composition, meets), middle in RESERVE_STOCK.items():
        kind = stocked.filter(composition=composition, meets_603a_12_c=meets)
        assert sorted(kind.values_list("identifier", flat=True)) == [
            f"R-{middle}-{n:04d}" for n in range(1, RESERVE_PER_KIND + 1)
        ]
    on_hand = {c.composition: c.in_reserve for c in reserve_on_hand(holder_id=holder.pk)}
    # Five dice, four green and two red, ten, six, three (and as many for the shaker), tiles
    # (and those back from a scheduled changeout).
    assert set(on_hand) == {c for c, _ in RESERVE_STOCK}
    assert on_hand["three_dice"] == 2 * RESERVE_PER_KIND
    assert all(count >= RESERVE_PER_KIND for count in on_hand.values())


def test_a_later_load_tops_the_reserve_up_and_adds_nothing_when_full(holder):
    before = EquipmentSet.objects.count()
    demo_floor_load(now=timezone.now())
    assert EquipmentSet.objects.count() == before


def test_mc01_is_changed_out_from_the_schedule_in_one_step_and_may_open(holder, officer):
    table = Table.objects.get(holder=holder, number=OVERDUE_TABLE)
    row = SetInPlay.objects.get(table=table, removed_at__isnull=True)
    html = officer.get(SCHEDULE).content.decode()
    assert f'data-changeout="{OVERDUE_TABLE} five_dice"' in html
    new_set = preselected(html, row.pk)
    assert EquipmentSet.objects.get(pk=new_set).identifier == "R-5D-0001"

    officer.post(
        f"/admin/casino/setinplay/{row.pk}/changeout/", {"new_set": new_set, "reason": "schedule"}
    )

    now = timezone.now()
    assert [r.state for r in equipment_schedule(now) if r.table.number == OVERDUE_TABLE] == [
        "in_date"
    ]
    table.refresh_from_db()
    assert table.status == Table.Status.SUSPENDED  # operations opens it: nothing stops it
    assert opening_refusals(table, now) == []


def test_every_row_takes_every_kind_of_changeout_from_its_reserve(holder, officer):
    rows = equipment_schedule(timezone.now())
    assert len(rows) == 13  # every set in play on the demo floor (TD-02 has none)
    reasons = cycle(REASONS)
    for row in rows:
        pk = row.set_in_play.pk
        html = officer.get(SCHEDULE).content.decode()  # the page as it is after the last
        new_set = preselected(html, pk)
        assert new_set is not None, f"no reserve set for {row.table.number} {row.composition}"
        offered = EquipmentSet.objects.get(pk=new_set)
        assert offered.composition == row.composition
        assert offered.meets_603a_12_c == row.equipment_set.meets_603a_12_c
        officer.post(
            f"/admin/casino/setinplay/{pk}/changeout/",
            {"new_set": new_set, "reason": next(reasons)},
        )
        assert SetInPlay.objects.get(pk=pk).removed_at is not None, row
        current = SetInPlay.objects.get(
            table=row.table, composition=row.composition, removed_at__isnull=True
        )
        assert current.equipment_set_id == int(new_set)
    # Each reason was used at least twice over the thirteen rows.
    assert {r.removal_reason for r in SetInPlay.objects.filter(removal_note="")} >= set(REASONS)
    assert not [r for r in equipment_schedule(timezone.now()) if r.state == "overdue"]
