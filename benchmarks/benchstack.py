"""What the benchmarks share: a fresh PostgreSQL database of their own and the settings to reach it, a
sealed audit log to seed it with, the real stack (gunicorn, Celery) started and always stopped, requests
to it, and the CPU its processes use."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
ADMIN_URL = os.environ.get("BENCH_ADMIN_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")


def bench_environment(database: str, **extra: str) -> dict[str, str]:
    """Production-like settings pointing at `database`; `extra` adds or overrides variables."""
    var_dir = f"/tmp/reviewconsole-{database}"
    Path(var_dir, "static").mkdir(parents=True, exist_ok=True)
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "reviewconsole.settings",
        "DATABASE_URL": f"{ADMIN_URL.rsplit('/', 1)[0]}/{database}",
        "SECRET_KEY": "benchmark-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
        "ALLOWED_HOSTS": "testserver,127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "0",
        "LOG_LEVEL": "WARNING",
        "VAR_DIR": var_dir,
        "STATIC_ROOT": f"{var_dir}/static",
        # The benchmarks measure throughput: no client limit may stop them (a benchmark of limits sets its own).
        "CLIENT_REQUESTS_PER_SECOND": "0",
        "CLIENT_CASES_PER_DAY": "0",
        "CLIENT_BODY_BYTES_PER_DAY": "0",
        **extra,
    }


def configure_django(database: str, **extra: str) -> None:
    """Point this process's Django at `database` (call before django.setup())."""
    os.environ.update(bench_environment(database, **extra))
    sys.path.insert(0, str(REPO))


def reset_database(database: str, **extra: str) -> None:
    """Drop and create `database`, then migrate it."""
    subprocess.run(
        ["psql", ADMIN_URL, "-q", "-c", f"DROP DATABASE IF EXISTS {database} WITH (FORCE)", "-c",
         f"CREATE DATABASE {database}"],
        check=True, capture_output=True,
    )
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input"],
        cwd=REPO, env=bench_environment(database, **extra), check=True, capture_output=True,
    )


# --- Measuring a running stack ---------------------------------------------------------------------

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
QUERIES_HEADER = "X-Bench-Queries"


def counting_application():
    """The console's WSGI application, each answer carrying the number of SQL statements its request ran.

    For the benchmark's own server only (`gunicorn 'benchstack:counting_application()'`): the count is
    every statement that went through Django's cursor (savepoints included; BEGIN and COMMIT are not
    statements Django sends), the same count `CaptureQueriesContext` gives a test.
    """
    from django.db import connection

    from reviewconsole.wsgi import application

    def counted(environ, start_response):
        statements = 0

        def count(execute, sql, params, many, context):
            nonlocal statements
            statements += 1
            return execute(sql, params, many, context)

        def start(status, headers, exc_info=None):
            # Django answers once the view has returned, after its transaction committed.
            return start_response(status, [*headers, (QUERIES_HEADER, str(statements))], exc_info)

        with connection.execute_wrapper(count):
            return application(environ, start)

    return counted


def process_cpu_seconds(pid: int) -> float | None:
    """User + system CPU time `pid` has used so far, or None when it is gone."""
    try:
        return _stat_cpu_seconds(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1])
    except (FileNotFoundError, ProcessLookupError):
        return None


