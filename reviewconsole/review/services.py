"""Writes for review: decisions (approve, edit, reject), notes, and the re-verification of edits."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from reviewconsole import work_claims
from reviewconsole.intake import outcomes
from reviewconsole.intake.constitutions import case_constitution
from reviewconsole.intake.models import Candidate
from reviewconsole.intake.services import candidate_checks_store, candidate_claims_store, case_contract
from reviewconsole.policy.engine import run_engine
from reviewconsole.queues import enqueue_on_commit, task_hold
from reviewconsole.review import audit_events
from reviewconsole.review.leases import escalation_lease_renew, lease_held_by_other
from reviewconsole.review.models import (
    CaseNote,
    Decision,
    DecisionKind,
    EditVerification,
    EditVerificationStatus,
    Escalation,
    EscalationStatus,
)
from reviewconsole.review.states import FAILING_STATES
from reviewconsole.webhooks import services as webhooks
from reviewconsole.webhooks.payloads import case_outcome_payload
from verification import RunRecord


class DecisionRefused(Exception):
    """A decision that cannot be taken as asked; `field` names the form field at fault, if any."""

    status_code = 409

    def __init__(self, message: str, *, field: str | None = None):
        super().__init__(message)
        self.field = field


class CaseChanged(DecisionRefused):
    """The case is no longer as the reviewer saw it: a newer candidate, or someone else decided."""


class OverrideRequired(DecisionRefused):
    status_code = 400


class InvalidEdit(DecisionRefused):
    status_code = 400


def _lock_for_decision(
    *, escalation_id: int, reviewer: User, candidate_id: str, sha256: str, now: datetime
) -> tuple[Escalation, Candidate]:
    """Lock the escalation and check the reviewer may decide on exactly the candidate they saw.

    Runs inside the caller's transaction; the row lock serializes decisions on one case.
    """
    # Lock only the escalation row: locking the joined client too would serialize every reviewer's
    # decisions on that client's cases.
    escalation = Escalation.objects.select_for_update(of=("self",)).select_related("case__client").get(pk=escalation_id)
    if escalation.status != EscalationStatus.OPEN:
        raise CaseChanged("This case was already decided.")
    if lease_held_by_other(escalation, reviewer, now):
        raise DecisionRefused("Another reviewer holds this case.")
    current = Candidate.objects.filter(case_id=escalation.case_id).order_by("-position").first()
    if current is None or current.candidate_id != candidate_id or current.sha256 != sha256:
        raise CaseChanged("The case changed since you opened it: a newer version is on screen now.")
    return escalation, current


def _pending_verification(candidate: Candidate) -> EditVerification | None:
    return EditVerification.objects.filter(candidate=candidate).first()


def decision_approve(
    *,
    escalation_id: int,
    reviewer: User,
    candidate_id: str,
    sha256: str,
    now: datetime,
    note: str = "",
    override_reason: str = "",
) -> Decision:
    """Release exactly the candidate the reviewer saw. Failing claims need a written override reason."""
    with transaction.atomic():
        escalation, candidate = _lock_for_decision(
            escalation_id=escalation_id, reviewer=reviewer, candidate_id=candidate_id, sha256=sha256, now=now
        )
        verification = _pending_verification(candidate)
        if verification is not None and not verification.is_finished:
            raise DecisionRefused("Your edit is still being verified; approve it once the result is in.")
        unverified = verification is not None and verification.status == EditVerificationStatus.FAILED
        failing = candidate.claims.filter(state__in=FAILING_STATES).count()
        if (failing or unverified) and not override_reason.strip():
            why = f"{failing} claim(s) still fail" if failing else "the edit could not be verified"
            raise OverrideRequired(f"Approving needs an override reason: {why}.", field="override_reason")
        decision = Decision.objects.create(
            case=escalation.case, reviewer=reviewer, kind=DecisionKind.APPROVE, candidate=candidate,
            note=note, override_reason=override_reason.strip(),
        )
        outcomes.case_release_approved(case=escalation.case, candidate=candidate)
        _close(escalation, decision, now)
        return decision


def decision_reject(
    *,
    escalation_id: int,
    reviewer: User,
    candidate_id: str,
    sha256: str,
    reason_code: str,
    now: datetime,
    note: str = "",
) -> Decision:
    """Refuse the case: nothing is released to the client."""
    with transaction.atomic():
        escalation, candidate = _lock_for_decision(
            escalation_id=escalation_id, reviewer=reviewer, candidate_id=candidate_id, sha256=sha256, now=now
        )
        decision = Decision.objects.create(
            case=escalation.case, reviewer=reviewer, kind=DecisionKind.REJECT, candidate=candidate,
            reason_code=reason_code, note=note,
        )
        outcomes.case_reject(case=escalation.case)
        _close(escalation, decision, now)
        return decision


def _close(escalation: Escalation, decision: Decision, now: datetime) -> None:
    """Take the case out of the queue, release the lease and tell the client, in the caller's transaction."""
    escalation.status = EscalationStatus.DECIDED
    escalation.decided_at = now
    escalation.lease_expires_at = None
    escalation.save(update_fields=["status", "decided_at", "lease_expires_at"])
    audit_events.decision(decision=decision)
    payload = {
        **case_outcome_payload(escalation.case),
        "decision": {
            "kind": decision.kind,
            "candidate": decision.candidate.candidate_id,
            "reason_code": decision.reason_code or None,
            "override": bool(decision.override_reason),
        },
    }
    if decision.kind == DecisionKind.APPROVE:
        payload["answer"] = decision.candidate.text
    webhooks.webhook_event_record(case=escalation.case, event_type=webhooks.CASE_DECIDED, payload=payload)


