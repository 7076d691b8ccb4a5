"""Dice fairness per set on the database: only the throws at the set's table while it was
in play count, each game's dice as its engine records them, in two queries a set."""

from datetime import timedelta
from decimal import Decimal

import pytest

from casino.models import CertificateHolder, RulesSubmission, SetInPlay
from casino.services.equipment import set_changeout
from games.models import Round, RoundEvent
from games.services.fairness import NotDice, floor_fairness, set_fairness
from tests.casino.floor_fixtures import T0, compliant_table, holder_get, operations, set_new
from tests.games.round_fixtures import close, opened, place, result, wager

pytestmark = pytest.mark.django_db
H = timedelta(hours=1)
M = timedelta(minutes=1)


def hand_built(table, at, *events, game=None):
    """A settled round at `table` whose events (name, payload) are all recorded at `at`."""
    number = Round.objects.filter(table=table).count() + 1
    round_ = Round.objects.create(
        table=table,
        number=number,
        game=game or table.game,
        rules_submission=RulesSubmission.objects.filter(holder=table.holder, game=table.game)[0],
        options={},
        status=Round.Status.SETTLED,
        opened_at=at,
    )
    RoundEvent.objects.bulk_create(
        RoundEvent(round=round_, seq=i, event=name, payload=payload, at=at)
        for i, (name, payload) in enumerate(events, start=1)
    )
    return round_


def test_only_the_throws_while_the_set_was_in_play_count():
    floor = compliant_table("craps", open_table=True)
    table, first = floor.table, floor.sets["five_dice"]
    # Through the services: a pass line bet and a come out 3-4 at T0 + 4 minutes.
    round_ = opened(table)
    place(round_, wager("p1", "pass", "10"))
    close(round_)
    result(round_, "throw", [3, 4])
    hand_built(table, T0 - H, ("throw", [1, 1]))  # before the set went in: no one's
    hand_built(table, T0 + H, ("throw", [6, 6]))  # during
    changed = T0 + 2 * H
    second = set_new(holder_get(), "CR-second", "five_dice", now=changed)
    set_changeout(
        table, "five_dice", reason="schedule", by=operations(), now=changed, new_set=second
    )
    hand_built(table, changed, ("throw", [2, 2]))  # at the changeout: the new set's
    hand_built(table, changed + H, ("throw", [5, 2]))
    other = compliant_table("craps", number="CR-99").table
    hand_built(other, T0 + H, ("throw", [4, 4]))  # another table: neither's

    old = set_fairness(first)
    assert (old.throws, old.dice) == (2, 4)
    assert old.overall.counts == (0, 0, 1, 1, 0, 2)
    assert old.overall.expected == Decimal("0.6666666667")
    # (2/3)^2 / (2/3) * 3 faces at 0 + (1/3)^2 / (2/3) * 2 faces at 1 + (4/3)^2 / (2/3)
    # = 2/3 * 3 + 1/6 * 2 + 8/3 = 2 + 1/3 + 8/3 = 5.
    assert old.overall.chi_square == Decimal("5")
    assert not old.overall.valid and not old.alert  # 4 dice: far too few to test
    assert old.positions == [] and old.starting_places == []
    assert (old.in_play_from, old.in_play_to, old.table_number) == (T0, changed, table.number)
    assert old.threshold == Decimal("0.001")

    new = set_fairness(second)
    assert (new.throws, new.dice) == (2, 4)
    assert new.overall.counts == (0, 3, 0, 0, 1, 0)  # 2-2 and 5-2
    assert (new.in_play_from, new.in_play_to) == (changed, None)

    # The floor lists the dice in play now, by table: the second set, not the first.
    listed = floor_fairness()
    assert [f.identifier for f in listed] == ["CR-second", "CR-99-five_dice-1"]
    assert listed[0] == new
    assert listed[1].overall.counts == (0, 0, 0, 2, 0, 0)


def test_three_dice_football_counts_the_colours_apart():
    table = compliant_table("three_dice_football").table
    equipment_set = SetInPlay.objects.get(table=table).equipment_set
    hand_built(
        table,
        T0 + H,
        ("throw", {"green": [1, 6], "red": 6}),
        ("throw", {"green": [2, 6], "red": 6}),
    )
    fairness = set_fairness(equipment_set)
    assert (fairness.throws, fairness.dice) == (2, 6)
    assert fairness.overall.counts == (1, 1, 0, 0, 0, 4)
    green, red = fairness.positions
    assert (green.label, green.counts, green.dice) == ("green dice", (1, 1, 0, 0, 0, 2), 4)
    assert (red.label, red.counts, red.dice) == ("red dice", (0, 0, 0, 0, 0, 2), 2)


