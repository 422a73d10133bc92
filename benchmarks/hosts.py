"""Intake and case throughput with one worker host against two, on hosts of their own (drills/hosts.py).

The multi-host drills' stack: PostgreSQL, Redis, two web hosts (gunicorn) and worker hosts (Celery), each in
a network namespace on one bridge. A machine of its own is what a worker host adds, so each worker host here
runs on one CPU of its own (`taskset`): worker1 on CPU 0, worker2 on CPU 1; the web hosts, PostgreSQL and Redis
share every CPU. After a warm-up, rounds alternate between one worker host and two (the second started and
stopped between rounds, the first always running), so that other load on the machine falls on both alike.
In each round clients submit the demo cases (varied, as `benchmarks/intake.py` sends them) through both web
hosts at once; a case is done when its run is stored and its outcome webhook delivered.

It prints, per setup, the median over the rounds of: accepted submissions a second (intake, while the
workers run), cases finished a minute (from the first submission to the last outcome), the worker hosts' CPU
seconds a case and the whole machine's busy share; and the connections each host holds. The one-host figures
are the reference, measured in the same run. Exits non-zero on a failed submission or case, or when two worker
hosts finish cases at less than --min-speedup (1.1) times one host's rate. Intake has no target against the
reference: on a machine of two CPUs the second worker host's CPU is the one the web hosts were using, so intake
falls there as cases speed up; with web hosts of their own it would not.

    .venv/bin/python benchmarks/hosts.py [--cases 80] [--rounds 3] [--clients 4] [--concurrency 2]

Needs root (network namespaces) and two CPUs; starts everything it uses and removes it on the way out.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import redis

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from benchstack import machine_busy_seconds, process_cpu_seconds, submission_body  # noqa: E402

from drills import state  # noqa: E402
from drills.console import ApiClient  # noqa: E402
from drills.deployment import Deployment, prepare  # noqa: E402
from drills.hosts import WEB_HOSTS, HostStack, running_hosts  # noqa: E402
from drills.netns import unavailable_reason  # noqa: E402


@dataclass(frozen=True)
class Round:
    hosts: int
    intake_per_second: float
    cases_per_minute: float
    worker_cpu_per_case: float
    machine_busy: float
    failed: int
    connections: str = ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=80, help="cases submitted in each round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each setup, after one warm-up")
    parser.add_argument("--clients", type=int, default=4, help="concurrent clients, spread over the web hosts")
    parser.add_argument("--concurrency", type=int, default=2, help="Celery processes on each worker host")
    parser.add_argument("--min-speedup", type=float, default=1.1)
    options = parser.parse_args()
    reason = unavailable_reason()
    if reason is not None or (os.cpu_count() or 1) < 2:
        print(f"hosts benchmark: cannot run here ({reason or 'fewer than two CPUs'})")
        return 2
    with running_hosts() as stack:
        deployment = prepare(stack, listen=stack.network.gateway)
        try:
            return _benchmark(stack, deployment, options)
        finally:
            deployment.close()


def _benchmark(stack: HostStack, deployment: Deployment, options: argparse.Namespace) -> int:
    for host in ("worker1", "worker2"):
        stack.stop(host)
    stack.start_worker("worker1", concurrency=options.concurrency, cpu=0)
    print(f"{options.cases} cases a round, {options.clients} clients over {len(WEB_HOSTS)} web hosts, "
          f"{options.concurrency} Celery processes on each worker host, one CPU each", flush=True)
    _round(stack, deployment, options, 1, "warm-up")
    rounds: list[Round] = []
    for number in range(options.rounds):
        for hosts in (1, 2) if number % 2 == 0 else (2, 1):
            if hosts == 2:
                stack.start_worker("worker2", concurrency=options.concurrency, cpu=1)
            rounds.append(_round(stack, deployment, options, hosts, f"round {number + 1}"))
            if hosts == 2:
                if number == options.rounds - 1:
                    print(f"  most connections open at once in that round: {rounds[-1].connections}", flush=True)
                stack.stop("worker2")
    one = _summary([r for r in rounds if r.hosts == 1])
    two = _summary([r for r in rounds if r.hosts == 2])
    print()
    print("worker hosts  submissions/s  cases/min  worker CPU s/case  machine busy")
    for hosts, figures in ((1, one), (2, two)):
        print(f"{hosts:>12}  {figures.intake_per_second:>13.1f}  {figures.cases_per_minute:>9.0f}  "
              f"{figures.worker_cpu_per_case:>17.3f}  {figures.machine_busy:>11.0%}")
    speedup = two.cases_per_minute / one.cases_per_minute
    intake = two.intake_per_second / one.intake_per_second
    print(f"two worker hosts: {speedup:.2f}x the cases a minute of one, {intake:.2f}x its submissions a second")
    failures = []
    if sum(r.failed for r in rounds):
        failures.append(f"{sum(r.failed for r in rounds)} submissions or cases failed")
    if speedup < options.min_speedup:
        failures.append(f"two worker hosts finish {speedup:.2f}x the cases of one, below {options.min_speedup}x")
    for failure in failures:
        print(f"FAIL: {failure}")
    return 1 if failures else 0


def _round(stack: HostStack, deployment: Deployment, options: argparse.Namespace, hosts: int, label: str) -> Round:
    prefix = f"bench-{hosts}-{time.monotonic_ns()}"
    clients = [ApiClient(stack.url_of(WEB_HOSTS[n % len(WEB_HOSTS)]), deployment.token)
               for n in range(options.clients)]
    cpu_before, busy_before = _worker_cpu(stack), machine_busy_seconds()
    started = time.monotonic()

    def send(index: int) -> int:
        return clients[index % len(clients)].submit(raw=submission_body(index, prefix)).status

    with ConnectionPeaks(stack) as peaks:
        with ThreadPoolExecutor(options.clients) as pool:
            statuses = list(pool.map(send, range(options.cases)))
        intake_seconds = time.monotonic() - started
        ids = [f"{prefix}-{index}" for index in range(options.cases)]
        state.wait_cases_settled(deployment.database, ids, timeout=600)
        case_seconds = time.monotonic() - started
    finished = [s for s in state.case_states(deployment.database, ids).values() if s.status in state.TERMINAL]
    failed = sum(status != 202 for status in statuses) + options.cases - len(finished)
    figures = Round(hosts, options.cases / intake_seconds, 60 * options.cases / case_seconds,
                    (_worker_cpu(stack) - cpu_before) / options.cases,
                    (machine_busy_seconds() - busy_before) / case_seconds / (os.cpu_count() or 1), failed,
                    peaks.describe())
    print(f"  {label}, {hosts} worker host(s): {figures.intake_per_second:.1f} submissions/s, "
          f"{figures.cases_per_minute:.0f} cases/min, {figures.worker_cpu_per_case:.3f} worker CPU s/case, "
          f"machine {figures.machine_busy:.0%} busy, {failed} failed", flush=True)
    return figures


def _worker_cpu(stack: HostStack) -> float:
    """CPU seconds used so far by every process on the worker hosts (Celery and its pool)."""
    total = 0.0
    for host in ("worker1", "worker2"):
        for pid in stack.host(host).pids():
            total += process_cpu_seconds(pid) or 0.0
    return total


class ConnectionPeaks:
    """The most PostgreSQL sessions and Redis clients each console host held at once, sampled every 0.2 s."""

    def __init__(self, stack: HostStack) -> None:
        self.stack = stack
        self.peaks: dict[str, list[int]] = {}
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="connection-peaks", daemon=True)

    def __enter__(self) -> ConnectionPeaks:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join(10)

    def _sample(self) -> None:
        database = self.stack.connect()
        broker = redis.Redis.from_url(self.stack.redis_url, socket_timeout=2)
        try:
            while not self._done.wait(0.2):
                sessions = Counter(dict(database.execute(
                    "SELECT host(client_addr), count(*) FROM pg_stat_activity WHERE client_addr IS NOT NULL "
                    "GROUP BY 1").fetchall()))
                clients = Counter(client["addr"].rsplit(":", 1)[0] for client in broker.client_list())
                for name, host in self.stack.network.hosts.items():
                    peak = self.peaks.setdefault(name, [0, 0])
                    peak[0] = max(peak[0], sessions.get(host.address, 0))
                    peak[1] = max(peak[1], clients.get(host.address, 0))
        finally:
            database.close()
            broker.close()

    def describe(self) -> str:
        return ", ".join(f"{name} {postgres} PostgreSQL + {redis_clients} Redis"
                         for name, (postgres, redis_clients) in self.peaks.items() if name not in ("db", "redis"))


def _summary(rounds: list[Round]) -> Round:
    medians = (statistics.median(getattr(r, name) for r in rounds)
               for name in ("intake_per_second", "cases_per_minute", "worker_cpu_per_case", "machine_busy"))
    return Round(rounds[0].hosts, *medians, sum(r.failed for r in rounds))


if __name__ == "__main__":
    sys.exit(main())
