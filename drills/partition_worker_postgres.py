"""Drill: a worker host is cut off from PostgreSQL in the middle of its tasks; its claims lapse and the other
worker host finishes the cases.

"In the middle" is made certain as in the worker kills (drills/worker_kills.py): the cases are submitted while
no worker runs, then the drill's own connection locks their sources, which a case run reads right after its
claim committed, and worker1 starts. It claims every case and waits on the lock; then its link to PostgreSQL
goes silent, the lock is let go, and worker2 starts. Nothing tells anyone worker1 is gone: its claims lapse
at their deadline, the sweeper hands the cases back and worker2 runs them. The server must also end worker1's
sessions by itself (the link timeouts it runs under), or their locks would stay. When the partition heals,
worker1's late retries must find the work done: every case finished exactly once.
"""

from __future__ import annotations

import time

from drills import state
from drills.deployment import Deployment, wait_for
from drills.hosts import (
    CLAIM_HOLD_SECONDS,
    HOST_SETTINGS,
    REQUEUED_HOLD_SECONDS,
    SWEEP_PERIOD_SECONDS,
    WORKER_CONCURRENCY,
)
from drills.report import Row

NAME = "hosts: worker cut off from PostgreSQL mid-task"
CASES = WORKER_CONCURRENCY
NETWORK_TIMEOUT = int(HOST_SETTINGS["DB_NETWORK_TIMEOUT_SECONDS"])


def drill(deployment: Deployment, row: Row) -> None:
    stack, db = deployment.stack, deployment.database
    worker1, postgres = stack.host("worker1"), stack.host("db")
    # No worker while the cases are submitted (the submissions write the sources the lock pins); then worker1.
    stack.stop("worker1")
    stack.stop("worker2")
    submitted = deployment.submit("cut-postgres", CASES)
    ids = [case.external_id for case in submitted if case.accepted]
    pins = stack.connect(autocommit=False)
    try:
        pins.execute("LOCK TABLE intake_source IN ACCESS EXCLUSIVE MODE")
        stack.start_worker("worker1")
        blocked = f"SELECT count(*) FROM pg_stat_activity WHERE {pins.info.backend_pid} = ANY(pg_blocking_pids(pid))"
        # Read the cases' status alone: the drill's own reads of the sources would wait on its own lock.
        running = "SELECT count(*) FROM intake_case WHERE external_id = ANY(%s) AND status = 'RUNNING'"
        mid_task = wait_for(lambda: state.scalar(db, running, [ids]) == CASES and state.scalar(db, blocked) >= CASES,
                            timeout=60)
        if not mid_task:
            row.problem(f"worker1 was not mid-task on all {CASES} cases when it was cut off")
        stack.network.partition(worker1, postgres)
        cut_at = time.monotonic()
    finally:
        pins.rollback()
        pins.close()
    try:
        stack.start_worker("worker2")
        # The server notices the dead link by itself and ends worker1's sessions, locks and all.
        sessions = f"SELECT count(*) FROM pg_stat_activity WHERE client_addr = '{worker1.address}'"
        ended = wait_for(lambda: state.scalar(db, sessions) == 0, timeout=3 * NETWORK_TIMEOUT + 10, interval=0.5)
        row.note(f"the server ended worker1's sessions {time.monotonic() - cut_at:.0f} s after the cut "
                 f"(DB_NETWORK_TIMEOUT_SECONDS={NETWORK_TIMEOUT})" if ended
                 else f"worker1 still has {state.scalar(db, sessions)} sessions on the server")
        if not ended:
            row.problem("the server kept the cut-off worker's sessions (and their locks)")
        # A case worker1 takes again (its Redis link works) fails there and is retried, perhaps by worker1 again,
        # until its retries are spent: then the sweeper sends it once more after REQUEUED_HOLD_SECONDS.
        waited = state.wait_cases_settled(
            db, ids, timeout=CLAIM_HOLD_SECONDS + REQUEUED_HOLD_SECONDS + 2 * SWEEP_PERIOD_SECONDS + 15)
        row.recovered(time.monotonic() - cut_at)
        row.note(f"worker2 finished the cases {time.monotonic() - cut_at:.0f} s after the cut (claims lapse after "
                 f"{CLAIM_HOLD_SECONDS} s, the sweeper runs every {SWEEP_PERIOD_SECONDS} s); waited {waited:.0f} s")
    finally:
        stack.network.heal(worker1, postgres)
    # worker1's retries run into work another host finished: they must change nothing.
    time.sleep(2 * SWEEP_PERIOD_SECONDS)
    attempts = sorted(s.attempts for s in state.case_states(db, ids).values())
    row.note(f"claims per case: {attempts} (worker1's, then worker2's)")
    state.tally_cases(row, db, submitted)
