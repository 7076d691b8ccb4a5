"""deploy/: the compose file, the Procfile, the image and the environment agree.

No Docker engine runs the tests, so the files are read as data: the services and process
types, their commands, the queues they consume, the variables they need.
"""

import re
import runpy
import shlex
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import yaml
from django.conf import settings
from gunicorn.config import Config
from gunicorn.glogging import Logger

import floor
from casino.celery import app

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
PROCESS_SERVICES = {
    "release", "web", "devices", "settlement", "monitoring", "webhooks", "beat", "flower"
}  # fmt: skip
LONG_RUNNING = PROCESS_SERVICES - {"release"}


def compose() -> dict[str, Any]:
    """deploy/compose.yaml as data (YAML anchors and merge keys resolved)."""
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def services() -> dict[str, dict[str, Any]]:
    """The compose file's services by name."""
    return compose()["services"]


def procfile() -> dict[str, str]:
    """deploy/Procfile: process type -> command."""
    types: dict[str, str] = {}
    for line in (DEPLOY / "Procfile").read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9_-]+):\s*(.+)$", line)
        if match:
            assert match[1] not in types, f"Procfile names {match[1]} twice"
            types[match[1]] = match[2]
    return types


def env_example() -> dict[str, str]:
    """deploy/production.env.example: variable -> value."""
    variables: dict[str, str] = {}
    for line in (DEPLOY / "production.env.example").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            variables[name] = value
    return variables


def command_of(service: dict[str, Any]) -> str:
    """A service's command as one line, as a Procfile would write it."""
    command = service["command"]
    if isinstance(command, list):
        # A shell wrapper is what a Procfile runner adds by itself.
        command = command[2] if command[:2] == ["sh", "-c"] else shlex.join(command)
    return " ".join(command.split())


def queues_of(command: str) -> set[str] | None:
    """The queues a `celery worker` command consumes; None if it is no worker."""
    words = shlex.split(command)
    if "celery" not in words or "worker" not in words:
        return None
    for flag in ("-Q", "--queues"):
        if flag in words:
            return set(words[words.index(flag) + 1].split(","))
    return {settings.CELERY_TASK_DEFAULT_QUEUE}


def is_beat(command: str) -> bool:
    words = shlex.split(command)
    return "celery" in words and "beat" in words


def test_compose_has_every_service():
    assert set(services()) == {"postgres", "redis", "prometheus", *PROCESS_SERVICES}


def test_every_process_runs_the_one_image_built_from_deploy_dockerfile():
    for name in PROCESS_SERVICES:
        service = services()[name]
        assert service["build"] == {"context": "..", "dockerfile": "deploy/Dockerfile"}, name
        assert service["image"] == "casino-floor:latest", name
        assert service["env_file"] == "production.env", name


def test_long_running_processes_restart_and_wait_for_the_release():
    for name in LONG_RUNNING:
        service = services()[name]
        assert service["restart"] == "unless-stopped", name
        assert service["depends_on"] == {
            "release": {"condition": "service_completed_successfully"}
        }, name
    release = services()["release"]
    assert release["restart"] == "no"
    assert release["depends_on"] == {
        "postgres": {"condition": "service_healthy"},
        "redis": {"condition": "service_healthy"},
    }
    assert command_of(release) == (
        "python manage.py migrate --noinput && python manage.py par_sheets_fill && "
        "python manage.py collectstatic --noinput"
    )


def test_postgres_and_redis():
    postgres, redis = services()["postgres"], services()["redis"]
    assert postgres["image"] == "postgres:16"
    assert "pg_isready" in " ".join(postgres["healthcheck"]["test"])
    assert postgres["environment"]["POSTGRES_PASSWORD"].startswith("${POSTGRES_PASSWORD:?")
    assert any(volume.endswith(":/var/lib/postgresql/data") for volume in postgres["volumes"])
    assert redis["image"] == "redis:7"
    assert "./redis.conf:/usr/local/etc/redis/redis.conf:ro" in redis["volumes"]
    assert redis["command"][:2] == ["redis-server", "/usr/local/etc/redis/redis.conf"]
    conf = (DEPLOY / "redis.conf").read_text()
    assert re.search(r"^appendonly yes$", conf, re.M)
    assert re.search(r"^maxmemory-policy noeviction$", conf, re.M)
    # A stated budget (docs/deploy.md, Memory budgets): an error past it, not the OOM killer.
    assert re.search(r"^maxmemory 512mb$", conf, re.M)


def test_exactly_one_beat_that_cannot_be_scaled():
    commands = {name: command_of(s) for name, s in services().items() if "command" in s}
    beats = [name for name, command in commands.items() if is_beat(command)]
    assert beats == ["beat"]
    beat = services()["beat"]
    assert beat.get("deploy", {}).get("replicas", 1) == 1
    assert beat["container_name"]  # compose refuses to scale a service with a fixed name
    assert [name for name, command in procfile().items() if is_beat(command)] == ["beat"]


