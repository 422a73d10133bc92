"""The deployment across hosts: PostgreSQL, Redis, two web hosts and two worker hosts, each in a network
namespace of its own (drills/netns.py), every process bound to its host's address.

As a team runs it (docs/team.md, "Running it for a team"): gunicorn on each web host, a Celery worker on each worker
host (on every queue), beat once (on worker1) and the outbox relay once (on web1), all on one PostgreSQL and one
Redis. The PostgreSQL cluster is initdb'd in the run's temporary folder and Redis starts empty, both bound to their own
host's address, so the machine's own services on 127.0.0.1 are never touched. The drills' own connections and
the client application's webhook endpoint are on the machine itself, the bridge's `.1`, which no fault cuts.

Deadlines are shorter than the one-host drills' (`HOST_SETTINGS`), and so are the timeouts every connection
runs under, so that a partition is noticed, and outlived, within seconds. `running_hosts()` tears it all down
on the way out, on success, failure, Ctrl-C or SIGTERM alike: processes, namespaces, links, the folder.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import redis

from drills.netns import Host, Network
from drills.postgres import REPO, Postgres
from drills.stack import BIN, DRILL_SETTINGS, Process, Stack, http_status, wait_until
from reviewconsole.queues import TaskQueue

WEB_HOSTS = ("web1", "web2")
WORKER_HOSTS = ("worker1", "worker2")
WEB_PORT, PG_PORT, REDIS_PORT = 8000, 5432, 6379
GUNICORN_WORKERS = 2
WORKER_CONCURRENCY = 3
# A worker host here runs one worker on every queue (what a host of one CPU may do; the one-host drills run a
# worker for each pool): these drills are about hosts and the links between them, not about the pools.
QUEUES = ",".join(TaskQueue)

# A claim lapses 20 s after it is taken (hard limit 15 s + 5); Redis hands an unacknowledged task to another
# worker after 20 s (the least the settings accept with these limits); the sweeper runs every 5 s. Every wait
# on PostgreSQL or Redis gives up within a few seconds (docs/configuration.md).
HOST_SETTINGS = {
    "CELERY_TASK_SOFT_TIME_LIMIT": "12",
    "CELERY_TASK_TIME_LIMIT": "15",
    "AUDIT_EXPORT_TIME_LIMIT": "15",
    "RETRAINING_TIME_LIMIT": "15",
    "CELERY_TASK_RETRY_BACKOFF_MAX": "3",
    "CELERY_BROKER_VISIBILITY_TIMEOUT": "20",
    "SWEEP_SECONDS": "5",
    # Below the soft time limit, as in production (30 s against 240 s): the server cancels a stuck statement
    # before Celery interrupts the task inside it.
    "DB_STATEMENT_TIMEOUT_SECONDS": "10",
    "DB_CONNECT_TIMEOUT_SECONDS": "3",
    "DB_NETWORK_TIMEOUT_SECONDS": "4",
    "REDIS_CONNECT_TIMEOUT_SECONDS": "1",
    "REDIS_SOCKET_TIMEOUT_SECONDS": "2",
    "REDIS_HEALTH_CHECK_SECONDS": "3",
}
CLAIM_HOLD_SECONDS = int(HOST_SETTINGS["CELERY_TASK_TIME_LIMIT"]) + 5
VISIBILITY_SECONDS = int(HOST_SETTINGS["CELERY_BROKER_VISIBILITY_TIMEOUT"])
SWEEP_PERIOD_SECONDS = int(HOST_SETTINGS["SWEEP_SECONDS"])
REQUEUED_HOLD_SECONDS = int(DRILL_SETTINGS["STUCK_CASE_SECONDS"])
"""How long work the sweeper handed back is left to be claimed before a later sweep sends it again."""
DB_GIVES_UP_SECONDS = int(HOST_SETTINGS["DB_NETWORK_TIMEOUT_SECONDS"]) + int(
    HOST_SETTINGS["DB_CONNECT_TIMEOUT_SECONDS"])
"""The longest a request waits on a PostgreSQL host that stopped answering: the link, then a new connect."""


@dataclass
class HostPostgres(Postgres):
    """The drills' PostgreSQL cluster (drills/postgres.py), run inside its own host and listening there."""

    host: Host | None = None

    def _command(self, command: list[str]) -> list[str]:
        assert self.host is not None
        return self.host.command(super()._command(command))

    def resume(self) -> None:
        # initdb lets in 127.0.0.1 alone; the console's hosts and the drills connect over the bridge.
        hba = self.data / "pg_hba.conf"
        subnet = f"{self.address.rsplit('.', 1)[0]}.0/24"
        if subnet not in hba.read_text():
            hba.write_text(f"{hba.read_text()}host all all {subnet} scram-sha-256\n")
        super().resume()


