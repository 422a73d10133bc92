"""One case as a reviewer sees it: its versions, sources, repairs, notes and budgets, with claims and
evidence marked, loaded in a fixed number of queries."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.safestring import SafeString

from reviewconsole.intake.models import Candidate, Case, Claim, RepairAttempt, Source
from reviewconsole.review import comments, double_review, error_tags, labels
from reviewconsole.review.budgets import Budget, case_budgets
from reviewconsole.review.diff import ClaimChange, claim_diff
from reviewconsole.review.highlight import Span, highlight
from reviewconsole.review.marking import CaseMarks, ClaimRow, ReleaseGate, case_marks, claim_anchor
from reviewconsole.review.models import (
    CaseNote,
    ClaimComment,
    Decision,
    DecisionKind,
    EditVerification,
    EditVerificationStatus,
    Escalation,
    EscalationStatus,
)
from reviewconsole.review.package import ReviewPackage, review_package
from reviewconsole.review.states import FAILING_STATES


@dataclass
class CaseReview:
    """Everything the case page shows, loaded in a fixed number of queries."""

    escalation: Escalation
    case: Case
    candidates: list[Candidate]
    current: Candidate | None
    """The latest version; None only for a case whose run stored no candidate."""
    sources: list[Source]
    repairs: list[RepairAttempt]
    notes: list[CaseNote]
    verifications: dict[int, EditVerification]
    budgets: list[Budget]
    review_package: ReviewPackage | None
    """About the versions on screen: the original and the current one, a reviewer's edit included."""
    metrics: dict[str, Any]
    shown: Candidate | None = None
    """The version whose claims and evidence are marked: the current one unless another was asked for."""
    candidate_html: SafeString | None = None
    marked_sources: list[tuple[Source, SafeString]] = field(default_factory=list)
    claim_rows: list[ClaimRow] = field(default_factory=list)
    release_gate: ReleaseGate | None = None
    """The run's release gate; None for a run recorded before the gate existed (or hidden: `blind`)."""
    blind: bool = False
    """A spot check the viewer has not labelled every claim of yet: the engine's verdicts are left out of
    the page (claim states, scores, evidence, diff, checks, repairs, package, release gate)."""
    blind_remaining: int = 0
    """Claims of the released answer the viewer has still to label before the verdicts are shown."""
    label_cells: list[labels.LabelCell] = field(default_factory=list)
    """The viewer's label of each claim in `claim_rows`, in the same order."""
    claim_comments: dict[str, list[ClaimComment]] = field(default_factory=dict)
    """Comments the viewer may see, by claim id (comments.py)."""
    tag_cells: dict[int | None, error_tags.TagCell] = field(default_factory=dict)
    """The error tags of each shown claim (by claim pk) and of the shown answer (None), error_tags.py."""

    @property
    def answer_tags(self) -> error_tags.TagCell | None:
        return self.tag_cells.get(None)

    @property
    def labelled_rows(self) -> list[tuple[ClaimRow, labels.LabelCell, error_tags.TagCell | None]]:
        """Each shown claim with the viewer's label of it and its error tags."""
        return [(row, cell, self.tag_cells.get(row.claim.pk))
                for row, cell in zip(self.claim_rows, self.label_cells, strict=True)]

    @property
    def held_back_count(self) -> int:
        return sum(row.held_back for row in self.claim_rows)

    @property
    def current_verification(self) -> EditVerification | None:
        return self.verifications.get(self.current.pk) if self.current is not None else None

    @property
    def verification_pending(self) -> bool:
        verification = self.current_verification
        return verification is not None and not verification.is_finished

    @property
    def failing_claims(self) -> list[Claim]:
        if self.current is None:
            return []
        return [claim for claim in self.current.claims.all() if claim.state in FAILING_STATES]

    @property
    def needs_override(self) -> bool:
        verification = self.current_verification
        failed = verification is not None and verification.status == EditVerificationStatus.FAILED
        return failed or bool(self.failing_claims)

    @property
    def failed_repairs(self) -> list[RepairAttempt]:
        return [repair for repair in self.repairs if repair.outcome != "ACCEPTED"]

    @cached_property
    def decision(self) -> Decision | None:
        """The approve or reject that closed the case; None while it is open. Read only when a page asks."""
        if self.escalation.status != EscalationStatus.DECIDED:
            return None
        closing = Decision.objects.filter(case=self.case, kind__in=[DecisionKind.APPROVE, DecisionKind.REJECT])
        return closing.select_related("reviewer", "candidate").order_by("-created_at").first()


