"""The settings profiles, each run in a fresh interpreter as an operator would."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from casino.env import env_rate, env_time, production_refusals

ROOT = Path(__file__).resolve().parents[2]
GOOD_KEY = "k7Qm2vXr9Lp4Wn8Zt3Hc6Jd1Fb5Gs0Ye-Ua8Ri2Oe7Tw4Yq9Pz3Xv6Mn1Bc5Dl0Kj"


def manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    clean.pop("CELERY_BROKER_URL", None)
    clean.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
    )


def production_env(tmp_path: Path, **overrides: str) -> dict[str, str]:
    env = {
        "DJANGO_ENV": "production",
        "DJANGO_SECRET_KEY": GOOD_KEY,
        "CASINO_DEVICE_KEY": GOOD_KEY[::-1],
        "DJANGO_ALLOWED_HOSTS": "floor.example.com",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'prod.sqlite3'}",
        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
        "CASINO_DATA_DIR": str(tmp_path),
    }
    env.update(overrides)
    return {k: v for k, v in env.items() if v}


def test_production_profile_passes_check_deploy_with_no_warnings(tmp_path):
    done = manage("check", "--deploy", "--fail-level", "WARNING", **production_env(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "System check identified no issues (0 silenced)." in done.stdout


@pytest.mark.parametrize(
    "missing",
    [
        "DJANGO_SECRET_KEY",
        "DJANGO_ALLOWED_HOSTS",
        "DATABASE_URL",
        "CELERY_BROKER_URL",
        "CASINO_DEVICE_KEY",
    ],
)
def test_production_profile_refuses_to_start_without(tmp_path, missing):
    done = manage("check", **production_env(tmp_path, **{missing: ""}))
    assert done.returncode != 0
    assert "DJANGO_ENV=production refuses to start:" in done.stderr
    assert f"- {missing} is not set" in done.stderr


def test_production_refuses_every_unsafe_setting_in_one_message(tmp_path):
    """The issue's scenario: the committed key, DEBUG on, "*", no device key, all at once."""
    done = manage(
        "check",
        **production_env(
            tmp_path,
            DJANGO_SECRET_KEY="development-only-key-never-used-in-production",
            DJANGO_DEBUG="true",
            DJANGO_ALLOWED_HOSTS="floor.example.com,*",
            CASINO_DEVICE_KEY="",
        ),
    )
    assert done.returncode != 0
    message = done.stderr[done.stderr.index("ImproperlyConfigured: ") :].splitlines()
    assert message == [
        "ImproperlyConfigured: DJANGO_ENV=production refuses to start:",
        "- CASINO_DEVICE_KEY is not set (device secrets derive from it)",
        "- DJANGO_SECRET_KEY is the development key committed in casino/settings.py",
        "- DJANGO_DEBUG='true': debug pages show settings and code",
        "- DJANGO_ALLOWED_HOSTS has the wildcard '*': name each host (a leading dot allows "
        "one domain's subdomains)",
    ]


@pytest.mark.parametrize(
    ("overrides", "problem"),
    [
        # 49 characters: one short of the 50 required.
        ({"DJANGO_SECRET_KEY": "x" * 49}, "DJANGO_SECRET_KEY has 49 characters; 50 or more"),
        ({"CASINO_DEVICE_KEY": "y" * 20}, "CASINO_DEVICE_KEY has 20 characters; 50 or more"),
        (
            {"CASINO_DEVICE_KEY": "development-only-key-never-used-in-production"},
            "CASINO_DEVICE_KEY is the development key committed in casino/settings.py",
        ),
        ({"CASINO_DEVICE_KEY": GOOD_KEY}, "CASINO_DEVICE_KEY is DJANGO_SECRET_KEY"),
        ({"DJANGO_DEBUG": "1"}, "DJANGO_DEBUG='1'"),
        ({"DJANGO_ALLOWED_HOSTS": "*.example.com"}, "DJANGO_ALLOWED_HOSTS has the wildcard '*.ex"),
    ],
)
def test_production_refusals_name_the_setting(overrides, problem, tmp_path):
    env = production_env(tmp_path, **overrides)
    refusals = production_refusals(env)
    assert len(refusals) == 1 and refusals[0].startswith(problem), refusals