@dataclass
class HostStack(Stack):
    """The deployment on its hosts; the one-host Stack's environment, commands and database helpers as they are."""

    network: Network = field(default_factory=Network)
    starters: dict[str, Callable[[], Process]] = field(default_factory=dict)
    """How to start each process again (by its key), for the supervisor."""

    def host(self, name: str) -> Host:
        return self.network.hosts[name]

    @property
    def web_url(self) -> str:
        return self.url_of("web1")

    def url_of(self, web_host: str) -> str:
        return f"http://{self.host(web_host).address}:{WEB_PORT}"

    @property
    def redis_url(self) -> str:
        return f"redis://{self.host('redis').address}:{REDIS_PORT}/0"

    def _start(self, key: str, host: str, command: list[str]) -> Process:
        """Start `command` on `host` in a session of its own, logging to `<key>-<n>.log`; kept as `key`."""
        with self._lock:
            generation = self._generations.get(key, 0) + 1
            self._generations[key] = generation
            self.logs.mkdir(parents=True, exist_ok=True)
            log = self.logs / f"{key}-{generation}.log"
            handle: IO[bytes] = log.open("ab")
            try:
                popen = subprocess.Popen(self.host(host).command(command), cwd=REPO, env=self.environment(),
                                         stdin=subprocess.DEVNULL, stdout=handle, stderr=subprocess.STDOUT,
                                         start_new_session=True)
            finally:
                handle.close()
            process = Process(f"{key}-{generation}", popen, log)
            self.processes[key] = process
            return process

    # --- Redis -----------------------------------------------------------------------------------

    def redis_start(self) -> None:
        address = self.host("redis").address
        # Protected mode refuses every address but the loopback; this Redis listens on the drill's bridge alone.
        self._redis = self._start("redis", "redis", ["redis-server", "--port", str(REDIS_PORT), "--bind", address,
                                                     "--save", "", "--appendonly", "no", "--dir", str(self.root),
                                                     "--protected-mode", "no"])
        self.processes.pop("redis")
        wait_until(lambda: redis.Redis(host=address, port=REDIS_PORT, socket_timeout=1).ping(), timeout=20,
                   what="redis")

    def redis_run_id(self) -> str:
        client = redis.Redis(host=self.host("redis").address, port=REDIS_PORT, socket_timeout=1)
        return str(client.info("server")["run_id"])

    # --- The console's processes -----------------------------------------------------------------

    def start_web(self, host: str, *, wait: bool = True) -> Process:
        address = self.host(host).address
        process = self._start(host, host, [
            str(BIN / "gunicorn"), "reviewconsole.wsgi", "--bind", f"{address}:{WEB_PORT}", "--workers",
            str(GUNICORN_WORKERS), "--timeout", "60", "--access-logfile", str(self.logs / f"access-{host}.log"),
        ])
        self.starters[host] = lambda: self.start_web(host, wait=False)
        if wait:
            wait_until(lambda: http_status(f"{self.url_of(host)}/healthz") == 200, timeout=90, what=f"{host} /healthz")
        return process

    def start_worker(self, host: str, *, wait: bool = True, concurrency: int = WORKER_CONCURRENCY,
                     cpu: int | None = None) -> Process:
        """Celery on `host`; with `cpu`, on that CPU alone (as if the host were a machine of one core)."""
        number = self._generations.get(host, 0) + 1
        pinned = [] if cpu is None else ["taskset", "-c", str(cpu)]
        process = self._start(host, host, [
            *pinned, str(BIN / "celery"), "-A", "reviewconsole", "worker", "--queues", QUEUES, "--concurrency",
            str(concurrency), "--loglevel", "INFO", "--hostname", f"{host}-{number}@%h",
            "--without-gossip", "--without-mingle",
        ])
        self.starters[host] = lambda: self.start_worker(host, wait=False, concurrency=concurrency, cpu=cpu)
        if wait:
            wait_until(lambda: " ready." in process.log_text() or not process.alive(), timeout=120, interval=0.3,
                       what=f"celery on {host}")
            if not process.alive():
                raise RuntimeError(f"celery on {host} exited:\n{process.log_text()[-3000:]}")
        return process

    def start_beat(self, host: str) -> Process:
        """Beat on `host`, its schedule file its own (each host has its own disk)."""
        key = f"beat-{host}"
        process = self._start(key, host, [str(BIN / "celery"), "-A", "reviewconsole", "beat", "--loglevel", "INFO",
                                          "--schedule", str(self.var_dir / f"celerybeat-schedule-{host}")])
        self.starters[key] = lambda: self.start_beat(host)
        return process

    def start_relay(self, host: str) -> Process:
        key = f"relay-{host}"
        process = self._start(key, host, [sys.executable, "manage.py", "outbox_relay"])
        self.starters[key] = lambda: self.start_relay(host)
        return process

    def stop(self, key: str) -> None:
        """Stop a process for good (the supervisor leaves it stopped)."""
        with self._lock:
            self.starters.pop(key, None)
            process = self.processes.pop(key, None)
        if process is not None:
            process.stop()

    def deployment_start(self) -> None:
        for host in WEB_HOSTS:
            self.start_web(host)
        self.start_beat("worker1")
        self.start_relay("web1")
        for host in WORKER_HOSTS:
            self.start_worker(host)
        self.supervise()

    def deployment_stop(self) -> None:
        self._supervising.clear()
        with self._lock:
            for key in list(self.processes):
                self.stop(key)

    # --- A supervisor on every host (systemd, compose's `restart:`) ---------------------------------

    def supervise(self) -> None:
        self._supervising.set()
        threading.Thread(target=self._supervisor, name="host-supervisor", daemon=True).start()

    def _supervisor(self) -> None:
        while self._supervising.is_set():
            with self._lock:
                for key, process in list(self.processes.items()):
                    if process.wanted and not process.alive() and key in self.starters and self._supervising.is_set():
                        last = [line for line in process.log_text().splitlines() if line.strip()][-1:]
                        self.restarts.append(f"{process.name} exited ({process.popen.returncode}; last line: "
                                             f"{last[0][:200] if last else '-'}) and was restarted")
                        process.wanted = False
                        self.starters[key]()
            time.sleep(0.5)

    def close(self) -> None:
        self._supervising.clear()
        with self._lock:
            for process in self.processes.values():
                process.stop(timeout=5)
        self.redis_kill()
        self.postgres.stop()
        self.network.close()


