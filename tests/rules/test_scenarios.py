"""Every scenario file under tests/scenarios/<game>/ played through the runner.

A file is ``{"title", "cite", "scenario": <SCENARIOS.md document>, "expect": ...}``.
`expect` lists, per step index, what must hold; values are worked out by hand from
the regulation (its own examples where it has them), never copied from a run:

    "expect": {"steps": [{"step": 1, "accepted": ["w1"], "rejected": ["w2"],
                          "resolutions": [{"wager": "w1", "result": "win",
                                           "net": "10.00", "cite": "..."}]}],
               "open": ["w3"]}

`rejected` names wager ids, or step indexes for a rejected event. A resolution
matches on the keys it gives (cite is checked when given). Steps not listed are
not checked; listed `resolutions` must be exactly the wagers decided, in order.
Any other key of an expected step (a state summary such as ``field``, a
``payout_limit`` note) must equal the step's key of that name.
"""

import json
from pathlib import Path

import pytest

from games.scenario import run_scenario

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
FILES = sorted(SCENARIOS.glob("*/*.json"))


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_scenario_file(path: Path) -> None:
    case = json.loads(path.read_text())
    result = run_scenario(case["scenario"])
    expect = case["expect"]
    for wanted in expect.get("steps", []):
        got = result["steps"][wanted["step"]]
        where = f"{path.name} step {wanted['step']}"
        if "accepted" in wanted:
            assert got["accepted"] == wanted["accepted"], where
        if "rejected" in wanted:
            names = [r.get("wager", r.get("event")) for r in got["rejected"]]
            assert names == wanted["rejected"], f"{where}: {got['rejected']}"
        if "resolutions" in wanted:
            assert [r["wager"] for r in got["resolutions"]] == [
                r["wager"] for r in wanted["resolutions"]
            ], f"{where}: {got['resolutions']}"
            for have, want in zip(got["resolutions"], wanted["resolutions"], strict=True):
                assert {k: have.get(k) for k in want} == want, where
        for key, value in wanted.items():
            if key not in ("step", "accepted", "rejected", "resolutions"):
                assert got.get(key) == value, f"{where}: {key}"
    if "open" in expect:
        assert result["open"] == expect["open"], path.name
