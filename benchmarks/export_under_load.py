"""A support lead exports a million audit events while intake is under load: intake's p95 must not double.

One run: a fresh database seeded with 1,000,000 sealed audit events (as benchmarks/export.py seeds them),
then the intake stack (as benchmarks/intake.py runs it: gunicorn with 3 workers, PostgreSQL, Redis, 8
loopback clients submitting new cases back to back) plus what a deployment runs beside it for the audit
log: the maintenance pool's Celery worker on its queues (the export task, and the sealer every
AUDIT_SEAL_SECONDS from the scheduler inside the worker). Cases queue up for verification and are not
verified here: what verifying costs is benchmarks/intake.py's to measure.

The machine is shared as docker-compose.yml shares it. Web, worker and PostgreSQL each run in a session of
their own, which Linux schedules as one group (autogroup) against the others, as it schedules a
container's processes under its cpu_shares; and the worker has a quarter of web's weight, as compose gives
it (cpu_shares 256; here its group at nice 6, weight 272 against 1024; `--worker-nice 0` gives it web's).
At an equal weight a busy worker takes as much of the 2 cores as all three web workers together, and an
export halves intake's throughput while it runs.

After a warm-up, pairs of intake phases, alternating which goes first: one *quiet* (no export), one
*loaded* (a full export of the 1,000,000 seeded events runs from start to end of the phase). The export
takes the product's real path, as a support lead's browser would, signed in, over HTTP to the same
gunicorn:

- `task` (the console's default for a million rows): POST /audit/exports/new, which pins the signed
  tree head, counts the rows and queues the export; the page's poll every second until the worker has
  written the file; the download of the file;
- `stream` (a deployment with AUDIT_EXPORT_STREAM_MAX_ROWS raised past a million): the same POST
  answered by the streamed CSV from a web worker. Such a deployment must also raise gunicorn's worker
  timeout (30 s by default, and what docker-compose.yml runs): under this load a million streamed rows
  take about 30 s, and gunicorn kills a sync worker busy longer than its timeout, cutting the download
  off. This stack runs gunicorn with STREAM_WEB_TIMEOUT for this path.

For each phase it prints submissions, accepted a second, latency p50/p95/p99, errors, and the CPU time
beside the wall time of the web workers, the PostgreSQL backends of the benchmark's database (export
included), the Celery worker (export task, sealer), the support lead's browser and the intake clients;
for each export its rows, duration and rows a second; and what PostgreSQL showed while it ran (sampled
every SAMPLE_SECONDS: sessions waiting for a lock, and the oldest open transaction). The CPU of every
process on the machine is read at the same times, so a process that ends mid-phase (a task's database
connection) still counts, and the busiest processes that are not the benchmark's are named: the machine
is shared, and their load shows in the figures.

Exits non-zero on any failed request, when an export does not deliver exactly the seeded events, or when
the median over the pairs of (p95 loaded / p95 quiet) exceeds 2.

    .venv/bin/python benchmarks/export_under_load.py [--events 1000000] [--repeats 3] [--via task stream]
        [--format csv] [--clients 8] [--warmup-seconds 10] [--quiet-seconds 15] [--worker-nice 6]
        [--reuse-seed]

Needs PostgreSQL and Redis on 127.0.0.1 (as `make test` does); uses its own database, Redis db and port
(BENCH_DATABASE, BENCH_REDIS_URL and BENCH_PORT choose others, so two people can run it at once).
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import re
import resource
import secrets
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

import psycopg
from benchstack import (
    ADMIN_URL,
    REPO,
    SEED_START,
    Answer,
    MachineCpu,
    ProcessUse,
    Stack,
    celery_worker,
    configure_django,
    percentile,
    request,
    seed_sealed_events,
    seeded_until,
    submission_body,
    submit_headers,
    web_server,
)

from reviewconsole.queues import WorkerPool, pool_queues

STACK = Stack.from_environment(
    database="reviewconsole_export_load_bench", redis_url="redis://127.0.0.1:6379/12", port=8766
)
WEB_WORKERS = 3
MAX_P95_RATIO = 2.0
# The worker's CPU weight against web's, as docker-compose.yml sets it (cpu_shares 256 against the default 1024):
# here its session's autogroup at nice 6, whose weight is 272 against 1024 (the kernel's nice-to-weight table).
WORKER_NICE = 6
# gunicorn's worker timeout where exports of a million rows stream from a web worker (see the docstring).
STREAM_WEB_TIMEOUT = 600
SAMPLE_SECONDS = 0.25
# What the export page's progress fragment says when it stops polling (templates/audit/export.html).
_FILE_READY = re.compile(r'href="(/audit/exports/\d+/download)"')
_EXPORT_FAILED = "The export failed"


# --- The support lead: signed in once, then one export per loaded phase, in a process of its own -------


@dataclass(frozen=True)
class Session:
    cookie: str
    """The Cookie header of the signed-in lead (session and CSRF cookies)."""
    csrf: str


def _sign_in(lead: str, password: str) -> Session:
    """Sign in through the login page, as a browser does: its form's CSRF token, then the credentials."""
    jar: SimpleCookie = SimpleCookie()

    def call(method: str, path: str, body: str | None = None) -> tuple[int, str]:
        connection = http.client.HTTPConnection("127.0.0.1", STACK.port, timeout=30)
        headers = {"Cookie": "; ".join(f"{key}={morsel.value}" for key, morsel in jar.items())}
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            text = response.read().decode()
        finally:
            connection.close()
        for header in response.headers.get_all("Set-Cookie") or []:
            jar.load(header)
        return response.status, text

    status, html = call("GET", "/login/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    if status != 200 or token is None:
        raise SystemExit(f"the login page answered {status} without a CSRF token")
    status, _ = call("POST", "/login/", urlencode({"username": lead, "password": password,
                                                   "csrfmiddlewaretoken": token.group(1)}))
    if status != 302 or "sessionid" not in jar:
        raise SystemExit(f"signing in as {lead} answered {status}, no session")
    # Signing in gives a new CSRF token (Django rotates it), which the export form's POST must carry.
    return Session("; ".join(f"{key}={morsel.value}" for key, morsel in jar.items()), jar["csrftoken"].value)


def _read_counting(response: http.client.HTTPResponse) -> tuple[int, int]:
    """Lines and bytes of a response body, read as it arrives (a browser saving the download)."""
    lines = size = 0
    while chunk := response.read(1 << 20):
        lines += chunk.count(b"\n")
        size += len(chunk)
    return lines, size


def _lead_export(port: int, session: Session, export_format: str, since: str, until: str) -> dict:
    """What the lead's browser does for one export, start to end; runs in the `--lead` child process."""
    started = time.perf_counter()
    headers = {"Cookie": session.cookie, "X-CSRFToken": session.csrf}
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    connection.request("POST", "/audit/exports/new", urlencode({"format": export_format, "since": since,
                                                                "until": until}),
                       {**headers, "Content-Type": "application/x-www-form-urlencoded"})
    response = connection.getresponse()
    figures: dict = {"via": "stream" if response.status == 200 else "task", "polls": 0}
    if response.status == 200:
        figures["export_id"] = int(response.getheader("X-Audit-Export", "0"))
        lines, size = _read_counting(response)
        figures["ready_seconds"] = time.perf_counter() - started
    elif response.status == 302:
        response.read()
        progress = response.getheader("Location", "")
        figures["export_id"] = int(re.findall(r"\d+", progress)[-1])
        while True:  # the page's own poll: its progress fragment every second (hx-trigger="every 1s")
            time.sleep(1)
            status, fragment = _progress(port, progress, headers)
            figures["polls"] += 1
            if status != 200:
                return {**figures, "error": f"progress page answered {status}"}
            if _EXPORT_FAILED in fragment:
                return {**figures, "error": fragment}
            ready = _FILE_READY.search(fragment)
            if ready:
                break
        figures["ready_seconds"] = time.perf_counter() - started
        connection.close()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        connection.request("GET", ready.group(1), headers=headers)
        download = connection.getresponse()
        if download.status != 200:
            return {**figures, "error": f"download answered {download.status}"}
        lines, size = _read_counting(download)
    else:
        return {**figures, "error": f"POST /audit/exports/new answered {response.status}: {response.read()[:300]!r}"}
    connection.close()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {**figures, "rows": lines - (1 if export_format == "csv" else 0), "megabytes": size / 1e6,
            "seconds": time.perf_counter() - started, "cpu_seconds": usage.ru_utime + usage.ru_stime}


def _progress(port: int, path: str, headers: dict[str, str]) -> tuple[int, str]:
    """The export page's progress fragment, as its htmx poll asks for it."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path, headers={**headers, "HX-Request": "true"})
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


def _export_in_child(session: Session, export_format: str, events: int) -> dict:
    """One export by the lead, in a process of its own: reading a 300 MB download must not take the GIL
    from the intake clients' threads (that would show as intake latency that the server never had)."""
    since, until = SEED_START.isoformat(), seeded_until(events).isoformat()
    result = subprocess.run(
        [sys.executable, __file__, "--lead", json.dumps([STACK.port, session.cookie, session.csrf, export_format,
                                                         since, until])],
        cwd=REPO, capture_output=True, text=True, check=False,
    )
    if result.returncode != 0:
        return {"error": f"the lead's process failed: {(result.stderr.strip().splitlines() or ['?'])[-1]}"}
    return json.loads(result.stdout.strip().splitlines()[-1])


# --- What PostgreSQL shows while a phase runs -----------------------------------------------------


@dataclass
class DatabaseSamples:
    """pg_stat_activity for the benchmark's database, every SAMPLE_SECONDS."""

    samples: int = 0
    lock_waits: int = 0
    """Samples in which some session waited for a lock (heavyweight or advisory)."""
    most_waiting: int = 0
    waiting_queries: set[str] = field(default_factory=set)
    oldest_transaction: float = 0.0
    """The longest any transaction had been open (seconds), idle ones included."""


class Sampler(threading.Thread):
    """Every SAMPLE_SECONDS: what PostgreSQL shows for the benchmark's database, and every process's CPU."""

    _QUERY = """
        SELECT count(*) FILTER (WHERE wait_event_type = 'Lock'),
               coalesce(max(extract(epoch FROM now() - xact_start)), 0),
               coalesce(string_agg(DISTINCT left(regexp_replace(query, '\\s+', ' ', 'g'), 90), ' | ')
                        FILTER (WHERE wait_event_type = 'Lock'), '')
        FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()
    """

    def __init__(self, cpu: MachineCpu) -> None:
        super().__init__(daemon=True)
        self.found = DatabaseSamples()
        self.backend_pid = 0
        self._cpu = cpu
        self._done = threading.Event()
        self._connected = threading.Event()

    def start(self) -> None:
        super().start()
        self._connected.wait(10)

    def run(self) -> None:
        # On the admin database: the sampler's own session is then not one of the backends measured.
        with psycopg.connect(ADMIN_URL, autocommit=True) as connection:
            self.backend_pid = connection.info.backend_pid
            self._connected.set()
            while not self._done.wait(SAMPLE_SECONDS):
                self._cpu.sample()
                # An aggregate without GROUP BY: always exactly one row.
                waiting, oldest, queries = connection.execute(self._QUERY, [STACK.database]).fetchone() or (0, 0, "")
                self.found.samples += 1
                self.found.lock_waits += waiting > 0
                self.found.most_waiting = max(self.found.most_waiting, waiting)
                self.found.oldest_transaction = max(self.found.oldest_transaction, float(oldest))
                if queries:
                    self.found.waiting_queries.update(queries.split(" | "))

    def finish(self) -> DatabaseSamples:
        self._done.set()
        self.join()
        return self.found


# --- Intake under load ----------------------------------------------------------------------------


class Submitters:
    """`clients` threads submitting new cases back to back, one connection a request, until stopped."""

    def __init__(self, clients: int, token: str, prefix: str) -> None:
        self._clients, self._headers, self._prefix = clients, submit_headers(token), prefix
        self._numbers = itertools.count()
        self._done = threading.Event()
        self._threads: list[threading.Thread] = []
        self.answers: list[Answer] = []

    def _submit(self) -> None:
        while not self._done.is_set():
            body = submission_body(next(self._numbers), self._prefix)
            self.answers.append(request(STACK.port, "POST", "/api/v1/cases", body, self._headers))

    def start(self) -> None:
        self._threads = [threading.Thread(target=self._submit, daemon=True) for _ in range(self._clients)]
        for thread in self._threads:
            thread.start()

    def stop(self) -> list[Answer]:
        self._done.set()
        for thread in self._threads:
            thread.join()
        return self.answers


@dataclass
class Phase:
    name: str
    answers: list[Answer]
    seconds: float
    cpu: dict[str, float]
    """CPU seconds by part of the stack, then the machine's other work."""
    others: list[tuple[str, float]]
    """The busiest other work on the machine meanwhile (not this benchmark's), CPU seconds."""
    database: DatabaseSamples
    export: dict | None = None

    def accepted(self) -> int:
        return sum(answer.status == 202 for answer in self.answers)

    def latency(self, share: float) -> float:
        return percentile([answer.seconds * 1000 for answer in self.answers], share)


def _part(use: ProcessUse, *, web: int, worker: int, sampler: int) -> str:
    """Which part of the stack a process is, or "" when it is not this benchmark's."""
    if use.parent == web:
        return "web workers"
    if worker in (use.pid, use.parent):
        return "Celery worker"
    if use.command.startswith("postgres: ") and f" {STACK.database} " in f"{use.command} ":
        return "PostgreSQL"
    if use.pid == os.getpid() or (use.command.startswith("postgres: ") and use.pid == sampler):
        return "intake clients"  # and this process's sampler, a fraction of a percent of it
    if use.parent == os.getpid() and "--lead" in use.command:
        return "lead's browser"
    return ""


def _label(command: str) -> str:
    """A short name for another process: a PostgreSQL backend by role and database, a program by its start."""
    words = command.split()
    return " ".join([Path(words[0]).name, *words[1:3]])[:60] if words else "?"


def _phase(name: str, *, web: int, worker: int, clients: int, token: str,
           during: Callable[[], dict | None]) -> Phase:
    """Intake submissions from `clients` while `during()` runs; the CPU every part used meanwhile."""
    cpu = MachineCpu()
    cpu.start()
    sampler = Sampler(cpu)
    sampler.start()
    submitters = Submitters(clients, token, prefix=f"{name}-{time.monotonic_ns()}")
    started = time.perf_counter()
    submitters.start()
    try:
        export = during()
    finally:
        answers = submitters.stop()
    seconds = time.perf_counter() - started
    database = sampler.finish()
    parts = dict.fromkeys(("web workers", "PostgreSQL", "Celery worker", "intake clients", "lead's browser"), 0.0)
    others: dict[str, float] = {}
    for use in cpu.stop():
        part = _part(use, web=web, worker=worker, sampler=sampler.backend_pid)
        if part:
            parts[part] += use.seconds
        else:
            others[_label(use.command)] = others.get(_label(use.command), 0.0) + use.seconds
    # Last, so that the line reads: the parts, then what the rest of the machine did meanwhile.
    parts["other processes"] = sum(others.values())
    parts["whole machine"] = cpu.machine_seconds
    busiest = sorted(others.items(), key=lambda item: -item[1])[:3]
    return Phase(name, answers, seconds, parts, busiest, database, export)


def _export_record(export_id: int) -> dict:
    """The export's own row: its status, rows and when its worker started and finished it."""
    fields = STACK.psql(
        "SELECT status, rows_total, rows_done, coalesce(extract(epoch FROM finished_at - started_at), 0)"
        f" FROM audit_auditexport WHERE id = {int(export_id)}"
    ).split("|")
    return {"status": fields[0], "rows_total": int(fields[1]), "rows_done": int(fields[2]),
            "task_seconds": float(fields[3])}


def _run_path(via: str, args: argparse.Namespace, token: str, lead: str, password: str) -> list[tuple[Phase, Phase]]:
    """The stack configured for one export path: warm-up, then the pairs of phases."""
    # Both the web and the worker read the threshold: with it raised, every export streams from the web.
    extra = {"AUDIT_EXPORT_STREAM_MAX_ROWS": str(10 * args.events)} if via == "stream" else {}
    timeout = STREAM_WEB_TIMEOUT if via == "stream" else 30
    log = STACK.var_dir / f"celery-worker-{via}.log"
    with (celery_worker(STACK, queues=pool_queues(WorkerPool.MAINTENANCE), concurrency=2, beat=True, log=log,
                        own_session=True, nice=args.worker_nice, **extra) as worker,
          web_server(STACK, workers=WEB_WORKERS, timeout=timeout, own_session=True, **extra) as web):
        session = _sign_in(lead, password)
        # Every web worker serves submissions and the export pages before anything is measured, and the
        # worker runs the sealer: a small streamed export (a thousand events) warms the export code.
        def warm_up() -> dict:
            export = _export_in_child(session, args.format, 1000)
            time.sleep(args.warmup_seconds)
            return export

        warm = _phase("warm-up", web=web.pid, worker=worker.pid, clients=args.clients, token=token, during=warm_up)
        if warm.accepted() != len(warm.answers) or "error" in (warm.export or {}):
            raise SystemExit(f"warm-up failed: {len(warm.answers) - warm.accepted()} submissions refused, "
                             f"export {warm.export}")
        pairs = []
        for index in range(args.repeats):
            def quiet() -> None:
                time.sleep(args.quiet_seconds)

            def loaded() -> dict:
                return _export_in_child(session, args.format, args.events)

            steps = [("quiet", quiet), ("loaded", loaded)]
            if index % 2:
                steps.reverse()
            done = {name: _phase(f"{via} {name} {index + 1}", web=web.pid, worker=worker.pid,
                                 clients=args.clients, token=token, during=during) for name, during in steps}
            export = done["loaded"].export
            if export and "export_id" in export:
                export["record"] = _export_record(export["export_id"])
                # Downloaded and counted: 370 MB a file is not kept on a shared machine.
                for written in (STACK.var_dir / "exports").glob(f"audit-export-{export['export_id']}.*"):
                    written.unlink()
            pairs.append((done["quiet"], done["loaded"]))
            _print_pair(index + 1, done["quiet"], done["loaded"])
    return pairs


# --- Report ---------------------------------------------------------------------------------------


def _print_phase(phase: Phase) -> None:
    refused = len(phase.answers) - phase.accepted()
    print(f"  {phase.name:<18} {len(phase.answers):>6} submissions in {phase.seconds:5.1f} s: "
          f"{phase.accepted() / phase.seconds:6.1f} accepted/s, errors {refused}; latency ms "
          f"p50 {phase.latency(0.50):6.1f}  p95 {phase.latency(0.95):6.1f}  p99 {phase.latency(0.99):6.1f}")
    cpu = "  ".join(f"{part} {seconds:.1f}" for part, seconds in phase.cpu.items())
    print(f"  {'':<18} CPU s ({phase.seconds:.1f} s wall on 2 cores): {cpu}")
    busiest = ", ".join(f"{label} {seconds:.1f}" for label, seconds in phase.others)
    print(f"  {'':<18} busiest other processes: {busiest or 'none'}")
    found = phase.database
    waits = f"{found.lock_waits} of {found.samples} samples had a session waiting for a lock"
    if found.lock_waits:
        waits += f" (at most {found.most_waiting}: {'; '.join(sorted(found.waiting_queries))})"
    print(f"  {'':<18} PostgreSQL: {waits}; oldest open transaction {found.oldest_transaction:.2f} s")


def _print_export(export: dict) -> None:
    if "error" in export:
        print(f"  export FAILED: {export['error']}")
        return
    record = export.get("record", {})
    task = (f"; the worker's task {record['task_seconds']:.1f} s "
            f"({record['rows_done'] / record['task_seconds']:,.0f} rows/s)" if record.get("task_seconds") else "")
    print(f"  export {export['export_id']} via {export['via']}: {export['rows']:,} rows, {export['megabytes']:.0f} MB "
          f"in {export['seconds']:.1f} s ({export['rows'] / export['seconds']:,.0f} rows/s end to end; file ready "
          f"after {export['ready_seconds']:.1f} s, {export['polls']} polls){task}")


def _print_pair(number: int, quiet: Phase, loaded: Phase) -> None:
    print(f"pair {number}: p95 loaded/quiet {loaded.latency(0.95) / quiet.latency(0.95):.2f}")
    for phase in (quiet, loaded):
        _print_phase(phase)
    if loaded.export:
        _print_export(loaded.export)


def _failures(pairs: list[tuple[Phase, Phase]], events: int) -> list[str]:
    failures = []
    phases = [phase for pair in pairs for phase in pair]
    refused = sum(len(phase.answers) - phase.accepted() for phase in phases)
    if refused:
        failures.append(f"{refused} failed submissions")
    for _, loaded in pairs:
        export = loaded.export or {}
        if "error" in export:
            failures.append(f"{loaded.name}: export failed: {export['error'][:200]}")
        elif export.get("rows") != events:
            failures.append(f"{loaded.name}: export delivered {export.get('rows')} rows, not {events:,}")
    ratio = statistics.median(loaded.latency(0.95) / quiet.latency(0.95) for quiet, loaded in pairs)
    if ratio > MAX_P95_RATIO:
        failures.append(f"intake p95 during the export is {ratio:.2f}x the p95 without it (median over pairs)")
    return failures


def _seed(events: int) -> None:
    STACK.reset()
    configure_django(STACK.database)
    import django
    from django.db import connections

    django.setup()
    started = time.perf_counter()
    seed_sealed_events(events)
    connections.close_all()
    print(f"seeded and sealed {events:,} events in {time.perf_counter() - started:.1f} s "
          f"(database {STACK.database}, Redis {STACK.redis_url}, port {STACK.port})")


def _holds_seed(events: int) -> bool:
    """Whether the database holds exactly `events` seeded events, every one sealed."""
    query = (f"SELECT count(*), count(seq) FROM audit_auditevent WHERE created_at >= '{SEED_START.isoformat()}' "
             f"AND created_at < '{seeded_until(events).isoformat()}'")
    try:
        return STACK.psql(query) == f"{events}|{events}"
    except subprocess.CalledProcessError:  # no such database or table
        return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000, help="sealed audit events seeded and exported")
    parser.add_argument("--repeats", type=int, default=3, help="pairs of quiet and loaded phases per path")
    parser.add_argument("--via", nargs="+", choices=("task", "stream"), default=["task", "stream"],
                        help="export paths measured, each with its own stack (default both)")
    parser.add_argument("--format", choices=("csv", "jsonl"), default="csv")
    parser.add_argument("--clients", type=int, default=8, help="concurrent intake clients (default 8)")
    parser.add_argument("--quiet-seconds", type=float, default=15.0, help="length of each quiet phase")
    parser.add_argument("--warmup-seconds", type=float, default=10.0, help="submissions before anything is measured")
    parser.add_argument("--worker-nice", type=int, default=WORKER_NICE, choices=range(20), metavar="0-19",
                        help=f"the Celery worker's CPU priority against web (default {WORKER_NICE}: "
                             "docker-compose.yml's cpu_shares 256; 0: the same weight as web)")
    parser.add_argument("--reuse-seed", action="store_true",
                        help="keep the database when it already holds the --events seeded events, all sealed (a "
                             "previous run's: seeding a million takes minutes); migrated and its Redis db emptied")
    parser.add_argument("--lead", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.lead:
        port, cookie, csrf, export_format, since, until = json.loads(args.lead)
        print(json.dumps(_lead_export(port, Session(cookie, csrf), export_format, since, until)))
        return 0
    if args.events < 1000 or args.repeats < 1 or args.clients < 1 or args.quiet_seconds <= 0 or args.warmup_seconds < 0:
        parser.error("--events must be at least 1000, --repeats and --clients at least 1, --quiet-seconds above 0, "
                     "--warmup-seconds at least 0")

    if args.reuse_seed and _holds_seed(args.events):
        STACK.manage("migrate", "--no-input")
        subprocess.run(["redis-cli", "-u", STACK.redis_url, "flushdb"], check=True, capture_output=True)
        print(f"reusing the {args.events:,} sealed events already in {STACK.database}")
    else:
        _seed(args.events)
    # Named afresh each run, so a reused database takes them too.
    run_id = secrets.token_hex(3)
    token = STACK.client_token(f"bench-{run_id}")
    lead, password = f"bench-lead-{run_id}", secrets.token_urlsafe(24)
    STACK.manage("user", "add", lead, "--role", "support-lead", "--password-stdin", stdin=password)

    print(f"{args.clients} intake clients submitting back to back; {WEB_WORKERS} web workers; one Celery worker "
          f"(default + maintenance queues, concurrency 2, beat inside, nice {args.worker_nice}); {args.format} "
          f"exports of {args.events:,} events; quiet phases {args.quiet_seconds:g} s")
    failures = []
    for via in args.via:
        print(f"--- export via {via} " + "-" * 60)
        pairs = _run_path(via, args, token, lead, password)
        failures += _failures(pairs, args.events)
        ratios = [loaded.latency(0.95) / quiet.latency(0.95) for quiet, loaded in pairs]
        p95s = {kind: statistics.median(pair[side].latency(0.95) for pair in pairs)
                for side, kind in enumerate(("quiet", "loaded"))}
        print(f"{via}: intake p95 ms median quiet {p95s['quiet']:.1f}, loaded {p95s['loaded']:.1f}; "
              f"loaded/quiet per pair {'  '.join(f'{ratio:.2f}' for ratio in ratios)}, "
              f"median {statistics.median(ratios):.2f} (limit {MAX_P95_RATIO:g})")
    print("PASS" if not failures else "FAIL: " + "; ".join(failures))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
