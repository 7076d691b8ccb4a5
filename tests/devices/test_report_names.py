"""Issue 19, point 6: a device's report names its player by the floor's one rule."""

import pytest

from tests.casino.floor_fixtures import T0
from tests.devices.test_reports import (
    M,
    S,
    device_at,
    hrd_round,
    open_table,
    post,
    refusal,
    written,
)

pytestmark = pytest.mark.django_db


def test_an_extra_roll_for_a_name_with_a_zero_width_joiner_is_refused_and_writes_nothing(
    endpoint_clock,
):
    table = open_table("high_roll_dice")
    device = device_at(table, "extra_roll_device", 3)
    hrd_round(table)
    before = written(table)
    body = {
        "table": table.number,
        "round": 1,
        "extra_roll": {"player": "an\u200dn", "amount": "10"},
    }
    response = post(endpoint_clock, device, body, T0 + 2 * M + 30 * S)
    assert response.json() == refusal(
        422, "refused", ["wagers[0].player contains U+200D ZERO WIDTH JOINER"]
    )
    assert written(table) == before
