"""UsedIds: the wager ids a table has taken (games/rules/core/ids.py)."""

from games.rules.core.ids import UsedIds


def test_ids_taken_are_found_and_others_are_not() -> None:
    used = UsedIds().with_ids(["w1", "w2"]).with_ids(["w3"])
    assert {"w1", "w2", "w3"} <= {i for i in ("w1", "w2", "w3", "w4") if i in used}
    assert "w4" not in used
    assert len(used) == 3


def test_an_earlier_value_is_unchanged() -> None:
    before = UsedIds().with_ids(["w1"])
    after = before.with_ids(["w2"])
    assert "w2" in after and "w2" not in before


def test_levels_stay_logarithmic() -> None:
    used = UsedIds()
    for n in range(1000):
        used = used.with_ids([f"w{n}"])
    assert len(used) == 1000
    assert len(used.levels) <= 10  # 1000 < 2**10: one level per binary digit at most
    assert all("w" + str(n) in used for n in range(1000))
