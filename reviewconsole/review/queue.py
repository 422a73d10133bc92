"""The review queue: its search and filters, one page of it, and the cursor that pager links carry.
Its orders (by priority or by waiting time, each way) are in queue_order.py."""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import reduce

from django.contrib.auth.models import User
from django.db import connections
from django.db.models import Case, Q, QuerySet, Value, When
from django.db.models.functions import Coalesce, Left, NullIf
from django.db.models.lookups import GreaterThanOrEqual
from django.utils.http import int_to_base36

from reviewconsole.policy import selectors as policy_selectors
from reviewconsole.review import queue_counts
from reviewconsole.review.deadlines import deadlines_by_hours, overdue_annotation, overdue_condition
from reviewconsole.review.leases import lease_free
from reviewconsole.review.models import Escalation, EscalationStatus
from reviewconsole.review.queue_counts import SPOT_CHECKS, Tally, capped_count, capped_counts, kept_counts
from reviewconsole.review.queue_order import QueueSort, past, queue_order
from reviewconsole.review.search_terms import SearchTerm, search_terms
from verification.policy import constitution as constitutions

QUEUE_PAGE_SIZE = 50
# Every order is total (queue_order.py), so that paging from one case to the next neither skips nor
# repeats one: the id breaks ties between cases of equal priority and age. An index has the same columns.
QUESTION_PREVIEW_CHARS = 110
# Cut in the database a little past what a row shows, so that the template knows to add "…".
ANSWER_PREVIEW_CHARS = 121
# A search of more words than this uses the first ones: each word is one more pass over the texts.
SEARCH_MAX_WORDS = 8
_QUEUE_COLUMNS = (
    "case_id", "priority", "reason", "severity", "is_spot_check", "holder_id", "lease_expires_at", "created_at",
    "assigned_to_id", "reviews_required", "case__constitution_name", "case__constitution_pin_id",
    "case__client__name", "holder__username", "assigned_to__username",
)


@dataclass(frozen=True)
class QueueFilters:
    """The queue's search, filters and order; empty means "any". `assignee` (whom a lead assigned the
    case to) and `held` (who holds its lease now) are each "", "none", "me" or a user id."""

    reason: str = ""
    severity: str = ""
    constitution: str = ""
    client: int | None = None
    assignee: str = ""
    held: str = ""
    spot_check: bool | None = None
    overdue: bool = False
    search: str = ""
    """A ticket id (`external_id`) or case number, or words that all appear in the question or the answer."""
    sort: QueueSort = QueueSort.PRIORITY


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
class QueueCounts:
    """What the queue page counts, under every filter but the reason (the counts are its choices)."""

    per_reason: Sequence[tuple[str, Tally | None]]
    """Reasons with open cases (spot checks aside), most first; None where there were too many cases to count
    one by one."""
    all_reasons: Tally
    total: Tally
    """Under the reason filter too: the cases the pages list."""
    spot_checks: Tally | None = None
    """Open spot checks, counted apart: they are reviewed blind, so no reason is shown or counted for them."""

    @property
    def capped(self) -> bool:
        return self.all_reasons.at_least

    @property
    def cap(self) -> str:
        return f"{queue_counts.COUNT_CAP:,}"


@dataclass(frozen=True)
class QueuePage:
    """The rows of one page, the counts, and where the pager's links lead."""

    escalations: list[Escalation]
    counts: QueueCounts
    has_previous: bool = False
    has_next: bool = False

    @property
    def previous_cursor(self) -> str:
        return QueueCursor.of(self.escalations[0]).encode() if self.escalations else ""

    @property
    def next_cursor(self) -> str:
        return QueueCursor.of(self.escalations[-1]).encode() if self.escalations else ""


def _person(choice: str, reviewer: User) -> int:
    return reviewer.pk if choice == "me" else int(choice)


