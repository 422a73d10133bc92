"""`python -m drills` (`make drills`): fault drills against a real deployment of the console; prints the table.

Starts its own PostgreSQL and Redis on free ports, migrates as the owner role, runs gunicorn, Celery workers (one
for each pool), beat and the outbox relay as the runtime role, then breaks them drill by drill (see each drill's
module). Then, where network namespaces can be made, the same across hosts of their own (drills/multihost.py).
Exits non-zero when any drill misses an invariant. `--only NAME` runs some drills (names as listed by `--list`);
the processes' logs are kept (and their folder printed) when a drill fails, or with `--keep-logs`.
"""

from __future__ import annotations

import argparse
import resource
import signal
import sys
import time
import traceback
from types import ModuleType

from drills import (
    audit_rewrites,
    broker_outage,
    database_restarts,
    hostile_bodies,
    multihost,
    next_case_race,
    worker_kills,
)
from drills.deployment import Deployment, prepare
from drills.report import Row, details, table
from drills.stack import running_stack

# In this order: the drills that need the deployment running, then the audit rewrites, which stop it (the
# rewrites work on copies of the database, and a copy needs a database nobody is connected to).
# Each drill module has its row's NAME and `drill(deployment, row)`, which fills the row in.
LIVE_DRILLS: dict[str, ModuleType] = {
    "worker-kills": worker_kills,
    "redis-outage": broker_outage,
    "postgres-restarts": database_restarts,
    "next-case-race": next_case_race,
    "hostile-bodies": hostile_bodies,
}
STOPPED_DRILLS: dict[str, ModuleType] = {
    "audit-rewrites": audit_rewrites,
}


def _terminate(signum: int, frame: object) -> None:
    # SIGTERM (CI cancelling the job) unwinds like Ctrl-C, so the stack is torn down.
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    names = [*LIVE_DRILLS, *STOPPED_DRILLS, *multihost.DRILLS]
    parser = argparse.ArgumentParser(prog="python -m drills", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", choices=names, help="run this drill (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the drills and exit")
    parser.add_argument("--keep-logs", action="store_true", help="keep the logs even when every drill passes")
    options = parser.parse_args(argv)
    if options.list:
        print("\n".join(names))
        return 0
    chosen = set(options.only or names)
    signal.signal(signal.SIGTERM, _terminate)
    started, cpu_started = time.monotonic(), time.process_time()
    rows: list[Row] = []
    postgres_cpu = 0.0
    passed = False
    if chosen & {*LIVE_DRILLS, *STOPPED_DRILLS}:
        with running_stack(keep_logs=lambda: options.keep_logs or not passed) as stack:
            print(f"drills: PostgreSQL :{stack.pg_port}, Redis :{stack.redis_port}, console {stack.web_url}",
                  flush=True)
            deployment = prepare(stack)
            try:
                print(f"drills: deployment ready in {time.monotonic() - started:.0f} s", flush=True)
                for name, drill in LIVE_DRILLS.items():
                    if name in chosen:
                        rows.append(_run(name, drill, deployment))
                stack.deployment_stop()
                for name, drill in STOPPED_DRILLS.items():
                    if name in chosen:
                        rows.append(_run(name, drill, deployment))
                postgres_cpu = stack.postgres_cpu_seconds()
            finally:
                deployment.close()
            passed = all(row.passed for row in rows)
    rows += multihost.run_drills(chosen, _run, keep_logs=lambda: options.keep_logs)
    passed = all(row.passed for row in rows)
    wall = time.monotonic() - started
    own = time.process_time() - cpu_started
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    print()
    print(table(rows))
    print()
    print(details(rows))
    print()
    print(f"drills: {wall:.0f} s wall; CPU {own + children.ru_utime + children.ru_stime + postgres_cpu:.0f} s "
          f"(drills {own:.0f} s, console and Redis {children.ru_utime + children.ru_stime:.0f} s, "
          f"PostgreSQL {postgres_cpu:.0f} s)")
    print("drills: PASS" if passed else "drills: FAIL")
    return 0 if passed else 1


def _run(name: str, drill: ModuleType, deployment: Deployment) -> Row:
    print(f"drills: {name} ...", flush=True)
    restarts = len(deployment.stack.restarts)
    row = Row(drill.NAME)
    try:
        with row.timed():
            drill.drill(deployment, row)
    except Exception as error:  # one drill's crash must not hide the others' results
        row.problem(f"the drill crashed: {type(error).__name__}: {error}")
        traceback.print_exc()
    for restart in deployment.stack.restarts_since(restarts):
        row.note(f"supervisor (compose's restart policy): {restart}")
    print(f"drills: {name}: {'PASS' if row.passed else 'FAIL'} in {row.seconds:.0f} s", flush=True)
    return row


if __name__ == "__main__":
    sys.exit(main())
