"""A table's catalog through the API (`GET /api/v1/tables/{id}/wagers/`): every wager the
table offers under the Rules Submission in force, with its terms, its section and its house
edge from the PAR sheet stored with the submission (docs/api.md, The catalog)."""

from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone

from casino.models import RulesSubmission
from casino.services.api_tokens import token_issue
from games.rules.registry import engine_get
from tests.api.conftest import API, bearer, integrator_user, operations_user
from tests.api.openapi_check import component_errors, component_fields
from tests.casino.floor_fixtures import compliant_table

pytestmark = pytest.mark.django_db
SHAPES = {
    "craps": "CrapsCatalog",
    "sic_bo": "SicBoCatalog",
    "high_roll_dice": "HighRollDiceCatalog",
    "three_dice_football": "ThreeDiceFootballCatalog",
    "pai_gow": "PaiGowCatalog",
}


def catalog_of(game: str, **table: Any) -> tuple[Any, dict[str, Any]]:
    """A compliant table of `game` and its catalog as an integrator reads it, held to the
    schema (every key declared, none left out)."""
    now = timezone.now().replace(microsecond=0) - timedelta(seconds=5)
    floor = compliant_table(game, now=now, **table)
    _, key = token_issue(
        user=integrator_user(), holder=floor.holder, name="c", by=operations_user(), now=now
    )
    answer = bearer(key).get(f"{API}/tables/{floor.table.pk}/wagers/")
    assert answer.status_code == 200, answer.content[:2000]
    body = answer.json()
    assert component_errors("WagerCatalog", body) == []
    assert set(body) == component_fields(SHAPES[game])
    return floor, body


@pytest.mark.parametrize("game", sorted(SHAPES))
def test_the_catalog_lists_every_wager_offered_with_its_section_and_edge(game: str):
    floor, body = catalog_of(game)
    engine = engine_get(game)
    options = engine.parse_options(body["options"])  # the options in force, as described
    assert body["game"] == game and body["rules_submission"] == floor.submission.pk
    assert body["house_edges"] == "stored" and body["detail"] is None
    offered = [o.kind for o in engine.wager_catalog(options)]
    assert [w["kind"] for w in body["wagers"]] == offered
    for wager in body["wagers"]:
        assert wager["section"] and wager["made"]["section"], wager["kind"]
        # Every wager is priced: one record of its own kind, or several (odds by point).
        assert wager["par"] and all(p["house_edge"] is not None for p in wager["par"])
        if [p["kind"] for p in wager["par"]] == [wager["kind"]]:
            assert wager["house_edge"] == wager["par"][0]["house_edge"]


def test_the_craps_catalog_by_the_regulations_words():
    _, body = catalog_of("craps")
    wagers = {w["kind"]: w for w in body["wagers"]}
    line = wagers["pass"]
    # SCENARIOS.md: the Pass Line's edge is 7/495; § 623a.5(a) pays it 1 to 1.
    assert (line["label"], line["section"], line["house_edge"]) == (
        "Pass Bet",
        "623a.3(a)(1)",
        "0.0141414141",
    )
    assert line["payouts"] == [{"when": "wins", "pays": "1 to 1"}]
    assert line["made"] == {
        "words": "immediately prior to the come out roll",
        "section": "623a.3(a)(1)",
        "allowed": True,
    }
    assert line["removed"]["section"] == "623a.4(c)(1)"
    # A Place Bet to Win on 6 pays 7 to 6: an edge of 1/66.
    assert (wagers["place:6"]["payouts"][0]["pays"], wagers["place:6"]["house_edge"]) == (
        "7 to 6",
        "0.0151515152",
    )
    # § 623a.11(b)(1): $1 to $5; § 623a.4(c)(3): never taken down before a loser 7.
    fire = wagers["fire"]
    assert (fire["minimum"], fire["maximum"], fire["removed"]["allowed"]) == ("1.00", "5.00", False)
    assert (wagers["come"]["minimum"], wagers["come"]["maximum"]) == ("5.00", "500.00")
    # Odds are priced per point and line, all at true odds (§ 623a.6).
    odds = wagers["odds"]
    assert odds["house_edge"] is None and len(odds["par"]) == 24
    assert {p["house_edge"] for p in odds["par"]} == {"0.0000000000"}
    # A manual table: no Lucky Shooter (§ 623b.2(a)), no Hot Shooter Jackpot (§ 623b.4(a)).
    assert "lucky_shooter" not in wagers and "hot_shooter" not in wagers


def test_a_submission_whose_par_is_not_computed_lists_its_wagers_without_edges():
    floor, _ = catalog_of("sic_bo")
    RulesSubmission.objects.filter(pk=floor.submission.pk).update(par_sheets={})
    _, key = token_issue(
        user=integrator_user("ian_two"),
        holder=floor.holder,
        name="again",
        by=operations_user(),
        now=timezone.now(),
    )
    body = bearer(key).get(f"{API}/tables/{floor.table.pk}/wagers/").json()
    assert component_errors("WagerCatalog", body) == []
    assert body["house_edges"] == "being_computed" and "being computed" in body["detail"]
    assert len(body["wagers"]) == 50
    assert {w["house_edge"] for w in body["wagers"]} == {None}


def test_a_table_with_no_submission_in_force_offers_nothing():
    _, body = catalog_of("sic_bo", with_submission=False)
    assert (body["rules_submission"], body["wagers"], body["house_edges"]) == (None, [], "none")
    assert "601a.2" in body["detail"]


def test_docs_api_lists_every_kind_of_every_game():
    text = (settings.BASE_DIR / "docs" / "api.md").read_text()
    missing = [
        (game, kind)
        for game in SHAPES
        for kind in engine_get(game).kinds
        if f"`{kind}`" not in text
    ]
    assert missing == []