def case_review(escalation: Escalation, *, version: str = "", viewer: User | None = None) -> CaseReview:
    """The case as `viewer` may see it; without a viewer, an open spot check is shown blind."""
    case = escalation.case
    candidates = list(
        Candidate.objects.filter(case=case)
        .select_related("parent")
        .prefetch_related("claims", "rule_verdicts", "findings")
        .order_by("position")
    )
    sources = list(case.sources.all())
    record = case.run_record or {}
    repairs = list(case.repairs.all())
    verifications = {v.candidate_id: v for v in EditVerification.objects.filter(candidate__case=case)}
    review = CaseReview(
        escalation=escalation,
        case=case,
        candidates=candidates,
        current=candidates[-1] if candidates else None,
        sources=sources,
        repairs=repairs,
        notes=list(CaseNote.objects.filter(case=case).select_related("author")),
        verifications=verifications,
        budgets=case_budgets(case, record),
        review_package=review_package(
            candidates, repairs=repairs, engine_package=record.get("review_package"),
            verification=verifications.get(candidates[-1].pk) if candidates else None,
        ),
        metrics=record.get("metrics") or {},
    )
    if "release_threshold" in record:
        threshold = record["release_threshold"]
        review.release_gate = ReleaseGate(
            float(threshold) if threshold is not None else None, str(record.get("release_calibration") or "")
        )
    case_labels = labels.case_labels(case.pk)
    released = labels.released_candidate(candidates)
    if released is not None:
        review.blind_remaining = labels.blind_remaining(escalation, released.claims.all(), case_labels, viewer)
        review.blind = review.blind_remaining > 0
    if review.current is not None:
        # Blind, the page opens on the answer that was released: that is the one to label.
        default = released if review.blind and released is not None else review.current
        review.shown = next((c for c in candidates if c.candidate_id == version), default)
        if review.blind:
            review.release_gate = None
            marks = _blind_marks(review.shown, sources)
        else:
            marks = case_marks(review.shown, sources, review.release_gate)
        review.candidate_html, review.marked_sources = marks.candidate_html, marks.marked_sources
        review.claim_rows, review.release_gate = marks.claim_rows, marks.release_gate
        can_label = labels.may_label(escalation, viewer, timezone.now())
        review.label_cells = _label_cells(review, case_labels, viewer, can_label)
        review.tag_cells = error_tags.tag_cells(
            escalation=escalation, candidate_pk=review.shown.pk,
            claims=[(row.claim.pk, row.anchor) for row in review.claim_rows], viewer=viewer,
            can_tag=can_label, tags=error_tags.tags_of(case.pk),
            taxonomy=error_tags.case_taxonomy(case),
        )
    if getattr(escalation, "has_claim_comments", True):
        review.claim_comments = comments.comments_by_claim_id(
            case.pk, viewer=viewer, others_hidden=review.blind or double_review.is_independent(escalation),
        )
    return review


def _blind_marks(shown: Candidate, sources: list[Source]) -> CaseMarks:
    """The answer with its claims marked but not coloured, and the sources unmarked: nothing the engine
    decided about a claim (state, score, the evidence it chose) reaches the page."""
    claims = list(shown.claims.all())
    spans = [
        Span(claim.start, claim.end, f"text-{claim_anchor(claim)}", "unlabelled", f"Claim {number}",
             href=f"#{claim_anchor(claim)}")
        for number, claim in enumerate(claims, start=1)
    ]
    return CaseMarks(
        candidate_html=highlight(shown.text, spans),
        marked_sources=[(source, highlight(source.text, [])) for source in sources],
        claim_rows=[ClaimRow(claim, claim_anchor(claim), "", []) for claim in claims],
        release_gate=None,
    )


def _label_cells(review: CaseReview, case_labels: list, viewer: User | None,
                 can_label: bool) -> list[labels.LabelCell]:
    escalation = review.escalation
    open_case = escalation.status == EscalationStatus.OPEN
    by_claim = labels.labels_by_claim(case_labels)
    return [
        labels.label_cell(case_id=review.case.pk, claim=row.claim, anchor=row.anchor,
                          labels=by_claim.get(row.claim.pk, []), viewer=viewer,
                          show_others=not open_case, can_label=can_label)
        for row in review.claim_rows
    ]


def candidate_diff(
    review: CaseReview, older_id: str, newer_id: str
) -> tuple[Candidate | None, Candidate | None, list[ClaimChange]]:
    """The claim diff between two versions of this case (defaults: the first and the current); nothing
    for a case with no version at all (the model could not draft its answer)."""
    if not review.candidates:
        return None, None, []
    by_id = {candidate.candidate_id: candidate for candidate in review.candidates}
    older = by_id.get(older_id) or review.candidates[0]
    newer = by_id.get(newer_id) or review.candidates[-1]
    return older, newer, claim_diff(older.claims.all(), newer.claims.all())
