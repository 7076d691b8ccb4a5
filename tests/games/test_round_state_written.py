"""What a process remembers of the round states it wrote (games/services/round_state.py
`_Written`): the rounds written in the last WRITTEN_SECONDS, WRITTEN_MAX at most, the
oldest forgotten first; so a web process holds the rounds it is dealing, not every round it
ever touched (the other processes' rounds end where their tables' next rounds open)."""

import pytest

from games.services.round_state import WRITTEN_MAX, WRITTEN_SECONDS, _Written


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return Clock()


def test_a_state_is_forgotten_once_nothing_was_written_for_written_seconds(clock):
    written = _Written(clock)
    written.put("round-1", "state 1")  # any value: the class never looks inside
    clock.now += WRITTEN_SECONDS
    written.put("round-2", "state 2")
    assert written.get("round-1") == "state 1"  # WRITTEN_SECONDS old: still kept
    clock.now += 1
    assert written.get("round-1") is None  # older: not answered, though not yet dropped
    written.put("round-3", "state 3")
    assert written.get("round-1") is None and "round-1" not in written
    assert (written.get("round-2"), written.get("round-3"), len(written)) == (
        "state 2",
        "state 3",
        2,
    )


def test_a_state_written_again_is_young_again(clock):
    written = _Written(clock)
    written.put("round-1", "seq 0")
    clock.now += WRITTEN_SECONDS - 1
    written.put("round-1", "seq 4")  # the same round's next write
    clock.now += WRITTEN_SECONDS - 1
    written.put("round-2", "seq 0")
    assert written.get("round-1") == "seq 4"


def test_at_most_written_max_the_oldest_forgotten_first(clock):
    written = _Written(clock)
    for n in range(WRITTEN_MAX + 3):
        written.put(f"round-{n}", n)
    assert len(written) == WRITTEN_MAX
    assert [written.get(f"round-{n}") for n in (0, 1, 2, 3)] == [None, None, None, 3]
    assert written.get(f"round-{WRITTEN_MAX + 2}") == WRITTEN_MAX + 2


def test_pop_forgets_one_and_a_missing_one_is_no_error(clock):
    written = _Written(clock)
    written.put("round-1", "state")
    written.pop("round-1")
    written.pop("round-1")
    assert written.get("round-1") is None and len(written) == 0