def _filtered(filters: QueueFilters, *, reviewer: User, now: datetime, overdue: Q | None) -> QuerySet[Escalation]:
    queryset = Escalation.objects.filter(status=EscalationStatus.OPEN)
    if filters.search:
        queryset = queryset.filter(case_matching(filters.search, through="case__"))
    if filters.severity:
        # A spot check's severity is the engine's verdict, hidden from its blind review: no filter reads it.
        queryset = queryset.filter(severity=filters.severity, is_spot_check=False)
    if filters.constitution:
        queryset = queryset.filter(case__constitution_name=filters.constitution)
    if filters.client is not None:
        queryset = queryset.filter(case__client_id=filters.client)
    if filters.spot_check is not None:
        queryset = queryset.filter(is_spot_check=filters.spot_check)
    if filters.assignee == "none":
        queryset = queryset.filter(assigned_to__isnull=True)
    elif filters.assignee:
        queryset = queryset.filter(assigned_to_id=_person(filters.assignee, reviewer))
    if filters.held == "none":
        queryset = queryset.filter(lease_free(now))
    elif filters.held:
        queryset = queryset.filter(holder_id=_person(filters.held, reviewer), lease_expires_at__gt=now)
    if filters.overdue:
        queryset = queryset.filter(overdue) if overdue is not None else queryset.none()
    return queryset


def case_matching(search: str, *, through: str = "") -> Q:
    """The cases a search finds: its ticket id exactly (the client's `external_id`) or its case number,
    or every word of it (in any case) in the question, the submitted answer or the current answer; Chinese
    and Japanese words by their character pairs (search_terms.py), as those scripts need no spaces.
    `through` is the path from the rows searched to their case ("case__" from escalations).

    A scan of the texts, as the filters by client or constitution are: fast at the size of a review
    queue, and one index of the case's texts would serve this search alone.
    """
    search = search.strip()
    found = Q(**{f"{through}external_id": search})
    terms = search_terms(search.split()[:SEARCH_MAX_WORDS])
    if terms:
        found |= reduce(operator.and_, (_meeting(term, through) for term in terms))
    number = search.removeprefix("#")
    if number.isdigit() and len(number) < 19:  # past 19 digits it is no case number (bigint)
        found |= Q(**{f"{through}id": int(number)})
    return found


def _meeting(term: SearchTerm, through: str) -> Q:
    """The cases whose texts hold at least `term.needed` of its parts."""
    if term.needed == len(term.parts):
        return reduce(operator.and_, (_in_texts(part, through) for part in term.parts))
    held = reduce(operator.add, (Case(When(_in_texts(part, through), then=Value(1)), default=Value(0))
                                 for part in term.parts))
    # Texts holding `needed` of the parts hold one of any (parts - needed + 1) of them: that test, cheaper than
    # the count, comes first and spares most texts the count.
    some = reduce(operator.or_, (_in_texts(part, through) for part in term.parts[:len(term.parts) - term.needed + 1]))
    return some & Q(GreaterThanOrEqual(held, term.needed))


def _in_texts(part: str, through: str) -> Q:
    return (Q(**{f"{through}question__icontains": part}) | Q(**{f"{through}answer__icontains": part})
            | Q(**{f"{through}final_answer__icontains": part}))


def queue_page(
    *, filters: QueueFilters, reviewer: User, now: datetime, position: QueuePosition | None = None
) -> QueuePage:
    """One page of open escalations in the order asked for (highest priority then oldest first unless
    sorted otherwise), with the counts per reason."""
    position = position or QueuePosition()
    overdue = overdue_condition(now, deadlines_by_hours())
    base = _filtered(filters, reviewer=reviewer, now=now, overdue=overdue)
    counts = _counts(filters, base)
    if counts.total.count == 0:
        # Nothing matches: skip the ordered scan, which would read the whole queue index to find no row.
        return QueuePage([], counts)
    rows = _of_reason(base, filters.reason)
    sort = filters.sort
    # One row more than a page tells whether there is a page beyond, without counting. Towards where a
    # cursor came from there is the page its link was on.
    if position.before is not None:
        found = _shown(_seek(rows, position.before, sort, backward=True), sort, backward=True, overdue=overdue)
        found.reverse()
        return QueuePage(found[-QUEUE_PAGE_SIZE:], counts, len(found) > QUEUE_PAGE_SIZE, True)
    if position.after is not None:
        found = _shown(_seek(rows, position.after, sort, backward=False), sort, backward=False, overdue=overdue)
        return QueuePage(found[:QUEUE_PAGE_SIZE], counts, True, len(found) > QUEUE_PAGE_SIZE)
    found = _shown(rows, sort, backward=False, overdue=overdue)
    return QueuePage(found[:QUEUE_PAGE_SIZE], counts, False, len(found) > QUEUE_PAGE_SIZE)


