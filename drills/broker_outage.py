"""Drill: Redis is killed (SIGKILL) while a client submits cases and while a reviewer decides, then comes back
empty (no persistence: every queued message is gone).

Committed means accepted: every submission must still be answered 202 (none 5xx), the reviewer's approval and
edit must stand, and once Redis is back the outbox relay hands over what it missed, so every case finishes
exactly once and the decision's webhook and the edit's re-verification happen, without waiting for the
sweeper's deadline.
"""

from __future__ import annotations

import threading
import time

from drills import cases, state
from drills.deployment import Deployment, wait_for
from drills.report import Row
from drills.stack import CLAIM_HOLD_SECONDS, SWEEP_PERIOD_SECONDS

NAME = "Redis killed during intake + decision"
SUBMISSIONS = 30
BEFORE_KILL = 8
DOWN_SECONDS = 4.0
# A client's pace: some submissions land while Redis is down, the rest after it is back.
PAUSE_SECONDS = 0.2


def drill(deployment: Deployment, row: Row) -> None:
    stack, db, omar = deployment.stack, deployment.database, deployment.person("omar")
    approve_case, edit_case = state.open_escalations(db)[:2]
    approve_on = state.current_candidate(db, approve_case)
    edit_on = state.current_candidate(db, edit_case)
    client = deployment.api()
    submitted: list[state.Submitted] = []
    answers = []
    sent_at: list[float] = []
    go_on = threading.Event()
    go_on.set()

    def intake() -> None:
        for number in range(SUBMISSIONS):
            if number == BEFORE_KILL:
                go_on.clear()  # the main thread kills Redis now; the rest are sent while it is down or back
            go_on.wait(30)
            time.sleep(PAUSE_SECONDS)
            case = state.Submitted(cases.case_body("redis"))
            sent_at.append(time.monotonic())
            answer = client.submit(case.body)
            case.statuses.append(answer.status)
            answers.append(answer)
            if answer.status in (200, 202) and isinstance(answer.body, dict):
                case.case_id = int(answer.body["id"])
            submitted.append(case)

    sender = threading.Thread(target=intake, name="intake")
    sender.start()
    try:
        wait_for(lambda: not go_on.is_set(), timeout=60, interval=0.05)
        stack.redis_kill()
        down_at = time.monotonic()
        go_on.set()
        # While Redis is down: the reviewer approves one case and edits another.
        approved = omar.approve(approve_case, approve_on)
        edited = omar.edit(edit_case, edit_on, cases.EDITED_ANSWER)
        time.sleep(max(0.0, DOWN_SECONDS - (time.monotonic() - down_at)))
        waiting = state.scalar(db, "SELECT count(*) FROM outbox_message WHERE broker = ''")
        stack.redis_start()
        back_at = time.monotonic()
    finally:
        go_on.set()
        sender.join(120)
    while_down = [answer for moment, answer in zip(sent_at, answers, strict=True) if down_at <= moment < back_at]
    slowest = max([answer.seconds for answer in [*while_down, approved, edited]], default=0.0)
    row.note(f"Redis down {back_at - down_at:.1f} s: {len(while_down)} of {len(submitted)} submissions, an approval "
             f"and an edit sent meanwhile (slowest answer {slowest:.1f} s); {waiting} tasks waited in the outbox")
    for what, answer in (("approve", approved), ("edit", edited)):
        if answer.status != 302:
            row.server_errors += answer.server_error
            row.problem(f"{what} while Redis was down: HTTP {answer.status}: {answer.why()}")
    not_accepted = [(case.external_id, case.statuses) for case in submitted if case.statuses != [202]]
    row.server_errors += sum(answer.server_error for answer in answers)
    if not_accepted:
        row.problem(f"submissions not answered 202: {not_accepted[:5]}")

    ids = [case.external_id for case in submitted if case.accepted]
    edit_pk = state.scalar(db, "SELECT id FROM intake_candidate WHERE case_id = %s AND origin = 'REVIEWER' "
                               "ORDER BY position DESC LIMIT 1", [edit_case])

    def settled() -> bool:
        states = state.case_states(db, ids).values()
        return (
            all(s.status not in state.UNFINISHED and s.outcome_deliveries == s.delivered_outcomes for s in states)
            and state.scalar(db, "SELECT count(*) FROM webhooks_webhookdelivery WHERE case_id = %s "
                                 "AND status NOT IN ('DELIVERED', 'FAILED')", [approve_case]) == 0
            and (edit_pk is None or state.scalar(db, "SELECT status FROM review_editverification WHERE "
                                                    "candidate_id = %s", [edit_pk]) in ("DONE", "FAILED"))
        )

    # The relay should bring everything within seconds; past a claim's deadline and a sweep, it is stuck.
    done = wait_for(settled, timeout=CLAIM_HOLD_SECONDS + SWEEP_PERIOD_SECONDS + 20, interval=0.5)
    row.note(f"{'everything settled' if done else 'still unsettled'} {time.monotonic() - back_at:.1f} s after "
             "Redis came back")
    state.tally_cases(row, db, submitted)
    state.tally_decision(row, db, deployment.receiver.received, approve_case, "APPROVE")
    if edit_pk is None:
        row.rows_lost += 1
        row.problem(f"case {edit_case}: the reviewer's edit is not stored")
    else:
        state.tally_edit(row, db, edit_pk)
