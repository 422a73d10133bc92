"""Drill: the worker is SIGKILLed in the middle of every kind of task, and each piece of work still finishes
exactly once.

The five kinds (`reviewconsole/*/tasks.py`): a case run (`intake.verify_case`), the re-verification of a
reviewer's edit (`review.verify_edit`), a calibration run (`policy.calibrate`), an audit file export
(`audit.export`) and a webhook delivery (`webhooks.deliver_webhook`).

"In the middle" is made certain, not hoped for: while no worker runs, the work is queued through the console
(a client's submission, a reviewer's edit and decision, a policy admin's calibration, a support lead's export);
then the drill's own connection locks three tables each task reads only after its claim has committed (the
case's sources, the rubric versions, the audit events) and the webhook endpoint holds its next request open.
A new worker claims all five and stops there; the drill sees every claim committed and every worker connection
waiting, kills the worker's whole process group with SIGKILL, lets go of the locks and starts another worker.
Nothing then tells the system the work was lost: the claims lapse at their deadline and the sweeper (beat,
every minute) hands the work back. (Redis would redeliver the unacknowledged messages too, but only after its
visibility timeout, an hour: the sweeper must get there first.)
"""

from __future__ import annotations

import re
import time

from drills import cases, state
from drills.deployment import Deployment, wait_for
from drills.report import Row
from drills.stack import CLAIM_HOLD_SECONDS, EXPORT_HOLD_SECONDS, SWEEP_PERIOD_SECONDS

NAME = "worker SIGKILL mid-task (5 task types)"
RUBRIC = "support-critic"
# Read by the tasks right after their claims commit: a case's sources (a case run, an edit's verification), the
# rubric version (a calibration run), the audit events (a file export). Nothing else the drill does needs them.
PINNED_TABLES = "intake_source, policy_rubricversion, audit_auditevent"


def drill(deployment: Deployment, row: Row) -> None:
    stack, db = deployment.stack, deployment.database
    rita, paula, sam = deployment.person("rita"), deployment.person("paula"), deployment.person("sam")
    edit_case, decide_case = state.open_escalations(db)[:2]

    # No worker: everything below waits in Redis (and in the outbox) for the next one.
    stack.worker_stop()
    case = deployment.submit("kill", 1)[0]
    edited = rita.edit(edit_case, state.current_candidate(db, edit_case), cases.EDITED_ANSWER)
    decided = rita.reject(decide_case, state.current_candidate(db, decide_case))
    calibration = paula.post(f"/policy/rubrics/{RUBRIC}/v1/calibrate")
    export = sam.post("/audit/exports/new", {"format": "csv"})
    for what, answer in (("edit", edited), ("reject", decided), ("calibrate", calibration), ("export", export)):
        if answer.status != 302:
            row.server_errors += answer.status >= 500
            row.problem(f"{what}: HTTP {answer.status} instead of a redirect: {answer.why()}")
    if not case.accepted or row.problems:
        row.problem(f"the work could not be queued (submission HTTP {case.statuses})")
        return
    calibration_id = _id_in(calibration.location, r"/policy/calibration/(\d+)/")
    export_id = _id_in(export.location, r"/audit/exports/(\d+)/")
    edit_pk = state.scalar(db, "SELECT id FROM intake_candidate WHERE case_id = %s AND origin = 'REVIEWER' "
                               "ORDER BY position DESC LIMIT 1", [edit_case])
    delivery_id = state.scalar(db, "SELECT id FROM webhooks_webhookdelivery WHERE case_id = %s "
                                   "AND event_type = 'case.decided'", [decide_case])
    message_id = state.scalar(db, "SELECT message_id FROM webhooks_webhookdelivery WHERE id = %s", [delivery_id])

    pins = stack.connect(autocommit=False)
    try:
        pins.execute(f"LOCK TABLE {PINNED_TABLES} IN ACCESS EXCLUSIVE MODE")
        deployment.receiver.hold_next(1)
        stack.worker_start()
        mid_task = {
            "case run": lambda: state.scalar(db, "SELECT status FROM intake_case WHERE id = %s",
                                             [case.case_id]) == "RUNNING",
            "edit verification": lambda: state.scalar(
                db, "SELECT status FROM review_editverification WHERE candidate_id = %s", [edit_pk]) == "RUNNING",
            "calibration run": lambda: state.scalar(
                db, "SELECT status FROM policy_calibrationrun WHERE id = %s", [calibration_id]) == "RUNNING",
            "file export": lambda: state.scalar(
                db, "SELECT status FROM audit_auditexport WHERE id = %s", [export_id]) == "RUNNING",
            "webhook delivery": lambda: message_id in deployment.receiver.held(),
        }
        # Claimed (committed), and the worker's connections stuck on the pins: past the claim, before the result.
        blocked = f"SELECT count(*) FROM pg_stat_activity WHERE {pins.info.backend_pid} = ANY(pg_blocking_pids(pid))"
        wait_for(lambda: all(check() for check in mid_task.values()) and state.scalar(db, blocked) >= 4,
                 timeout=60)
        not_mid = [name for name, check in mid_task.items() if not check()]
        stack.worker_kill()
        killed_at = time.monotonic()
    finally:
        pins.rollback()
        pins.close()
        deployment.receiver.release()
    if not_mid:
        row.problem(f"not caught mid-task when the worker was killed: {', '.join(not_mid)}")
    row.note(f"worker SIGKILLed with all {len(mid_task) - len(not_mid)} of {len(mid_task)} tasks claimed and "
             "unfinished; a new worker started at once")
    stack.worker_start()

    def settled() -> bool:
        return (
            state.scalar(db, "SELECT status FROM intake_case WHERE id = %s", [case.case_id]) in state.TERMINAL
            and state.scalar(db, "SELECT status FROM review_editverification WHERE candidate_id = %s",
                             [edit_pk]) in ("DONE", "FAILED")
            and state.scalar(db, "SELECT status FROM policy_calibrationrun WHERE id = %s",
                             [calibration_id]) in ("DONE", "FAILED")
            and state.scalar(db, "SELECT status FROM audit_auditexport WHERE id = %s",
                             [export_id]) in ("DONE", "FAILED")
            and state.scalar(db, "SELECT status FROM webhooks_webhookdelivery WHERE id = %s",
                             [delivery_id]) in ("DELIVERED", "FAILED")
            and state.scalar(db, "SELECT count(*) FROM webhooks_webhookdelivery WHERE case_id = %s AND status "
                                 "NOT IN ('DELIVERED', 'FAILED')", [case.case_id]) == 0
        )

    # The longest claim (an export's) lapses EXPORT_HOLD_SECONDS after it was taken; the next sweep takes it.
    done = wait_for(settled, timeout=EXPORT_HOLD_SECONDS + SWEEP_PERIOD_SECONDS + 30, interval=0.5)
    row.note(f"{'everything settled' if done else 'still unsettled'} {time.monotonic() - killed_at:.0f} s after the "
             f"kill (claims lapse after "
             f"{CLAIM_HOLD_SECONDS} s, an export's after {EXPORT_HOLD_SECONDS} s; the sweeper runs every "
             f"{SWEEP_PERIOD_SECONDS} s)")

    state.tally_cases(row, db, [case])
    state.tally_edit(row, db, edit_pk)
    _tally_calibration(row, deployment, calibration_id)
    _tally_export(row, deployment, export_id)
    _tally_delivery(row, deployment, delivery_id, message_id)