def test_workers_consume_every_queue_and_settlement_alone():
    consumed = {
        name: queues
        for name, service in services().items()
        if "command" in service and (queues := queues_of(command_of(service))) is not None
    }
    assert consumed == {
        "settlement": {"settlement"},
        "monitoring": {"monitoring", "default"},
        "webhooks": {"webhooks"},
    }
    assert set().union(*consumed.values()) == set(settings.CELERY_QUEUE_NAMES)


def test_floor_py_runs_the_webhooks_queue_in_a_worker_of_its_own():
    """As the Procfile does: on the demo floor too a slow or dead endpoint holds only the
    webhooks' worker, never a settlement (review finding W2: one worker on every queue took
    a round's result to settled from 0.06 s to 4.8 s with two dead endpoints)."""
    commands = floor.Floor(Path("python"), "127.0.0.1", 8000).commands
    consumed = {
        name: queues
        for name, command in commands.items()
        if (queues := queues_of(shlex.join(command))) is not None
    }
    assert consumed == {"worker": {"settlement", "monitoring", "default"}, "hooks": {"webhooks"}}
    assert set().union(*consumed.values()) == set(settings.CELERY_QUEUE_NAMES)


def test_web_runs_gunicorn_with_its_settings_and_is_probed_on_ready():
    web = services()["web"]
    words = shlex.split(command_of(web))
    assert words[0] == "gunicorn"
    assert words[words.index("--config") + 1] == "deploy/gunicorn.conf.py"
    probe = " ".join(web["healthcheck"]["test"])
    assert "http://127.0.0.1:8000/ready/" in probe
    assert all(port.endswith(":8000") for port in web["ports"])


def test_gunicorn_listens_where_compose_and_the_probe_expect(monkeypatch):
    for name in ("HOST", "PORT", "WEB_CONCURRENCY"):
        monkeypatch.delenv(name, raising=False)
    # The file sets PROMETHEUS_MULTIPROC_DIR when unset: restored after the test.
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", "")
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR")
    config = runpy.run_path(str(DEPLOY / "gunicorn.conf.py"))
    assert config["bind"] == "0.0.0.0:8000"
    # One metrics directory per server, by its port, when none is given.
    assert config["metrics_dir"].endswith("casino-metrics-8000")


def test_gunicorn_replaces_a_worker_after_its_requests_each_at_its_own_count(monkeypatch, tmp_path):
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path / "metrics"))
    for name in ("WEB_MAX_REQUESTS", "WEB_MAX_REQUESTS_JITTER"):
        monkeypatch.delenv(name, raising=False)
    config = runpy.run_path(str(DEPLOY / "gunicorn.conf.py"))
    assert (config["max_requests"], config["max_requests_jitter"]) == (50000, 5000)
    monkeypatch.setenv("WEB_MAX_REQUESTS", "800")
    config = runpy.run_path(str(DEPLOY / "gunicorn.conf.py"))
    assert (config["max_requests"], config["max_requests_jitter"]) == (800, 80)
    # gunicorn reads them as its own settings.
    gunicorn = Config()
    gunicorn.set("max_requests", config["max_requests"])
    gunicorn.set("max_requests_jitter", config["max_requests_jitter"])
    assert (gunicorn.max_requests, gunicorn.max_requests_jitter) == (800, 80)


def test_celery_replaces_a_pool_process_past_its_memory_or_tasks():
    from casino.celery import app

    assert app.conf.worker_max_memory_per_child == 256 * 1024  # KiB
    assert app.conf.worker_max_tasks_per_child == 10000


def test_gunicorn_s_access_line_carries_the_time_and_the_request_id(monkeypatch, tmp_path):
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path / "metrics"))
    config = runpy.run_path(str(DEPLOY / "gunicorn.conf.py"))
    cfg = Config()
    cfg.set("access_log_format", config["access_log_format"])
    cfg.set("accesslog", str(tmp_path / "access.log"))
    logger = Logger(cfg)
    environ = {
        "REQUEST_METHOD": "POST",
        "RAW_URI": "/api/v1/rounds/7/wagers/",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "10.0.0.9",
    }
    answered = SimpleNamespace(status="201 Created", sent=412, headers=[("X-Request-ID", "lb-42")])
    logger.access(answered, [], environ, timedelta(milliseconds=37))
    refused = SimpleNamespace(status="400 Bad Request", sent=0, headers=[])  # gunicorn's own
    logger.access(refused, [], environ, timedelta(milliseconds=2))
    first, second = (tmp_path / "access.log").read_text().splitlines()
    assert first.startswith("10.0.0.9 - - [")
    assert first.endswith(
        '"POST /api/v1/rounds/7/wagers/ HTTP/1.1" 201 412 "-" "-" 37ms request_id=lb-42'
    )
    assert second.endswith(' 400 0 "-" "-" 2ms request_id=-')


