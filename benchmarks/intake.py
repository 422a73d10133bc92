"""Intake throughput on the real stack: gunicorn + PostgreSQL + Redis + one Celery worker, on loopback.

One run, one server (gunicorn with 3 workers), one set of concurrent clients:

1. warm-up: submissions and `GET /healthz`, so that every worker has served both and holds its
   connections (checked) before anything is measured;
2. at least 3,000 submissions (POST /api/v1/cases; cases only queued), each a new case, with every client
   limit on (far above what the run sends, so each submission pays for its counters as in production and
   none is refused), and as many
   `GET /healthz`, in alternating rounds: /healthz is the cheapest request the stack answers (it reads
   the database and pings the broker), a yardstick for the submission rate measured on the same
   machine, under the same load, at the same time.

For the submissions it prints accepted submissions a second beside /healthz requests a second, latency,
the CPU milliseconds each submission cost in the web workers (their /proc user + system time across the
phase) and in PostgreSQL (the server processes of the benchmark's database connections: parsing,
planning, executing, WAL insertion, commit; not the shared background writers), and the SQL statements
each ran (every statement Django sent, counted in the benchmark's own server; BEGIN, COMMIT and
Django's connection health check not included). As both kinds of request share the same cores, it also
prints the ratio their CPU in all allows, and the ratio a submission would reach if it cost the web
workers no more than /healthz does: the most a leaner submission path could give. Then cases a minute
through one Celery worker running the offline engine, over the first --worker-cases cases queued.

Exits non-zero on any failed request, or when a figure misses its floor: at least 50 submissions a
second, at most 4 queries a submission, a submission's web CPU at most 3.5 times a /healthz's in the same
run (3.5 ms where /healthz costs 1 ms; the machine's speed moves by a third between runs, the ratio by about a
tenth), at least 300 cases a minute.

    .venv/bin/python benchmarks/intake.py [--cases 3000] [--clients 8] [--warmup 300] [--rounds 6]
                                          [--worker-cases 600]

Needs PostgreSQL and Redis on 127.0.0.1 (as `make test` does); uses its own database and Redis db
(BENCH_DATABASE, BENCH_REDIS_URL and BENCH_PORT choose others, so two people can run it at once).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from benchstack import (
    Answer,
    CpuMeter,
    Stack,
    celery_worker,
    child_pids,
    database_backends,
    percentile,
    request,
    submission_body,
    submit_headers,
    web_server,
)

from reviewconsole.queues import WorkerPool, pool_queues

STACK = Stack.from_environment(database="reviewconsole_bench", redis_url="redis://127.0.0.1:6379/13", port=8765)
WEB_WORKERS = 3
WORKER_LOG = STACK.var_dir / "celery-worker.log"
# Floors for this 2-core machine (issue 16); the figures are reported in the closing note.
MIN_SUBMISSIONS_PER_SECOND = 50.0
MAX_QUERIES_PER_SUBMISSION = 4.0
# A submission's web CPU against a /healthz's in the same run. It replaces a floor of 60% of the /healthz
# rate, which no submission that writes its rows can reach: its ceiling, with a submission's web CPU at
# /healthz's, is about 65% (printed as "ratio the CPU allows").
MAX_WEB_CPU_TO_HEALTHZ = 3.5
MIN_CASES_PER_MINUTE = 300.0
# Every client limit on, as in production, and far above what the run sends: each submission pays for its
# counters (a request token, the day's cases and bytes) and none is refused.
LIMITS = {"CLIENT_REQUESTS_PER_SECOND": "100000", "CLIENT_CASES_PER_DAY": "1000000000",
          "CLIENT_BODY_BYTES_PER_DAY": "1000000000000"}


@dataclass
class Phase:
    """Requests sent by the same clients, the wall time they took, and the CPU the stack spent on them."""

    name: str
    answers: list[Answer] = field(default_factory=list)
    seconds: float = 0.0
    web_cpu: float = 0.0
    database_cpu: float = 0.0
    client_cpu: float = 0.0
    lost_processes: list[int] = field(default_factory=list)

    def add(self, other: Phase) -> None:
        self.answers += other.answers
        self.seconds += other.seconds
        self.web_cpu += other.web_cpu
        self.database_cpu += other.database_cpu
        self.client_cpu += other.client_cpu
        self.lost_processes += other.lost_processes

    def count(self, status: int) -> int:
        return sum(1 for answer in self.answers if answer.status == status)

    def per_second(self, status: int) -> float:
        return self.count(status) / self.seconds

    def cpu_ms(self, seconds: float) -> float:
        return seconds * 1000 / len(self.answers)

    def latency(self) -> str:
        latencies = [answer.seconds * 1000 for answer in self.answers]
        return f"median {statistics.median(latencies):.1f}  p95 {percentile(latencies, 0.95):.1f}"


def _client_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _run_phase(name: str, send: Callable[[bytes | None], Answer], items: Iterable[bytes | None], *,
               clients: int, web_master: int) -> Phase:
    web = CpuMeter(lambda: child_pids(web_master))
    database = CpuMeter(lambda: database_backends(STACK.database))
    web.start()
    database.start()
    client_started = _client_cpu()
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        answers = list(pool.map(send, items))
    phase = Phase(name, answers, time.perf_counter() - started)
    phase.client_cpu = _client_cpu() - client_started
    phase.web_cpu = web.stop()
    phase.database_cpu = database.stop()
    phase.lost_processes = web.lost + database.lost
    return phase


def _bodies(count: int, prefix: str) -> list[bytes]:
    return [submission_body(index, prefix) for index in range(count)]


def _count_finished() -> int:
    return int(STACK.psql("SELECT count(*) FROM intake_case WHERE status NOT IN ('QUEUED', 'RUNNING')"))


def _submit_and_probe(args: argparse.Namespace, token: str) -> tuple[Phase, Phase, int, list[float]]:
    """Warm up, then rounds of /healthz and submissions; both phases, how many warm-up cases were
    accepted, and each round's ratio of submissions a second to /healthz a second.

    The machine is shared: load from elsewhere comes and goes within seconds. Alternating short rounds
    (and their order: healthz first, then submissions first) lets both kinds of request meet the same
    conditions, so their ratio says something about the code rather than about the neighbours.
    """

    headers = submit_headers(token)

    def submit(body: bytes | None) -> Answer:
        return request(STACK.port, "POST", "/api/v1/cases", body, headers)

    def healthz(_: bytes | None) -> Answer:
        return request(STACK.port, "GET", "/healthz")

    with web_server(STACK, workers=WEB_WORKERS, **LIMITS) as web:
        run = {"clients": args.clients, "web_master": web.pid}
        warm_submissions = _run_phase("warm-up", submit, _bodies(args.warmup, "warm"), **run)
        warm_healthz = _run_phase("warm-up", healthz, [None] * args.warmup, **run)
        if warm_submissions.count(202) != args.warmup or warm_healthz.count(200) != args.warmup:
            raise SystemExit("warm-up requests failed: is the stack up?")
        workers, backends = child_pids(web.pid), database_backends(STACK.database)
        if len(workers) != WEB_WORKERS or len(backends) < WEB_WORKERS:
            raise SystemExit(f"after the warm-up {len(workers)} web workers hold {len(backends)} connections")
        bodies = _bodies(args.cases, "bench")
        healthz_phase, submissions, ratios = Phase("healthz"), Phase("submissions"), []
        for index in range(args.rounds):
            chunk = bodies[index * len(bodies) // args.rounds:(index + 1) * len(bodies) // args.rounds]
            steps = [("healthz", healthz, [None] * len(chunk)), ("submissions", submit, chunk)]
            if index % 2:
                steps.reverse()
            done = {name: _run_phase(name, send, items, **run) for name, send, items in steps}
            healthz_phase.add(done["healthz"])
            submissions.add(done["submissions"])
            ratios.append(done["submissions"].per_second(202) / done["healthz"].per_second(200))
    print(f"web workers:               {len(workers)} (pids {workers}); database connections: {len(backends)}")
    return submissions, healthz_phase, warm_submissions.count(202), ratios


def _work(expected: int, limit_seconds: float) -> tuple[int, float]:
    """Cases finished by one Celery worker (offline engine) until `expected` are, and the time taken."""
    with celery_worker(STACK, queues=pool_queues(WorkerPool.VERIFY), concurrency=1, log=WORKER_LOG):
        started = time.perf_counter()
        finished = 0
        while finished < expected and time.perf_counter() - started < limit_seconds:
            time.sleep(1)
            finished = _count_finished()
        return finished, time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=3000, help="submissions measured (default 3000)")
    parser.add_argument("--clients", type=int, default=8, help="concurrent HTTP clients (default 8)")
    parser.add_argument("--warmup", type=int, default=300, help="submissions and /healthz first, unmeasured")
    parser.add_argument("--rounds", type=int, default=6,
                        help="alternating rounds of /healthz and submissions the measured requests are split into")
    parser.add_argument("--worker-cases", type=int, default=600,
                        help="cases the Celery worker must finish for the cases-a-minute figure (default 600)")
    args = parser.parse_args()
    if args.rounds < 1 or args.cases < args.rounds or args.clients < 1 or args.warmup < WEB_WORKERS:
        parser.error("--rounds and --clients must be at least 1, --cases at least --rounds, --warmup at least 3")
    if args.worker_cases < 1:
        parser.error("--worker-cases must be at least 1")

    STACK.reset()
    token = STACK.client_token("bench")
    submissions, healthz, warm_accepted, ratios = _submit_and_probe(args, token)
    accepted = submissions.count(202)
    errors = len(submissions.answers) - accepted + len(healthz.answers) - healthz.count(200)
    statuses = sorted({answer.status for answer in submissions.answers + healthz.answers} - {200, 202})
    counted = [answer.queries for answer in submissions.answers if answer.queries is not None]
    queries = sum(counted) / len(counted) if counted else float("inf")

    expected = min(args.worker_cases, accepted + warm_accepted)
    finished, work_seconds = _work(expected, limit_seconds=600)
    per_minute = finished / work_seconds * 60

    per_second, healthz_per_second = submissions.per_second(202), healthz.per_second(200)
    share = per_second / healthz_per_second
    print(f"clients:                   {args.clients} concurrent, one connection a request; "
          f"{args.warmup} submissions and {args.warmup} /healthz to warm up")
    print(f"submissions:               {len(submissions.answers)}, accepted (202) {accepted}, "
          f"in {submissions.seconds:.1f} s")
    print(f"GET /healthz:              {len(healthz.answers)}, ok (200) {healthz.count(200)}, "
          f"in {healthz.seconds:.1f} s")
    print(f"errors:                    {errors}   other statuses: {statuses or 'none'}")
    print(f"accepted per second:       {per_second:.1f}   /healthz per second: {healthz_per_second:.1f}   "
          f"ratio {share:.0%}")
    print(f"ratio in each round:       {'  '.join(f'{ratio:.0%}' for ratio in ratios)} "
          f"({args.rounds} rounds of {args.cases // args.rounds} of each, alternating which goes first)")
    print(f"submit latency ms:         {submissions.latency()}")
    print(f"/healthz latency ms:       {healthz.latency()}")
    for name, phase in (("a submission", submissions), ("a /healthz", healthz)):
        print(f"CPU ms {name + ':':14}     web workers {phase.cpu_ms(phase.web_cpu):.2f}   "
              f"PostgreSQL {phase.cpu_ms(phase.database_cpu):.2f}   "
              f"benchmark client {phase.cpu_ms(phase.client_cpu):.2f}")
    web_cpu_ratio = submissions.cpu_ms(submissions.web_cpu) / healthz.cpu_ms(healthz.web_cpu)
    print(f"web CPU against /healthz:  {web_cpu_ratio:.2f} times (a submission's over a /healthz's)")
    # Both kinds of request share the same two cores, so their rates go as the CPU each costs in all; the
    # second figure is the ratio a submission would reach if it cost the web workers no more than /healthz.
    submission_cpu, healthz_cpu = (
        phase.cpu_ms(phase.web_cpu + phase.database_cpu + phase.client_cpu) for phase in (submissions, healthz)
    )
    floor = submission_cpu - submissions.cpu_ms(submissions.web_cpu) + healthz.cpu_ms(healthz.web_cpu)
    print(f"ratio the CPU allows:      {healthz_cpu / submission_cpu:.0%} ({submission_cpu:.2f} ms against "
          f"{healthz_cpu:.2f} ms in all); with a submission's web CPU at /healthz's: {healthz_cpu / floor:.0%}")
    print(f"SQL queries a submission:  {queries:.2f} (counted for {len(counted)} of {len(submissions.answers)})")
    lost = submissions.lost_processes + healthz.lost_processes
    if lost:
        print(f"processes that ended mid-phase (their CPU is missing above): {sorted(set(lost))}")
    print(f"cases finished by 1 worker: {finished} of {expected} in {work_seconds:.1f} s (includes worker start-up; "
          f"its log: {WORKER_LOG})")
    print(f"cases per minute:          {per_minute:.0f}")

    failures = [
        text for text, missed in (
            (f"{errors} failed requests", errors > 0),
            (f"accepted per second below {MIN_SUBMISSIONS_PER_SECOND}", per_second < MIN_SUBMISSIONS_PER_SECOND),
            (f"more than {MAX_QUERIES_PER_SUBMISSION:g} queries a submission", queries > MAX_QUERIES_PER_SUBMISSION),
            (f"a submission's web CPU over {MAX_WEB_CPU_TO_HEALTHZ:g} times a /healthz's",
             web_cpu_ratio > MAX_WEB_CPU_TO_HEALTHZ),
            (f"web or database processes ended mid-phase: {sorted(set(lost))}", bool(lost)),
            (f"{expected - finished} cases not finished in time", finished < expected),
            (f"cases per minute below {MIN_CASES_PER_MINUTE:g}", per_minute < MIN_CASES_PER_MINUTE),
        ) if missed
    ]
    print("PASS" if not failures else "FAIL: " + "; ".join(failures))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
