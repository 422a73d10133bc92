"""Reads for the review console: the queue page, one case as a reviewer sees it, past decisions."""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from functools import reduce
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, User
from django.db import connections
from django.db.models import Count, Q, QuerySet
from django.db.models.functions import Left
from django.utils.http import int_to_base36
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
from reviewconsole.review.package import ReviewPackage, review_package
from reviewconsole.review.states import FAILING_STATES, state_label
from verification import State
from verification import constitution as constitutions

QUEUE_PAGE_SIZE = 50
# A total order, so that paging from one case to the next neither skips nor repeats one: the id breaks
# ties between cases of equal priority and age. The queue index has the same columns (models.py).
QUEUE_ORDER = ("-priority", "created_at", "id")
_QUEUE_ORDER_BACKWARD = ("priority", "-created_at", "-id")
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
class QueueCursor:
    """The place of one escalation in the queue order. The escalation may have left the queue since:
    the place stays well defined, so paging on from it neither skips nor repeats a case."""

    priority: int
    created_at: datetime
    id: int

    @classmethod
    def of(cls, escalation: Escalation) -> QueueCursor:
        return cls(escalation.priority, escalation.created_at, escalation.pk)

    def encode(self) -> str:
        """Three base-36 numbers: short enough for a link, and no one's business to read."""
        micros = (self.created_at - _EPOCH) // timedelta(microseconds=1)
        return ".".join(int_to_base36(number) for number in (self.priority, micros, self.id))

    @classmethod
    def decode(cls, text: str) -> QueueCursor:
        """The cursor `encode` wrote; ValueError for anything else, before it can reach the database."""
        if not _CURSOR.fullmatch(text):
            raise ValueError("not three base-36 numbers")
        priority, micros, id_ = (int(part, 36) for part in text.split("."))
        if priority > _MAX_PRIORITY or not 0 < id_ <= _MAX_ID:
            raise ValueError("priority or id out of range")
        try:
            created_at = _EPOCH + timedelta(microseconds=micros)
        except OverflowError as error:
            raise ValueError("time out of range") from error
        return cls(priority, created_at, id_)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_CURSOR = re.compile(r"[0-9a-z]{1,13}\.[0-9a-z]{1,13}\.[0-9a-z]{1,13}")
_MAX_PRIORITY, _MAX_ID = 2**31 - 1, 2**63 - 1  # the columns' ranges: larger values would not compare


@dataclass(frozen=True)
class QueuePosition:
    """Where a queue page starts: just after a case, just before one, or (neither) at the top."""

    after: QueueCursor | None = None
    before: QueueCursor | None = None


@dataclass(frozen=True)
class QueuePage:
    """The rows of one page, the filtered total, and where the pager's links lead."""

    escalations: list[Escalation]
    total: int
    reason_counts: list[tuple[str, int]]
    has_previous: bool = False
    has_next: bool = False

    @property
    def all_reasons_total(self) -> int:
        """Open cases for every reason, under the other filters: what "All reasons" leads to."""
        return sum(count for _reason, count in self.reason_counts)

    @property
    def previous_cursor(self) -> str:
        return QueueCursor.of(self.escalations[0]).encode() if self.escalations else ""

    @property
    def next_cursor(self) -> str:
        return QueueCursor.of(self.escalations[-1]).encode() if self.escalations else ""


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


def queue_page(
    *, filters: QueueFilters, reviewer: AbstractBaseUser, now: datetime, position: QueuePosition | None = None
) -> QueuePage:
    """One page of open escalations, highest priority then oldest first, with counts per reason.

    The counts ignore the reason filter (they are the choices for it), and the total comes from them,
    so a page costs two queries however long the queue is and however deep the page.
    """
    position = position or QueuePosition()
    base = _filtered(filters, reviewer=reviewer, now=now)
    counts = list(base.order_by().values_list("reason").annotate(n=Count("*")).order_by("-n", "reason"))
    total = dict(counts).get(filters.reason, 0) if filters.reason else sum(n for _, n in counts)
    if total == 0:
        # Nothing matches: skip the ordered scan, which would read the whole queue index to find no row.
        return QueuePage([], total, counts)
    rows = base.filter(reason=filters.reason) if filters.reason else base
    # One row more than a page tells whether there is a page beyond, without counting. Towards where a
    # cursor came from there is the page its link was on.
    if position.before is not None:
        found = _shown(_seek(rows, position.before, backward=True), backward=True)
        found.reverse()
        return QueuePage(found[-QUEUE_PAGE_SIZE:], total, counts, len(found) > QUEUE_PAGE_SIZE, True)
    if position.after is not None:
        found = _shown(_seek(rows, position.after, backward=False), backward=False)
        return QueuePage(found[:QUEUE_PAGE_SIZE], total, counts, True, len(found) > QUEUE_PAGE_SIZE)
    found = _shown(rows, backward=False)
    return QueuePage(found[:QUEUE_PAGE_SIZE], total, counts, False, len(found) > QUEUE_PAGE_SIZE)


def _seek(rows: QuerySet[Escalation], cursor: QueueCursor, *, backward: bool) -> QuerySet[Escalation]:
    """The rows past `cursor` in queue order (before it if `backward`), for the caller to order and slice.

    They are one stretch of the queue index, but priority runs down while age runs up, so no row
    comparison describes it, and PostgreSQL answers the OR of its three ranges by walking the index from
    the top, as an OFFSET would. Each range alone is an index range scan: take a page from each, as a UNION of
    ids, and leave the caller at most three pages of rows to sort.
    """
    pieces = _past(cursor, backward=backward)
    if not connections[rows.db].features.supports_slicing_ordering_in_compound:
        return rows.filter(reduce(operator.or_, pieces))  # SQLite (the demo): right, only not as fast
    order = _QUEUE_ORDER_BACKWARD if backward else QUEUE_ORDER
    ids = [rows.filter(piece).order_by(*order).values("pk")[: QUEUE_PAGE_SIZE + 1] for piece in pieces]
    return Escalation.objects.filter(pk__in=ids[0].union(*ids[1:], all=True))