def _stat_cpu_seconds(after_name: str) -> float:
    fields = after_name.split()
    # After the command name: state is field 3, utime and stime are fields 14 and 15 (proc(5)).
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def machine_busy_seconds() -> float:
    """CPU time every process on the machine has used since boot, all cores together (/proc/stat): beside
    a benchmark's own figures, it shows how much of the machine something else was using meanwhile."""
    # The first line sums every core: user nice system idle iowait irq softirq steal (guest is within user).
    ticks = [int(field) for field in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return (sum(ticks) - ticks[3] - ticks[4]) / CLOCK_TICKS


def child_pids(parent: int) -> list[int]:
    """The processes whose parent is `parent` (gunicorn's workers, for its master)."""
    children = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == parent:
            children.append(int(entry.name))
    return sorted(children)


def database_backends(database: str) -> list[int]:
    """The PostgreSQL server processes serving client connections to `database` right now."""
    if not re.fullmatch(r"\w+", database):
        raise ValueError(f"not a plain database name: {database!r}")
    query = (
        "SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' "
        f"AND datname = '{database}' AND pid <> pg_backend_pid()"
    )
    result = subprocess.run(["psql", ADMIN_URL, "-At", "-c", query], check=True, capture_output=True, text=True)
    return sorted(int(line) for line in result.stdout.split())


class CpuMeter:
    """CPU seconds a set of long-lived processes used between `start()` and `stop()`.

    The processes are found by `find` at both ends: one that appeared in between is counted whole, one
    that ended in between is lost (its time cannot be read any more) and is reported in `lost`.
    """

    def __init__(self, find):
        self._find = find
        self._before: dict[int, float] = {}
        self.seconds = 0.0
        self.pids: list[int] = []
        self.lost: list[int] = []

    def start(self) -> None:
        self._before = self._read(self._find())

    def stop(self) -> float:
        after = self._read(set(self._find()) | set(self._before))
        self.pids = sorted(after)
        self.lost = sorted(set(self._before) - set(after))
        self.seconds = sum(used - self._before.get(pid, 0.0) for pid, used in after.items())
        return self.seconds

    @staticmethod
    def _read(pids) -> dict[int, float]:
        used = {pid: process_cpu_seconds(pid) for pid in pids}
        return {pid: seconds for pid, seconds in used.items() if seconds is not None}


@dataclass(frozen=True)
class ProcessUse:
    """One process's CPU seconds over a measured stretch, and what it was."""

    pid: int
    parent: int
    command: str
    """Its command line (a PostgreSQL backend's names its database), or its name where it has none."""
    seconds: float


class MachineCpu:
    """The CPU time of every process on the machine between `start()` and `stop()`.

    /proc is read at both ends and at every `sample()`: a process that ends in between counts up to its
    last reading (a Celery task's database connection, closed when the task ends, is not lost), and one
    that starts in between counts whole. Only a process that both starts and ends between two readings is
    missed; `machine_seconds` (all cores, from /proc/stat) holds everything, those and the kernel's too.
    """

    def __init__(self) -> None:
        self._first: dict[int, float] = {}
        self._last: dict[int, float] = {}
        self._about: dict[int, tuple[int, str]] = {}
        self._machine = 0.0
        self.machine_seconds = 0.0

    def start(self) -> None:
        self._machine = machine_busy_seconds()
        self._first = self._read()
        self._last = dict(self._first)

    def sample(self) -> None:
        self._last.update(self._read())

    def stop(self) -> list[ProcessUse]:
        self.sample()
        self.machine_seconds = machine_busy_seconds() - self._machine
        return [ProcessUse(pid, *self._about[pid], used - self._first.get(pid, 0.0))
                for pid, used in self._last.items() if used > self._first.get(pid, 0.0)]

    def _read(self) -> dict[int, float]:
        used = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            pid = int(entry.name)
            try:
                name, fields = (entry / "stat").read_text().rsplit(")", 1)
                if pid not in self._about:
                    command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
                    self._about[pid] = (int(fields.split()[1]), command or name.split("(", 1)[1])
            except (FileNotFoundError, ProcessLookupError):
                continue
            used[pid] = _stat_cpu_seconds(fields)
        return used


# --- A stack of one's own: database, Redis db and port ---------------------------------------------


@dataclass(frozen=True)
class Stack:
    """Where one benchmark's stack lives. BENCH_DATABASE, BENCH_REDIS_URL and BENCH_PORT choose others than
    the benchmark's defaults, so two people can run benchmarks on one machine at once."""

    database: str
    redis_url: str
    port: int

    @classmethod
    def from_environment(cls, *, database: str, redis_url: str, port: int) -> Stack:
        return cls(
            database=os.environ.get("BENCH_DATABASE", database),
            redis_url=os.environ.get("BENCH_REDIS_URL", redis_url),
            port=int(os.environ.get("BENCH_PORT", str(port))),
        )

    @property
    def var_dir(self) -> Path:
        return Path(f"/tmp/reviewconsole-{self.database}")

    def env(self, **extra: str) -> dict[str, str]:
        # Connections kept for the whole run, so the database processes measured live as long as a phase.
        return bench_environment(
            self.database, REDIS_URL=self.redis_url, SPOT_CHECK_RATE="0", DB_CONN_MAX_AGE="3600", **extra
        )

    def manage(self, *args: str, stdin: str | None = None, **extra: str) -> str:
        result = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=REPO, env=self.env(**extra), input=stdin, check=True,
            capture_output=True, text=True,
        )
        return result.stdout

    def reset(self) -> None:
        """A fresh, migrated database and an empty Redis db."""
        reset_database(self.database)
        subprocess.run(["redis-cli", "-u", self.redis_url, "flushdb"], check=True, capture_output=True)

    def client_token(self, name: str) -> str:
        """A new API client's bearer token (`manage.py create_client`)."""
        output = self.manage("create_client", name)
        return next(line.split(": ", 1)[1] for line in output.splitlines() if "API token" in line)

    def psql(self, query: str) -> str:
        url = bench_environment(self.database)["DATABASE_URL"]
        result = subprocess.run(["psql", url, "-At", "-c", query], check=True, capture_output=True, text=True)
        return result.stdout.strip()


