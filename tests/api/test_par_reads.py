"""A request never computes a PAR sheet (issue 19 point 4): a game's default sheet is
read from games/par_sheets/, a submission's from its row (stored at submission); a row
without one is a 409 (a draft) or a 503 with Retry-After while a worker fills it.

Every test that makes a request first forbids computing: `games.par.par_document` (what
every sheet comes from) raises, so a request that computed would fail, not just be slow.
"""

import json
import pickle
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.core.management import call_command

from casino.models import Lifecycle, RulesSubmission
from casino.services import par as par_service
from casino.services.submissions import submission_draft, submission_submit
from games.par import DEFAULTS_DIR, default_document, par_document
from games.rules.registry import ENGINE_MODULES
from tests.api.conftest import API, compliance_user, error_of, operations_user, session
from tests.casino.floor_fixtures import T0, holder_get
from workers.tasks import par_sheets_fill_task

pytestmark = pytest.mark.django_db


@pytest.fixture
def forbid_computing(monkeypatch):
    """Call it to make any PAR computation from then on fail the test."""

    def refuse(*args, **kwargs):
        raise AssertionError("a request computed a PAR sheet")

    def forbid() -> None:
        par_service._par.cache_clear()  # no sheet computed earlier in this process helps
        monkeypatch.setattr(par_service, "par_document", refuse)
        monkeypatch.setattr("games.par.par_document", refuse)

    yield forbid
    par_service._par.cache_clear()


@pytest.fixture
def sent(monkeypatch) -> list[tuple[str, list]]:
    """The tasks the API sends, recorded instead of published."""
    tasks: list[tuple[str, list]] = []
    fake = SimpleNamespace(send_task=lambda name, args: tasks.append((name, args)))
    monkeypatch.setattr(par_service, "current_app", fake)
    return tasks


def submitted(game: str = "sic_bo", variants: tuple[str, ...] = ("standard",)) -> RulesSubmission:
    ops = operations_user()
    draft = submission_draft(
        holder_get(),
        game,
        variants=list(variants),
        table_types=["manual"],
        options={},
        by=ops,
        now=T0,
    )
    return submission_submit(draft, by=ops, now=T0)


def without_sheets(submission: RulesSubmission) -> RulesSubmission:
    """As a version stored before sheets were kept at submission."""
    RulesSubmission.objects.filter(pk=submission.pk).update(par_sheets={})
    return RulesSubmission.objects.get(pk=submission.pk)


@pytest.mark.parametrize("game", sorted(ENGINE_MODULES))
def test_each_stored_default_sheet_is_what_the_engine_computes(game):
    """The guard on the stored files: an engine changed without `python -m games.par
    --write-defaults` fails here, naming the game."""
    assert default_document(game) == par_document(game, {}), (
        f"games/par_sheets/{game}.json is stale: run python -m games.par --write-defaults"
    )


def test_a_games_sheet_is_read_from_its_file_not_computed(forbid_computing):
    forbid_computing()
    client = session(operations_user())
    for game in ("pai_gow", "craps", "sic_bo"):
        response = client.get(f"{API}/par/{game}/")
        assert response.status_code == 200, response.content[:500]
        stored = json.loads((DEFAULTS_DIR / f"{game}.json").read_text(encoding="utf-8"))
        assert response.json() == stored
    # Sic Bo's small: 105 winning throws of 216 at 1 to 1 (§ 625a.6(a)): edge 6/216 = 1/36.
    small = {w["kind"]: w for w in stored["wagers"]}["small"]
    assert small["house_edge_exact"] == "1/36"


def test_a_submissions_stored_sheets_are_read_not_computed(forbid_computing, sent):
    submission = submitted()
    forbid_computing()
    sheets = session(operations_user()).get(f"{API}/rules-submissions/{submission.pk}/par/")
    assert sheets.status_code == 200, sheets.content[:500]
    small = {w["kind"]: w for w in sheets.json()["standard/manual"]["wagers"]}["small"]
    assert small == {"kind": "small", "house_edge": "0.0277777778"}  # 1/36
    assert sent == []


def test_a_drafts_sheets_are_a_409_naming_the_submission_that_computes_them(forbid_computing, sent):
    ops = operations_user()
    draft = submission_draft(
        holder_get(),
        "pai_gow",
        variants=["standard"],
        table_types=["manual"],
        options={},
        by=ops,
        now=T0,
    )
    forbid_computing()
    response = session(ops).get(f"{API}/rules-submissions/{draft.pk}/par/")
    body = error_of(response, 409, "par_not_computed")
    assert body["detail"] == (
        f"{draft} is a draft: its PAR sheets are computed when it is submitted "
        f"(POST /api/v1/rules-submissions/{draft.pk}/submit/)"
    )
    assert sent == []


