"""What the database says about the drills' work, read over a connection of the drill's own.

"Finished exactly once", for a case: it ended RELEASED, ESCALATED or REJECTED, the log holds exactly one
`case.terminal` event for it (one stored run), and exactly one outcome webhook was recorded for it and
delivered. A retry of the same delivery after a lost answer is the same message (same `webhook-id`, which a
client de-duplicates on) and is not counted as a duplicate; a second *message* about the outcome would be.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import psycopg

from drills.report import Row

TERMINAL = ("RELEASED", "ESCALATED", "REJECTED")
UNFINISHED = ("QUEUED", "RUNNING")
OUTCOME_EVENTS = ("case.released", "case.escalated", "case.rejected", "case.failed")


@dataclass
class Submitted:
    """A case a drill sent, and what the API answered for it."""

    body: dict[str, Any]
    statuses: list[int] = field(default_factory=list)
    case_id: int | None = None

    @property
    def external_id(self) -> str:
        return str(self.body["external_id"])

    def record(self, answer: Any) -> None:
        """Keep what the API answered to one sending of the case (a `console.Answer`)."""
        self.statuses.append(answer.status)
        if answer.status in (200, 202) and isinstance(answer.body, dict):
            self.case_id = int(answer.body["id"])

    @property
    def accepted(self) -> bool:
        """The API said it has the case (202, or 200 for a retry of a case it had)."""
        return self.case_id is not None


@dataclass(frozen=True)
class CaseState:
    case_id: int
    external_id: str
    status: str
    attempts: int
    sources: int
    received_events: int
    terminal_events: int
    outcome_deliveries: int
    delivered_outcomes: int


def case_states(connection: psycopg.Connection, external_ids: list[str]) -> dict[str, CaseState]:
    """Every stored case among `external_ids`, with the counts that tell once from twice."""
    rows = connection.execute(
        """
        SELECT c.id, c.external_id, c.status, c.attempts,
               (SELECT count(*) FROM intake_source s WHERE s.case_id = c.id),
               (SELECT count(*) FROM audit_auditevent e WHERE e.case_id = c.id AND e.action = 'case.received'),
               (SELECT count(*) FROM audit_auditevent e WHERE e.case_id = c.id AND e.action = 'case.terminal'),
               (SELECT count(*) FROM webhooks_webhookdelivery d WHERE d.case_id = c.id AND d.event_type = ANY(%s)),
               (SELECT count(*) FROM webhooks_webhookdelivery d
                 WHERE d.case_id = c.id AND d.event_type = ANY(%s) AND d.status = 'DELIVERED')
        FROM intake_case c WHERE c.external_id = ANY(%s)
        """,
        [list(OUTCOME_EVENTS), list(OUTCOME_EVENTS), external_ids],
    ).fetchall()
    return {row[1]: CaseState(*row) for row in rows}


def wait_cases_settled(connection: psycopg.Connection, external_ids: list[str], *, timeout: float) -> float:
    """Wait until none of the cases is queued or running and every outcome webhook is delivered; seconds waited.

    Returns at the timeout too: whatever is unfinished then is counted as stuck.
    """
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        states = case_states(connection, external_ids).values()
        if all(state.status not in UNFINISHED and state.outcome_deliveries == state.delivered_outcomes
               for state in states):
            break
        time.sleep(0.5)
    return time.monotonic() - started


def tally_cases(row: Row, connection: psycopg.Connection, submitted: list[Submitted]) -> None:
    """Add each accepted case to the row: finished exactly once, stuck, duplicated, or lost."""
    accepted = [case for case in submitted if case.accepted]
    states = case_states(connection, [case.external_id for case in accepted])
    row.cases += len(accepted)
    for case in accepted:
        state = states.get(case.external_id)
        expected_sources = len(case.body.get("sources") or [])
        if state is None or state.case_id != case.case_id:
            row.rows_lost += 1
            row.problem(f"case {case.external_id} was accepted (HTTP {case.statuses}) but is not stored")
            continue
        if state.sources != expected_sources or state.received_events != 1:
            row.rows_lost += 1
            row.problem(f"case {state.case_id} is half-written: {state.sources} of {expected_sources} sources, "
                        f"{state.received_events} case.received events")
            continue
        if state.status in UNFINISHED:
            row.stuck += 1
            row.problem(f"case {state.case_id} is still {state.status} after {state.attempts} attempt(s)")
            continue
        if state.terminal_events > 1 or state.outcome_deliveries > 1:
            row.duplicated += 1
            row.problem(f"case {state.case_id} finished {state.terminal_events} times "
                        f"({state.outcome_deliveries} outcome webhooks)")
            continue
        if state.status not in TERMINAL:
            row.problem(f"case {state.case_id} ended {state.status}")
            continue
        if state.terminal_events != 1 or state.delivered_outcomes != 1:
            row.problem(f"case {state.case_id} is {state.status} with {state.terminal_events} stored runs and "
                        f"{state.delivered_outcomes} delivered outcome webhooks")
            continue
        row.once += 1


def tally_edit(row: Row, db: psycopg.Connection, candidate_pk: int) -> None:
    """The re-verification of a reviewer's edit: done once (one `edit.verified` event, each claim stored once)."""
    row.cases += 1
    status, attempts = one(db, "SELECT status, attempts FROM review_editverification WHERE candidate_id = %s",
                           [candidate_pk])
    verified = scalar(db, "SELECT count(*) FROM audit_auditevent e JOIN intake_candidate c "
                          "ON e.case_id = c.case_id AND e.object_id = c.candidate_id "
                          "WHERE e.action = 'edit.verified' AND c.id = %s", [candidate_pk])
    claims, distinct = one(db, "SELECT count(*), count(DISTINCT claim_id) FROM intake_claim WHERE candidate_id = %s",
                           [candidate_pk])
    if status in ("PENDING", "RUNNING"):
        row.stuck += 1
        row.problem(f"the edit's verification is still {status} after {attempts} attempt(s)")
    elif verified > 1 or claims != distinct:
        row.duplicated += 1
        row.problem(f"the edit was verified {verified} times ({claims} claim rows, {distinct} claims)")
    elif status != "DONE" or verified != 1 or claims == 0:
        row.problem(f"the edit's verification ended {status} ({verified} edit.verified events, {claims} claims)")
    else:
        row.once += 1
        row.note(f"edit verification: DONE after {attempts} claims, {claims} claims stored once")


