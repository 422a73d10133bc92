"""The metrics page's pictures over time: per constitution and week, the automation rate, the unsafe
release rate estimated from blind spot checks (with its 95% interval), decisions per day and the median
time to decision. Each series is also a CSV (`trend_csv_rows`).

Weeks start on Monday (UTC); the first and last week of a period may be partial, and a rate per day
divides by the days of the week inside the period. A constitution is named as its cases name it (a case
that named none ran under the default).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.db.models import Count, F, Q, TextChoices
from django.db.models.functions import TruncDate

from reviewconsole.intake.models import Case, CaseStatus
from reviewconsole.review.models import Decision, DecisionKind, Escalation
from reviewconsole.support.metrics import percentile
from reviewconsole.support.safety import unsafe_release_rates, wilson_interval
from verification import DEFAULT_CONSTITUTION

MAX_WEEKS = 53
"""Weeks drawn at most: the latest ones of a longer period."""


class Series(TextChoices):
    AUTOMATION = "automation", "Automation rate"
    UNSAFE_RELEASE = "unsafe-release", "Unsafe release rate (blind spot checks)"
    DECISIONS = "decisions", "Decisions per day"
    TIME_TO_DECISION = "time-to-decision", "Median time to decision"


@dataclass(frozen=True)
class WeekPoint:
    """One constitution's figure for one week; `value` None where there was nothing to measure."""

    value: float | None
    count: int
    """What the figure is over: finished cases, labelled spot checks, decisions, or decided escalations."""
    part: int = 0
    """Of `count`: cases released without a person, or unsafe spot checks (0 for the other series)."""
    low: float | None = None
    high: float | None = None
    """The 95% Wilson interval (unsafe release rate only)."""


@dataclass(frozen=True)
class Trend:
    series: Series
    weeks: list[date]
    """The Mondays of the weeks drawn, oldest first."""
    lines: dict[str, list[WeekPoint]]
    """Constitution -> one point per week."""

    @property
    def empty(self) -> bool:
        return not any(point.count for points in self.lines.values() for point in points)


def weeks_of(since: datetime, until: datetime) -> list[date]:
    """The Mondays of the weeks that [since, until) touches, the latest MAX_WEEKS."""
    first = since.date() - timedelta(days=since.weekday())
    last = (until - timedelta(microseconds=1)).date()
    weeks = []
    while first <= last:
        weeks.append(first)
        first += timedelta(days=7)
    return weeks[-MAX_WEEKS:]


def trends(*, since: datetime, until: datetime) -> list[Trend]:
    """Every series over [since, until), in the order the page shows them."""
    weeks = weeks_of(since, until)
    if weeks and since.date() < weeks[0]:
        since = datetime.combine(weeks[0], datetime.min.time(), tzinfo=since.tzinfo)  # the weeks drawn only
    return [
        _automation(since, until, weeks), _unsafe_release(since, until, weeks), _decisions(since, until, weeks),
        _time_to_decision(since, until, weeks),
    ]


def trend(series: Series, *, since: datetime, until: datetime) -> Trend:
    return next(found for found in trends(since=since, until=until) if found.series is series)


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _name(constitution: str) -> str:
    return constitution or DEFAULT_CONSTITUTION.name


def _lines(weeks: list[date], cells: dict[tuple[str, date], WeekPoint]) -> dict[str, list[WeekPoint]]:
    names = sorted({name for name, _ in cells})
    return {name: [cells.get((name, week), WeekPoint(None, 0)) for week in weeks] for name in names}


def _by_week(rows) -> Iterator[tuple[str, date, dict]]:
    """(constitution, week, row) for rows counted per day and constitution."""
    for row in rows:
        yield _name(row["constitution"]), _monday(row["day"]), row


def _automation(since: datetime, until: datetime, weeks: list[date]) -> Trend:
    # Released without a person: no escalation, or only a spot check drawn after the release.
    automated = Q(status=CaseStatus.RELEASED) & (Q(escalation__isnull=True) | Q(escalation__is_spot_check=True))
    rows = (
        Case.objects.filter(finished_at__gte=since, finished_at__lt=until).exclude(terminal="")
        .annotate(day=TruncDate("finished_at")).values("day", constitution=F("constitution_name"))
        .annotate(finished=Count("id"), automated=Count("id", filter=automated))
    )
    totals: dict[tuple[str, date], list[int]] = defaultdict(lambda: [0, 0])
    for name, week, row in _by_week(rows):
        totals[(name, week)][0] += row["finished"]
        totals[(name, week)][1] += row["automated"]
    cells = {key: WeekPoint(part / count if count else None, count, part) for key, (count, part) in totals.items()}
    return Trend(Series.AUTOMATION, weeks, _lines(weeks, cells))