def _id_in(location: str, pattern: str) -> int:
    match = re.search(pattern, location)
    if match is None:
        raise RuntimeError(f"no id in the redirect {location!r}")
    return int(match.group(1))


def _tally_calibration(row: Row, deployment: Deployment, run_id: int) -> None:
    row.cases += 1
    status, attempts, done, total, results = state.one(
        deployment.database, "SELECT status, attempts, fixtures_done, fixtures_total, jsonb_array_length(results) "
        "FROM policy_calibrationrun WHERE id = %s", [run_id])
    if status in ("QUEUED", "RUNNING"):
        row.stuck += 1
        row.problem(f"calibration run {run_id} is still {status} after {attempts} attempt(s)")
    elif done != total or results != total:
        row.duplicated += done > total or results > total
        row.problem(f"calibration run {run_id}: {done} fixtures done, {results} results, of {total}")
    elif status != "DONE":
        row.problem(f"calibration run {run_id} ended {status}")
    else:
        row.once += 1
        row.note(f"calibration run: DONE after {attempts} claims, {total} of {total} fixtures scored once")


def _tally_export(row: Row, deployment: Deployment, export_id: int) -> None:
    row.cases += 1
    status, attempts, rows_total, rows_done, file_name = state.one(
        deployment.database,
        "SELECT status, attempts, rows_total, rows_done, file_name FROM audit_auditexport WHERE id = %s", [export_id])
    directory = deployment.stack.var_dir / "exports"
    written = directory / file_name if file_name else None
    leftovers = sorted(path.name for path in directory.glob("*.part")) if directory.exists() else []
    if status in ("QUEUED", "RUNNING"):
        row.stuck += 1
        row.problem(f"export {export_id} is still {status} after {attempts} attempt(s)")
        return
    lines = written.read_text(encoding="utf-8").count("\n") if written and written.exists() else -1
    # A CSV export is a header and one line per event (payloads are JSON on one line).
    if status != "DONE" or lines != rows_total + 1 or rows_done != rows_total or leftovers:
        row.problem(f"export {export_id} ended {status}: {rows_done} of {rows_total} rows, file {file_name!r} "
                    f"with {lines} lines, half-written files {leftovers}")
    else:
        row.once += 1
        row.note(f"file export: DONE after {attempts} claims, {rows_total} rows in one whole file")


def _tally_delivery(row: Row, deployment: Deployment, delivery_id: int, message_id: str) -> None:
    row.cases += 1
    db = deployment.database
    status, attempts, case_id = state.one(
        db, "SELECT status, attempts, case_id FROM webhooks_webhookdelivery WHERE id = %s", [delivery_id])
    messages = state.scalar(db, "SELECT count(*) FROM webhooks_webhookdelivery WHERE case_id = %s "
                                "AND event_type = 'case.decided'", [case_id])
    arrived = deployment.receiver.received(message_id)
    if status in ("PENDING", "SENDING"):
        row.stuck += 1
        row.problem(f"webhook delivery {delivery_id} is still {status} after {attempts} attempt(s)")
    elif messages != 1:
        row.duplicated += 1
        row.problem(f"case {case_id}'s decision made {messages} webhook messages")
    elif status != "DELIVERED" or arrived < 1:
        row.problem(f"webhook delivery {delivery_id} ended {status}; the endpoint got it {arrived} times")
    else:
        row.once += 1
        row.note(f"webhook delivery: DELIVERED after {attempts} attempts; the endpoint got message {message_id} "
                 f"{arrived} times (the killed attempt's included: at least once, one message id)")
    unsigned = deployment.receiver.unsigned()
    if unsigned:
        row.problem(f"{len(unsigned)} webhook requests did not carry a valid signature")
