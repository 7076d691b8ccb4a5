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


def test_take_wagers_refuses_an_id_used_before_or_in_the_same_event() -> None:
    from decimal import Decimal

    from games.rules.core import Rejection, RuleViolation, Wager
    from games.rules.core.wagers import take_wagers

    def wager(wager_id: str, kind: str = "ok") -> Wager:
        return Wager(wager_id, "p1", kind, Decimal("5"))

    def admit(index: int, w: Wager, taken: object) -> str | Rejection:
        if w.kind == "raise":
            raise RuleViolation("not now", "58 Pa. Code § 1")
        if w.kind == "reject":
            return Rejection("no", w.id)
        return f"entry {index}"

    first = take_wagers([wager("a")], UsedIds(), admit)
    second = take_wagers(
        [wager("a"), wager("b"), wager("b"), wager("c", "raise"), wager("d", "reject")],
        first.used,
        admit,
    )
    assert second.accepted == ("b",) and second.taken == ("entry 1",)
    assert [(r.wager, r.error) for r in second.rejected] == [
        ("a", "Wager id 'a' is already in use"),
        ("b", "Wager id 'b' is already in use"),
        ("c", "not now"),
        ("d", "no"),
    ]
    # A refused id is not used: it may come back in a later event.
    assert "c" not in second.used and "b" in second.used


def test_taken_of_finds_the_ids_of_every_level() -> None:
    used = UsedIds()
    for n in range(100):
        used = used.with_ids([f"w{n}"])
    assert used.taken_of({"w0", "w63", "w99", "w100", "x"}) == {"w0", "w63", "w99"}
    assert UsedIds().taken_of({"w0"}) == set()
