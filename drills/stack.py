"""The deployment the drills break: PostgreSQL (postgres.py), Redis, gunicorn, Celery workers (one process for
each pool: verification, webhook deliveries, maintenance), beat and the outbox relay.

Everything runs on free ports out of one temporary folder, as a deployment would (two database roles,
`deploy/postgres-init.sql`, `migrate` as the owner, the console as the runtime role), so a drill can kill,
restart or stop any part. Each process is its own process group: a kill takes the whole worker (its pool
children included), as a dead host or an OOM kill would. A supervisor restarts a console process that exits
on its own, as docker compose's `restart: unless-stopped` does. `running_stack()` stops everything on the way
out, on success, failure or Ctrl-C alike, and leaves nothing running.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import psycopg
import redis

from drills import receiver
from drills.postgres import APP_ROLE, DATABASE, OWNER_ROLE, REPO, SUPERUSER, Postgres
from reviewconsole.queues import WorkerPool, pool_queues

BIN = Path(sys.executable).parent
# Pinned work (drills/worker_kills.py) holds five pool processes at once: a case run and an edit's verification,
# a webhook delivery, a calibration run and an export; each pool keeps one more free (the sealer's, in maintenance).
POOL_CONCURRENCY = {WorkerPool.VERIFY: 3, WorkerPool.WEBHOOKS: 2, WorkerPool.MAINTENANCE: 3, WorkerPool.TRAIN: 1}

# Short deadlines, so stranded work is back within a minute rather than ten (docs/configuration.md). Each
# is the smallest the settings accept or close to it: a claim lapses 30 s after it was taken (hard limit 25 s
# + 5), an export's 70 s after (its soft limit is a minute below its hard one). Redis's visibility timeout
# keeps its default (an hour), as in production: work a killed worker held comes back through the sweeper
# alone, which is what the drills test, not through Redis redelivering the message.
DRILL_SETTINGS = {
    "CELERY_TASK_SOFT_TIME_LIMIT": "20",
    "CELERY_TASK_TIME_LIMIT": "25",
    "CELERY_TASK_RETRY_BACKOFF_MAX": "5",
    "AUDIT_EXPORT_TIME_LIMIT": "65",
    "STUCK_CASE_SECONDS": "30",
    "SWEEP_SECONDS": "10",
    "WEBHOOK_TIMEOUT_SECONDS": "15",
    "WEBHOOK_BACKOFF_SECONDS": "1",
    "WEBHOOK_BACKOFF_MAX_SECONDS": "5",
    # Every export of the whole log is a file written by a worker (the task the kill drill needs).
    "AUDIT_EXPORT_STREAM_MAX_ROWS": "10",
    # The client's endpoint (drills/receiver.py) is on loopback, which deliveries may not reach otherwise:
    # this one address is allowed, nothing else of this machine.
    "WEBHOOK_ALLOWED_NETWORKS": f"{receiver.HOST}/32",
    # The drills flood the API from one client to load the stack: no client limit may refuse them.
    "CLIENT_REQUESTS_PER_SECOND": "0",
    "CLIENT_CASES_PER_DAY": "0",
    "CLIENT_BODY_BYTES_PER_DAY": "0",
}
SWEEP_PERIOD_SECONDS = int(DRILL_SETTINGS["SWEEP_SECONDS"])
"""How often beat runs the sweeper."""
CLAIM_HOLD_SECONDS = 30
EXPORT_HOLD_SECONDS = 70


def free_port() -> int:
    """A TCP port nobody listens on now (the kernel's pick for port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until(check: Callable[[], Any], *, timeout: float, interval: float = 0.2, what: str) -> Any:
    """Poll `check` until it returns something truthy; TimeoutError naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            result = check()
        except Exception:  # a part still starting refuses connections: that is what waiting is for
            result = None
        if result:
            return result
        if time.monotonic() >= deadline:
            raise TimeoutError(f"{what}: not within {timeout:.0f} s")
        time.sleep(interval)


@dataclass
class Process:
    """One part of the deployment, in a process group of its own."""

    name: str
    popen: subprocess.Popen[bytes]
    log: Path
    wanted: bool = True
    """Whether it should be running: the supervisor restarts a wanted process that exited."""

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def kill(self) -> None:
        """SIGKILL the whole group (a worker's pool children too) and reap the leader."""
        self.wanted = False
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait()

    def stop(self, timeout: float = 15) -> None:
        """SIGTERM (a warm shutdown for Celery, graceful for gunicorn), SIGKILL if it takes too long."""
        self.wanted = False
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(timeout)
        # Children left behind by a leader that exited (none should be) go with the group.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait()

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


@dataclass
class Stack:
    """The deployment and the handles the drills use on it."""

    root: Path
    postgres: Postgres
    redis_port: int = field(default_factory=free_port)
    web_port: int = field(default_factory=free_port)
    secret_key: str = field(default_factory=lambda: secrets.token_urlsafe(50))
    audit_signing_key: str = field(default_factory=lambda: secrets.token_urlsafe(40))
    extra_env: dict[str, str] = field(default_factory=dict)
    processes: dict[str, Process] = field(default_factory=dict)
    """The console's processes by role: web, a worker for each pool (`worker-verify`, ...), beat, relay (the
    newest of each)."""
    restarts: list[str] = field(default_factory=list)
    """What the supervisor restarted, and why, as it happened."""
    _redis: Process | None = None
    _generations: dict[str, int] = field(default_factory=dict)
    _lock: threading.RLock = field(default_factory=threading.RLock)
    _supervising: threading.Event = field(default_factory=threading.Event)

    # --- Paths and URLs --------------------------------------------------------------------------

    @property
    def var_dir(self) -> Path:
        return self.root / "var"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def heads_file(self) -> Path:
        return self.var_dir / "audit-heads.jsonl"

    @property
    def web_url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    @property
    def pg_port(self) -> int:
        return self.postgres.port

    def database_url(self, role: str = APP_ROLE, database: str = DATABASE) -> str:
        return self.postgres.url(role, database)

    def connect(self, role: str = SUPERUSER, database: str = DATABASE, **options: Any) -> psycopg.Connection:
        """A connection of the drill's own (autocommit unless told), not one of the console's."""
        return self.postgres.connect(role, database, **options)

    def environment(self, **extra: str) -> dict[str, str]:
        """What every console process gets: production settings, plain HTTP on 127.0.0.1, short deadlines."""
        keep = {key: value for key, value in os.environ.items()
                if key in ("PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR")}
        return {
            **keep,
            "PYTHONUNBUFFERED": "1",
            "DJANGO_SETTINGS_MODULE": "reviewconsole.settings",
            "DATABASE_URL": self.database_url(),
            "REDIS_URL": self.redis_url,
            "SECRET_KEY": self.secret_key,
            "AUDIT_SIGNING_KEY": self.audit_signing_key,
            "AUDIT_HEADS_FILE": str(self.heads_file),
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "CONSOLE_BASE_URL": self.web_url,
            # The drills speak plain HTTP to 127.0.0.1; everything else is as a deployment sets it.
            "SECURE_SSL_REDIRECT": "0",
            "SESSION_COOKIE_SECURE": "0",
            "CSRF_COOKIE_SECURE": "0",
            "VAR_DIR": str(self.var_dir),
            "STATIC_ROOT": str(self.var_dir / "static"),
            "LOG_LEVEL": "INFO",
            **DRILL_SETTINGS,
            **self.extra_env,
            **extra,
        }

    # --- PostgreSQL ------------------------------------------------------------------------------

    def postgres_restart(self, mode: str = "fast") -> None:
        self.postgres.restart(mode)

    def postgres_cpu_seconds(self) -> float:
        return self.postgres.cpu_seconds()

    # --- Redis -----------------------------------------------------------------------------------

    def redis_start(self) -> None:
        """A Redis without persistence: a restart comes back empty, its queued messages lost."""
        self._redis = self._spawn(
            "redis",
            ["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
             "no", "--dir", str(self.root)],
        )
        wait_until(lambda: redis.Redis(port=self.redis_port, socket_timeout=1).ping(), timeout=20, what="redis")

    def redis_kill(self) -> None:
        if self._redis is not None:
            self._redis.kill()
            self._redis = None

    def redis_run_id(self) -> str:
        return str(redis.Redis(port=self.redis_port, socket_timeout=1).info("server")["run_id"])

    # --- The console -----------------------------------------------------------------------------

    def manage(self, *args: str, owner: bool = False, stdin: str | None = None, database: str = DATABASE,
               timeout: float = 300) -> subprocess.CompletedProcess[str]:
        """`manage.py ARGS` in the deployment's environment (as the owner role with `owner`)."""
        extra = {"DATABASE_URL": self.database_url(APP_ROLE, database)}
        if owner:
            extra.update(DATABASE_ROLE="owner", MIGRATION_DATABASE_URL=self.database_url(OWNER_ROLE, database))
        return subprocess.run(
            [sys.executable, "manage.py", *args], cwd=REPO, env=self.environment(**extra), input=stdin,
            capture_output=True, text=True, timeout=timeout,
        )

    def migrate(self) -> None:
        result = self.manage("migrate", "--no-input", owner=True)
        if result.returncode != 0:
            raise RuntimeError(f"migrate failed:\n{result.stdout}\n{result.stderr}")

    def _spawn(self, role: str, command: list[str], env: dict[str, str] | None = None) -> Process:
        """Start a process of `role` in a session of its own; each start of a role logs to its own file."""
        with self._lock:
            generation = self._generations.get(role, 0) + 1
            self._generations[role] = generation
            self.logs.mkdir(parents=True, exist_ok=True)
            name = f"{role}{generation}"
            log = self.logs / f"{name}.log"
            handle: IO[bytes] = log.open("ab")
            try:
                popen = subprocess.Popen(command, cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=handle,
                                         stderr=subprocess.STDOUT, start_new_session=True)
            finally:
                handle.close()
            process = Process(name, popen, log)
            if role != "redis":
                self.processes[role] = process
            return process

    # --- The restart policy of docker compose (`restart: unless-stopped`) ----------------------------

    def supervise(self) -> None:
        """Restart any console process that exits without the drills stopping it, as compose would."""
        self._supervising.set()
        threading.Thread(target=self._supervisor, name="supervisor", daemon=True).start()

    def _supervisor(self) -> None:
        starters = {"web": lambda: self.web_start(wait=False),
                    **{_worker_role(pool): _pool_starter(self, pool) for pool in WorkerPool},
                    "beat": self.beat_start, "relay": self.relay_start}
        while self._supervising.is_set():
            with self._lock:
                for role, process in list(self.processes.items()):
                    if process.wanted and not process.alive() and self._supervising.is_set():
                        last = [line for line in process.log_text().splitlines() if line.strip()][-1:]
                        self.restarts.append(f"{process.name} exited ({process.popen.returncode}; last line: "
                                             f"{last[0][:200] if last else '-'}) and was restarted")
                        process.wanted = False
                        starters[role]()
            time.sleep(0.5)

    def restarts_since(self, count: int) -> list[str]:
        with self._lock:
            return self.restarts[count:]

    def web_start(self, *, wait: bool = True) -> Process:
        process = self._spawn(
            "web",
            [str(BIN / "gunicorn"), "reviewconsole.wsgi", "--bind", f"127.0.0.1:{self.web_port}", "--workers", "3",
             "--timeout", "60", "--access-logfile", str(self.logs / "access.log")],
            self.environment(),
        )
        if wait:
            wait_until(lambda: http_status(f"{self.web_url}/healthz") == 200, timeout=60, what="gunicorn /healthz")
        return process

    def worker_start(self, *, wait: bool = True) -> list[Process]:
        """New workers, one for each pool (new node names each time, as a replacement host would have)."""
        started = [self.pool_start(pool, wait=False) for pool in WorkerPool]
        if wait:
            for process in started:
                _ready(process)
        return started

    def pool_start(self, pool: WorkerPool, *, wait: bool = True) -> Process:
        role = _worker_role(pool)
        number = self._generations.get(role, 0) + 1
        process = self._spawn(
            role,
            [str(BIN / "celery"), "-A", "reviewconsole", "worker", "--queues", pool_queues(pool), "--concurrency",
             str(POOL_CONCURRENCY[pool]), "--loglevel", "INFO", "--hostname", f"drill-{pool.value}{number}@%h",
             "--without-gossip", "--without-mingle"],
            self.environment(),
        )
        if wait:
            _ready(process)
        return process

    def worker_kill(self) -> None:
        """SIGKILL every pool's worker at once, as a dead worker host."""
        for pool in WorkerPool:
            self.processes[_worker_role(pool)].kill()

    def worker_stop(self) -> None:
        for pool in WorkerPool:
            self.processes[_worker_role(pool)].stop()

    def beat_start(self) -> Process:
        return self._spawn(
            "beat",
            [str(BIN / "celery"), "-A", "reviewconsole", "beat", "--loglevel", "INFO", "--schedule",
             str(self.var_dir / "celerybeat-schedule")],
            self.environment(),
        )

    def relay_start(self) -> Process:
        return self._spawn("relay", [sys.executable, "manage.py", "outbox_relay"], self.environment())

    def deployment_start(self) -> None:
        self.web_start()
        self.beat_start()
        self.relay_start()
        self.worker_start()
        self.supervise()

    def deployment_stop(self) -> None:
        """Stop the console's processes (PostgreSQL and Redis stay up)."""
        self._supervising.clear()
        with self._lock:
            for name in ("web", "beat", "relay", *(_worker_role(pool) for pool in WorkerPool)):
                process = self.processes.get(name)
                if process is not None:
                    process.stop()

    # --- All of it -------------------------------------------------------------------------------

    def close(self) -> None:
        self._supervising.clear()
        with self._lock:
            for process in self.processes.values():
                process.stop(timeout=5)
        self.redis_kill()
        self.postgres.stop()


def _ready(worker: Process) -> None:
    """Wait for a Celery worker to say it is ready; RuntimeError with its log if it exits first."""
    wait_until(lambda: " ready." in worker.log_text() or not worker.alive(), timeout=90, interval=0.3,
               what=f"celery {worker.name}")
    if not worker.alive():
        raise RuntimeError(f"celery {worker.name} exited:\n{worker.log_text()[-3000:]}")


def _worker_role(pool: WorkerPool) -> str:
    return f"worker-{pool.value}"


def _pool_starter(stack: Stack, pool: WorkerPool) -> Callable[[], Process]:
    return lambda: stack.pool_start(pool, wait=False)


def http_status(url: str) -> int:
    """The HTTP status a GET of `url` answers with, error statuses included."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=3) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


@contextlib.contextmanager
def running_stack(*, keep_logs: Callable[[], bool] = lambda: False) -> Iterator[Stack]:
    """PostgreSQL, Redis and the migrated database; everything is stopped on the way out, whatever happened.

    The temporary folder goes too, unless `keep_logs()` says to keep the logs (a failed run): then its path
    is printed.
    """
    root = Path(tempfile.mkdtemp(prefix="drills-"))
    root.chmod(0o755)  # the postgres OS user must reach its data folder inside
    (root / "var" / "static").mkdir(parents=True)
    stack = Stack(root, Postgres(root / "pg", free_port()))
    crashed = True
    try:
        stack.postgres.start()
        stack.redis_start()
        stack.migrate()
        yield stack
        crashed = False
    finally:
        stack.close()
        shutil.rmtree(root / "pg", ignore_errors=True)
        if crashed or keep_logs():
            print(f"drills: logs kept in {stack.logs}", file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)
