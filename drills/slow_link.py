"""Drill: the database host's link turns slow (every conversation with PostgreSQL crosses it: the web hosts',
the workers', beat's work).

`tc netem` adds delay where the kernel has it; this one may not, and then a token bucket narrows the link, so
that packets queue (drills/netns.py). A client submits the same cases before and during: the answers must take
longer (or the drill did not slow anything), and nothing may fail: every submission answered 202, every case
finished exactly once, no timeout tripped.
"""

from __future__ import annotations

import statistics
import time

from drills import cases, state
from drills.console import Answer, ApiClient
from drills.deployment import Deployment
from drills.hosts import CLAIM_HOLD_SECONDS
from drills.report import Row

NAME = "hosts: slow link to PostgreSQL"
CASES = 6
DELAY_MS = 40
RATE_KBIT = 384


def drill(deployment: Deployment, row: Row) -> None:
    stack, db = deployment.stack, deployment.database
    client = ApiClient(stack.web_url, deployment.token)
    before, fast_answers, fast_settled = _measure(deployment, client, "fast-link")
    how = stack.network.slow(stack.host("db"), delay_ms=DELAY_MS, rate_kbit=RATE_KBIT)
    try:
        during, slow_answers, slow_settled = _measure(deployment, client, "slow-link")
    finally:
        stack.network.unslow(stack.host("db"))
    fast = statistics.median(answer.seconds for answer in fast_answers)
    slow = statistics.median(answer.seconds for answer in slow_answers)
    row.note(f"{how}: a submission was answered in {fast:.2f} s (median) before, {slow:.2f} s slowed; "
             f"{CASES} cases from the first submission to the last outcome webhook {fast_settled:.1f} s, then "
             f"{slow_settled:.1f} s")
    if slow <= fast:
        row.problem("the answers did not get slower: the link was not slowed")
    row.server_errors += sum(answer.server_error for answer in [*fast_answers, *slow_answers])
    for case in [*before, *during]:
        if case.statuses != [202]:
            row.problem(f"{case.external_id} was answered {case.statuses}")
    state.tally_cases(row, db, [*before, *during])


def _measure(
    deployment: Deployment, client: ApiClient, drill: str
) -> tuple[list[state.Submitted], list[Answer], float]:
    """Submit CASES cases one by one and wait for them: the cases, the answers, and seconds until all settled."""
    submitted, answers = [], []
    started = time.monotonic()
    for _ in range(CASES):
        case = state.Submitted(cases.case_body(drill))
        answers.append(client.submit(case.body))
        case.record(answers[-1])
        submitted.append(case)
    state.wait_cases_settled(deployment.database, [case.external_id for case in submitted if case.accepted],
                             timeout=CLAIM_HOLD_SECONDS + 30)
    return submitted, answers, time.monotonic() - started
