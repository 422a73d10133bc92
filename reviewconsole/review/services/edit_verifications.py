"""The re-verification of a reviewer's edit, the worker's side: claimed as work (reviewconsole/work_claims.py),
checked by the engine against the case's own sources, and stored, or failed with its reason."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from reviewconsole import work_claims
from reviewconsole.intake.constitutions import case_constitution
from reviewconsole.intake.models import Candidate
from reviewconsole.intake.services import candidate_checks_store, candidate_claims_store, case_contract
from reviewconsole.policy.engine import run_engine
from reviewconsole.queues import enqueue_on_commit, task_hold
from reviewconsole.review import audit_events
from reviewconsole.review.models import EditVerification, EditVerificationStatus
from verification import RunRecord


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
    return work_claims.claim(EditVerification.work_kind, work_id=candidate_pk, now=now, deadline=now + task_hold())


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

    lost = work_claims.sweep(EditVerification.work_kind, now=now)
    for candidate_pk in lost:
        enqueue_on_commit(verify_edit, candidate_pk)
    return lost