def queue_page_counts(*, filters: QueueFilters, reviewer: User, now: datetime) -> QueueCounts:
    """The counts `queue_page` shows, alone."""
    overdue = overdue_condition(now, deadlines_by_hours()) if filters.overdue else None
    return _counts(filters, _filtered(filters, reviewer=reviewer, now=now, overdue=overdue))


def _of_reason(rows: QuerySet[Escalation], reason: str) -> QuerySet[Escalation]:
    """The rows of `reason` if one is asked for. A spot check has none to filter on: it is reviewed blind,
    and the reason the engine released it for would say what the engine found."""
    return rows.filter(reason=reason, is_spot_check=False) if reason else rows


def _counts(filters: QueueFilters, base: QuerySet[Escalation]) -> QueueCounts:
    """Exact counts per reason, kept as the queue changes (queue_counts.py), under the filters the kept
    counts have columns for; under any other, the matching cases counted now, up to the cap. Spot checks
    are counted apart, under no reason."""
    def kept() -> list[tuple[str, Tally]]:
        spot_check = False if filters.severity else filters.spot_check
        return kept_counts(severity=filters.severity, spot_check=spot_check)

    counted_now = (
        filters.constitution or filters.client is not None or filters.assignee or filters.held or filters.overdue
        or filters.search
    )
    counted = capped_counts(base) if counted_now else kept()
    if counted is None:
        # More cases match than the cap: the reasons (the reason filter's choices) are offered uncounted.
        all_reasons = Tally(queue_counts.COUNT_CAP, at_least=True)
        total = capped_count(_of_reason(base, filters.reason)) if filters.reason else all_reasons
        uncounted: list[tuple[str, Tally | None]] = [(reason, None) for reason, _ in kept() if reason != SPOT_CHECKS]
        return QueueCounts(uncounted, all_reasons, total)
    all_reasons = sum((count for _reason, count in counted), Tally(0))
    reasons = [(reason, count) for reason, count in counted if reason != SPOT_CHECKS]
    total = dict(reasons).get(filters.reason, Tally(0)) if filters.reason else all_reasons
    return QueueCounts(reasons, all_reasons, total, spot_checks=dict(counted).get(SPOT_CHECKS))


def _seek(
    rows: QuerySet[Escalation], cursor: QueueCursor, sort: QueueSort, *, backward: bool
) -> QuerySet[Escalation]:
    """The rows past `cursor` in `sort` order (before it if `backward`), for the caller to order and slice.

    They are one stretch of an index, but in the default order priority runs down while age runs up, so
    no row comparison describes it, and PostgreSQL answers the OR of its ranges by walking the index from
    the top, as an OFFSET would. Each range alone is an index range scan: take a page from each, as a UNION of
    ids, and leave the caller at most three pages of rows to sort.
    """
    pieces = past(cursor, sort, backward=backward)
    if not connections[rows.db].features.supports_slicing_ordering_in_compound:
        return rows.filter(reduce(operator.or_, pieces))  # SQLite (the demo): right, only not as fast
    order = queue_order(sort, backward=backward)
    ids = [rows.filter(piece).order_by(*order).values("pk")[: QUEUE_PAGE_SIZE + 1] for piece in pieces]
    return Escalation.objects.filter(pk__in=ids[0].union(*ids[1:], all=True))


def _shown(rows: QuerySet[Escalation], sort: QueueSort, *, backward: bool, overdue: Q | None) -> list[Escalation]:
    """Up to a page and one row, in `sort` order (reversed if `backward`), with what a row shows."""
    return list(
        rows.select_related("case__client", "holder", "assigned_to")
        .only(*_QUEUE_COLUMNS)
        # Cut long questions in the database: a row shows one line, and 50 rows of 4,000 characters
        # would cost more to send and truncate than the whole query.
        .annotate(question_preview=Left("case__question", QUESTION_PREVIEW_CHARS),
                  answer_preview=answer_preview("case__"),
                  overdue=overdue_annotation(overdue))
        .order_by(*queue_order(sort, backward=backward))[: QUEUE_PAGE_SIZE + 1]
    )


def answer_preview(through: str = "") -> Left:
    """The start of the answer a row shows: the current version's text where the run stored one (what a
    reviewer would decide on), else the answer as submitted."""
    current = Coalesce(NullIf(f"{through}final_answer", Value("")), f"{through}answer", Value(""))
    return Left(current, ANSWER_PREVIEW_CHARS)


def constitution_names() -> list[str]:
    return policy_selectors.constitution_names() or constitutions.builtin_names()
