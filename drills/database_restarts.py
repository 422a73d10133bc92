"""Drill: PostgreSQL restarts (`pg_ctl restart -m fast`, then `-m immediate`: a crash and its recovery) while a
client submits cases and a reviewer approves cases.

The API must answer 202 or its JSON 503 with Retry-After, never a 500 or an HTML page; the client retries a
503 with the same external id, as a client should, and gets its case (202, or 200 when the first try had
committed). Afterwards nothing is half-written (every accepted case has its sources and its `case.received`
event; no case exists that was never accepted), nothing is stuck, every case finished exactly once and every
approval stands exactly once with its webhook delivered.
"""

from __future__ import annotations

import threading
import time

from drills import cases, state
from drills.console import Answer
from drills.deployment import Deployment, wait_for
from drills.report import Row
from drills.stack import CLAIM_HOLD_SECONDS, SWEEP_PERIOD_SECONDS

NAME = "PostgreSQL restarted during intake + review"
SUBMISSIONS = 24
APPROVALS = 4
PAUSE_SECONDS = 0.2
RETRIES = 20


def drill(deployment: Deployment, row: Row) -> None:
    stack, pia = deployment.stack, deployment.person("pia")
    db = deployment.database
    to_approve = [(case_id, state.current_candidate(db, case_id)) for case_id in state.open_escalations(db)[:APPROVALS]]
    submitted: list[state.Submitted] = []
    api_answers: list[Answer] = []
    console_answers: list[tuple[int, Answer]] = []
    started = threading.Event()

    def intake() -> None:
        client = deployment.api()
        for _ in range(SUBMISSIONS):
            time.sleep(PAUSE_SECONDS)
            case = state.Submitted(cases.case_body("postgres"))
            for _ in range(RETRIES):
                answer = client.submit(case.body)
                api_answers.append(answer)
                case.statuses.append(answer.status)
                if answer.status in (200, 202) and isinstance(answer.body, dict):
                    case.case_id = int(answer.body["id"])
                    break
                if answer.status != 503:
                    break  # anything but the promised 503 is counted, not retried
                time.sleep(1)  # sooner than Retry-After: the drill has no minutes to spare
            submitted.append(case)
            started.set()

    def review() -> None:
        for case_id, candidate in to_approve:
            time.sleep(PAUSE_SECONDS * 3)
            for _ in range(RETRIES):
                answer = pia.approve(case_id, candidate)
                console_answers.append((case_id, answer))
                # 302: approved (on to the next case). 409: already decided: an earlier try committed.
                if answer.status < 500:
                    break
                time.sleep(1)

    threads = [threading.Thread(target=intake, name="intake"), threading.Thread(target=review, name="review")]
    for thread in threads:
        thread.start()
    probes: list[tuple[str, Answer]] = []
    try:
        started.wait(30)
        # The first restart in its two halves, so that some requests surely meet a database that is down.
        stack.postgres.pause("fast")
        try:
            client = deployment.api()
            probes.append(("a submission", client.submit(cases.case_body("postgres-down"))))
            probes.append(("a read of a case", client.case(to_approve[0][0])))
        finally:
            stack.postgres.resume()
        time.sleep(1.5)
        stack.postgres_restart("immediate")
        back_at = time.monotonic()
    finally:
        for thread in threads:
            thread.join(180)
    deployment.reconnect()
    db = deployment.database
    for what, answer in probes:
        row.cases += 1
        if answer.status == 503 and not answer.server_error:
            row.once += 1
        else:
            row.server_errors += answer.server_error
            kind = answer.content_type or "no answer"
            row.problem(f"{what} while PostgreSQL was down: HTTP {answer.status} ({kind}), wanted the JSON 503 "
                        f"with Retry-After: {answer.why()}")
    if state.scalar(db, "SELECT count(*) FROM intake_case WHERE external_id LIKE %s",
                    [f"{cases.id_prefix('postgres-down')}%"]):
        row.rows_lost += 1
        row.problem("the submission answered 503 while PostgreSQL was down is stored")

    unavailable = sum(answer.status == 503 and not answer.server_error for answer in api_answers)
    row.server_errors += sum(answer.server_error for answer in api_answers)
    wrong = [answer for answer in api_answers if answer.status not in (200, 202, 503) or answer.server_error]
    for answer in wrong[:3]:
        row.problem(f"the API answered HTTP {answer.status} ({answer.content_type or 'no answer'}): {answer.why()}")
    # The console's pages promise no 503 (the API does): a 500 page while the database is away is reported, and
    # the reviewer retries, as a person would; the decision must then stand exactly once.
    console_errors = [(case_id, answer) for case_id, answer in console_answers if answer.status >= 500]
    if console_errors:
        row.note(f"the console answered {len(console_errors)} approval post(s) with HTTP "
                 f"{sorted({answer.status for _, answer in console_errors})} while PostgreSQL restarted "
                 f"({console_errors[0][1].why()[:80]}...); each was retried")
    refused = [(case_id, answer.status) for case_id, answer in console_answers if answer.status not in (302, 409)
               and answer.status < 500]
    if refused:
        row.problem(f"approvals refused: {refused}")
    row.note(f"2 restarts; the API answered {len(api_answers)} submissions: {unavailable} JSON 503 with Retry-After "
             f"(retried), {len(wrong)} other failures; {len(console_answers)} approval posts for {APPROVALS} cases; "
             f"while it was down, a submission and a read got HTTP {[answer.status for _, answer in probes]}")

    ids = [case.external_id for case in submitted if case.accepted]

    def settled() -> bool:
        states = state.case_states(db, ids).values()
        undelivered = state.scalar(db, "SELECT count(*) FROM webhooks_webhookdelivery WHERE case_id = ANY(%s) "
                                       "AND status NOT IN ('DELIVERED', 'FAILED')", [[c for c, _ in to_approve]])
        return undelivered == 0 and all(
            s.status not in state.UNFINISHED and s.outcome_deliveries == s.delivered_outcomes for s in states)

    # Work whose worker lost the database mid-claim waits for its claim to lapse and a sweep.
    done = wait_for(settled, timeout=CLAIM_HOLD_SECONDS + SWEEP_PERIOD_SECONDS + 20, interval=0.5)
    row.note(f"{'everything settled' if done else 'still unsettled'} {time.monotonic() - back_at:.1f} s after the "
             "second restart")
    state.tally_cases(row, db, submitted)
    stray = state.scalar(db, "SELECT count(*) FROM intake_case WHERE external_id LIKE %s AND NOT (external_id = "
                             "ANY(%s))", [f"{cases.id_prefix('postgres')}%", ids])
    if stray:
        row.rows_lost += stray
        row.problem(f"{stray} cases are stored that the API never accepted")
    for case_id, _ in to_approve:
        state.tally_decision(row, db, deployment.receiver.received, case_id, "APPROVE")
