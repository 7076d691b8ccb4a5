"""The schema is the contract, to the letter (issue 33, part 7): schemathesis, as an
integrator runs it, against a live floor.

A production gunicorn with deploy/gunicorn.conf.py's settings (its request-line limit
included) on a private PostgreSQL database, with Redis as the broker, serves the floor of
tests/api_fuzz/conftest.py (a table of every game with a round in progress, a settled
round, devices heard from, reserve sets, a submitted Rules Submission and layout, another
certificate holder's table) and two integrators' tokens, one per certificate holder.
`schemathesis run` (the CLI, pinned in requirements-dev.txt) reads the live schema at
/api/v1/schema/ and runs every phase (examples, coverage, fuzzing, stateful) in both modes
with every check (schemathesis.toml): no 5xx, no status, content type, header or body
the operation does not declare, no schema-invalid request taken, no schema-valid request
refused for a reason the schema does not state (schemathesis_hooks.py names the four it
states), no token reading another holder's records, 401 without credentials, 405 with
Allow for a method the path does not take. The run must find nothing.

CI runs a bounded volume from a fixed seed: 40 test cases an operation and phase, about
75 s on this 2-core machine when it is quiet, 2 to 3 minutes when it is busy (setup
included). A longer sweep (100 examples: about 6 minutes):
    CASINO_API_FUZZ_EXAMPLES=100 CASINO_API_FUZZ_SEED=random \\
        .venv/bin/python -m pytest tests/api_fuzz/test_schemathesis_live.py -s
(the seed used is printed, to replay a finding with CASINO_API_FUZZ_SEED=<it>).

The request-line limit is checked on the same server first: a line over
CASINO_API_MAX_REQUEST_LINE is the one JSON 414 the schema declares, answered by Django
because gunicorn's own limit (8190 bytes, its largest bounded one) is above it.
"""

import json
import os
import random
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.services import (
    ROOT,
    gunicorn,
    manage,
    postgres_database,
    production_env,
    redis_database,
    require_postgres,
    require_redis,
)

pytestmark = pytest.mark.integration

HERE = Path(__file__).resolve().parent
# CI's volume: test cases per operation and phase; and the seed every CI run uses.
EXAMPLES = int(os.environ.get("CASINO_API_FUZZ_EXAMPLES", "40"))
SEED = os.environ.get("CASINO_API_FUZZ_SEED", "20261127")
# Seconds: CI's run takes one to three minutes (the module's docstring); a sweep, more.
RUN_TIMEOUT = 900 if EXAMPLES <= 40 else 3600

# The fuzz floor, and a token for an integrator of the other certificate holder.
FLOOR_SCRIPT = """
import json
from django.utils import timezone
from casino.services.api_tokens import token_issue
from tests.api_fuzz.conftest import floor_build
from tests.casino.floor_fixtures import operations, staff

built = floor_build()
other = staff("fuzz_other_integrator", "integrator")
_, other_key = token_issue(
    user=other, holder=built.other_holder, name="other", by=operations(), now=timezone.now()
)
print(json.dumps({"key": built.token_key, "other_key": other_key}))
"""


def wfc_auth(path: Path, keys: dict[str, str]) -> Path:
    """A Web Fuzzing Commons auth file: each identity a fixed Authorization header."""
    auth = [
        {"name": name, "fixedHeaders": [{"name": "Authorization", "value": f"Bearer {key}"}]}
        for name, key in keys.items()
    ]
    path.write_text(json.dumps({"auth": auth}))
    return path


def _get(url: str, key: str) -> tuple[int, str, bytes]:
    """Status, content type and body of a GET with the token, whatever the status."""
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.headers["Content-Type"], answer.read()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.headers["Content-Type"], refused.read()


def request_line_is_refused_as_declared(base: str, key: str) -> None:
    """Over CASINO_API_MAX_REQUEST_LINE (4094): the one JSON 414, answered by Django under
    gunicorn's raised limit; over gunicorn's 8190: gunicorn's own 414 (docs/api.md)."""
    line = 4094 - len("GET /api/v1/tables/?player= HTTP/1.1")
    at_limit = _get(f"{base}/api/v1/tables/?player={'p' * line}", key)
    assert at_limit[0] == 200, at_limit
    status, content_type, body = _get(f"{base}/api/v1/tables/?player={'p' * (line + 1)}", key)
    assert (status, content_type) == (414, "application/json"), body
    assert json.loads(body)["code"] == "uri_too_long"
    assert "4095 bytes, over the limit of 4094 bytes" in json.loads(body)["detail"]
    assert _get(f"{base}/api/v1/tables/?player={'p' * 9000}", key)[0] == 414


def schemathesis_run(base: str, auth: Path, reports: Path, seed: int) -> tuple[int, str]:
    """`schemathesis run` against the live schema; its exit status and its output. It runs
    in the reports' folder, where it keeps its cache (.schemathesis/)."""
    command = [
        str(Path(sys.executable).parent / "schemathesis"), "--config-file",
        str(HERE / "schemathesis.toml"), "--no-color", "run", f"{base}/api/v1/schema/",
        "--url", base, "--max-examples", str(EXAMPLES), "--seed", str(seed),
        # One worker: on Python 3.11, Hypothesis' threads can fail in ast.parse
        # ("AST constructor recursion depth mismatch", CPython gh-106905).
        "--workers", "1", "--report", "junit,ndjson", "--report-dir", str(reports),
    ]  # fmt: skip
    env = {**os.environ, "CASINO_FUZZ_WFC_AUTH": str(auth), "PYTHONPATH": str(ROOT)}
    reports.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        command, cwd=reports, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT
    )
    return done.returncode, done.stdout + done.stderr


def test_schemathesis_finds_the_live_api_keeps_to_its_schema(tmp_path: Path) -> None:
    require_postgres()
    require_redis()
    seed = random.randrange(2**32) if SEED == "random" else int(SEED)
    with postgres_database() as database_url, redis_database() as redis_url:
        env = production_env(
            tmp_path,
            database_url,
            redis_url,
            # testserver: the floor script records one API write through Django's client.
            DJANGO_ALLOWED_HOSTS="127.0.0.1,testserver",
            # No device sends heartbeats here: the floor's, at setup, stay live.
            CASINO_DEVICE_HEARTBEATS=json.dumps({"illumination_device": [3600, 3]}),
            # One token sends thousands of requests a minute: its budget would answer most
            # of them 429 (tests/api/test_throttles.py tests the budgets).
            CASINO_THROTTLE_TOKEN="off",
            CASINO_THROTTLE_ANONYMOUS="off",
        )
        manage(env, "migrate", "--noinput")
        keys = json.loads(manage(env, "shell", "-c", FLOOR_SCRIPT).stdout.strip().splitlines()[-1])
        auth = wfc_auth(tmp_path / "auth.json", {"integrator": keys["key"],
                                                 "other-holder": keys["other_key"]})  # fmt: skip
        with gunicorn(env, tmp_path / "gunicorn.log", deploy_config=True) as base:
            request_line_is_refused_as_declared(base, keys["key"])
            started = time.monotonic()
            status, output = schemathesis_run(base, auth, tmp_path / "reports", seed)
            took = time.monotonic() - started
    summary = output[output.rfind("SUMMARY") :] if "SUMMARY" in output else output[-3000:]
    print(f"\nschemathesis: seed {seed}, {EXAMPLES} examples, {took:.0f} s\n{summary}")
    assert status == 0, f"schemathesis found (seed {seed}):\n{output[-60000:]}"
