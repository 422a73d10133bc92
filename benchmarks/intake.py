"""Intake throughput on the real stack: gunicorn + PostgreSQL + Redis + one Celery worker, on loopback.

Prints accepted submissions per second with concurrent clients (POST /api/v1/cases through gunicorn,
cases only queued), then cases per minute through one worker process running the offline engine.
Exits non-zero when a figure misses its floor below, or when any request fails.

    .venv/bin/python benchmarks/intake.py [--cases 300] [--clients 8]

Needs PostgreSQL and Redis on 127.0.0.1 (as `make test` does); uses its own database and Redis db.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from benchstack import REPO, bench_environment, reset_database

DATABASE = "reviewconsole_bench"
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/13")
PORT = 8765
# Floors for this 2-core machine; the figures are reported in the closing note.
MIN_SUBMISSIONS_PER_SECOND = 50.0
MIN_CASES_PER_MINUTE = 300.0


def _env() -> dict[str, str]:
    return bench_environment(DATABASE, REDIS_URL=REDIS_URL, SPOT_CHECK_RATE="0")


def _manage(*args: str, capture: bool = False) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=REPO, env=_env(), check=True, capture_output=True, text=True
    )
    return result.stdout


def _reset_database() -> None:
    reset_database(DATABASE)
    subprocess.run(["redis-cli", "-u", REDIS_URL, "flushdb"], check=True, capture_output=True)


def _cases(count: int) -> list[bytes]:
    demo = json.loads((REPO / "verification" / "demo_cases.json").read_text())
    demo += json.loads((REPO / "reviewconsole" / "intake" / "fixtures" / "demo_cases.json").read_text())
    bodies = []
    for index in range(count):
        case = dict(demo[index % len(demo)])
        case["external_id"] = f"bench-{index}"
        bodies.append(json.dumps(case).encode())
    return bodies


def _post(token: str, body: bytes) -> tuple[int, float]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{PORT}/api/v1/cases",
        data=body,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status = response.status
    except urllib.error.HTTPError as error:
        status = error.code
    return status, time.perf_counter() - started


def _wait_until_up(process: subprocess.Popen) -> None:
    for _ in range(100):
        if process.poll() is not None:
            raise SystemExit("gunicorn exited at start-up")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{PORT}/healthz", timeout=1)
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("gunicorn did not come up")


def _count_finished() -> int:
    out = _manage("shell", "-c", "from reviewconsole.intake.models import Case;"
                  "print(Case.objects.exclude(status__in=['QUEUED','RUNNING']).count())")
    return int(out.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300, help="submissions to send (default 300)")
    parser.add_argument("--clients", type=int, default=8, help="concurrent HTTP clients (default 8)")
    args = parser.parse_args()
    if args.cases < 1 or args.clients < 1:
        parser.error("--cases and --clients must be at least 1")

    _reset_database()
    token = next(
        line.split(": ", 1)[1] for line in _manage("create_client", "bench").splitlines() if "API token" in line
    )
    bodies = _cases(args.cases)

    web = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "reviewconsole.wsgi", "--bind", f"127.0.0.1:{PORT}", "--workers", "3",
         "--log-level", "warning"],
        cwd=REPO, env=_env(),
    )
    try:
        _wait_until_up(web)
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=args.clients) as pool:
            results = list(pool.map(lambda body: _post(token, body), bodies))
        submit_seconds = time.perf_counter() - started
    finally:
        web.send_signal(signal.SIGTERM)
        web.wait(timeout=30)

    statuses = [status for status, _ in results]
    latencies = sorted(seconds * 1000 for _, seconds in results)
    accepted = statuses.count(202)
    per_second = accepted / submit_seconds

    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "reviewconsole", "worker", "--queues", "verify,default",
         "--concurrency", "1", "--loglevel", "WARNING", "--without-gossip", "--without-mingle"],
        cwd=REPO, env=_env(),
    )
    try:
        started = time.perf_counter()
        finished = 0
        while finished < accepted and time.perf_counter() - started < 600:
            time.sleep(1)
            finished = _count_finished()
        work_seconds = time.perf_counter() - started
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(timeout=60)
    per_minute = finished / work_seconds * 60

    print(f"submissions:               {len(bodies)} from {args.clients} concurrent clients, gunicorn with 3 workers")
    print(f"accepted (202):            {accepted}   other statuses: {sorted(set(statuses) - {202}) or 'none'}")
    print(f"accepted per second:       {per_second:.1f}")
    print(f"submit latency ms:         median {statistics.median(latencies):.1f}  "
          f"p95 {latencies[int(len(latencies) * 0.95) - 1]:.1f}")
    print(f"cases finished by 1 worker: {finished} in {work_seconds:.1f} s (includes worker start-up)")
    print(f"cases per minute:          {per_minute:.0f}")
    ok = accepted == len(bodies) and finished == accepted
    ok = ok and per_second >= MIN_SUBMISSIONS_PER_SECOND and per_minute >= MIN_CASES_PER_MINUTE
    print("PASS" if ok else f"FAIL (floors: {MIN_SUBMISSIONS_PER_SECOND}/s, {MIN_CASES_PER_MINUTE}/min, no errors)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