def scalar(connection: psycopg.Connection, sql: str, params: list[Any] | None = None) -> Any:
    """The first column of the first row; None when there is no row."""
    found = connection.execute(sql, params or []).fetchone()
    return found[0] if found else None


def one(connection: psycopg.Connection, sql: str, params: list[Any] | None = None) -> tuple[Any, ...]:
    """The one row the query must find."""
    found = connection.execute(sql, params or []).fetchone()
    if found is None:
        raise LookupError(f"no row for {sql!r} with {params}")
    return tuple(found)


def current_candidate(connection: psycopg.Connection, case_id: int) -> tuple[str, str]:
    """The newest version of a case, as the case page's forms name it (candidate id, sha256)."""
    found = connection.execute(
        "SELECT candidate_id, sha256 FROM intake_candidate WHERE case_id = %s ORDER BY position DESC LIMIT 1",
        [case_id],
    ).fetchone()
    if found is None:
        raise LookupError(f"case {case_id} has no stored candidate")
    return str(found[0]), str(found[1])


def open_escalations(connection: psycopg.Connection) -> list[int]:
    """Case ids of open escalations nobody holds and nobody has decided or edited yet, oldest first."""
    rows = connection.execute(
        "SELECT e.case_id FROM review_escalation e WHERE e.status = 'OPEN' AND (e.lease_expires_at IS NULL "
        "OR e.lease_expires_at < now()) AND NOT EXISTS (SELECT 1 FROM review_decision d WHERE d.case_id = e.case_id) "
        "ORDER BY e.created_at, e.id"
    ).fetchall()
    return [int(row[0]) for row in rows]


def tally_decision(
    row: Row, db: psycopg.Connection, receiver_received: Callable[[str], int], case_id: int, kind: str
) -> None:
    """A reviewer's decision: stored once, the case closed, its webhook recorded once and delivered."""
    row.cases += 1
    status = scalar(db, "SELECT status FROM review_escalation WHERE case_id = %s", [case_id])
    decisions = scalar(db, "SELECT count(*) FROM review_decision WHERE case_id = %s AND kind = %s", [case_id, kind])
    events = scalar(db, "SELECT count(*) FROM audit_auditevent WHERE case_id = %s AND action LIKE 'decision.%%' "
                        "AND action <> 'decision.edited'", [case_id])
    deliveries = db.execute("SELECT status, message_id FROM webhooks_webhookdelivery WHERE case_id = %s "
                            "AND event_type = 'case.decided'", [case_id]).fetchall()
    if decisions == 0 or status != "DECIDED":
        row.rows_lost += 1
        row.problem(f"case {case_id}: the {kind} decision is not stored ({decisions} decisions, escalation {status})")
    elif decisions > 1 or events > 1 or len(deliveries) > 1:
        row.duplicated += 1
        row.problem(f"case {case_id}: {decisions} {kind} decisions, {events} decision events, "
                    f"{len(deliveries)} webhook messages")
    elif any(delivery_status in ("PENDING", "SENDING") for delivery_status, _ in deliveries):
        row.stuck += 1
        row.problem(f"case {case_id}: the decision's webhook is still {deliveries[0][0]}")
    elif events != 1 or len(deliveries) != 1 or deliveries[0][0] != "DELIVERED" or not receiver_received(
            deliveries[0][1]):
        row.problem(f"case {case_id}: {events} decision events, webhook {deliveries}")
    else:
        row.once += 1