def test_production_refusals_accept_a_safe_environment_and_never_echo_a_key(tmp_path):
    assert production_refusals(production_env(tmp_path)) == []
    assert production_refusals(production_env(tmp_path, DJANGO_DEBUG="false")) == []
    # A leading dot names one domain's subdomains: bounded, so allowed.
    assert production_refusals(production_env(tmp_path, DJANGO_ALLOWED_HOSTS=".ex.com")) == []
    short = "s3cret-but-short"
    assert short not in "".join(production_refusals(production_env(tmp_path, **{
        "DJANGO_SECRET_KEY": short, "CASINO_DEVICE_KEY": short,
    })))  # fmt: skip


def test_a_50_character_key_is_enough(tmp_path):
    env = production_env(tmp_path, DJANGO_SECRET_KEY="a" * 50, CASINO_DEVICE_KEY="b" * 50)
    assert production_refusals(env) == []


def test_unknown_profile_is_refused_by_name(tmp_path):
    done = manage("check", DJANGO_ENV="staging", CASINO_DATA_DIR=str(tmp_path))
    assert done.returncode != 0
    assert "DJANGO_ENV='staging'" in done.stderr


def test_development_default_is_sqlite_and_the_filesystem_broker(tmp_path):
    code = (
        "from django.conf import settings as s;"
        "print(s.DATABASES['default']['ENGINE']);"
        "print(s.DATABASES['default']['NAME']);"
        "print(s.CELERY_BROKER_URL)"
    )
    done = manage("shell", "--no-imports", "-c", code, CASINO_DATA_DIR=str(tmp_path))
    assert done.returncode == 0, done.stderr
    engine, name, broker = done.stdout.split()
    assert engine == "django.db.backends.sqlite3"
    assert name == str(tmp_path / "db.sqlite3")
    assert broker.startswith("filesystem://")
    assert (tmp_path / "broker" / "queue").is_dir()


def test_database_url_and_broker_url_switch_to_postgresql_and_redis(tmp_path):
    code = (
        "from django.conf import settings as s;"
        "d = s.DATABASES['default'];"
        "print(d['ENGINE'], d['NAME'], d['HOST'], d['PORT']);"
        "print(s.CELERY_BROKER_URL)"
    )
    done = manage(
        "shell",
        "--no-imports",
        "-c",
        code,
        CASINO_DATA_DIR=str(tmp_path),
        DATABASE_URL="postgres://postgres@db.example:5432/floor",
        CELERY_BROKER_URL="redis://cache.example:6379/2",
    )
    assert done.returncode == 0, done.stderr
    db_line, broker_line = done.stdout.strip().splitlines()
    assert db_line == "django.db.backends.postgresql floor db.example 5432"
    assert broker_line == "redis://cache.example:6379/2"


def test_a_bad_boolean_names_the_variable(tmp_path):
    done = manage("check", DJANGO_DEBUG="maybe", CASINO_DATA_DIR=str(tmp_path))
    assert done.returncode != 0
    assert "DJANGO_DEBUG='maybe'" in done.stderr


@pytest.mark.parametrize("value", ["0", "-3"])
def test_settlement_max_sends_below_one_is_refused_naming_it(tmp_path, value):
    """The first send counts: at 0 every settlement would be an alert before it was sent."""
    done = manage("check", CASINO_SETTLEMENT_MAX_SENDS=value, CASINO_DATA_DIR=str(tmp_path))
    assert done.returncode != 0
    assert f"CASINO_SETTLEMENT_MAX_SENDS={value}: expected 1 or more" in done.stderr


def test_settlement_max_sends_is_read_from_the_environment(tmp_path):
    code = "from django.conf import settings; print(settings.CASINO_SETTLEMENT_MAX_SENDS)"
    default = manage("shell", "--no-imports", "-c", code, CASINO_DATA_DIR=str(tmp_path))
    chosen = manage(
        "shell", "--no-imports", "-c", code,
        CASINO_SETTLEMENT_MAX_SENDS="4", CASINO_DATA_DIR=str(tmp_path),
    )  # fmt: skip
    assert (default.stdout.strip(), chosen.stdout.strip()) == ("10", "4")


