"""Drill: celery beat runs on two hosts at once (the usual slip after a failover: the old one comes back).

Every periodic task is then sent twice as often: the sweeper, the audit sealer, the outbox relay. Each must
stay correct run twice: a client's cases finish exactly once, and the audit log's signed tree heads stay one
chain (`manage.py audit_verify`: every head against the events and against the heads file the sealers append
to, no event waiting to be sealed).
"""

from __future__ import annotations

import time

from drills import state
from drills.deployment import Deployment
from drills.hosts import CLAIM_HOLD_SECONDS, SWEEP_PERIOD_SECONDS
from drills.report import Row

NAME = "hosts: beat running on two hosts"
CASES = 10
BOTH_SECONDS = 4 * SWEEP_PERIOD_SECONDS


def drill(deployment: Deployment, row: Row) -> None:
    stack, db = deployment.stack, deployment.database
    heads_before = state.scalar(db, "SELECT count(*) FROM audit_audittreehead")
    started = time.monotonic()
    stack.start_beat("worker2")
    try:
        submitted = deployment.submit("two-beats", CASES)
        ids = [case.external_id for case in submitted if case.accepted]
        waited = state.wait_cases_settled(db, ids, timeout=CLAIM_HOLD_SECONDS + 30)
        time.sleep(max(0.0, BOTH_SECONDS - (time.monotonic() - started)))
        second = stack.processes["beat-worker2"].log_text().count("Sending due task sweep-claims")
    finally:
        stack.stop("beat-worker2")
    row.note(f"two beats for {time.monotonic() - started:.0f} s: the cases settled in {waited:.0f} s; the second "
             f"beat sent {second} sweeps beside the first's (each sends one every {SWEEP_PERIOD_SECONDS} s)")
    if second < 2:
        row.problem(f"the second beat sent {second} sweeps: it did not run")
    state.tally_cases(row, db, submitted)

    heads = state.scalar(db, "SELECT count(*) FROM audit_audittreehead") - heads_before
    time.sleep(3)  # the last events of the cases are sealed within AUDIT_SEAL_SECONDS
    verified = stack.manage("audit_verify")
    row.cases += 1
    if verified.returncode == 0:
        row.once += 1
        row.note(f"audit log: {heads} heads sealed meanwhile, one chain: {verified.stdout.strip()[:200]}")
    else:
        row.problem(f"audit_verify exited {verified.returncode}: {(verified.stderr or verified.stdout).strip()[:400]}")
