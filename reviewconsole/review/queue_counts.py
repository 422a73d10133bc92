"""The queue's counts per reason: kept as escalations open and leave the queue, not counted on every page.

Counting the open queue per reason took the queue page about 13 ms at 100,000 open cases, on every load.
The counts change in only three places, all review's own services (through `services/queue_counts.py`):
routing opens an escalation, a disagreeing double review sends one to adjudication, and a decision closes
one. Each of those adds to
a small table (`QueueCount`) in its own transaction, so the counts commit with the change or not at all
and are exact, not "about": a page reads a few hundred rows whatever the length of the queue. (A cache
would have been approximate for its lifetime, and its misses would still count the whole queue.)

The table has columns for the reason, the severity and the spot-check flag, so those filters read it
too. Under the queue's other filters (constitution, client, assignee, lease holder, deadline) the page
counts the matching cases when it loads, up to `COUNT_CAP`: a filter that matches few cases is counted
exactly, per reason; one that matches more stops at the cap, says "1,000+", and is not counted per
reason.

Anything that changes an escalation's status, reason, severity or spot-check flag outside these services
(a fixture, a seed, a rolling deploy with old code still running) leaves the counts behind:
`manage.py queue_counts` compares them with a count of the queue, and `--rebuild` recounts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import connection, connections, transaction
from django.db.models import Count, QuerySet, Sum

from reviewconsole.review.models import Escalation, EscalationStatus, QueueCount

# How far the queue is counted under a filter the kept counts have no column for.
COUNT_CAP = 1000
# The key spot checks are counted under, together: a spot check is reviewed blind, and its reason (why the
# engine released it) would tell the reviewer what the engine found.
SPOT_CHECKS = "SPOT_CHECKS"


@dataclass(frozen=True)
class Tally:
    """A number of open cases, as the queue page shows it."""

    count: int
    at_least: bool = False
    """Counting stopped at COUNT_CAP: there are at least `count` cases, maybe more."""

    def __str__(self) -> str:
        return f"{self.count:,}+" if self.at_least else f"{self.count:,}"

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.count + other.count, self.at_least or other.at_least)


_OPEN = EscalationStatus.OPEN


# --- Reading them -------------------------------------------------------------------------------------


def kept_counts(*, severity: str = "", spot_check: bool | None = None) -> list[tuple[str, Tally]]:
    """Open cases per reason (of `severity`, spot checks or not), most first, spot checks under SPOT_CHECKS:
    exact, from the kept counts."""
    rows = QueueCount.objects.all()
    if severity:
        rows = rows.filter(severity=severity)
    if spot_check is not None:
        rows = rows.filter(is_spot_check=spot_check)
    totals = rows.values("reason", "is_spot_check").annotate(n=Sum("open")).filter(n__gt=0)
    return _per_reason((row["reason"], row["is_spot_check"], row["n"]) for row in totals)


def _per_reason(counted: Iterable[tuple[str, bool, int]]) -> list[tuple[str, Tally]]:
    """(reason, spot check, count) rows as counts per reason, most first, spot checks under SPOT_CHECKS."""
    per_reason: Counter[str] = Counter()
    for reason, is_spot_check, n in counted:
        per_reason[SPOT_CHECKS if is_spot_check else reason] += n
    return [(reason, Tally(n)) for reason, n in sorted(per_reason.items(), key=lambda item: (-item[1], item[0]))]


def capped_counts(rows: QuerySet[Escalation]) -> list[tuple[str, Tally]] | None:
    """How many of `rows` have each reason, most first (spot checks under SPOT_CHECKS), if there are at
    most COUNT_CAP rows; else None.

    One statement that reads at most COUNT_CAP + 1 rows, from whichever index suits the filter: a filter
    that matches many rows meets the cap soon. The SQL that picks the rows is Django's; only the count
    around it is written here, as the ORM cannot group a sliced query.
    """
    if rows.query.is_empty():
        return []
    sql, params = rows.order_by().values("reason", "is_spot_check")[: COUNT_CAP + 1].query.sql_with_params()
    with connections[rows.db].cursor() as cursor:
        cursor.execute(
            f"SELECT reason, is_spot_check, COUNT(*) FROM ({sql}) AS capped GROUP BY reason, is_spot_check", params
        )
        found = cursor.fetchall()
    if sum(n for _reason, _spot, n in found) > COUNT_CAP:
        return None
    return _per_reason((reason, bool(is_spot_check), n) for reason, is_spot_check, n in found)


def capped_count(rows: QuerySet[Escalation]) -> Tally:
    """How many `rows` there are, counting up to COUNT_CAP."""
    n = rows.order_by().values("pk")[: COUNT_CAP + 1].count()
    return Tally(min(n, COUNT_CAP), at_least=n > COUNT_CAP)


def queue_counts_drift() -> dict[tuple[str, str, bool], tuple[int, int]]:
    """Keys (reason, severity, spot check) whose kept count differs from a count of the open queue, with
    (kept, counted) for each.

    Both are read from one snapshot when it can be had (PostgreSQL, outside a transaction): a change
    committed between the two reads would otherwise show as a difference.
    """
    own_transaction = not connection.in_atomic_block
    with transaction.atomic():
        if connection.vendor == "postgresql" and own_transaction:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        kept: dict[tuple[str, str, bool], int] = {}
        for row in QueueCount.objects.values("reason", "severity", "is_spot_check").annotate(n=Sum("open")):
            kept[(row["reason"], row["severity"], row["is_spot_check"])] = row["n"]
        counted = {
            (row["reason"], row["severity"], row["is_spot_check"]): row["open"]
            for row in counts_by_key(Escalation.objects.filter(status=_OPEN))
        }
    return {
        key: (kept.get(key, 0), counted.get(key, 0))
        for key in sorted(kept.keys() | counted.keys())
        if kept.get(key, 0) != counted.get(key, 0)
    }


def counts_by_key(escalations: QuerySet[Escalation]) -> QuerySet:
    return escalations.order_by().values("reason", "severity", "is_spot_check").annotate(open=Count("*"))