def test_the_device_wait_is_read_from_the_environment_and_refused_below_a_second(tmp_path):
    """A round waiting 0 s on a device would be an alert the moment "no more bets" is called."""
    code = "from django.conf import settings; print(settings.CASINO_DEVICE_WAIT_SECONDS)"
    chosen = manage(
        "shell", "--no-imports", "-c", code,
        CASINO_DEVICE_WAIT_SECONDS="45", CASINO_DATA_DIR=str(tmp_path),
    )  # fmt: skip
    assert chosen.stdout.strip() == "45"
    done = manage("check", CASINO_DEVICE_WAIT_SECONDS="0", CASINO_DATA_DIR=str(tmp_path))
    assert done.returncode != 0
    assert "CASINO_DEVICE_WAIT_SECONDS=0: expected 1 or more" in done.stderr


@pytest.mark.parametrize(
    ("request_most", "round_most"), [("0", "5000"), ("6000", "5000")], ids=["none", "past a round"]
)
def test_a_request_s_wager_limit_outside_one_to_the_round_s_is_refused(
    tmp_path, request_most, round_most
):
    done = manage(
        "check", CASINO_MAX_WAGERS_PER_REQUEST=request_most,
        CASINO_MAX_WAGERS_PER_ROUND=round_most, CASINO_DATA_DIR=str(tmp_path),
    )  # fmt: skip
    assert done.returncode != 0
    assert (
        f"CASINO_MAX_WAGERS_PER_REQUEST={request_most}: expected 1 or more, and no more than "
        f"CASINO_MAX_WAGERS_PER_ROUND={round_most}"
    ) in done.stderr


@pytest.mark.parametrize(
    ("raw", "rate"),
    [
        ("1200/60", (1200, 60)),
        ("1200/min", (1200, 60)),
        ("20/s", (20, 1)),
        ("100/30s", (100, 30)),
        ("5000/hour", (5000, 3600)),
        (" 7 / 2m ", (7, 120)),
        ("off", None),
        ("OFF", None),
        ("", (600, 60)),  # empty: the default
    ],
)
def test_a_budget_is_read_as_requests_and_seconds(monkeypatch, raw, rate):
    monkeypatch.setenv("CASINO_THROTTLE_TEST", raw)
    assert env_rate("CASINO_THROTTLE_TEST", "600/60") == rate


@pytest.mark.parametrize("raw", ["1200", "0/60", "10/0", "-1/60", "ten/min", "10/fortnight", "10/"])
def test_a_bad_budget_is_refused_naming_the_variable(monkeypatch, raw):
    monkeypatch.setenv("CASINO_THROTTLE_TEST", raw)
    with pytest.raises(ImproperlyConfigured, match=f"^CASINO_THROTTLE_TEST={raw!r}: expected"):
        env_rate("CASINO_THROTTLE_TEST", "600/60")


def test_the_budgets_are_read_from_the_environment(tmp_path):
    code = (
        "from django.conf import settings; print(settings.CASINO_THROTTLE_TOKEN, "
        "settings.CASINO_THROTTLE_USER, settings.CASINO_THROTTLE_ANONYMOUS, "
        "settings.CASINO_THROTTLE_DEVICE, settings.CASINO_THROTTLE_PROBE)"
    )
    default = manage("shell", "--no-imports", "-c", code, CASINO_DATA_DIR=str(tmp_path))
    chosen = manage(
        "shell", "--no-imports", "-c", code, CASINO_DATA_DIR=str(tmp_path),
        CASINO_THROTTLE_TOKEN="50/s", CASINO_THROTTLE_PROBE="off",
    )  # fmt: skip
    assert default.stdout.strip() == "(1200, 60) (1200, 60) (600, 60) (300, 60) (1200, 60)"
    assert chosen.stdout.strip() == "(50, 1) (1200, 60) (600, 60) (300, 60) None"


@pytest.mark.parametrize(("raw", "kept"), [("06:00", "06:00"), ("5:30", "05:30"), ("", "06:00")])
def test_the_gaming_day_start_is_a_time_of_day(monkeypatch, raw, kept):
    monkeypatch.setenv("CASINO_GAMING_DAY_START", raw)
    assert env_time("CASINO_GAMING_DAY_START", "06:00") == kept


@pytest.mark.parametrize("raw", ["6", "24:00", "06:60", "6am", "06:5", "-1:00"])
def test_a_bad_gaming_day_start_is_refused_naming_the_variable(monkeypatch, raw):
    monkeypatch.setenv("CASINO_GAMING_DAY_START", raw)
    with pytest.raises(ImproperlyConfigured, match=f"^CASINO_GAMING_DAY_START={raw!r}: expected"):
        env_time("CASINO_GAMING_DAY_START", "06:00")
