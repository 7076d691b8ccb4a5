"""A floor of several machines on one host: Linux network namespaces joined by a bridge.

    sudo .venv/bin/python -m tests.cluster.harness [--apps 2] [--keep]

builds the floor, prints where everything is, and keeps it until Ctrl-C (`--keep` leaves
the logs). The integration tests (tests/cluster/test_faults.py) build the same floor and
break it.

The machines, each a namespace with one address on the floor's network (10.77.0.0/24, a
bridge inside a namespace of its own, so nothing of it reaches the host's network):

    data1   10.77.0.11  PostgreSQL primary, Redis primary, a Sentinel
    data2   10.77.0.12  PostgreSQL streaming replica (synchronous), Redis replica, a Sentinel
    app1    10.77.0.21  the processes of deploy/Procfile: web, devices, settlement,
    app2    10.77.0.22  monitoring, webhooks and beat (every app machine runs beat)
    client  10.77.0.31  HAProxy (deploy/haproxy.cfg, a `server` line per app machine), the
                        third Sentinel, the device simulator and the dealers

Every process of the floor reaches PostgreSQL through both hosts with
`target_session_attrs=read-write` and Redis through the three Sentinels: what deploy/
describes (docs/deploy.md, "Several machines"). The harness plays the failover manager
for PostgreSQL (Patroni's part in a deployment): once the primary has not answered for
PG_PROMOTE_AFTER seconds it promotes the replica.

It runs as root (namespaces, links, PostgreSQL as the postgres user) and removes all it
made when it ends, whatever happened; it sends nothing but to the addresses above, which
exist only inside its namespaces.
"""

import argparse
import contextlib
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
BIN = Path(sys.executable).parent  # the virtualenv's: gunicorn, celery
PG_BIN = Path("/usr/lib/postgresql/15/bin")
NETWORK = "10.77.0"
MASTER_NAME = "casino"  # the Sentinels' name for the Redis primary
PG_PORT, REDIS_PORT, SENTINEL_PORT = 5432, 6379, 26379
WEB_PORT, DEVICES_PORT = 8000, 8001
FLOOR_PORT, DEVICES_WAY_IN = 8080, 8081  # HAProxy's, on the client machine
SENTINEL_EXAMPLE_PRIMARY = "10.0.0.11"  # deploy/sentinel.conf's primary, replaced by data1's
PG_PROMOTE_AFTER = 3.0  # seconds the primary is silent before the replica is promoted
# Each app machine's processes: deploy/Procfile's, fewer of each (one host runs them all).
CONCURRENCY = {
    "WEB_CONCURRENCY": "2",
    "WEB_THREADS": "4",
    "DEVICES_CONCURRENCY": "1",
    "SETTLEMENT_CONCURRENCY": "2",
    "MONITORING_CONCURRENCY": "1",
    "WEBHOOKS_CONCURRENCY": "1",
}
APP_PROCESSES = ("web", "devices", "settlement", "monitoring", "webhooks", "beat")
SECRET = "cluster-harness-secret-" + "k" * 40
OUR_SETTINGS = ("DJANGO_", "DATABASE_", "CELERY_", "CASINO_", "WEB_", "PROMETHEUS")
DEALER_USER = "cluster-dealer"


class HarnessError(RuntimeError):
    """The floor could not be built or did not do what it should."""


