"""House edges from games.par for a Rules Submission, shown before it is approved.

A web request only reads sheets: a game's default sheet is stored with the code
(games/par_sheets/), a submission's is computed when it is submitted and stored on the
row; a row without one (older than that) is filled by `manage.py par_sheets_fill` at
deploy or by the worker task the API sends when asked for it.
"""

import json
import logging
from functools import lru_cache
from typing import Any

from celery import current_app
from django.db import transaction

from casino.models import Lifecycle, RulesSubmission
from casino.rules.submissions import table_options, wagers_of_option
from games.par import default_document, par_document
from games.rules.catalog import GAMES_BY_KEY

PAR_FILL_TASK = "casino.par_sheets_fill"
log = logging.getLogger(__name__)


@lru_cache(maxsize=64)
def _par(game: str, options_json: str) -> dict[str, Any]:
    # A Pai Gow or Craps PAR takes a second or more; the same options give the same sheet.
    return par_document(game, json.loads(options_json))


def game_par(game: str) -> dict[str, Any]:
    """The PAR sheet of a game under its engine's default options, as stored (never
    computed here; a test holds the stored sheets to the engines)."""
    return default_document(game)


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


def submission_par_fill(submission_id: int) -> bool:
    """Compute and store the sheets of a submitted (or decided) version that has none;
    True if this call stored them. A draft's are computed at submission, not here."""
    with transaction.atomic():
        submission = RulesSubmission.objects.select_for_update().filter(pk=submission_id).first()
        if submission is None or submission.par_sheets or submission.status == Lifecycle.DRAFT:
            return False
        submission.par_sheets = submission_par_sheets(submission)
        submission.save(update_fields=["par_sheets"])
        return True


def submissions_without_par() -> list[int]:
    """The ids of every version past draft that has no stored sheets."""
    missing = RulesSubmission.objects.exclude(status=Lifecycle.DRAFT).filter(par_sheets={})
    return list(missing.order_by("id").values_list("id", flat=True))


def submission_par_request(submission_id: int) -> bool:
    """Ask a worker to fill this version's sheets; a broker that is down is logged (the
    deploy's `par_sheets_fill`, or the next ask, fills them), never raised."""
    try:
        current_app.send_task(PAR_FILL_TASK, args=[submission_id])
    except Exception as error:  # the caller answers "being computed" either way
        log.warning("PAR sheets of submission %s not requested (%s)", submission_id, error)
        return False
    return True
