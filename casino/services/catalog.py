"""A table's catalog of wagers: what it offers under the Rules Submission in force, each
kind with its name, paytable, when it may be made, reduced and removed, its limits, the
section that defines it (the engine's `wager_catalog`), and its house edge from the PAR
sheets stored with the submission (casino/services/par.py).

A submission's sheets are stored when it is submitted; one approved before sheets were kept
has none until a worker computes them: its catalog lists every wager with no edge
(`house_edges`: "being_computed") and asks a worker for them, as GET
/rules-submissions/{id}/par/ does. A table with no submission in force offers nothing.
"""

from datetime import datetime
from typing import Any

from casino.models import RulesSubmission, Table
from casino.services.errors import FloorRefused
from casino.services.par import submission_par_request
from casino.services.tables import table_options_in_force
from games.rules.core import MalformedInput
from games.rules.registry import engine_get

STORED, BEING_COMPUTED, NONE = "stored", "being_computed", "none"


def table_catalog(table: Table, now: datetime) -> dict[str, Any]:
    """The table's wagers now, JSON-ready (docs/api.md, The catalog)."""
    answer: dict[str, Any] = {
        "game": table.game,
        "table": table.pk,
        "number": table.number,
        "variant": table.variant,
        "operation": table.operation,
    }
    engine = engine_get(table.game)
    try:
        submission, raw = table_options_in_force(table, now)
        options = engine.parse_options(raw)
    except (FloorRefused, MalformedInput) as refused:
        why = "; ".join(refused.reasons) if isinstance(refused, FloorRefused) else str(refused)
        return {
            **answer,
            "rules_submission": None,
            "options": None,
            "house_edges": NONE,
            "detail": f"{table.number} offers no wager: {why}",
            "wagers": [],
        }
    edges, status, detail = _edges(submission, table)
    wagers = []
    for offer in engine.wager_catalog(options):
        described = offer.describe()
        kinds = described.pop("par_kinds")
        known = edges or {}
        described["house_edge"] = known.get(offer.kind)
        described["par"] = [{"kind": kind, "house_edge": known.get(kind)} for kind in kinds]
        wagers.append(described)
    return {
        **answer,
        "rules_submission": submission.pk,
        "options": engine.describe_options(options),
        "house_edges": status,
        "detail": detail,
        "wagers": wagers,
    }


def _edges(
    submission: RulesSubmission, table: Table
) -> tuple[dict[str, str] | None, str, str | None]:
    """The house edges of the table's sheet by PAR kind, their status and why none."""
    if not submission.par_sheets:
        # Computing here would hold a web worker for seconds (Pai Gow): a worker does it.
        submission_par_request(submission.pk)
        return (
            None,
            BEING_COMPUTED,
            (f"the PAR sheets of {submission} are being computed: ask again in a few seconds"),
        )
    sheet = submission.par_sheets.get(f"{table.variant}/{table.operation}")
    if sheet is None:
        return (
            None,
            NONE,
            f"{submission} has no PAR sheet for a {table.operation} {table.variant} table",
        )
    return {w["kind"]: w["house_edge"] for w in sheet["wagers"]}, STORED, None
