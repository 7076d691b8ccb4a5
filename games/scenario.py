"""Play one scenario document through a pure engine (../shared/SCENARIOS.md, format 1).

    python -m games.scenario < scenario.json > result.json

A malformed document exits 2 with a one-line error naming the field; a wager or
event the rules forbid is rejected inside the result and play goes on without it.
"""

import json
import sys

from games.rules.core import MalformedInput, Rejection, Resolution, StepOutcome, format_money
from games.rules.registry import ENGINE_MODULES, engine_get

FORMAT = 1


def run_scenario(document: object) -> dict[str, object]:
    """Run a parsed scenario document and return the result document."""
    if not isinstance(document, dict):
        raise MalformedInput("document", "must be a JSON object")
    unknown = set(document) - {"format", "game", "options", "steps"}
    if unknown:
        raise MalformedInput(sorted(unknown)[0], "is not a scenario field")
    if document.get("format") != FORMAT:
        raise MalformedInput("format", f"must be {FORMAT}")
    game = document.get("game")
    if not isinstance(game, str) or game not in ENGINE_MODULES:
        known = ", ".join(sorted(ENGINE_MODULES))
        raise MalformedInput("game", f"unknown game {game!r}; known: {known}")
    engine = engine_get(game)
    raw_options = document.get("options", {})
    if not isinstance(raw_options, dict):
        raise MalformedInput("options", "must be an object")
    options = engine.parse_options(raw_options)
    steps = document.get("steps")
    if not isinstance(steps, list):
        raise MalformedInput("steps", "must be a list of events")

    state = engine.new_state(options)
    results = []
    for index, step in enumerate(steps):
        if not isinstance(step, dict) or len(step) != 1:
            raise MalformedInput(f"steps[{index}]", "must be an object with exactly one event")
        ((event, payload),) = step.items()
        try:
            state, outcome = engine.step(options, state, event, payload)
        except MalformedInput as error:
            raise MalformedInput(f"steps[{index}].{error.field}", error.message) from None
        results.append(_step_result(index, outcome))
    return {
        "format": FORMAT,
        "game": game,
        "options": engine.describe_options(options),
        "steps": results,
        "open": list(engine.open_wagers(state)),
    }


def _step_result(index: int, outcome: StepOutcome) -> dict[str, object]:
    result: dict[str, object] = {
        "step": index,
        "accepted": list(outcome.accepted),
        "rejected": [_rejection(r, index) for r in outcome.rejected],
        "resolutions": [_resolution(r) for r in outcome.resolutions],
    }
    result.update(outcome.extra)
    return result


def _rejection(rejection: Rejection, index: int) -> dict[str, object]:
    body: dict[str, object] = (
        {"wager": rejection.wager} if rejection.wager is not None else {"event": index}
    )
    body["error"] = rejection.error
    if rejection.cite:
        body["cite"] = rejection.cite
    return body


def _resolution(resolution: Resolution) -> dict[str, object]:
    body: dict[str, object] = {
        "wager": resolution.wager,
        "result": resolution.result,
        "net": format_money(resolution.net),
        "cite": resolution.cite,
    }
    body.update(resolution.extra)
    return body


def main(argv: list[str] | None = None, stdin=None, stdout=None, stderr=None) -> int:
    """Read one scenario from stdin, write its result to stdout; exit 2 if malformed."""
    stdin, stdout, stderr = stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr
    try:
        document = json.load(stdin)
    except json.JSONDecodeError as error:
        print(f"error: document: not valid JSON ({error})", file=stderr)
        return 2
    except RecursionError:
        print("error: document: nested too deeply to be a scenario", file=stderr)
        return 2
    except ValueError as error:  # an integer past Python's digit limit, say
        print(f"error: document: a value no scenario can hold ({error})", file=stderr)
        return 2
    try:
        result = run_scenario(document)
    except RecursionError:
        print("error: document: nested too deeply to be a scenario", file=stderr)
        return 2
    except MalformedInput as error:
        print(f"error: {error}", file=stderr)
        return 2
    json.dump(result, stdout, indent=2, ensure_ascii=False)
    stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