def test_a_version_without_sheets_is_a_503_while_a_worker_fills_them(
    forbid_computing, sent, monkeypatch
):
    submission = without_sheets(submitted())
    forbid_computing()
    client = session(operations_user())
    url = f"{API}/rules-submissions/{submission.pk}/par/"
    response = client.get(url)
    body = error_of(response, 503, "par_being_computed")
    assert response["Retry-After"] == "10"
    assert body["detail"] == (
        f"the PAR sheets of {submission} are being computed; ask again in 10 seconds"
    )
    assert sent == [("casino.par_sheets_fill", [submission.pk])]
    assert RulesSubmission.objects.get(pk=submission.pk).par_sheets == {}

    # The worker's side (its own process computes: allowed there).
    monkeypatch.setattr(par_service, "par_document", par_document)
    assert par_sheets_fill_task(submission.pk) is True
    assert par_sheets_fill_task(submission.pk) is False  # already stored: nothing again
    forbid_computing()
    sheets = client.get(url)
    assert sheets.status_code == 200, sheets.content[:500]
    assert list(sheets.json()) == ["standard/manual"]


def test_a_broker_that_is_down_still_answers_503_and_changes_nothing(forbid_computing, monkeypatch):
    def down(*args, **kwargs):
        raise ConnectionError("Error 111 connecting to 127.0.0.1:6379")

    monkeypatch.setattr(par_service, "current_app", SimpleNamespace(send_task=down))
    submission = without_sheets(submitted())
    forbid_computing()
    response = session(operations_user()).get(f"{API}/rules-submissions/{submission.pk}/par/")
    error_of(response, 503, "par_being_computed")
    assert response["Retry-After"] == "10"
    assert RulesSubmission.objects.get(pk=submission.pk).par_sheets == {}


def test_the_fill_task_crosses_a_process_boundary_with_an_id_only():
    """Celery sends [id] as JSON (CELERY_TASK_SERIALIZER); the args and the result pickle
    too (a result or retry carried by the pool)."""
    submission = without_sheets(submitted())
    args = pickle.loads(pickle.dumps([submission.pk]))
    assert json.loads(json.dumps(args)) == [submission.pk]
    result = par_sheets_fill_task.apply(args=args)
    assert pickle.loads(pickle.dumps(result.get())) is True


def test_the_deploy_command_fills_every_version_past_draft_once(capsys):
    one = without_sheets(submitted("sic_bo"))
    two = without_sheets(submitted("three_dice_football"))
    ops = operations_user()
    draft = submission_draft(
        holder_get(),
        "craps",
        variants=["craps"],
        table_types=["manual"],
        options={},
        by=ops,
        now=T0,
    )
    call_command("par_sheets_fill")
    out = capsys.readouterr().out
    assert out.startswith("PAR sheets stored for 2 of 2 Rules Submissions without them")
    for row in (one, two):
        row.refresh_from_db()
        assert row.status == Lifecycle.SUBMITTED and row.par_sheets
    draft.refresh_from_db()
    assert draft.par_sheets == {}  # a draft's come at submission
    call_command("par_sheets_fill")
    assert capsys.readouterr().out.startswith("PAR sheets stored for 0 of 0 ")


def test_the_bench_runs_quick_and_prints_every_game():
    """bench/par_reads.py --quick, as the suite runs it (figures printed, not asserted)."""
    bench = Path(__file__).resolve().parents[2] / "bench" / "par_reads.py"
    out = subprocess.run(
        [sys.executable, str(bench), "--quick", "--repeat", "1"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    print(out)
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[2:]}
    assert sorted(rows) == sorted(ENGINE_MODULES)
    assert rows["pai_gow"][0] == "-" and float(rows["sic_bo"][2]) > 0


def test_the_admin_page_of_a_version_without_sheets_asks_a_worker_and_computes_nothing(
    forbid_computing, sent
):
    submission = without_sheets(submitted())
    forbid_computing()
    client = session(compliance_user())
    page = client.get(f"/admin/casino/rulessubmission/{submission.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "The house edges are being computed by a worker; reload the page in a few" in html
    assert sent == [("casino.par_sheets_fill", [submission.pk])]