def candidate_edit(
    *,
    escalation_id: int,
    reviewer: User,
    candidate_id: str,
    sha256: str,
    text: str,
    now: datetime,
    note: str = "",
) -> Candidate:
    """Make the reviewer's text the newest candidate and have a worker verify it again.

    The edit is recorded as an EDIT decision but does not close the case: the reviewer approves (or
    rejects) the verified edit afterwards, so the lease stays with them.
    """
    text = text.strip()
    with transaction.atomic():
        escalation, parent = _lock_for_decision(
            escalation_id=escalation_id, reviewer=reviewer, candidate_id=candidate_id, sha256=sha256, now=now
        )
        if not text:
            raise InvalidEdit("The edited answer is empty.", field="text")
        if text == parent.text:
            raise InvalidEdit("The edited answer is the same as the current one.", field="text")
        candidate = outcomes.candidate_reviewer_add(parent=parent, text=text)
        EditVerification.objects.create(candidate=candidate, requested_by=reviewer)
        decision = Decision.objects.create(
            case_id=escalation.case_id, reviewer=reviewer, kind=DecisionKind.EDIT, candidate=candidate, note=note
        )
        audit_events.decision(decision=decision)
        escalation_lease_renew(escalation=escalation, reviewer=reviewer, now=now)
        from reviewconsole.review.tasks import verify_edit

        enqueue_on_commit(verify_edit, candidate.pk)
        return candidate


def case_note_add(*, escalation: Escalation, author: User, text: str) -> CaseNote:
    text = text.strip()
    if not text:
        raise InvalidEdit("A note needs some text.", field="text")
    with transaction.atomic():
        note = CaseNote.objects.create(case_id=escalation.case_id, author=author, text=text)
        audit_events.note_added(note=note)
        return note


# --- Re-verification of an edit (the worker's side) -----------------------------------------------

# Named by the candidate's id, as the task is: a candidate has at most one verification.
EDIT_VERIFICATIONS = work_claims.WorkKind(
    doing="verifying the edit",
    model=EditVerification,
    waiting=EditVerificationStatus.PENDING,
    running=EditVerificationStatus.RUNNING,
    failed=EditVerificationStatus.FAILED,
    id_field="candidate_id",
)


def edit_verification_run(*, candidate_pk: int) -> EditVerification | None:
    """Check the edited text against the case's own sources, as the engine checks a client's answer.

    None when the verification is not ours to run. A failure fails it with its reason (the reviewer may
    still approve with a written override), except a transient one a retry will come for.
    """
    claim = edit_verification_claim(candidate_pk=candidate_pk, now=timezone.now())
    if claim is None:
        return None
    with work_claims.settling(claim):
        candidate = Candidate.objects.select_related("case").get(pk=candidate_pk)
        submission = case_contract(candidate.case).model_copy(update={"answer": candidate.text})
        # Verified under the version the case pinned, as its first run was, not whatever is in force now.
        # A reviewer's text is checked as written: the engine does not repair a person's edit.
        record = run_engine(submission, constitution=case_constitution(candidate.case), repair="none")
        return edit_verification_finish(claim=claim, candidate=candidate, record=record, now=timezone.now())
    return None


def edit_verification_claim(*, candidate_pk: int, now: datetime) -> work_claims.Claim | None:
    """Take a pending verification, or a running one past its deadline (its worker died)."""
    return work_claims.claim(EDIT_VERIFICATIONS, work_id=candidate_pk, now=now, deadline=now + task_hold())


def edit_verification_finish(
    *, claim: work_claims.Claim, candidate: Candidate, record: RunRecord, now: datetime
) -> EditVerification | None:
    """Store the verified claims of the edit and mark it done, if the claim still holds.

    The engine's first candidate is the reviewer's text as written; later ones would be the engine's
    own repairs, which a reviewer's edit does not get.
    """
    checked = record.candidates[0]
    if checked.sha256 != candidate.sha256:
        raise ValueError(f"the engine checked a different text than candidate {candidate.candidate_id}")
    with transaction.atomic():
        verification = work_claims.lock(claim)
        if verification is None:
            return None
        candidate_claims_store(candidate=candidate, claims=checked.claims)
        candidate_checks_store(candidate=candidate, rule_verdicts=checked.rule_verdicts, findings=checked.findings)
        verification.status = EditVerificationStatus.DONE
        verification.terminal = record.terminal.value
        verification.reason = record.reason.value
        verification.finished_at = now
        verification.claim_token = None
        verification.run_deadline = None
        verification.save()
        audit_events.edit_verified(verification=verification)
        return verification


def edit_verifications_sweep(*, now: datetime) -> list[int]:
    """Verifications a worker lost (it died, or the message was lost): run again, or failed out of attempts.

    Returns the candidates' ids, as the task takes them.
    """
    from reviewconsole.review.tasks import verify_edit

    lost = work_claims.sweep(EDIT_VERIFICATIONS, now=now, lost_after=timedelta(seconds=settings.STUCK_CASE_SECONDS))
    for candidate_pk in lost:
        enqueue_on_commit(verify_edit, candidate_pk)
    return lost