# --- Requests -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    status: int
    """HTTP status; 0 when the request failed before an answer (refused, reset, timed out)."""
    seconds: float
    queries: int | None
    """The SQL statements the server ran for it (the benchmark server's header)."""


def request(port: int, method: str, path: str, body: bytes | None = None,
            headers: dict[str, str] | None = None) -> Answer:
    """One request on a new connection (as a client without keep-alive makes it), the body read whole."""
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        response.read()
        queries = response.getheader(QUERIES_HEADER)
        return Answer(response.status, time.perf_counter() - started, int(queries) if queries else None)
    except OSError:
        return Answer(0, time.perf_counter() - started, None)
    finally:
        connection.close()


def submit_headers(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}


def percentile(values: Sequence[float], share: float) -> float:
    """The value `share` of `values` are at or below (nearest rank; the p95 intake.py has always printed)."""
    ordered = sorted(values)
    return ordered[max(0, int(len(ordered) * share) - 1)]


@cache
def _demo_cases() -> list[dict]:
    demo = json.loads((REPO / "verification" / "demo_cases.json").read_text())
    return demo + json.loads((REPO / "reviewconsole" / "intake" / "fixtures" / "demo_cases.json").read_text())


def submission_body(index: int, prefix: str) -> bytes:
    """A new case for POST /api/v1/cases: the demo cases in turn, each with its own external id."""
    demo = _demo_cases()
    case = dict(demo[index % len(demo)])
    case["external_id"] = f"{prefix}-{index}"
    return json.dumps(case).encode()


# --- The stack's processes, always stopped -----------------------------------------------------------


def stop(process: subprocess.Popen, *, seconds: float = 60) -> None:
    """SIGTERM to the process (gunicorn's and Celery's masters then stop their own children), SIGKILL to its
    whole group (it was started in a session of its own) if it lingers, and to whatever of the group is left."""
    try:
        if process.poll() is None:
            process.terminate()
            with suppress(subprocess.TimeoutExpired):
                process.wait(timeout=seconds)
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # the group is gone already
    process.wait()


def _start(command: list[str], stack: Stack, *, own_session: bool, extra: dict[str, str],
           **popen: Any) -> subprocess.Popen:
    # A process group of its own, so that stop() ends everything it started. A session of its own where
    # asked: Linux then schedules its processes together as one group (autogroup) against the others, as
    # it would schedule a container's (docker-compose.yml runs web, worker and db in containers of their own).
    return subprocess.Popen(command, cwd=REPO, env=stack.env(**extra), start_new_session=own_session,
                            process_group=None if own_session else 0, **popen)


@contextmanager
def web_server(stack: Stack, *, workers: int, timeout: int = 30, own_session: bool = False,
               **extra: str) -> Iterator[subprocess.Popen]:
    """gunicorn serving the console (each answer counting its SQL statements) on the stack's port, up.

    `timeout` is gunicorn's: a sync worker busy longer than that with one request is killed.
    """
    process = _start(
        [sys.executable, "-m", "gunicorn", "benchstack:counting_application()", "--pythonpath", "benchmarks",
         "--bind", f"127.0.0.1:{stack.port}", "--workers", str(workers), "--timeout", str(timeout),
         "--log-level", "warning"],
        stack, own_session=own_session, extra=extra,
    )
    try:
        for _ in range(150):
            if process.poll() is not None:
                raise SystemExit("gunicorn exited at start-up")
            if request(stack.port, "GET", "/healthz").status == 200:
                break
            time.sleep(0.2)
        else:
            raise SystemExit("gunicorn did not come up")
        yield process
    finally:
        stop(process, seconds=30)


_AUTOGROUPS = Path("/proc/sys/kernel/sched_autogroup_enabled")


