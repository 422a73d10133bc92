"""Progress: what a reviewer decided today and what is left in their queue, a review lead's view of the
team, and the time each case took (from the reviewer's claim of it to their decision).

"Today" is the console's day (TIME_ZONE). A case counts once per person: the second review of a
double-reviewed case is both a review and the decision it takes, and is one case decided.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth.models import User
from django.db.models import Q
from django.utils import timezone

from reviewconsole.accounts.roles import Role
from reviewconsole.review.leases import lease_free, lease_held_by, reviewed_by
from reviewconsole.review.models import Decision, DecisionKind, Escalation, EscalationStatus, Review


def seconds_spent(escalation: Escalation, reviewer: User, now: datetime) -> int | None:
    """Seconds from `reviewer`'s claim of the case to `now`; None when they do not hold it (a review lead
    adjudicating has no lease, so no claim to count from)."""
    claimed = escalation.lease_claimed_at
    if claimed is None or escalation.holder_id != reviewer.pk:
        return None
    return max(0, int((now - claimed).total_seconds()))


def start_of_day(now: datetime) -> datetime:
    return timezone.localtime(now).replace(hour=0, minute=0, second=0, microsecond=0)


@dataclass(frozen=True)
class Progress:
    """One person's day: cases decided (or reviewed) today, how long they took, what is left or held."""

    decided_today: int
    median_seconds: int | None
    """The median time per case decided today, over those with a claim to count from."""
    left_in_queue: int = 0
    """Open cases "Next case" may still serve them: assigned to them or to nobody, free, not reviewed by them."""
    held: list[int] = field(default_factory=list)
    """Ids of the cases they hold now."""


def _closing_kinds() -> list[str]:
    return [DecisionKind.APPROVE.value, DecisionKind.REJECT.value]


def _cases_today(since: datetime, people: Q) -> dict[int, dict[int, int | None]]:
    """Per person id: {case id: seconds spent} for the cases they decided or reviewed since `since`."""
    done: dict[int, dict[int, int | None]] = {}
    reviews = Review.objects.filter(people, created_at__gte=since).values_list(
        "reviewer_id", "escalation__case_id", "seconds_spent"
    )
    decisions = Decision.objects.filter(people, created_at__gte=since, kind__in=_closing_kinds()).values_list(
        "reviewer_id", "case_id", "seconds_spent"
    )
    for reviewer_id, case_id, spent in [*reviews, *decisions]:
        cases = done.setdefault(reviewer_id, {})
        if cases.get(case_id) is None:
            cases[case_id] = spent
    return done


def _median(seconds: Iterable[int | None]) -> int | None:
    known = [value for value in seconds if value is not None]
    return int(statistics.median(known)) if known else None


def reviewer_progress(*, reviewer: User, now: datetime) -> Progress:
    """The reviewer's own progress, shown above their queue and their decisions."""
    cases = _cases_today(start_of_day(now), Q(reviewer_id=reviewer.pk)).get(reviewer.pk, {})
    left = (
        Escalation.objects.filter(status=EscalationStatus.OPEN)
        .filter(Q(assigned_to=reviewer) | Q(assigned_to__isnull=True))
        .filter(lease_free(now) | lease_held_by(reviewer, now))
        .exclude(reviewed_by(reviewer))
        .count()
    )
    return Progress(decided_today=len(cases), median_seconds=_median(cases.values()), left_in_queue=left)


@dataclass(frozen=True)
class PersonProgress:
    person: User
    progress: Progress


def team_progress(*, now: datetime) -> list[PersonProgress]:
    """Every active reviewer and review lead, with their day: a review lead's team view."""
    people = list(
        User.objects.filter(is_active=True, groups__name__in=[Role.REVIEWER.value, Role.REVIEW_LEAD.value])
        .distinct().order_by("username")
    )
    ids = [person.pk for person in people]
    done = _cases_today(start_of_day(now), Q(reviewer_id__in=ids))
    held: dict[int, list[int]] = {}
    holding = Escalation.objects.filter(status=EscalationStatus.OPEN, holder_id__in=ids, lease_expires_at__gt=now)
    for holder_id, case_id in holding.order_by("case_id").values_list("holder_id", "case_id"):
        held.setdefault(holder_id, []).append(case_id)
    return [
        PersonProgress(person, Progress(
            decided_today=len(done.get(person.pk, {})), median_seconds=_median(done.get(person.pk, {}).values()),
            held=held.get(person.pk, []),
        ))
        for person in people
    ]
