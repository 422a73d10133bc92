"""Drill: a worker host is cut off from Redis while it holds tasks, for longer than the visibility timeout,
then the partition heals.

worker1 alone is running when a client submits a batch of cases: it takes the first ones (acknowledged only
once finished, so Redis keeps them as unacknowledged), and then its link to Redis goes silent. worker1 can
still reach PostgreSQL, so it finishes what it holds, but it cannot acknowledge it. Past the visibility
timeout worker2 starts: a worker that starts hands back to the queue every message left unacknowledged longer
than that, so worker2 gets worker1's tasks a second time, beside the rest of the batch, and must find their
cases done. When the partition heals, worker1 carries on (its supervisor restarts it if it gave up). Every
case must finish exactly once: one stored run, one outcome, one outcome webhook.
"""

from __future__ import annotations

import json
import time

import redis

from drills import state
from drills.deployment import Deployment, wait_for
from drills.hosts import CLAIM_HOLD_SECONDS, SWEEP_PERIOD_SECONDS, VISIBILITY_SECONDS, WORKER_CONCURRENCY
from drills.report import Row

NAME = "hosts: worker cut off from Redis > visibility"
CASES = 10


def drill(deployment: Deployment, row: Row) -> None:
    stack, db = deployment.stack, deployment.database
    broker = redis.Redis.from_url(stack.redis_url, socket_timeout=2)
    stack.stop("worker2")
    submitted = deployment.submit("cut-redis", CASES)
    # worker1 holds tasks: Redis lists them as delivered and not yet acknowledged.
    holding = wait_for(lambda: broker.hlen("unacked") >= WORKER_CONCURRENCY, timeout=30, interval=0.1)
    held = [json.loads(value)[0]["headers"]["id"] for value in broker.hvals("unacked")]
    stack.network.partition(stack.host("worker1"), stack.host("redis"))
    cut_at = time.monotonic()
    try:
        if not holding:
            row.problem(f"worker1 held {len(held)} tasks when cut off (expected {WORKER_CONCURRENCY})")
        time.sleep(VISIBILITY_SECONDS + 1)
        stack.start_worker("worker2")
        unfinished = sum(s.status in state.UNFINISHED for s in state.case_states(
            db, [case.external_id for case in submitted]).values())
    finally:
        stack.network.heal(stack.host("worker1"), stack.host("redis"))
    healed_at = time.monotonic()
    row.note(f"worker1 cut off from Redis for {healed_at - cut_at:.0f} s holding {len(held)} unacknowledged tasks "
             f"(visibility timeout {VISIBILITY_SECONDS} s); {unfinished} of {CASES} cases unfinished at the heal")
    ids = [case.external_id for case in submitted if case.accepted]
    waited = state.wait_cases_settled(db, ids, timeout=CLAIM_HOLD_SECONDS + SWEEP_PERIOD_SECONDS + 30)
    row.recovered(waited)
    again = [task for task in held if f"[{task}] received" in stack.processes["worker2"].log_text()]
    row.note(f"{len(again)} of the {len(held)} tasks worker1 held were delivered to worker2 as well; everything "
             f"settled {waited:.0f} s after the heal")
    # Back to normal: worker1 takes work again (a case it alone can run while worker2 is stopped).
    stack.stop("worker2")
    probe = deployment.submit("cut-redis", 1)
    state.wait_cases_settled(db, [case.external_id for case in probe], timeout=60)
    after = state.case_states(db, [probe[0].external_id]).get(probe[0].external_id)
    if after is None or after.status in state.UNFINISHED:
        row.problem("after the heal worker1 did not take new work within 60 s")
    stack.start_worker("worker2")
    state.tally_cases(row, db, [*submitted, *probe])
    broker.close()
