"""Drill: both web hosts are cut off from Redis while clients keep submitting to both.

Committed means accepted: each submission must still be answered 202 (its task waits in the outbox, the
broker's silence costing the request at most the Redis timeouts), and every case committed meanwhile must be
handed to Redis and finish exactly once, by the relay (its process on web1 once the link heals, or beat's
relay task on a worker host, which still reaches Redis) rather than by the sweeper's deadline.
"""

from __future__ import annotations

import threading
import time

from drills import cases, state
from drills.console import ApiClient
from drills.deployment import Deployment, wait_for
from drills.hosts import CLAIM_HOLD_SECONDS, WEB_HOSTS
from drills.report import Row

NAME = "hosts: web hosts cut off from Redis, intake on"
PER_CLIENT = 16
CUT_AFTER = 4
CUT_SECONDS = 10.0
PAUSE_SECONDS = 0.3


def drill(deployment: Deployment, row: Row) -> None:
    stack, db = deployment.stack, deployment.database
    redis_host = stack.host("redis")
    submitted: list[state.Submitted] = []
    answers = []
    lock = threading.Lock()
    cut, healed = threading.Event(), threading.Event()

    def client(web_host: str) -> None:
        api = ApiClient(stack.url_of(web_host), deployment.token)
        for number in range(PER_CLIENT):
            if number == CUT_AFTER:
                cut.wait(30)
            case = state.Submitted(cases.case_body("cut-web-redis"))
            answer = api.submit(case.body)
            case.record(answer)
            with lock:
                submitted.append(case)
                answers.append((cut.is_set() and not healed.is_set(), answer))
            time.sleep(PAUSE_SECONDS)

    clients = [threading.Thread(target=client, args=(host,), name=f"client-{host}") for host in WEB_HOSTS]
    for thread in clients:
        thread.start()
    wait_for(lambda: len(submitted) >= CUT_AFTER * len(WEB_HOSTS), timeout=60, interval=0.05)
    for host in WEB_HOSTS:
        stack.network.partition(stack.host(host), redis_host)
    cut_at = time.monotonic()
    cut.set()
    try:
        time.sleep(CUT_SECONDS)
        waiting = state.scalar(db, "SELECT count(*) FROM outbox_message WHERE broker = ''")
    finally:
        for host in WEB_HOSTS:
            stack.network.heal(stack.host(host), redis_host)
        healed.set()
    healed_at = time.monotonic()
    for thread in clients:
        thread.join(120)
    during = [answer for was_cut, answer in answers if was_cut]
    row.note(f"web1 and web2 cut off from Redis for {healed_at - cut_at:.0f} s: {len(during)} of {len(answers)} "
             f"submissions sent meanwhile (slowest answer {max((a.seconds for a in during), default=0):.1f} s); "
             f"{waiting} tasks waited in the outbox")
    row.server_errors += sum(answer.server_error for _, answer in answers)
    not_accepted = [(case.external_id, case.statuses) for case in submitted if case.statuses != [202]]
    if not_accepted:
        row.problem(f"submissions not answered 202: {not_accepted[:5]}")
    relayed = wait_for(lambda: state.scalar(db, "SELECT count(*) FROM outbox_message WHERE broker = ''") == 0,
                       timeout=30, interval=0.3)
    row.note(f"the outbox was handed over {time.monotonic() - healed_at:.1f} s after the heal" if relayed
             else "the outbox still held unsent tasks 30 s after the heal")
    ids = [case.external_id for case in submitted if case.accepted]
    # The relay brings everything within seconds; past a claim's deadline it is stuck.
    waited = state.wait_cases_settled(db, ids, timeout=CLAIM_HOLD_SECONDS + 20)
    row.recovered(time.monotonic() - healed_at)
    row.note(f"everything settled {waited:.0f} s after the last submission")
    state.tally_cases(row, db, submitted)