def run(argv: list[str], *, timeout: float = 120, check: bool = True, **kw) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kw)
    if check and done.returncode != 0:
        raise HarnessError(f"{shlex.join(argv)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return done.stdout


def tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return f"({path} unreadable)"


def wait_for(what: str, check: Callable[[], bool], timeout: float, every: float = 0.2) -> float:
    """Seconds until `check()` held; HarnessError after `timeout`."""
    start = time.monotonic()
    while True:
        try:
            if check():
                return time.monotonic() - start
        except Exception:  # not yet: a server still starting
            pass
        if time.monotonic() - start > timeout:
            raise HarnessError(f"{what}: not within {timeout:.0f} s")
        time.sleep(every)


@dataclass
class Machine:
    """A namespace with one address; its processes, by name."""

    name: str
    ns: str
    address: str
    hub_link: str  # the link's end on the bridge: down cuts the machine off
    folder: Path
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)

    def argv(self, argv: list[str], user: str | None = None) -> list[str]:
        inner = ["runuser", "-u", user, "--", *argv] if user else argv
        return ["ip", "netns", "exec", self.ns, *inner]

    def start(
        self, name: str, argv: list[str], env: dict[str, str], *, user: str | None = None
    ) -> subprocess.Popen:
        """A process on this machine, its output in `folder/name.log` (appended)."""
        log = self.log(name)
        with log.open("ab") as out:
            process = subprocess.Popen(
                self.argv(argv, user), cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        self.processes[name] = process
        return process

    def log(self, name: str) -> Path:
        return self.folder / f"{name}.log"

    def run(self, argv: list[str], env: dict[str, str] | None = None, **kw) -> str:
        return run(self.argv(argv, kw.pop("user", None)), env=env, cwd=ROOT, **kw)

    def pids(self) -> list[int]:
        out = run(["ip", "netns", "pids", self.ns], check=False)
        return [int(p) for p in out.split()]

    def kill_all(self) -> int:
        """SIGKILL every process in the namespace at once: the machine's power cut; again
        until none is left (one may have forked meanwhile). How many were killed."""
        killed: set[int] = set()
        for _ in range(20):
            pids = self.pids()
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            killed.update(pids)
            time.sleep(0.1)
        for process in self.processes.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)
        self.processes.clear()
        return len(killed)

    def link(self, up: bool) -> None:
        run(["ip", "-n", self.ns.rsplit("-", 1)[0] + "-hub", "link", "set", self.hub_link,
             "up" if up else "down"])  # fmt: skip


