"""What opening a round reads (issue 36: the open was a quarter of a round's CPU): the
Rules Submission in force once for all the gates and the round (its holder with it), the
table twice (the caller's scope, then under its lock), its layout once, the rounds once."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.api.test_round_events import craps_table

pytestmark = pytest.mark.django_db


def _reads_of(queries: list[dict[str, str]], table: str) -> int:
    return sum(
        1 for q in queries if q["sql"].startswith("SELECT") and f'FROM "{table}"' in q["sql"]
    )


def test_opening_a_round_reads_the_rules_in_force_once_and_answers_from_what_it_wrote():
    play = craps_table()
    with CaptureQueriesContext(connection) as opened:
        opened_round = play.post("rounds/", {"table": play.table.pk}, status=201)
    queries = opened.captured_queries
    assert _reads_of(queries, "casino_rulessubmission") == 1
    assert _reads_of(queries, "casino_certificateholder") == 0  # with the submission
    assert _reads_of(queries, "casino_layout") == 1
    assert _reads_of(queries, "games_round") == 1
    assert _reads_of(queries, "casino_table") == 2
    # The answer is the row as written: the same as reading the round afterwards.
    read = play.client.get(f"/api/v1/rounds/{opened_round['id']}/").json()
    assert opened_round == read
    assert (read["status"], read["number"], read["options"]["min_wager"]) == ("open", 1, "5.00")
