"""The demo floor's past (issue 23, item 5): a newcomer sees one table out of its band and
one dice set that looks loaded, and nothing else alerting. One load, with the history."""

import pytest

from casino.demo import FAIR_HISTORY_TABLE, LOADED_TABLE, demo_floor_load
from games.services.fairness import floor_fairness
from games.services.hold import floor_hold, gaming_day_of
from tests.casino.floor_fixtures import at

pytestmark = pytest.mark.django_db

NOW = at(2026, 3, 10, 15, 0)  # mid-afternoon: the loaded table opened at 08:00


def test_the_demo_has_one_table_out_of_band_and_one_loaded_set():
    demo_floor_load(now=NOW, history=True)
    holds = {hold.table_number: hold for hold in floor_hold(gaming_day_of(NOW))}
    loaded = holds[LOADED_TABLE]
    assert loaded.rounds == 72
    # The players backing 6 beat the house: far under the theory, past -3 sd.
    assert loaded.win < 0 < loaded.theoretical_win
    assert loaded.z_score is not None and loaded.z_score <= -3 and loaded.alert
    assert not holds[FAIR_HISTORY_TABLE].alert
    assert [hold.table_number for hold in holds.values() if hold.alert] == [LOADED_TABLE]

    sets = floor_fairness()
    alerting = [(f.table_number, f.throws) for f in sets if f.alert]
    assert alerting == [(LOADED_TABLE, 72)]
    [fair] = [f for f in sets if f.table_number == FAIR_HISTORY_TABLE]
    assert fair.throws == 4 * 8 + 7 and fair.overall.valid and not fair.alert