def _past(cursor: QueueCursor, *, backward: bool) -> list[Q]:
    """The escalations after `cursor` (before it if `backward`) as three ranges of the queue index."""
    at_priority, at_time = Q(priority=cursor.priority), Q(priority=cursor.priority, created_at=cursor.created_at)
    if backward:
        return [at_time & Q(id__lt=cursor.id), at_priority & Q(created_at__lt=cursor.created_at),
                Q(priority__gt=cursor.priority)]
    return [at_time & Q(id__gt=cursor.id), at_priority & Q(created_at__gt=cursor.created_at),
            Q(priority__lt=cursor.priority)]


def _shown(rows: QuerySet[Escalation], *, backward: bool) -> list[Escalation]:
    """Up to a page and one row, in queue order (reversed if `backward`), with what a row shows."""
    return list(
        rows.select_related("case__client", "assignee")
        .only(*_QUEUE_COLUMNS)
        # Cut long questions in the database: a row shows one line, and 50 rows of 4,000 characters
        # would cost more to send and truncate than the whole query.
        .annotate(question_preview=Left("case__question", QUESTION_PREVIEW_CHARS))
        .order_by(*(_QUEUE_ORDER_BACKWARD if backward else QUEUE_ORDER))[: QUEUE_PAGE_SIZE + 1]
    )


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
    covers: list[str] = field(default_factory=list)
    """The claim's commitments this span grounds or contradicts, as the claim writes them."""


@dataclass(frozen=True)
class ReleaseGate:
    """The release gate a run applied: its threshold and what backs it (None: no calibrated threshold)."""

    threshold: float | None
    calibration: str
    digits: int = 2
    """Decimals that tell every score on the page from the threshold (2, or 4 where 2 would blur them)."""

    @property
    def threshold_text(self) -> str:
        return f"{self.threshold:.{self.digits}f}" if self.threshold is not None else ""

    def holds_back(self, claim: Claim) -> bool:
        """A supported claim scored below the threshold; unscored counts as 0, as in the engine's gate."""
        if self.threshold is None or claim.state != State.SUPPORTED.value:
            return False
        return (claim.release_score or 0.0) < self.threshold


@dataclass(frozen=True)
class ClaimRow:
    """A claim of the current candidate with its state in words and links to its evidence marks."""

    claim: Claim
    anchor: str
    label: str
    evidence: list[EvidenceLink]
    held_back: bool = False
    """Supported, but scored below the run's release threshold: a person decides whether it goes out."""
    score_text: str = ""
    """The release score as shown ("0.83"); empty when the verifier gave none."""

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
    review_package: ReviewPackage | None
    """About the versions on screen: the original and the current one, a reviewer's edit included."""
    metrics: dict[str, Any]
    shown: Candidate | None = None
    """The version whose claims and evidence are marked: the current one unless another was asked for."""
    candidate_html: Any = None
    marked_sources: list[tuple[Any, SafeString]] = field(default_factory=list)
    claim_rows: list[ClaimRow] = field(default_factory=list)
    release_gate: ReleaseGate | None = None
    """The run's release gate; None for a run recorded before the gate existed."""

    @property
    def held_back_count(self) -> int:
        return sum(row.held_back for row in self.claim_rows)

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
        budgets=_budgets(case, record),
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
    if review.current is not None:
        review.shown = next((c for c in candidates if c.candidate_id == version), review.current)
        _mark_spans(review)
    return review


def _budgets(case: Case, record: dict[str, Any]) -> list[Budget]:
    metrics = record.get("metrics") or {}
    # The budgets the run had: those of the version the case pinned.
    policy = case_constitution(case).policy
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
        links[claim.pk].append(EvidenceLink(
            span.anchor, evidence.get("source_id", ""), evidence.get("quote", ""),
            [str(item) for item in evidence.get("covers") or []],
        ))
    gate = review.release_gate
    if gate is not None and gate.threshold is not None:
        gate = review.release_gate = replace(gate, digits=_score_digits(claims, gate.threshold))
    claim_spans = []
    for claim in claims:
        label = state_label(claim.state)
        held_back = gate is not None and gate.holds_back(claim)
        claim_spans.append(Span(claim.start, claim.end, f"text-{claim_anchor(claim)}", claim.state,
                                f"{label}, held back" if held_back else label,
                                href=f"#{claim_anchor(claim)}", badge=True))
        score_text = f"{claim.release_score:.{gate.digits if gate else 2}f}" if claim.release_score is not None else ""
        review.claim_rows.append(ClaimRow(claim, claim_anchor(claim), label, links[claim.pk], held_back, score_text))
    review.candidate_html = highlight(review.shown.text, claim_spans)
    review.marked_sources = [
        (source, highlight(source.text, list(evidence_spans.get(source.position, {}).values())))
        for source in review.sources
    ]


def _score_digits(claims: list[Claim], threshold: float) -> int:
    """2 decimals, or 4 when a score below the threshold would read as equal or above it at 2 (or back)."""
    for claim in claims:
        score = claim.release_score
        if score is not None and (score < threshold) != (round(score, 2) < round(threshold, 2)):
            return 4
    return 2


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
