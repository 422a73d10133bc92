"""Reviewers' decisions: approve, edit and reject, by whoever holds the case (or a review lead adjudicating).

A decision closes the case (services/closing.py), except on a double-reviewed case still in its
independent reviews, where approve and reject are recorded as a review (services/double_review.py); a
review lead decides a case whose reviews disagree. An edit is verified again by a worker
(services/edit_verifications.py) before it can be approved.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction

from reviewconsole.accounts.roles import Role, has_role
from reviewconsole.intake import outcomes
from reviewconsole.intake.models import Candidate
from reviewconsole.queues import enqueue_on_commit
from reviewconsole.review import audit_events, double_review
from reviewconsole.review.approval import approval_check
from reviewconsole.review.leases import lease_held, lease_held_by_other
from reviewconsole.review.models import (
    Decision,
    DecisionKind,
    EditVerification,
    EditVerificationStatus,
    Escalation,
    EscalationStatus,
    Review,
)
from reviewconsole.review.services.closing import decision_close
from reviewconsole.review.services.double_review import review_record
from reviewconsole.review.services.leases import escalation_lease_renew

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
        return review_record(
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