def test_flower_needs_a_login_and_stays_on_this_machine():
    flower = services()["flower"]
    assert command_of(flower).startswith("celery -A casino flower")
    assert flower["environment"]["FLOWER_BASIC_AUTH"].startswith("${FLOWER_BASIC_AUTH:?")
    assert flower["ports"] and all(port.startswith("127.0.0.1:") for port in flower["ports"])
    # The merge keeps the environment every process gets.
    assert "DATABASE_URL" in flower["environment"]


def test_every_procfile_process_is_a_compose_service_with_the_same_command():
    in_compose = {name: command_of(services()[name]) for name in PROCESS_SERVICES}
    in_procfile = {name: " ".join(command.split()) for name, command in procfile().items()}
    # The Procfile sets a process type's own variables before its command; compose, in
    # the service's environment: the same values (compose's ${...} read from the env file).
    for name, command in in_procfile.items():
        words = command.split()
        assigned = dict(w.split("=", 1) for w in words if re.fullmatch(r"[A-Z_]+=\S*", w))
        in_procfile[name] = " ".join(words[len(assigned) :])
        environment = services()[name].get("environment", {})
        assert {k: str(environment.get(k)) for k in assigned} == assigned, name
    assert in_procfile == in_compose


def test_devices_have_a_gunicorn_of_their_own_probed_on_ready():
    devices = services()["devices"]
    words = shlex.split(command_of(devices))
    assert words[:2] == ["gunicorn", "casino.wsgi_devices"]
    assert words[words.index("--config") + 1] == "deploy/gunicorn.conf.py"
    environment = devices["environment"]
    assert environment["PORT"] == "8001"
    assert environment["WEB_CONCURRENCY"] == "${DEVICES_CONCURRENCY:-2}"
    assert environment["WEB_THREADS"] == "${DEVICES_THREADS:-4}"
    assert "http://127.0.0.1:8001/ready/" in " ".join(devices["healthcheck"]["test"])
    assert all(port.endswith(":8001") for port in devices["ports"])
    hosts = [set(range(*map(int, p.split(":")[0].split("-")))) for n in ("web", "devices")
             for p in services()[n]["ports"]]  # fmt: skip
    assert not set.intersection(*hosts)  # the replicas' host ports apart
    (lookup,) = scrape_job("casino-devices")["dns_sd_configs"]
    assert (lookup["names"], lookup["port"]) == (["devices"], 8001)


def test_every_queue_a_task_routes_to_is_consumed_by_a_procfile_process():
    consumed = set().union(*(queues_of(c) or set() for c in procfile().values()))
    app.loader.import_default_modules()
    names = {name for name in app.tasks if not name.startswith("celery.")}
    names |= {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "settlement.round_settle" in names
    routed = {name: app.amqp.router.route({}, name)["queue"].name for name in names}
    assert {name: q for name, q in routed.items() if q not in consumed} == {}
    # Pings are sent to every queue by name, so every queue needs a consumer too.
    assert set(settings.CELERY_QUEUE_NAMES) <= consumed


def test_every_variable_compose_reads_is_in_the_env_example():
    text = (DEPLOY / "compose.yaml").read_text()
    referenced = set(re.findall(r"(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)", text))
    assert not re.findall(r"(?<!\$)\$[A-Za-z_]", text), "use ${VAR}, or $$ for the container"
    assert referenced >= {"POSTGRES_PASSWORD", "FLOWER_BASIC_AUTH", "SETTLEMENT_CONCURRENCY"}
    assert referenced - set(env_example()) == set()


def test_env_example_is_one_plain_assignment_a_line():
    # systemd's EnvironmentFile takes a trailing "# comment" as part of the value.
    for line in (DEPLOY / "production.env.example").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            assert re.fullmatch(r"[A-Z][A-Z0-9_]*=[^\s#'\"]*", line), line
    variables = env_example()
    assert variables["DJANGO_ENV"] == "production"
    for required in ("DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS", "DATABASE_URL"):
        assert required in variables
    assert "CELERY_BROKER_URL" in variables


def test_the_image_is_non_root_production_and_starts_the_web_process():
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim$", dockerfile, re.M)
    assert "pip install -r requirements.txt" in dockerfile
    users = re.findall(r"^USER (\S+)$", dockerfile, re.M)
    assert users and users[-1] not in ("root", "0")
    assert re.search(r"^ENV DJANGO_ENV=production", dockerfile, re.M)
    cmd = re.search(r"^CMD (\[.*\])$", dockerfile, re.M)
    assert cmd is not None
    assert " ".join(yaml.safe_load(cmd[1])) == procfile()["web"]


def test_the_docs_name_every_process_and_queue():
    docs = (ROOT / "docs" / "deploy.md").read_text()
    for name in [*PROCESS_SERVICES, *settings.CELERY_QUEUE_NAMES, "/health/", "/ready/"]:
        assert f"`{name}`" in docs, name
    assert "docker compose -f deploy/compose.yaml" in docs


DEV_TOOLS = {"pytest", "pytest-django", "ruff", "schemathesis", "hypothesis", "selenium",
             "trio", "import-linter", "grimp", "openapi-python-client"}  # fmt: skip


def requirement_names(path: Path) -> set[str]:
    """The distribution names a requirements file pins (its -r includes not followed)."""
    names = set()
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "-r")):
            names.add(re.split(r"[=\[<>]", line)[0].lower().replace("_", "-"))
    return names