class Cluster:
    """The floor's machines; `build()` makes them, `close()` removes them."""

    def __init__(self, folder: Path, apps: int = 2) -> None:
        self.folder = folder
        self.tag = "csn" + uuid.uuid4().hex[:5]  # namespace and link names: ours alone
        self.hub = f"{self.tag}-hub"
        self.machines: dict[str, Machine] = {}
        plan = [("data1", 11), ("data2", 12)]
        plan += [(f"app{n}", 20 + n) for n in range(1, apps + 1)]
        plan.append(("client", 31))
        for index, (name, host) in enumerate(plan):
            machine_folder = folder / name
            machine_folder.mkdir(parents=True, exist_ok=True)
            self.machines[name] = Machine(
                name, f"{self.tag}-{name}", f"{NETWORK}.{host}", f"{self.tag}h{index}",
                machine_folder,
            )  # fmt: skip
        self.apps = [m for n, m in self.machines.items() if n.startswith("app")]
        self.pg_primary = "data1"
        self.token = ""
        self.faults_possible: dict[str, str] = {}

    def __getitem__(self, name: str) -> Machine:
        return self.machines[name]

    # --- the network ---------------------------------------------------------------------

    def network_build(self) -> None:
        leftovers_remove()
        run(["ip", "netns", "add", self.hub])
        run(["ip", "-n", self.hub, "link", "add", "br0", "type", "bridge"])
        run(["ip", "-n", self.hub, "link", "set", "br0", "up"])
        for machine in self.machines.values():
            run(["ip", "netns", "add", machine.ns])
            run(["ip", "-n", self.hub, "link", "add", machine.hub_link, "type", "veth",
                 "peer", "name", "eth0", "netns", machine.ns])  # fmt: skip
            run(["ip", "-n", self.hub, "link", "set", machine.hub_link, "master", "br0", "up"])
            run(["ip", "-n", machine.ns, "addr", "add", f"{machine.address}/24", "dev", "eth0"])
            run(["ip", "-n", machine.ns, "link", "set", "eth0", "up"])
            run(["ip", "-n", machine.ns, "link", "set", "lo", "up"])
        self.faults_possible = self.faults_probe()

    def faults_probe(self) -> dict[str, str]:
        """Which faults of the link this kernel lets the harness make: name -> how, or why not."""
        data1 = self["data1"]
        found: dict[str, str] = {}
        netem = subprocess.run(
            ["tc", "-n", data1.ns, "qdisc", "add", "dev", "eth0", "root", "netem", "delay",
             "1ms"], capture_output=True, text=True,
        )  # fmt: skip
        if netem.returncode == 0:
            run(["tc", "-n", data1.ns, "qdisc", "del", "dev", "eth0", "root"])
            found["slow"] = found["lossy"] = "netem"
            return found
        tbf = subprocess.run(
            ["tc", "-n", data1.ns, "qdisc", "add", "dev", "eth0", "root", "tbf", "rate",
             "1mbit", "burst", "32kbit", "latency", "400ms"], capture_output=True, text=True,
        )  # fmt: skip
        if tbf.returncode == 0:
            run(["tc", "-n", data1.ns, "qdisc", "del", "dev", "eth0", "root"])
            found["slow"] = "tbf (no netem here: the link's rate cut, not a fixed delay)"
        else:
            found["slow"] = f"not here: {netem.stderr.strip()} / {tbf.stderr.strip()}"
        nft = shutil.which("nft")
        if (
            nft
            and subprocess.run(
                ["ip", "netns", "exec", data1.ns, nft, "add", "table", "inet", "probe"],
                capture_output=True,
            ).returncode
            == 0
        ):
            run(["ip", "netns", "exec", data1.ns, nft, "delete", "table", "inet", "probe"])
            found["lossy"] = "nftables (numgen random drop: no netem here)"
        else:
            found["lossy"] = "not here: no netem, and nft missing or refused"
        return found

    def link_slow(self, machine: Machine, on: bool) -> None:
        how = self.faults_possible.get("slow", "")
        if how.startswith("not"):
            raise HarnessError(f"a slow link: {how}")
        if not on:
            run(["tc", "-n", machine.ns, "qdisc", "del", "dev", "eth0", "root"], check=False)
        elif how == "netem":
            run(["tc", "-n", machine.ns, "qdisc", "add", "dev", "eth0", "root", "netem",
                 "delay", "100ms", "30ms"])  # fmt: skip
        else:
            run(["tc", "-n", machine.ns, "qdisc", "add", "dev", "eth0", "root", "tbf", "rate",
                 "1mbit", "burst", "16kbit", "latency", "300ms"])  # fmt: skip

    def link_lossy(self, machine: Machine, percent: int) -> None:
        """Drop `percent` of the machine's packets, both ways; 0 stops."""
        how = self.faults_possible.get("lossy", "")
        if how.startswith("not"):
            raise HarnessError(f"a lossy link: {how}")
        if how == "netem":
            run(["tc", "-n", machine.ns, "qdisc", "del", "dev", "eth0", "root"], check=False)
            if percent:
                run(["tc", "-n", machine.ns, "qdisc", "add", "dev", "eth0", "root", "netem",
                     "loss", f"{percent}%"])  # fmt: skip
            return
        nft = ["ip", "netns", "exec", machine.ns, "nft"]
        run([*nft, "delete", "table", "inet", "lossy"], check=False)
        if percent:
            rules = (
                "table inet lossy {\n"
                f' chain in {{ type filter hook input priority 0; iifname "eth0" '
                f"numgen random mod 100 < {percent} drop; }}\n"
                f' chain out {{ type filter hook output priority 0; oifname "eth0" '
                f"numgen random mod 100 < {percent} drop; }}\n"
                "}\n"
            )
            run([*nft, "-f", "-"], input=rules)

    def replication_hold(self, replica: Machine, primary: Machine, on: bool) -> None:
        """Stop (or let again) `replica` taking Redis's stream from `primary` (nftables on
        the replica: what the primary sends from 6379 is dropped), so that what the primary
        takes meanwhile is lost with it, as asynchronous replication allows."""
        nft = shutil.which("nft")
        if nft is None:
            raise HarnessError("nftables is not installed (apt-get install nftables)")
        argv = ["ip", "netns", "exec", replica.ns, nft]
        run([*argv, "delete", "table", "inet", "hold"], check=False)
        if on:
            rules = (
                "table inet hold {\n chain in { type filter hook input priority 0; "
                f"ip saddr {primary.address} tcp sport {REDIS_PORT} drop; }}\n}}\n"
            )
            run([*argv, "-f", "-"], input=rules)

    # --- the data machines ------------------------------------------------------------------

    def pg_folder(self, machine: Machine) -> Path:
        return machine.folder / "pg"

    def pg_start(self, machine: Machine) -> None:
        data = self.pg_folder(machine)
        machine.start(
            "postgres", [str(PG_BIN / "postgres"), "-D", str(data)], os.environ.copy(),
            user="postgres",
        )  # fmt: skip
        wait_for(f"PostgreSQL on {machine.name}", lambda: self.pg_ready(machine), 60)

    def pg_ready(self, machine: Machine) -> bool:
        """Whether `machine`'s PostgreSQL answers the client machine (across the network)."""
        out = subprocess.run(
            self["client"].argv([str(PG_BIN / "pg_isready"), "-h", machine.address, "-p",
                                 str(PG_PORT), "-t", "1"]), capture_output=True,
        )  # fmt: skip
        return out.returncode == 0

    def psql(self, machine: Machine, sql: str, database: str = "postgres") -> str:
        return machine.run(
            ["psql", "-X", "-A", "-t", "-h", machine.address, "-U", "postgres", "-d", database,
             "-c", sql],
        ).strip()  # fmt: skip

    def pg_build(self) -> None:
        primary, replica = self["data1"], self["data2"]
        data = self.pg_folder(primary)
        for machine in (primary, replica):
            shutil.chown(machine.folder, "postgres", "postgres")
        run(["runuser", "-u", "postgres", "--", str(PG_BIN / "initdb"), "-D", str(data),
             "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale", "C.UTF-8"])  # fmt: skip
        with (data / "postgresql.conf").open("a") as conf:
            conf.write(self.pg_settings(primary))
        with (data / "pg_hba.conf").open("a") as hba:
            hba.write(f"host all all {NETWORK}.0/24 trust\n")
            hba.write(f"host replication all {NETWORK}.0/24 trust\n")
        self.pg_start(primary)
        replica_data = self.pg_folder(replica)
        replica.run(
            [str(PG_BIN / "pg_basebackup"), "-h", primary.address, "-U", "postgres", "-D",
             str(replica_data), "-R", "-X", "stream", "--checkpoint", "fast"],
            user="postgres", timeout=300,
        )  # fmt: skip
        with (replica_data / "postgresql.conf").open("a") as conf:
            conf.write(self.pg_settings(replica))
        self.pg_start(replica)
        # Synchronous: a commit is answered once the replica has it, so a promotion loses
        # no acknowledged write. Set on the primary only (after the copy): the replica,
        # once promoted, has no replica to wait for.
        self.psql(primary, "ALTER SYSTEM SET synchronous_standby_names = '*'")
        self.psql(primary, "SELECT pg_reload_conf()")
        wait_for(
            "the replica streaming synchronously",
            lambda: self.psql(primary, "SELECT sync_state FROM pg_stat_replication") == "sync",
            60,
        )
        self.psql(primary, "CREATE DATABASE casino")

    def pg_settings(self, machine: Machine) -> str:
        socket_dir = self.pg_folder(machine).parent
        return (
            f"\nlisten_addresses = '{machine.address}'\nport = {PG_PORT}\n"
            f"unix_socket_directories = '{socket_dir}'\n"
            "fsync = off\nwal_level = replica\nmax_wal_senders = 5\nhot_standby = on\n"
            "max_connections = 200\n"
            # docs/deploy.md: a client cut off mid-statement is noticed in seconds.
            "tcp_keepalives_idle = 5\ntcp_keepalives_interval = 2\ntcp_keepalives_count = 3\n"
            "tcp_user_timeout = '10s'\n"
        )

    def pg_fail_over(self) -> float:
        """Play the failover manager: once the primary has not answered for
        PG_PROMOTE_AFTER seconds, promote the replica; seconds from the call to promoted."""
        start = time.monotonic()
        old, new = self[self.pg_primary], self["data2" if self.pg_primary == "data1" else "data1"]
        silent_since = None
        while True:
            if self.pg_ready(old):
                silent_since = None
            elif silent_since is None:
                silent_since = time.monotonic()
            elif time.monotonic() - silent_since >= PG_PROMOTE_AFTER:
                break
            if time.monotonic() - start > 60:
                raise HarnessError("the PostgreSQL primary never went silent")
            time.sleep(0.5)
        new.run([str(PG_BIN / "pg_ctl"), "-D", str(self.pg_folder(new)), "promote", "-w"],
                user="postgres")  # fmt: skip
        self.pg_primary = new.name
        return time.monotonic() - start

    def redis_start(self, machine: Machine, replica_of: Machine | None) -> None:
        conf = machine.folder / "redis.conf"
        if not conf.exists():
            text = (ROOT / "deploy" / "redis.conf").read_text()
            text = text.replace("bind 127.0.0.1 ::1", f"bind {machine.address} 127.0.0.1")
            # The floor's private network, no password (deploy/: a password or a firewall).
            text += f"\ndir {machine.folder}\nprotected-mode no\n"
            if replica_of is not None:
                text += f"replicaof {replica_of.address} {REDIS_PORT}\n"
            conf.write_text(text)
        machine.start("redis", [redis_binary("redis-server"), str(conf)], os.environ.copy())
        wait_for(f"Redis on {machine.name}", lambda: self.redis_cli(machine, "PING") == "PONG", 30)

    def redis_cli(self, machine: Machine, *command: str, port: int = REDIS_PORT) -> str:
        return machine.run(
            [redis_binary("redis-cli"), "-h", machine.address, "-p", str(port), *command],
            timeout=10,
        ).strip()

    def sentinel_start(self, machine: Machine) -> None:
        conf = machine.folder / "sentinel.conf"
        text = (ROOT / "deploy" / "sentinel.conf").read_text()
        text = text.replace(SENTINEL_EXAMPLE_PRIMARY, self["data1"].address)
        text = text.replace("bind 127.0.0.1", f"bind {machine.address} 127.0.0.1")
        conf.write_text(text + f"\ndir {machine.folder}\nprotected-mode no\n")
        machine.start("sentinel", [redis_binary("redis-sentinel"), str(conf)], os.environ.copy())

    def redis_primary(self) -> str:
        """The primary's address as the Sentinels say (data1's or data2's)."""
        answer = self.redis_cli(
            self["client"], "SENTINEL", "get-master-addr-by-name", MASTER_NAME,
            port=SENTINEL_PORT,
        )  # fmt: skip
        return answer.splitlines()[0]

    def data_build(self) -> None:
        self.pg_build()
        self.redis_start(self["data1"], None)
        self.redis_start(self["data2"], self["data1"])
        for name in ("data1", "data2", "client"):
            self.sentinel_start(self[name])
        wait_for(
            "three Sentinels that know each other and the replica",
            lambda: self.sentinels_ready(),
            60,
        )

    def sentinels_ready(self) -> bool:
        for name in ("data1", "data2", "client"):
            info = self.redis_cli(self[name], "SENTINEL", "master", MASTER_NAME, port=SENTINEL_PORT)
            fields = info.splitlines()
            seen = dict(zip(fields[::2], fields[1::2], strict=False))
            if seen.get("num-other-sentinels") != "2" or seen.get("num-slaves") != "1":
                return False
        return True

    # --- the floor's processes ------------------------------------------------------------------

    def urls(self) -> dict[str, str]:
        hosts = ",".join(self[n].address for n in ("data1", "data2"))
        sentinels = ";".join(
            f"sentinel://{self[n].address}:{SENTINEL_PORT}" for n in ("data1", "data2", "client")
        )
        return {
            "DATABASE_URL": (
                f"postgres://postgres@{hosts}:{PG_PORT}/casino?target_session_attrs=read-write"
            ),
            "CELERY_BROKER_URL": f"{sentinels}/0",
        }

    def env(self, machine: Machine, **overrides: str) -> dict[str, str]:
        """deploy/production.env.example's settings for a process on `machine`."""
        keep = {k: v for k, v in os.environ.items() if not k.startswith(OUR_SETTINGS)}
        allowed = ",".join(["localhost", "127.0.0.1", *(m.address for m in self.apps)])
        env = {
            **keep,
            **self.urls(),
            **CONCURRENCY,
            "DJANGO_SETTINGS_MODULE": "casino.settings",
            "PYTHONUNBUFFERED": "1",
            "PYTHONPATH": str(ROOT),
            "PATH": f"{BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}",
            "DJANGO_ENV": "production",
            "DJANGO_SECRET_KEY": SECRET,
            "CASINO_DEVICE_KEY": SECRET[::-1],
            "DJANGO_ALLOWED_HOSTS": allowed,
            "DJANGO_SECURE_SSL_REDIRECT": "false",
            "CASINO_DATA_DIR": str(machine.folder / "var"),
            "DJANGO_STATIC_ROOT": str(self.folder / "static"),
            "HOST": machine.address,
            "FORWARDED_ALLOW_IPS": self["client"].address,
            "CASINO_PROBE_TRUSTED": self["client"].address,
            "CASINO_ROUTINE_LOG_LEVEL": "INFO",
            # Two database hosts: a new connection gives up on one gone in 2 s (libpq's
            # least), not 5, so that /ready/ (3 s for every check) still answers.
            "DATABASE_CONNECT_TIMEOUT": "2",
        }
        env.update(overrides)
        return env

    def procfile(self) -> dict[str, str]:
        """deploy/Procfile: process type -> command."""
        found = {}
        for line in (ROOT / "deploy" / "Procfile").read_text().splitlines():
            if line and not line.startswith("#") and ":" in line:
                name, command = line.split(":", 1)
                found[name.strip()] = command.strip()
        return found

    def app_start(self, machine: Machine) -> None:
        """Every process of deploy/Procfile on the machine, as its init would start them."""
        commands = self.procfile()
        for name in APP_PROCESSES:
            metrics = machine.folder / f"metrics-{name}"
            shutil.rmtree(metrics, ignore_errors=True)
            metrics.mkdir(parents=True)
            env = self.env(machine, PROMETHEUS_MULTIPROC_DIR=str(metrics))
            machine.start(name, ["bash", "-c", commands[name]], env)
        for port in (WEB_PORT, DEVICES_PORT):
            wait_for(
                f"{machine.name}:{port} answering /health/",
                lambda port=port: self.http_ok(machine, f"http://{machine.address}:{port}/health/"),
                90,
            )

    def http_ok(self, machine: Machine, url: str) -> bool:
        done = subprocess.run(
            machine.argv(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-m", "3",
                          "-H", "Host: localhost", url]), capture_output=True, text=True,
        )  # fmt: skip
        return done.stdout.strip() == "200"

    def release(self) -> None:
        """deploy/Procfile's `release`, then the demo floor and the dealers' token."""
        app = self.apps[0]
        env = self.env(app)
        app.run(["bash", "-c", self.procfile()["release"]], env, timeout=600)
        # The demo floor, loaded as a developer would (production refuses demo accounts'
        # sign-ins, not their tables); the dealers sign in with a token of their own.
        development = {k: v for k, v in env.items() if k != "DJANGO_ENV"}
        app.run([PYTHON, "manage.py", "load_demo_floor", "--no-history"], development,
                timeout=600)  # fmt: skip
        out = app.run(
            [PYTHON, "manage.py", "shell", "-c",
             "from django.contrib.auth import get_user_model\n"
             "from django.contrib.auth.models import Group\n"
             "from django.utils import timezone\n"
             "from casino.demo_accounts import OPS_USERNAME\n"
             "from casino.models import CertificateHolder\n"
             "from casino.services.api_tokens import token_issue\n"
             "users = get_user_model().objects\n"
             f"u = users.create_user({DEALER_USER!r})\n"
             "u.groups.add(Group.objects.get(name='integrator'))\n"
             "token, key = token_issue(user=u, holder=CertificateHolder.objects.get(), "
             "name='the cluster dealers', by=users.get(username=OPS_USERNAME), "
             "now=timezone.now())\n"
             "print(key)\n"],
            env,
        )  # fmt: skip
        self.token = out.strip().splitlines()[-1]
        # docs/deploy.md: a machine cut off mid-transaction lets its locks go in seconds.
        # Set once the demo floor is loaded (it computes PAR sheets inside a transaction).
        primary = self[self.pg_primary]
        self.psql(primary, "ALTER DATABASE casino SET idle_in_transaction_session_timeout = '10s'")

    def balancer_start(self) -> None:
        client = self["client"]
        config = (ROOT / "deploy" / "haproxy.cfg").read_text()
        lines = []
        for line in config.splitlines():
            stripped = line.strip()
            if stripped.startswith(("server web1 ", "server devices1 ")):
                kind = "web" if "web1" in stripped else "devices"
                port = WEB_PORT if kind == "web" else DEVICES_PORT
                default = f'"${{{kind.upper()}_SERVER-127.0.0.1:{port}}}"'
                for n, app in enumerate(self.apps, 1):
                    named = line.replace(f"{kind}1", f"{kind}{n}", 1)
                    lines.append(named.replace(default, f"{app.address}:{port}"))
            else:
                lines.append(line)
        # Its state for the harness: a stats socket, which deploy/ has no use for.
        at = lines.index("global") + 1
        lines.insert(at, f"    stats socket {client.folder / 'haproxy.sock'} mode 600 level admin")
        cfg = client.folder / "haproxy.cfg"
        cfg.write_text("\n".join(lines) + "\n")
        shutil.copy(ROOT / "deploy" / "haproxy-503.http", client.folder / "haproxy-503.http")
        env = {
            **os.environ,
            "FLOOR_BIND": f"0.0.0.0:{FLOOR_PORT}",
            "DEVICES_BIND": f"0.0.0.0:{DEVICES_WAY_IN}",
            "PROBE_HOST": "localhost",
            "WEB_MAXCONN": "4",
        }
        client.start("haproxy", [haproxy_binary(), "-db", "-f", str(cfg)], env)
        wait_for(
            "HAProxy routing to every app machine",
            lambda: self.balancer_servers_up() == 2 * len(self.apps),
            60,
        )

    def balancer_servers_up(self) -> int:
        """Servers HAProxy's health checks find up (`show stat` on its own socket)."""
        try:
            with socket.socket(socket.AF_UNIX) as sock:
                sock.settimeout(2)
                sock.connect(str(self["client"].folder / "haproxy.sock"))
                sock.sendall(b"show stat\n")
                out = b""
                while chunk := sock.recv(65536):
                    out += chunk
        except OSError:
            return 0
        rows = [row.split(",") for row in out.decode().splitlines() if "," in row]
        return sum(
            1 for row in rows if row[1] not in ("FRONTEND", "BACKEND", "svname") and row[17] == "UP"
        )

    def simulator_start(self) -> None:
        """The demo floor's devices, over HAProxy's devices way in, from the client machine."""
        client = self["client"]
        env = self.env(client)
        simulator = client.start(
            "devices-simulator",
            [PYTHON, "manage.py", "simulate_devices", "--url",
             f"http://127.0.0.1:{DEVICES_WAY_IN}", "--quiet", "none", "--processes", "2"],
            env,
        )  # fmt: skip
        log = client.log("devices-simulator")
        wait_for(
            "the devices' first heartbeats",
            lambda: simulator.poll() is None and log.read_text().count("first heartbeat") >= 10,
            90,
        )
        time.sleep(3)  # the watch's next pass finds them active

    def dealer_start(self, tables: int, period: float) -> Path:
        """The dealers: tests/cluster/dealer.py on the client machine; its log of writes."""
        client = self["client"]
        writes = client.folder / "writes.jsonl"
        client.start(
            "dealer",
            [PYTHON, "-m", "tests.cluster.dealer", "--url", f"http://127.0.0.1:{FLOOR_PORT}",
             "--tables", str(tables), "--period", str(period), "--writes", str(writes)],
            {**self.env(client), "CLUSTER_TOKEN": self.token},
        )  # fmt: skip
        return writes

    def replay(self, step: str) -> dict:
        """tests/cluster/replay.py's `step` (before or after) on the client machine."""
        client = self["client"]
        out = client.run(
            [PYTHON, "-m", "tests.cluster.replay", step, "--url",
             f"http://127.0.0.1:{DEVICES_WAY_IN}", "--state", str(client.folder / "replay.json")],
            self.env(client), timeout=120,
        )  # fmt: skip
        return json.loads(out.strip().splitlines()[-1])

    def checks(self, since: float, settle_within: float, final: bool = False) -> dict:
        """tests/cluster/checks.py on the client machine: its JSON answer."""
        client = self["client"]
        argv = [PYTHON, "-m", "tests.cluster.checks", "--writes",
                str(client.folder / "writes.jsonl"), "--since", repr(since),
                "--settle-within", str(settle_within)]  # fmt: skip
        out = client.run(
            [*argv, "--final"] if final else argv, self.env(client), timeout=settle_within + 300
        )
        return json.loads(out.strip().splitlines()[-1])

    # --- the whole floor --------------------------------------------------------------------

    def build(self) -> None:
        self.network_build()
        self.data_build()
        self.release()
        for app in self.apps:
            self.app_start(app)
        self.balancer_start()
        self.simulator_start()

    def close(self) -> None:
        """Every process of every machine killed, the namespaces removed."""
        for machine in self.machines.values():
            with contextlib.suppress(Exception):  # the rest must still go
                machine.kill_all()
        for machine in self.machines.values():
            subprocess.run(["ip", "netns", "del", machine.ns], capture_output=True)
        subprocess.run(["ip", "netns", "del", self.hub], capture_output=True)

    def describe(self) -> str:
        lines = [f"{m.name:7} {m.ns:18} {m.address}" for m in self.machines.values()]
        lines += [f"{k}: {v}" for k, v in self.urls().items()]
        lines += [f"fault {k}: {v}" for k, v in self.faults_possible.items()]
        return "\n".join(lines)


