"""casino/redis_connect.py: one URL for Redis, directly or through Sentinel (kombu's form)."""

import subprocess
import sys

import pytest
from redis.sentinel import SentinelConnectionPool

from casino.redis_connect import SentinelUrl, is_redis, is_sentinel, master_address, redis_from_url
from tests.services import project_env


def test_a_sentinel_url_names_every_sentinel_the_database_and_the_password():
    parsed = SentinelUrl.parse(
        "sentinel://:s%40cret@10.0.0.11:26379/3;sentinel://10.0.0.12:26380;sentinel://lb/3"
    )
    assert parsed.sentinels == (("10.0.0.11", 26379), ("10.0.0.12", 26380), ("lb", 26379))
    assert (parsed.db, parsed.password) == (3, "s@cret")
    # kombu reads the database from the first: a 0 after the last agrees with none there.
    assert SentinelUrl.parse("sentinel://a:26379;sentinel://b:26379/0").db == 0


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("sentinel://a:26379;redis://b:6379", "expected sentinel://host:port"),
        ("sentinel:///0", "no host"),
        ("sentinel://a:26379/zero", "the database is a number, not 'zero'"),
        ("sentinel://a:26379;sentinel://b:26379/3", "database 3, but the first Sentinel's is 0"),
        (";", "no Sentinel named"),
    ],
)
def test_a_bad_sentinel_url_is_refused_naming_the_problem(url, problem):
    with pytest.raises(ValueError, match=problem):
        SentinelUrl.parse(url)


def test_which_urls_are_redis():
    assert all(is_redis(u) for u in ("redis://h", "rediss://h", "sentinel://h:26379"))
    assert not is_redis("filesystem://localhost/") and not is_redis("database")
    assert is_sentinel("sentinel://h:26379") and not is_sentinel("redis://h")


def test_a_client_through_sentinel_asks_for_the_named_primary():
    client = redis_from_url("sentinel://10.0.0.11:26379/2;sentinel://10.0.0.12:26379", "casino")
    pool = client.connection_pool
    assert isinstance(pool, SentinelConnectionPool)
    assert pool.service_name == "casino" and pool.connection_kwargs["db"] == 2
    sentinels = pool.sentinel_manager.sentinels
    assert [s.connection_pool.connection_kwargs["host"] for s in sentinels] == [
        "10.0.0.11",
        "10.0.0.12",
    ]
    direct = redis_from_url("redis://127.0.0.1:6379/0", "casino")
    assert master_address(direct) == ""  # one server: its epoch key is the store's own


def test_a_bad_sentinel_broker_url_stops_the_settings_with_its_problem():
    env = project_env(CELERY_BROKER_URL="sentinel://a:26379/x;sentinel://b:26379")
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode != 0
    assert "CELERY_BROKER_URL: 'sentinel://a:26379/x': the database is a number" in done.stderr


def test_through_sentinel_every_client_of_the_floor_follows_the_primary():
    code = (
        "import django; django.setup()\n"
        "from django.conf import settings\n"
        "from casino.celery import app\n"
        "print(settings.CELERY_BROKER_TRANSPORT, settings.CASINO_DEVICE_STORE_URL ==\n"
        "      settings.CELERY_BROKER_URL == settings.CACHES['default']['LOCATION'],\n"
        "      app.conf.broker_transport_options['master_name'],\n"
        "      app.conf.redbeat_redis_url, app.conf.redbeat_redis_options['sentinels'],\n"
        "      app.conf.beat_scheduler)\n"
    )
    env = project_env(CELERY_BROKER_URL="sentinel://10.0.0.11:26379;sentinel://lb:26379/0")
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "casino.broker:RedisSentinelTransport", "True", "casino", "redis-sentinel://",
        "[('10.0.0.11',", "26379),", "('lb',", "26379)]", "casino.beat:Scheduler",
    ]  # fmt: skip


def test_the_cache_through_sentinel_is_one_client_that_knows_every_sentinel():
    from casino.cache import RedisCache

    url = "sentinel://10.0.0.11:26379;sentinel://10.0.0.12:26379;sentinel://lb:26379/0"
    cache = RedisCache(url, {})
    assert cache._servers == [url]  # Django would split it at each ";"
    client = cache._cache.get_client(write=True)
    manager = client.connection_pool.sentinel_manager
    assert len(manager.sentinels) == 3
    assert client.connection_pool.connection_kwargs["socket_timeout"] == 2
