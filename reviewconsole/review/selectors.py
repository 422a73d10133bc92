"""Reads for the review console: the queue page, one case as a reviewer sees it, past decisions."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, User
from django.db.models import Count, QuerySet
from django.db.models.functions import Left
from django.utils.safestring import SafeString

from reviewconsole.accounts.roles import Role
from reviewconsole.intake.constitutions import case_constitution
from reviewconsole.intake.models import Candidate, Case, Claim
from reviewconsole.policy import selectors as policy_selectors
from reviewconsole.review.diff import ClaimChange, claim_diff
from reviewconsole.review.highlight import Span, highlight
from reviewconsole.review.leases import lease_free
from reviewconsole.review.models import (
    CaseNote,
    Decision,
    EditVerification,
    EditVerificationStatus,
    Escalation,
    EscalationStatus,
)
from reviewconsole.review.states import FAILING_STATES, state_label
from verification import constitution as constitutions
from verification.engine import UnknownConstitution

QUEUE_PAGE_SIZE = 50
QUESTION_PREVIEW_CHARS = 110
_QUEUE_COLUMNS = (
    "case_id", "priority", "reason", "severity", "is_spot_check", "assignee_id", "lease_expires_at", "created_at",
    "case__constitution_name", "case__client__name", "assignee__username",
)

# --- The queue ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QueueFilters:
    """The queue's filters; empty means "any". `assignee` is "", "none", "me" or a user id."""

    reason: str = ""
    severity: str = ""
    constitution: str = ""
    client: int | None = None
    assignee: str = ""
    spot_check: bool | None = None


@dataclass(frozen=True)
class QueuePage:
    escalations: list[Escalation]
    number: int
    pages: int
    total: int
    reason_counts: list[tuple[str, int]]

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.pages


def _filtered(filters: QueueFilters, *, reviewer: AbstractBaseUser, now: datetime) -> QuerySet[Escalation]:
    queryset = Escalation.objects.filter(status=EscalationStatus.OPEN)
    if filters.severity:
        queryset = queryset.filter(severity=filters.severity)
    if filters.constitution:
        queryset = queryset.filter(case__constitution_name=filters.constitution)
    if filters.client is not None:
        queryset = queryset.filter(case__client_id=filters.client)
    if filters.spot_check is not None:
        queryset = queryset.filter(is_spot_check=filters.spot_check)
    if filters.assignee == "none":
        queryset = queryset.filter(lease_free(now))
    elif filters.assignee:
        assignee_id = reviewer.pk if filters.assignee == "me" else int(filters.assignee)
        queryset = queryset.filter(assignee_id=assignee_id, lease_expires_at__gt=now)
    return queryset