def _unsafe_release(since: datetime, until: datetime, weeks: list[date]) -> Trend:
    totals: dict[tuple[str, date], list[int]] = defaultdict(lambda: [0, 0])
    for week in weeks:
        start = max(since, datetime.combine(week, datetime.min.time(), tzinfo=since.tzinfo))
        end = min(until, datetime.combine(week + timedelta(days=7), datetime.min.time(), tzinfo=since.tzinfo))
        # The offline and the model path are one constitution's releases here: the table above keeps them apart.
        for rate in unsafe_release_rates(since=start, until=end):
            totals[(rate.constitution, week)][0] += rate.spot_checks
            totals[(rate.constitution, week)][1] += rate.unsafe
    cells = {}
    for key, (count, unsafe) in totals.items():
        low, high = wilson_interval(unsafe, count) if count else (None, None)
        cells[key] = WeekPoint(unsafe / count if count else None, count, unsafe, low, high)
    return Trend(Series.UNSAFE_RELEASE, weeks, _lines(weeks, cells))


def _decisions(since: datetime, until: datetime, weeks: list[date]) -> Trend:
    rows = (
        Decision.objects.filter(kind__in=[DecisionKind.APPROVE, DecisionKind.REJECT],
                                case__escalation__decided_at__gte=since, case__escalation__decided_at__lt=until)
        .annotate(day=TruncDate("case__escalation__decided_at"))
        .values("day", constitution=F("case__constitution_name")).annotate(n=Count("id"))
    )
    counts: dict[tuple[str, date], int] = defaultdict(int)
    for name, week, row in _by_week(rows):
        counts[(name, week)] += row["n"]
    cells = {key: WeekPoint(count / _days_inside(key[1], since, until), count) for key, count in counts.items()}
    return Trend(Series.DECISIONS, weeks, _lines(weeks, cells))


def _time_to_decision(since: datetime, until: datetime, weeks: list[date]) -> Trend:
    seconds: dict[tuple[str, date], list[float]] = defaultdict(list)
    decided = Escalation.objects.filter(decided_at__gte=since, decided_at__lt=until).values_list(
        "case__constitution_name", "created_at", "decided_at")
    for constitution, opened, closed in decided:
        if closed is None:  # the filter leaves none: for the type checker
            continue
        seconds[(_name(constitution), _monday(closed.date()))].append((closed - opened).total_seconds())
    cells = {key: WeekPoint(percentile(values, 0.5), len(values)) for key, values in seconds.items()}
    return Trend(Series.TIME_TO_DECISION, weeks, _lines(weeks, cells))


def _days_inside(week: date, since: datetime, until: datetime) -> float:
    """Days of the week starting `week` inside [since, until): 7 but at a period's ends."""
    start = max(since, datetime.combine(week, datetime.min.time(), tzinfo=since.tzinfo))
    end = min(until, datetime.combine(week + timedelta(days=7), datetime.min.time(), tzinfo=since.tzinfo))
    return max((end - start).total_seconds() / 86400, 1 / 24)


CSV_HEADERS: dict[Series, tuple[str, ...]] = {
    Series.AUTOMATION: ("constitution", "week", "automation_rate", "cases_finished", "cases_automated"),
    Series.UNSAFE_RELEASE: ("constitution", "week", "unsafe_release_rate", "interval_low", "interval_high",
                            "spot_checks", "unsafe"),
    Series.DECISIONS: ("constitution", "week", "decisions_per_day", "decisions"),
    Series.TIME_TO_DECISION: ("constitution", "week", "median_seconds", "decided"),
}


def trend_csv_rows(found: Trend) -> Iterator[tuple[object, ...]]:
    """The header, then one row per constitution and week (empty cells where nothing was measured)."""
    cell: Callable[[float | None], object] = lambda value: "" if value is None else round(value, 6)  # noqa: E731
    yield CSV_HEADERS[found.series]
    for name, points in found.lines.items():
        for week, point in zip(found.weeks, points, strict=True):
            row: tuple[object, ...] = (name, week.isoformat(), cell(point.value))
            if found.series is Series.AUTOMATION:
                row += (point.count, point.part)
            elif found.series is Series.UNSAFE_RELEASE:
                row += (cell(point.low), cell(point.high), point.count, point.part)
            else:
                row += (point.count,)
            yield row
