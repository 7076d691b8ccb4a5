"""Exact PAR sheets: every wager's outcome probabilities and house edge.

    python -m games.par GAME [--option NAME=VALUE ...] [--json]
    python -m games.par --write-defaults

Rational arithmetic throughout (enumeration or absorbing Markov chains, never
simulation); see ../shared/SCENARIOS.md, "PAR sheets".

Each game's sheet under its engine's default options is stored in games/par_sheets/
(``--write-defaults`` writes them; a test fails when one differs from what the engine
computes), so a web request reads it and never computes: Pai Gow's takes seconds.
"""

import argparse
import json
import sys
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import cache
from pathlib import Path

from games.rules.core import MalformedInput, ParRecord
from games.rules.registry import ENGINE_MODULES, engine_get

FORMAT = 1
DEFAULTS_DIR = Path(__file__).with_name("par_sheets")


def fraction_text(value: Fraction) -> str:
    """``7/495``, ``1``, ``-1``: exact, as the PAR format writes fractions."""
    return str(value)


def fraction_decimal(value: Fraction, places: int = 10) -> str:
    """The fraction as a decimal string rounded half-even to `places` places."""
    with localcontext() as ctx:
        ctx.prec = 60
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        return format(exact.quantize(Decimal(1).scaleb(-places)), "f")  # never "0E-10"


def par_document(game: str, raw_options: dict[str, object]) -> dict[str, object]:
    """The PAR sheet of a game under Rules Submission options, as a JSON-ready dict."""
    if not isinstance(game, str) or game not in ENGINE_MODULES:
        known = ", ".join(sorted(ENGINE_MODULES))
        raise MalformedInput("game", f"unknown game {game!r}; known: {known}")
    engine = engine_get(game)
    options = engine.parse_options(raw_options)
    return {
        "format": FORMAT,
        "game": game,
        "options": engine.describe_options(options),
        "wagers": [_record(r) for r in engine.par_sheet(options)],
    }


def default_path(game: str) -> Path:
    """Where the sheet of `game` under its engine's default options is stored."""
    if not isinstance(game, str) or game not in ENGINE_MODULES:
        known = ", ".join(sorted(ENGINE_MODULES))
        raise MalformedInput("game", f"unknown game {game!r}; known: {known}")
    return DEFAULTS_DIR / f"{game}.json"


@cache
def default_document(game: str) -> dict[str, object]:
    """The stored sheet of `game` under its engine's default options: read, not computed.

    Callers must not change it (it is shared). A missing file is a broken build: say so.
    """
    path = default_path(game)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(
            f"{path} is missing: run `python -m games.par --write-defaults`"
        ) from None


def defaults_write(games: list[str] | None = None) -> list[Path]:
    """Compute and store the default sheet of each game (all by default)."""
    written = []
    DEFAULTS_DIR.mkdir(exist_ok=True)
    for game in games or sorted(ENGINE_MODULES):
        path = default_path(game)
        text = json.dumps(par_document(game, {}), indent=1, ensure_ascii=False) + "\n"
        path.write_text(text, encoding="utf-8")
        written.append(path)
    default_document.cache_clear()
    return written


def _record(record: ParRecord) -> dict[str, object]:
    return {
        "kind": record.kind,
        "house_edge": fraction_decimal(record.house_edge),
        "house_edge_exact": fraction_text(record.house_edge),
        "outcomes": [
            {
                "name": o.name,
                "probability": fraction_text(o.probability),
                "net": fraction_text(o.net),
            }
            for o in record.outcomes
        ],
    }


def render_text(document: dict[str, object]) -> str:
    """A table for people: kind, house edge in percent, exact house edge."""
    lines = [f"PAR sheet: {document['game']}"]
    options = document["options"]
    assert isinstance(options, dict)
    lines += [f"  {name} = {value}" for name, value in options.items()]
    lines.append("")
    lines.append(f"{'wager':<28} {'house edge':>12}  exact")
    for wager in document["wagers"]:  # type: ignore[union-attr]
        percent = Decimal(wager["house_edge"]) * 100
        lines.append(f"{wager['kind']:<28} {percent:>11.4f}%  {wager['house_edge_exact']}")
    return "\n".join(lines)


def render(document: dict[str, object], *, as_json: bool) -> str:
    """The PAR document as JSON, or as a table for people."""
    if as_json:
        return json.dumps(document, indent=2, ensure_ascii=False)
    return render_text(document)


def parse_option_args(pairs: list[str]) -> dict[str, object]:
    """``NAME=VALUE`` pairs from the command line into a raw options mapping."""
    options: dict[str, object] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise MalformedInput("--option", f"{pair!r} is not NAME=VALUE")
        options[name] = value
    return options


def main(argv: list[str] | None = None, stdout=None, stderr=None) -> int:
    """Print a game's PAR sheet; exit 2 with a one-line error on bad arguments."""
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    parser = argparse.ArgumentParser(prog="python -m games.par", description=__doc__)
    parser.add_argument("game", nargs="?", help=f"one of: {', '.join(sorted(ENGINE_MODULES))}")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--json", action="store_true", help="print the JSON document")
    parser.add_argument(
        "--write-defaults",
        action="store_true",
        help="store every game's sheet under its default options in games/par_sheets/",
    )
    args = parser.parse_args(argv)
    if args.write_defaults:
        for path in defaults_write():
            stdout.write(f"wrote {path}\n")
        return 0
    if args.game is None:
        print("error: name a game, or --write-defaults", file=stderr)
        return 2
    try:
        document = par_document(args.game, parse_option_args(args.option))
    except MalformedInput as error:
        print(f"error: {error}", file=stderr)
        return 2
    stdout.write(render(document, as_json=args.json) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