def queue_page(*, filters: QueueFilters, reviewer: AbstractBaseUser, now: datetime, page: int = 1) -> QueuePage:
    """One page of open escalations, highest priority then oldest first, with counts per reason.

    The counts ignore the reason filter (they are the choices for it), and the total comes from them,
    so a page costs two queries however long the queue is.
    """
    base = _filtered(filters, reviewer=reviewer, now=now)
    counts = list(base.order_by().values_list("reason").annotate(n=Count("*")).order_by("-n", "reason"))
    total = dict(counts).get(filters.reason, 0) if filters.reason else sum(n for _, n in counts)
    pages = max(1, -(-total // QUEUE_PAGE_SIZE))
    number = min(max(1, page), pages)
    rows = base.filter(reason=filters.reason) if filters.reason else base
    offset = (number - 1) * QUEUE_PAGE_SIZE
    if total == 0:
        # Nothing matches: skip the ordered scan, which would read the whole queue index to find no row.
        return QueuePage([], number, pages, total, counts)
    escalations = list(
        rows.select_related("case__client", "assignee")
        .only(*_QUEUE_COLUMNS)
        # Cut long questions in the database: a row shows one line, and 50 rows of 4,000 characters
        # would cost more to send and truncate than the whole query.
        .annotate(question_preview=Left("case__question", QUESTION_PREVIEW_CHARS))
        .order_by("-priority", "created_at")[offset : offset + QUEUE_PAGE_SIZE]
    )
    return QueuePage(escalations, number, pages, total, counts)


def reviewers() -> QuerySet[User]:
    return User.objects.filter(groups__name=Role.REVIEWER.value, is_active=True).order_by("username")


def constitution_names() -> list[str]:
    return policy_selectors.constitution_names() or constitutions.builtin_names()


# --- One case -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Budget:
    label: str
    used: int
    limit: int | None

    @property
    def percent(self) -> int | None:
        return min(100, round(100 * self.used / self.limit)) if self.limit else None


@dataclass(frozen=True)
class EvidenceLink:
    anchor: str
    source_id: str
    quote: str


@dataclass(frozen=True)
class ClaimRow:
    """A claim of the current candidate with its state in words and links to its evidence marks."""

    claim: Claim
    anchor: str
    label: str
    evidence: list[EvidenceLink]

    @property
    def failing(self) -> bool:
        return self.claim.state in FAILING_STATES


@dataclass
class CaseReview:
    """Everything the case page shows, loaded in a fixed number of queries."""

    escalation: Escalation
    case: Case
    candidates: list[Candidate]
    current: Candidate
    sources: list[Any]
    repairs: list[Any]
    notes: list[CaseNote]
    verifications: dict[int, EditVerification]
    budgets: list[Budget]
    review_package: dict[str, Any] | None
    metrics: dict[str, Any]
    shown: Candidate | None = None
    """The version whose claims and evidence are marked: the current one unless another was asked for."""
    candidate_html: Any = None
    marked_sources: list[tuple[Any, SafeString]] = field(default_factory=list)
    claim_rows: list[ClaimRow] = field(default_factory=list)

    @property
    def current_verification(self) -> EditVerification | None:
        return self.verifications.get(self.current.pk)

    @property
    def verification_pending(self) -> bool:
        verification = self.current_verification
        return verification is not None and not verification.is_finished

    @property
    def failing_claims(self) -> list[Claim]:
        return [claim for claim in self.current.claims.all() if claim.state in FAILING_STATES]

    @property
    def needs_override(self) -> bool:
        verification = self.current_verification
        failed = verification is not None and verification.status == EditVerificationStatus.FAILED
        return failed or bool(self.failing_claims)

    @property
    def failed_repairs(self) -> list[Any]:
        return [repair for repair in self.repairs if repair.outcome != "ACCEPTED"]


def case_review(escalation: Escalation, *, version: str = "") -> CaseReview:
    case = escalation.case
    candidates = list(
        Candidate.objects.filter(case=case)
        .select_related("parent")
        .prefetch_related("claims", "rule_verdicts", "findings")
        .order_by("position")
    )
    sources = list(case.sources.all())
    record = case.run_record or {}
    review = CaseReview(
        escalation=escalation,
        case=case,
        candidates=candidates,
        current=candidates[-1] if candidates else None,
        sources=sources,
        repairs=list(case.repairs.all()),
        notes=list(CaseNote.objects.filter(case=case).select_related("author")),
        verifications={v.candidate_id: v for v in EditVerification.objects.filter(candidate__case=case)},
        budgets=_budgets(case, record),
        review_package=record.get("review_package"),
        metrics=record.get("metrics") or {},
    )
    if review.current is not None:
        review.shown = next((c for c in candidates if c.candidate_id == version), review.current)
        _mark_spans(review)
    return review


def _budgets(case: Case, record: dict[str, Any]) -> list[Budget]:
    metrics = record.get("metrics") or {}
    # The budgets the run had: those of the version the case pinned.
    try:
        policy = case_constitution(case).policy
    except UnknownConstitution:
        policy = constitutions.DEFAULT.policy
    return [
        Budget("Repairs", int(metrics.get("repairs_attempted", 0)), policy.max_repairs),
        Budget("Verifier calls", int(metrics.get("verifier_calls", 0)), policy.max_verifier_calls),
        Budget("Model calls", int(metrics.get("model_calls", 0)), policy.max_model_calls),
        Budget("Time (ms)", int(metrics.get("elapsed_ms", 0)), policy.max_wall_ms),
    ]


def claim_anchor(claim: Claim) -> str:
    return f"claim-{claim.position}"


def _mark_spans(review: CaseReview) -> None:
    """Claims marked in the shown answer, evidence marked in the sources, each linked to the other.

    Anchors use positions, never client-chosen ids, so they are always valid HTML ids.
    """
    source_positions = {source.source_id: source.position for source in review.sources}
    claims = list(review.shown.claims.all())
    # One mark per stretch of source text, shared by every claim citing it. It takes the state of the
    # claim it is the best evidence for (listed first), so a refuted claim's span shows as refuted.
    citations = sorted(
        ((rank, claim, evidence) for claim in claims for rank, evidence in enumerate(claim.evidence)),
        key=lambda citation: citation[0],
    )
    evidence_spans: dict[int, dict[tuple[int, int], Span]] = {}
    links: dict[int, list[EvidenceLink]] = {claim.pk: [] for claim in claims}
    for _rank, claim, evidence in citations:
        position = source_positions.get(evidence.get("source_id"))
        if position is None:
            continue
        start, end = int(evidence.get("start", 0)), int(evidence.get("end", 0))
        spans = evidence_spans.setdefault(position, {})
        span = spans.setdefault(
            (start, end),
            Span(start, end, f"ev-{position}-{len(spans)}", claim.state, f"Evidence for: {claim.text}",
                 href=f"#{claim_anchor(claim)}"),
        )
        links[claim.pk].append(EvidenceLink(span.anchor, evidence.get("source_id", ""), evidence.get("quote", "")))
    claim_spans = []
    for claim in claims:
        label = state_label(claim.state)
        claim_spans.append(Span(claim.start, claim.end, f"text-{claim_anchor(claim)}", claim.state, label,
                                href=f"#{claim_anchor(claim)}", badge=True))
        review.claim_rows.append(ClaimRow(claim, claim_anchor(claim), label, links[claim.pk]))
    review.candidate_html = highlight(review.shown.text, claim_spans)
    review.marked_sources = [
        (source, highlight(source.text, list(evidence_spans.get(source.position, {}).values())))
        for source in review.sources
    ]


def candidate_diff(review: CaseReview, older_id: str, newer_id: str) -> tuple[Candidate, Candidate, list[ClaimChange]]:
    """The claim diff between two versions of this case (defaults: the first and the current)."""
    by_id = {candidate.candidate_id: candidate for candidate in review.candidates}
    older = by_id.get(older_id) or review.candidates[0]
    newer = by_id.get(newer_id) or review.current
    return older, newer, claim_diff(older.claims.all(), newer.claims.all())


# --- Decisions ------------------------------------------------------------------------------------


def decisions_of(reviewer: AbstractBaseUser) -> QuerySet[Decision]:
    return (
        Decision.objects.filter(reviewer=reviewer)
        .select_related("case__client", "candidate")
        .defer("case__run_record", "candidate__text")
        .order_by("-created_at")
    )
