"""What a reviewer's decision does to intake's rows: a released or rejected case, a reviewer's version.

Review decides; intake owns the case and its chain of candidates, so the review app changes them
through these functions only, inside its own transaction (they do not open one).
"""

from __future__ import annotations

from reviewconsole.intake.models import Candidate, Case, CaseStatus
from verification import Origin, Terminal
from verification.types import sha256_text


def case_release_approved(*, case: Case, candidate: Candidate) -> None:
    """A person approved `candidate`: its text is what the client may now show."""
    case.status = CaseStatus.RELEASED
    case.final_answer = candidate.text
    case.save(update_fields=["status", "final_answer", "updated_at"])


def case_reject(*, case: Case) -> None:
    """A person refused the case: nothing is released."""
    case.status = CaseStatus.REJECTED
    case.save(update_fields=["status", "updated_at"])


def case_as_run_left(case: Case) -> tuple[str, str]:
    """The status and final answer the run set (services.case_run_finish), whatever a person decided since:
    a spot check was released, REJECT refused, anything else (a release the gate held included) waits in review."""
    status = {Terminal.PERMIT.value: CaseStatus.RELEASED, Terminal.REJECT.value: CaseStatus.REJECTED}.get(
        case.terminal, CaseStatus.ESCALATED
    ) if not case.release_held else CaseStatus.ESCALATED
    return status, (case.run_record or {}).get("final_answer") or ""


def case_decision_undo(*, case: Case) -> None:
    """A person's decision was undone: the case is again as its run left it, waiting in review."""
    case.status, case.final_answer = case_as_run_left(case)
    case.save(update_fields=["status", "final_answer", "updated_at"])


def candidate_reviewer_add(*, case_id: int, parent: Candidate | None, text: str) -> Candidate:
    """A reviewer's rewrite of `parent`, as the newest version of the case's chain; without a parent, the
    answer a reviewer wrote for a case that had none (the model could not draft one)."""
    position = parent.position + 1 if parent is not None else 0
    return Candidate.objects.create(
        case_id=case_id, position=position, candidate_id=f"c{position}", parent=parent,
        origin=Origin.REVIEWER.value, operation="reviewer_edit", text=text, sha256=sha256_text(text),
    )