@contextlib.contextmanager
def running_hosts(*, keep_logs: Callable[[], bool] = lambda: False) -> Iterator[HostStack]:
    """The hosts, PostgreSQL and Redis on theirs, the database migrated; all of it gone on the way out."""
    root = Path(tempfile.mkdtemp(prefix="drills-hosts-"))
    root.chmod(0o755)  # the postgres OS user must reach its data folder inside
    (root / "var" / "static").mkdir(parents=True)
    network = Network()
    postgres = HostPostgres(root / "pg", PG_PORT)
    stack = HostStack(root, postgres, network=network)
    crashed = True
    try:
        network.start()
        for name in ("db", "redis", *WEB_HOSTS, *WORKER_HOSTS):
            network.add_host(name)
        postgres.host = network.hosts["db"]
        postgres.address = postgres.host.address
        addresses = ",".join(network.hosts[name].address for name in WEB_HOSTS)
        # The client's webhook endpoint listens on the bridge's .1: deliveries may reach that address alone.
        stack.extra_env.update(HOST_SETTINGS, ALLOWED_HOSTS=addresses, CONSOLE_BASE_URL=stack.web_url,
                               WEBHOOK_ALLOWED_NETWORKS=f"{network.gateway}/32")
        postgres.start()
        stack.redis_start()
        stack.migrate()
        yield stack
        crashed = False
    finally:
        stack.close()
        shutil.rmtree(root / "pg", ignore_errors=True)
        left = network.leftovers()
        if left:
            print(f"drills: left on the machine, remove by hand: {left}", file=sys.stderr)
        if crashed or keep_logs():
            print(f"drills: multi-host logs kept in {stack.logs}", file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)
