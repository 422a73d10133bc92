"""A case read end to end: what was asked, what the sources said, every version the engine and the
reviewers made, what the customer was told, who decided what, and (for a support lead) when each step
happened. Reviewers read it for a case that never reached the queue, such as one the engine released.

Read-only: built from the stored rows and the case's audit events; nothing here can change a case.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Prefetch

from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.models import Candidate, Case, Claim
from reviewconsole.review.models import CaseNote, Decision
from reviewconsole.review.selectors import case_released_answer


@dataclass(frozen=True)
class CaseRecord:
    case: Case
    sources: list[Any]
    candidates: list[Candidate]
    released_answer: str | None
    """What the customer was shown: the engine's release or the approved version; None if nothing was."""
    decisions: list[Decision]
    notes: list[CaseNote]
    timeline: list[AuditEvent]
    """Empty unless asked for: the audit trail is a support lead's to read."""


def case_record(case_id: int, *, timeline: bool = True) -> CaseRecord | None:
    """The whole record of one case, in five queries (four without the timeline); None when there is no such case."""
    found = Case.objects.select_related("client", "constitution_pin__document").defer("constitution_pin__content")
    case = found.filter(pk=case_id).first()
    if case is None:
        return None
    candidates = list(
        Candidate.objects.filter(case=case).order_by("position")
        .select_related("parent")
        .prefetch_related(Prefetch("claims", queryset=Claim.objects.order_by("position")), "rule_verdicts")
    )
    return CaseRecord(
        case=case,
        sources=list(case.sources.order_by("position")),
        candidates=candidates,
        released_answer=case_released_answer(case),
        decisions=list(
            Decision.objects.filter(case=case).select_related("reviewer", "candidate").order_by("created_at")
        ),
        notes=list(CaseNote.objects.filter(case=case).select_related("author").order_by("created_at")),
        # In append order: events not sealed yet (no seq) belong in the story too.
        timeline=list(AuditEvent.objects.filter(case=case).order_by("id")) if timeline else [],
    )
