"""House edges from games.par for a Rules Submission, shown before it is approved."""

import json
from functools import lru_cache
from typing import Any

from casino.rules.submissions import table_options, wagers_of_option
from games.par import par_document
from games.rules.catalog import GAMES_BY_KEY


@lru_cache(maxsize=64)
def _par(game: str, options_json: str) -> dict[str, Any]:
    # A Pai Gow or Craps PAR takes a second or more; the same options give the same sheet.
    return par_document(game, json.loads(options_json))


def game_par(game: str) -> dict[str, Any]:
    """The PAR sheet of a game under its engine's default options."""
    return _par(game, "{}")


def submission_par_sheets(submission: Any) -> dict[str, Any]:
    """One PAR sheet per variant and table type the submission covers, keyed by both."""
    variants = dict(GAMES_BY_KEY[submission.game].variants)
    sheets: dict[str, Any] = {}
    for variant in submission.variants:
        for table_type in submission.table_types:
            raw = table_options(
                submission.game, variant, table_type, False, None, None, submission.options
            )
            document = _par(submission.game, json.dumps(raw, sort_keys=True))
            sheets[f"{variant}/{table_type}"] = {
                "title": f"{variants[variant]}, {table_type} table",
                "options": document["options"],
                "wagers": [
                    {"kind": w["kind"], "house_edge": w["house_edge"]} for w in document["wagers"]
                ],
            }
    return sheets


def option_house_edges(game: str, sheet: dict[str, Any]) -> list[dict[str, Any]]:
    """Each option of one PAR sheet with the house edges of the wagers it sets."""
    edges = {w["kind"]: w["house_edge"] for w in sheet["wagers"]}
    rows = []
    for name, value in sheet["options"].items():
        kinds = wagers_of_option(game, name, list(edges))
        rows.append({"option": name, "value": value, "edges": [(k, edges[k]) for k in kinds]})
    return rows