def leftovers_remove() -> None:
    """The namespaces of a harness that was killed before it could remove them (a CI
    run's timeout), with whatever still runs in them: every one named as ours."""
    for line in run(["ip", "netns", "list"], check=False).splitlines():
        name = line.split()[0] if line.strip() else ""
        if not (name.startswith("csn") and "-" in name):
            continue
        pids = run(["ip", "netns", "pids", name], check=False).split()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid), signal.SIGKILL)
        run(["ip", "netns", "del", name], check=False)


def redis_binary(name: str) -> str:
    found = shutil.which(name) or (f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").exists() else "")
    if not found:
        raise HarnessError(f"{name} is not installed (apt-get install redis-server redis-sentinel)")
    return found


def haproxy_binary() -> str:
    found = shutil.which("haproxy") or (
        "/usr/sbin/haproxy" if Path("/usr/sbin/haproxy").exists() else ""
    )
    if not found:
        raise HarnessError("haproxy is not installed (apt-get install haproxy)")
    return found


def can_build() -> str:
    """Why this host cannot build the floor's machines ("" when it can)."""
    if os.geteuid() != 0:
        return "the harness runs as root (network namespaces, PostgreSQL as postgres)"
    for tool in ("ip", "tc", "runuser", "curl", "psql"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    if not (PG_BIN / "postgres").exists():
        return f"no PostgreSQL server in {PG_BIN}"
    for name in ("redis-server", "redis-sentinel", "redis-cli"):
        if shutil.which(name) is None:
            return f"{name} is not installed (apt-get install redis-server redis-sentinel)"
    if not (shutil.which("haproxy") or Path("/usr/sbin/haproxy").exists()):
        return "haproxy is not installed (apt-get install haproxy)"
    probe = f"csnprobe{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"cannot make a network namespace: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return ""


def cluster_folder() -> Path:
    """A new folder for the floor's files, which the postgres user can reach (PostgreSQL's
    data and sockets are in it); in /tmp, where a socket's path stays short."""
    folder = Path(tempfile.mkdtemp(prefix="casino-cluster-"))
    folder.chmod(0o755)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apps", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="Keep the logs afterwards.")
    args = parser.parse_args()
    if why := can_build():
        sys.exit(f"harness: {why}")
    folder = cluster_folder()
    cluster = Cluster(folder, apps=args.apps)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("harness: ended by SIGTERM"))
    try:
        cluster.build()
        print(cluster.describe())
        print(f"API token: {cluster.token}\nlogs: {folder}\nCtrl-C ends it.", flush=True)
        while True:
            signal.pause()
    except KeyboardInterrupt:
        pass
    finally:
        cluster.close()
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    main()