@contextmanager
def celery_worker(stack: Stack, *, queues: str, concurrency: int, log: Path, beat: bool = False,
                  own_session: bool = False, nice: int = 0, **extra: str) -> Iterator[subprocess.Popen]:
    """A Celery worker on `queues` (with the periodic tasks' scheduler inside it, with `beat`), its output
    in `log`. With `nice`, at that lower CPU priority: its processes', and, in a session of its own, its
    group's (the autogroup's weight against the other groups: what a container's cpu_shares set)."""
    command = [sys.executable, "-m", "celery", "-A", "reviewconsole", "worker", "--queues", queues,
               "--concurrency", str(concurrency), "--loglevel", "WARNING", "--without-gossip", "--without-mingle"]
    if beat:
        command += ["--beat", "--schedule", str(stack.var_dir / "celerybeat-schedule")]
    if nice:
        command = ["nice", "-n", str(nice), *command]
    with log.open("w") as output:
        process = _start(command, stack, own_session=own_session, extra=extra, stdout=output,
                         stderr=subprocess.STDOUT)
        try:
            if nice and own_session and _AUTOGROUPS.exists() and _AUTOGROUPS.read_text().strip() == "1":
                # The weight is the session's autogroup's: every process in it (the pool, forked later) shares it.
                Path(f"/proc/{process.pid}/autogroup").write_text(str(nice))
            yield process
        finally:
            stop(process)


@contextmanager
def worker_pools(stack: Stack, pools: dict[str, tuple[str, int]], *, logs: Path, beat_in: str | None = None,
                 **extra: str) -> Iterator[dict[str, subprocess.Popen]]:
    """Celery workers by name, each on its queues with its number of processes (as docker-compose.yml runs one
    container for each pool: `deployment_pools`), the periodic tasks' scheduler inside the one named `beat_in`.
    Each logs to `logs`/celery-NAME.log; all are stopped on the way out."""
    with ExitStack() as started:
        yield {
            name: started.enter_context(celery_worker(
                stack, queues=queues, concurrency=processes, log=logs / f"celery-{name}.log",
                beat=name == beat_in, **extra,
            ))
            for name, (queues, processes) in pools.items()
        }


def deployment_pools(**processes: int) -> dict[str, tuple[str, int]]:
    """Every pool of reviewconsole/queues.py on its queues, with the processes given by pool name (`verify=2`)."""
    from reviewconsole.queues import WorkerPool, pool_queues

    return {pool.value: (pool_queues(pool), processes[pool.value]) for pool in WorkerPool}


# --- A sealed audit log of any size ----------------------------------------------------------------

SEED_START = datetime(2026, 1, 1, tzinfo=UTC)
"""When the first seeded event happened; each next one 50 ms later."""
_SEED_STEP = timedelta(milliseconds=50)
_SEED_ACTIONS = ["case.received", "candidate.created", "claims.verified", "repair.attempted", "case.terminal",
                 "escalation.opened", "lease.claimed", "decision.approved", "note.added"]


def seeded_until(count: int) -> datetime:
    """A moment after the last of `count` seeded events (the end of their time range, exclusive)."""
    return SEED_START + _SEED_STEP * (count + 1)


def seed_sealed_events(count: int) -> None:
    """`count` events with payloads shaped like the console's, loaded with COPY, then sealed by the console's
    own sealer into signed tree heads (leaf hashes computed in Python, the same code the console uses).

    Needs this process's Django set up (`configure_django`, `django.setup()`).
    """
    from django.db import connection

    from reviewconsole.audit.leaves import canonical_json, leaf_hash
    from reviewconsole.audit.sealer import log_seal_pending

    with connection.cursor() as cursor:
        copy_sql = (
            "COPY audit_auditevent (created_at, actor, action, object_type, object_id, case_id, payload, leaf_hash) "
            "FROM STDIN"
        )
        with cursor.cursor.copy(copy_sql) as copy:
            for n in range(1, count + 1):
                fields = {
                    "created_at": SEED_START + _SEED_STEP * n,
                    "actor": "engine" if n % 3 else f"user:reviewer{n % 7}",
                    "action": _SEED_ACTIONS[n % len(_SEED_ACTIONS)],
                    "object_type": "candidate",
                    "object_id": f"c{n % 4}",
                    "case_id": 1 + n // 12,
                    "payload": {"claims": {f"k{k}": "SUPPORTED" if k % 3 else "REFUTED" for k in range(4)},
                                "sha256": f"{n:064x}", "reason": "UNSUPPORTED_CLAIM"},
                }
                copy.write_row((*(v for k, v in fields.items() if k != "payload"), canonical_json(fields["payload"]),
                                leaf_hash(**fields)))
    log_seal_pending(budget_seconds=float("inf"))
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE audit_auditevent")
