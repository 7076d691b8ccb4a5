"""A wager through the API is a handful of statements, however many events the round
holds (issue 21): the token and its permissions come from the shared cache, the round is
read once with its lock, and its engine state from the cache, not replayed."""

import threading

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.api.conftest import API, bearer, new_key, one_table_build, post
from tests.api.test_idempotency import postgres_only  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)
WAGER = {"wagers": [{"player": "p1", "kind": "small", "amount": "10.00"}]}


def statements(client, path: str) -> list[str]:
    with CaptureQueriesContext(connection) as done:
        answer = post(client, path, WAGER, key=new_key())
    assert answer.status_code == 201, answer.content
    # SQLite's BEGIN and COMMIT are captured; PostgreSQL's are not: they are the
    # transaction's brackets, not its statements.
    return [
        q["sql"] for q in done.captured_queries if q["sql"] not in ("BEGIN IMMEDIATE", "COMMIT")
    ]


def test_a_wager_is_a_few_statements_and_replays_nothing(device_store_database):
    cache.clear()
    built = one_table_build()
    client, path = _wagering(built)
    first = statements(client, path)
    for _ in range(20):
        post(client, path, WAGER, key=new_key())
    later = statements(client, path)
    # SQLite has no data-modifying WITH: the wagers, the entry and its lines are three
    # inserts there (one statement on PostgreSQL, the database: 7 in all).
    most = 8 if connection.vendor == "postgresql" else 10
    for sql in (first, later):
        assert len(sql) <= most, "\n".join(sql)
        assert not any('FROM "games_roundevent"' in s and "ORDER BY" in s for s in sql)
        assert not any('FROM "auth_permission"' in s for s in sql)
    assert len(later) == len(first)  # 22 events on: the same statements


def test_a_state_cache_left_behind_is_rebuilt_from_the_events(device_store_database):
    cache.clear()
    built = one_table_build()
    client = bearer(built.key)
    path = f"{API}/rounds/{built.round.pk}/wagers/"
    post(client, path, WAGER, key=new_key())
    kept = {key: cache.get(key) for key in _round_keys()}
    post(client, path, WAGER, key=new_key())
    cache.set_many(kept)  # as if the second request's write never reached the cache
    sql = statements(client, path)
    assert any('FROM "games_roundevent"' in s and "ORDER BY" in s for s in sql)  # replayed
    refs = list(built.round.wagers.order_by("id").values_list("ref", flat=True))
    assert refs == ["1.1", "1.2", "1.3"]


def _wagering(built, warm: int = 2):
    """A client of the built round's token and its wagers' path, `warm` wagers placed: the
    token's first use writes its last_used_at, cached after."""
    client = bearer(built.key)
    path = f"{API}/rounds/{built.round.pk}/wagers/"
    for _ in range(warm):
        post(client, path, WAGER, key=new_key())
    return client, path


def _round_keys() -> list[str]:
    from games.models import Round
    from games.services.round_state import _key

    return [_key(r) for r in Round.objects.all()]


@pytest.mark.usefixtures("postgres_only", "device_store_database")
def test_wagers_racing_at_one_round_each_get_their_own_ref():
    """Four clients wager at one round at once, ten times each: a client that waited for the
    round's lock finds the state another left behind it (written after its commit) and
    takes its wager again from the record; every wager is taken, each ref once."""
    cache.clear()
    built = one_table_build()
    path = f"{API}/rounds/{built.round.pk}/wagers/"
    barrier = threading.Barrier(4)
    statuses: list[int] = []
    errors: list[BaseException] = []

    def wager_ten() -> None:
        try:
            client = bearer(built.key)
            barrier.wait(timeout=30)
            statuses.extend(post(client, path, WAGER, key=new_key()).status_code for _ in range(10))
        except BaseException as error:  # reported in the test's thread
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=wager_ten) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    assert statuses == [201] * 40
    refs = sorted(built.round.wagers.values_list("ref", flat=True), key=lambda r: int(r[2:]))
    assert refs == [f"1.{n}" for n in range(1, 41)]
    seqs = list(built.round.events.order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, 41))


@pytest.mark.usefixtures("postgres_only", "device_store_database")
def test_on_postgresql_a_wager_is_seven_statements():
    """Whether the key was answered already, the lock, a savepoint pair, the event, the
    wagers with their placement entry and lines in one statement, and the write's record
    (BEGIN and COMMIT not counted)."""
    cache.clear()
    built = one_table_build()
    client, path = _wagering(built, warm=3)
    sql = [s for s in statements(client, path) if s != "BEGIN"]
    assert len(sql) == 7, "\n".join(s[:70] for s in sql)
    assert sql[0].startswith("SELECT") and 'FROM "casino_apiwrite"' in sql[0]
    assert "FOR UPDATE" in sql[1]
    assert sql[2].startswith("SAVEPOINT") and sql[5].startswith("RELEASE SAVEPOINT")
    assert sql[3].startswith('INSERT INTO "games_roundevent"')
    assert sql[4].startswith('WITH placed AS (INSERT INTO "games_wager"')
    assert sql[6].startswith('INSERT INTO "casino_apiwrite"')


@pytest.mark.usefixtures("device_store_database")
def test_a_retry_is_answered_from_its_record_without_running_the_write_again():
    cache.clear()
    built = one_table_build()
    client, path = _wagering(built)
    key = new_key()
    first = post(client, path, WAGER, key=key)
    with CaptureQueriesContext(connection) as done:
        again = post(client, path, WAGER, key=key)
    assert again.status_code == first.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    sql = [q["sql"] for q in done.captured_queries]
    assert len(sql) == 1 and 'FROM "casino_apiwrite"' in sql[0], sql


@pytest.mark.usefixtures("device_store_database")
def test_the_api_lock_reads_the_round_and_table_the_orm_reads():
    """round_locked_at (SQL built once) gives the round and its table as round_locked's
    queryset does, field for field; another holder's round is not found."""
    from django.db import transaction

    from casino.models import Table
    from games.models import Round
    from games.services.round_state import round_locked, round_locked_at

    built = one_table_build()

    def fields(row) -> dict[str, object]:
        values = {f.attname: getattr(row, f.attname) for f in row._meta.concrete_fields}
        return {k: bytes(v) if isinstance(v, memoryview) else v for k, v in values.items()}

    with transaction.atomic():
        fast = round_locked_at(built.round.pk, built.holder.pk)
        orm = Round.objects.select_related("table").get(pk=built.round.pk)
        assert fields(fast) == fields(orm) and fields(fast.table) == fields(orm.table)
        assert round_locked(fast) is fast  # locked in this transaction: not read again
        assert round_locked_at(built.round.pk, None).pk == built.round.pk  # a staff session
        with pytest.raises(Round.DoesNotExist):
            round_locked_at(built.round.pk, built.holder.pk + 1000)
        with pytest.raises(Round.DoesNotExist):
            round_locked_at(built.round.pk + 1000, None)
    assert Table.objects.filter(pk=fast.table_id).exists()