def test_high_roll_dice_counts_the_extra_roll():
    table = compliant_table("high_roll_dice").table
    equipment_set = SetInPlay.objects.get(table=table).equipment_set
    hand_built(table, T0 + H, ("throw", [1, 1, 1, 2, 2, 3, 4, 5, 6, 6]), ("extra_roll", [3, 3]))
    fairness = set_fairness(equipment_set)
    assert (fairness.throws, fairness.dice) == (2, 12)
    assert fairness.overall.counts == (3, 2, 3, 1, 1, 2)


def test_pai_gow_dice_and_starting_places():
    floor = compliant_table("pai_gow")
    table, dice, tiles = floor.table, floor.sets["three_dice"], floor.sets["tiles_32"]
    hand_built(
        table,
        T0 + H,
        ("deal", {"stacks": [], "dice": [3, 3, 3]}),  # 9: place 1
        ("deal", {"stacks": [], "dice": [6, 6, 6]}),  # 18: place 2
        ("deal", {"stacks": [], "rng": 15}),  # place 7
        ("deal", {"stacks": [], "rng": 8}),  # place 8
        ("rng_number", 8),
    )
    fairness = set_fairness(dice)
    assert (fairness.throws, fairness.dice) == (2, 6)
    assert fairness.overall.counts == (0, 0, 3, 0, 0, 3)
    shaker, generator = fairness.starting_places
    assert (shaker.source, shaker.deals, shaker.counts) == ("shaker", 2, (1, 1, 0, 0, 0, 0, 0, 0))
    assert (generator.source, generator.deals) == ("generator", 2)
    assert generator.counts == (0, 0, 0, 0, 0, 0, 1, 1)
    assert generator.expected == (Decimal("0.25"),) * 8
    with pytest.raises(NotDice):
        set_fairness(tiles)


def test_a_loaded_set_alerts_and_says_to_pull_it():
    table = compliant_table("sic_bo").table
    equipment_set = SetInPlay.objects.get(table=table).equipment_set
    # 60 throws, 180 dice: 30 expected a face; faces 1-5 25 each, 6 55.
    # chi-square = 5 * 25/30 + 625/30 = 750/30 = 25 on 5 df: p = 0.000139 < 0.001.
    faces = [1, 2, 3, 4, 5] * 25 + [6] * 55
    throws = [faces[i : i + 3] for i in range(0, 180, 3)]
    hand_built(table, T0 + H, *(("throw", t) for t in throws))
    fairness = set_fairness(equipment_set)
    assert fairness.overall.counts == (25, 25, 25, 25, 25, 55)
    assert fairness.overall.chi_square == Decimal("25")
    assert Decimal("0.000139") < fairness.overall.p_value < Decimal("0.000140")
    assert fairness.overall.valid and fairness.alert
    assert "pull " + equipment_set.identifier in fairness.advice
    assert '"tampering"' in fairness.advice
    # Nothing is changed out automatically.
    assert SetInPlay.objects.get(equipment_set=equipment_set).removed_at is None


def test_three_queries_a_set(django_assert_num_queries):
    # The set's stretches in play, the throws they saw, and its holder's thresholds.
    table = compliant_table("sic_bo").table
    equipment_set = SetInPlay.objects.get(table=table).equipment_set
    for hour in range(3):
        hand_built(table, T0 + hour * H + M, ("throw", [1, 2, 3]))
    with django_assert_num_queries(3):
        fairness = set_fairness(equipment_set)
    assert fairness.throws == 3
    with django_assert_num_queries(3):  # one holder: one thresholds read
        assert len(floor_fairness()) == 1


def test_the_floor_of_one_certificate_holder():
    table = compliant_table("sic_bo").table
    other = CertificateHolder.objects.create(name="Allegheny Test Casino")
    assert [f.table_number for f in floor_fairness(holder_id=table.holder_id)] == [table.number]
    assert floor_fairness(holder_id=other.pk) == []
