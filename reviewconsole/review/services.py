"""Writes for review: decisions (approve, edit, reject), notes, and the re-verification of edits.

A decision closes the case (closing.py), except on a double-reviewed case still in its independent
reviews, where approve and reject are recorded as a review (double_review.py); a review lead decides a
case whose reviews disagree.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from reviewconsole import work_claims
from reviewconsole.accounts.roles import Role, has_role
from reviewconsole.intake import outcomes
from reviewconsole.intake.constitutions import case_constitution
from reviewconsole.intake.models import Candidate
from reviewconsole.intake.services import candidate_checks_store, candidate_claims_store, case_contract
from reviewconsole.policy.engine import run_engine
from reviewconsole.queues import enqueue_on_commit, task_hold
from reviewconsole.review import audit_events, double_review
from reviewconsole.review.approval import approval_check
from reviewconsole.review.closing import decision_close
from reviewconsole.review.leases import escalation_lease_renew, lease_held, lease_held_by_other
from reviewconsole.review.models import (
    CaseNote,
    Decision,
    DecisionKind,
    EditVerification,
    EditVerificationStatus,
    Escalation,
    EscalationStatus,
    Review,
)
from verification import RunRecord

NO_ANSWER_YET = (
    "The model could not draft an answer for this case: write one first (it is verified before it can be approved)."
)


CLAIM_FIRST = "Claim this case before you decide it: approve, edit and reject are for the reviewer who holds it."


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


class LeadRequired(DecisionRefused):
    """The reviews of the case disagree: only a review lead may decide it now."""

    status_code = 403


def _lock_for_decision(
    *, escalation_id: int, reviewer: User, candidate_id: str, sha256: str, now: datetime
) -> tuple[Escalation, Candidate | None]:
    """Lock the escalation and check the reviewer may decide on exactly the candidate they saw.

    Runs inside the caller's transaction; the row lock serializes decisions on one case. An open case
    is decided by whoever holds its lease; a case in adjudication has no lease and is decided by a
    review lead who gave neither of its reviews.
    """
    # Lock only the escalation row: locking the joined client too would serialize every reviewer's
    # decisions on that client's cases.
    escalation = Escalation.objects.select_for_update(of=("self",)).select_related("case__client").get(pk=escalation_id)
    if escalation.status == EscalationStatus.DECIDED:
        raise CaseChanged("This case was already decided.")
    if escalation.status == EscalationStatus.ADJUDICATION:
        if not has_role(reviewer, Role.REVIEW_LEAD):
            raise LeadRequired("The two reviews of this case disagree: a review lead decides it.")
        if double_review.review_by(escalation, reviewer) is not None:
            raise LeadRequired(double_review.OWN_DISAGREEMENT)
    else:
        if lease_held_by_other(escalation, reviewer, now):
            raise DecisionRefused("Another reviewer holds this case.")
        # One person decides an open case at a time: the one holding it, so that no one else's lease is
        # overtaken by a decision posted from a page left open.
        if not lease_held(escalation, reviewer, now):
            raise DecisionRefused(CLAIM_FIRST)
        if double_review.is_independent(escalation) and double_review.review_by(escalation, reviewer):
            raise DecisionRefused("You reviewed this case already: the second review must be another reviewer's.")
    current = Candidate.objects.filter(case_id=escalation.case_id).order_by("-position").first()
    if current is None:
        # The model could not draft an answer: a reviewer writes one (an edit) before anything is decided.
        if candidate_id or sha256:
            raise CaseChanged("The case changed since you opened it: a newer version is on screen now.")
        return escalation, None
    if current.candidate_id != candidate_id or current.sha256 != sha256:
        raise CaseChanged("The case changed since you opened it: a newer version is on screen now.")
    return escalation, current


def _decided_on(candidate: Candidate | None) -> Candidate:
    """The candidate a decision closes the case on; there must be one."""
    if candidate is None:
        raise DecisionRefused(NO_ANSWER_YET)
    return candidate


def _pending_verification(candidate: Candidate) -> EditVerification | None:
    return EditVerification.objects.filter(candidate=candidate).first()


def _decide(
    *, escalation: Escalation, reviewer: User, kind: str, candidate: Candidate, now: datetime, reason_code: str = "",
    note: str = "", override_reason: str = "",
) -> Decision | Review:
    """An independent review while the case is in double review, else the decision that closes it."""
    fields = {"reason_code": reason_code, "note": note, "override_reason": override_reason}
    if double_review.is_independent(escalation):
        return double_review.review_record(
            escalation=escalation, reviewer=reviewer, kind=kind, candidate=candidate, now=now, **fields
        )
    # A lead's adjudication: the audit event links the two reviews it settles.
    reviews = double_review.reviews_of(escalation) if escalation.reviews_required > 1 else []
    return decision_close(
        escalation=escalation, reviewer=reviewer, kind=kind, candidate=candidate, now=now, reviews=reviews, **fields
    )


def decision_approve(
    *,
    escalation_id: int,
    reviewer: User,
    candidate_id: str,
    sha256: str,
    now: datetime,
    note: str = "",
    override_reason: str = "",
) -> Decision | Review:
    """Release exactly the candidate the reviewer saw (or record the review of it, in double review).

    Claims that still fail need a written override reason, except those the reviewer labelled supported.
    """
    with transaction.atomic():
        escalation, seen = _lock_for_decision(
            escalation_id=escalation_id, reviewer=reviewer, candidate_id=candidate_id, sha256=sha256, now=now
        )
        candidate = _decided_on(seen)
        verification = _pending_verification(candidate)
        if verification is not None and not verification.is_finished:
            raise DecisionRefused("Your edit is still being verified; approve it once the result is in.")
        check = approval_check(
            candidate=candidate, reviewer=reviewer,
            edit_unverified=verification is not None and verification.status == EditVerificationStatus.FAILED,
        )
        if check.needs_override and not override_reason.strip():
            raise OverrideRequired(f"Approving needs an override reason: {check.why}.", field="override_reason")
        return _decide(
            escalation=escalation, reviewer=reviewer, kind=DecisionKind.APPROVE, candidate=candidate, now=now,
            note=note, override_reason=override_reason.strip(),
        )


def decision_reject(
    *,
    escalation_id: int,
    reviewer: User,
    candidate_id: str,
    sha256: str,
    reason_code: str,
    now: datetime,
    note: str = "",
) -> Decision | Review:
    """Refuse the case: nothing is released to the client (or record the review, in double review)."""
    with transaction.atomic():
        escalation, seen = _lock_for_decision(
            escalation_id=escalation_id, reviewer=reviewer, candidate_id=candidate_id, sha256=sha256, now=now
        )
        return _decide(
            escalation=escalation, reviewer=reviewer, kind=DecisionKind.REJECT, candidate=_decided_on(seen), now=now,
            reason_code=reason_code, note=note,
        )


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
    rejects) the verified edit afterwards, so the lease stays with them. Not while a double-reviewed case
    is in its independent reviews; a review lead may edit when adjudicating.
    """
    text = text.strip()
    with transaction.atomic():
        escalation, parent = _lock_for_decision(
            escalation_id=escalation_id, reviewer=reviewer, candidate_id=candidate_id, sha256=sha256, now=now
        )
        if double_review.is_independent(escalation):
            raise DecisionRefused(double_review.NO_EDIT_WHILE_INDEPENDENT)
        if not text:
            raise InvalidEdit("The edited answer is empty.", field="text")
        if parent is not None and text == parent.text:
            raise InvalidEdit("The edited answer is the same as the current one.", field="text")
        candidate = outcomes.candidate_reviewer_add(case_id=escalation.case_id, parent=parent, text=text)
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