def test_the_image_installs_the_runtime_file_which_holds_no_test_tool():
    """Issue 22, point 5: the production install carries what runs the floor only."""
    runtime = requirement_names(ROOT / "requirements.txt")
    assert {"django", "celery", "gunicorn", "prometheus-client", "sentry-sdk"} <= runtime
    assert not runtime & DEV_TOOLS, runtime & DEV_TOOLS
    dev = (ROOT / "requirements-dev.txt").read_text()
    assert "-r requirements.txt" in dev.splitlines()
    assert requirement_names(ROOT / "requirements-dev.txt") >= DEV_TOOLS
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert "requirements-dev" not in dockerfile
    floor = (ROOT / "floor.py").read_text()
    assert "ensure_venv(REQUIREMENTS_DEV)" in floor  # floor.py test installs the tools


# --- metrics (issue 22, point 3) ----------------------------------------------------------


def prometheus_config() -> dict[str, Any]:
    """deploy/prometheus.yml as data."""
    return yaml.safe_load((DEPLOY / "prometheus.yml").read_text())


def scrape_job(name: str) -> dict[str, Any]:
    (job,) = [job for job in prometheus_config()["scrape_configs"] if job["job_name"] == name]
    return job


def test_web_and_workers_add_up_their_processes_counters():
    for name in ("web", "devices", "settlement", "monitoring", "webhooks"):
        environment = services()[name]["environment"]
        assert environment["PROMETHEUS_MULTIPROC_DIR"] == "/tmp/casino-metrics", name
        assert "DATABASE_URL" in environment, name  # merged with every process's own
    for name in ("settlement", "monitoring", "webhooks"):
        assert services()[name]["environment"]["CASINO_WORKER_METRICS_PORT"] == "9808"
    for name in ("beat", "flower", "release"):
        assert "PROMETHEUS_MULTIPROC_DIR" not in services()[name].get("environment", {}), name


def test_prometheus_scrapes_every_web_container_with_the_token():
    job = scrape_job("casino-web")
    assert job["metrics_path"] == "/metrics"
    (lookup,) = job["dns_sd_configs"]
    assert (lookup["names"], lookup["type"], lookup["port"]) == (["web"], "A", 8000)
    assert all(port.endswith(":8000") for port in services()["web"]["ports"])
    token_file = job["authorization"]["credentials_file"]
    assert job["authorization"]["type"] == "Bearer"
    prometheus = services()["prometheus"]
    assert f'printf %s "$CASINO_METRICS_TOKEN" > {token_file}' in prometheus["command"][0].replace(
        "$$", "$"
    )
    assert prometheus["environment"]["CASINO_METRICS_TOKEN"].startswith("${CASINO_METRICS_TOKEN:?")
    assert "CASINO_METRICS_TOKEN" in env_example()


def test_prometheus_scrapes_the_workers_port_and_flower_with_its_login():
    (lookup,) = scrape_job("casino-workers")["dns_sd_configs"]
    assert sorted(lookup["names"]) == ["monitoring", "settlement", "webhooks"]
    assert lookup["port"] == 9808
    flower = scrape_job("flower")
    assert flower["static_configs"] == [{"targets": ["flower:5555"]}]
    assert "--port=5555" in command_of(services()["flower"])
    command = services()["prometheus"]["command"][0].replace("$$", "$")
    for field in ("username_file", "password_file"):
        assert f"> {flower['basic_auth'][field]}" in command, field


def test_prometheus_reads_its_file_and_stays_on_this_machine():
    prometheus = services()["prometheus"]
    assert "./prometheus.yml:/etc/prometheus/prometheus.yml:ro" in prometheus["volumes"]
    assert "--config.file=/etc/prometheus/prometheus.yml" in prometheus["command"][0]
    assert prometheus["ports"] == ["127.0.0.1:9090:9090"]
    assert prometheus["restart"] == "unless-stopped"
