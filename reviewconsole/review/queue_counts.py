"""The queue's counts per reason: kept as escalations open and leave the queue, not counted on every page.

Counting the open queue per reason took the queue page about 13 ms at 100,000 open cases, on every load.
The counts change in only three places, all review's own services: routing opens an escalation, a
disagreeing double review sends one to adjudication, and a decision closes one. Each of those adds to
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

import random
from dataclasses import dataclass

from django.db import connection, connections, transaction
from django.db.models import Count, QuerySet, Sum

from reviewconsole.review.models import Escalation, EscalationStatus, QueueCount

# Rows per key. Routing adds to a reason's count in the transaction that stores a finished run, and
# holds that row's lock until the commit (a WAL flush): with one row per reason, concurrent workers
# finishing cases of a busy reason queue for it. Measured on the 2-core machine, 8 writers committing
# two inserts and the count: about 2,500 transactions a second without a count, 600-1,200 with one row
# for all, 1,800-2,100 with 8 rows. A page sums 8 times more rows, a few hundred in all.
SHARDS = 8
# How far the queue is counted under a filter the kept counts have no column for.
COUNT_CAP = 1000


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


# --- Keeping the counts (called by the services that change an escalation's status) ------------------

_OPEN = EscalationStatus.OPEN


def queue_count_move(*, escalation: Escalation, from_status: str | None) -> None:
    """Count a change of `escalation`'s status, from `from_status` (None: it was just opened) to its status now.

    Runs in the caller's transaction, the one that saves the change: the count commits with it or not at
    all. Only entering or leaving the open queue changes a count.
    """
    delta = (escalation.status == _OPEN) - (from_status == _OPEN)
    if delta == 0:
        return
    if not connection.in_atomic_block:
        raise RuntimeError("queue counts change in the transaction that changes the escalation")
    _add(reason=escalation.reason, severity=escalation.severity, is_spot_check=escalation.is_spot_check,
         delta=delta)


def _add(*, reason: str, severity: str, is_spot_check: bool, delta: int) -> None:
    """Add `delta` to one shard of the key, creating the row the first time.

    One statement that PostgreSQL (and SQLite) run atomically: the row is locked, re-read and written, so
    two transactions adding to the same row both count. Django's update_conflicts can only overwrite a
    value, not add to it, hence the SQL.
    """
    quote = connection.ops.quote_name
    table, open_ = quote(QueueCount._meta.db_table), quote("open")
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (reason, severity, is_spot_check, shard, {open_}) VALUES (%s, %s, %s, %s, %s) "
            f"ON CONFLICT (reason, severity, is_spot_check, shard) DO UPDATE SET {open_} = {table}.{open_} + "
            f"EXCLUDED.{open_}",
            [reason, severity, is_spot_check, random.randrange(SHARDS), delta],
        )


def queue_counts_rebuild() -> int:
    """Count the open queue again and make that the kept counts; returns the number of open escalations.

    On PostgreSQL the count table is locked first (readers go on): a transaction that has added to it
    has committed by then, so the recount sees its escalation; one that has not waits, and adds its
    change on top of the recount.
    """
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(f"LOCK TABLE {connection.ops.quote_name(QueueCount._meta.db_table)} IN EXCLUSIVE MODE")
        QueueCount.objects.all().delete()
        rows = QueueCount.objects.bulk_create(
            QueueCount(shard=0, **row) for row in _counted(Escalation.objects.filter(status=_OPEN))
        )
        return sum(row.open for row in rows)


# --- Reading them -------------------------------------------------------------------------------------


def kept_counts(*, severity: str = "", spot_check: bool | None = None) -> list[tuple[str, Tally]]:
    """Open cases per reason (of `severity`, spot checks or not), most first: exact, from the kept counts."""
    rows = QueueCount.objects.all()
    if severity:
        rows = rows.filter(severity=severity)
    if spot_check is not None:
        rows = rows.filter(is_spot_check=spot_check)
    totals = rows.values("reason").annotate(n=Sum("open")).filter(n__gt=0).order_by("-n", "reason")
    return [(row["reason"], Tally(row["n"])) for row in totals]


def capped_counts(rows: QuerySet[Escalation]) -> list[tuple[str, Tally]] | None:
    """How many of `rows` have each reason, most first, if there are at most COUNT_CAP rows; else None.

    One statement that reads at most COUNT_CAP + 1 rows, from whichever index suits the filter: a filter
    that matches many rows meets the cap soon. The SQL that picks the rows is Django's; only the count
    around it is written here, as the ORM cannot group a sliced query.
    """
    if rows.query.is_empty():
        return []
    sql, params = rows.order_by().values("reason")[: COUNT_CAP + 1].query.sql_with_params()
    with connections[rows.db].cursor() as cursor:
        cursor.execute(f"SELECT reason, COUNT(*) FROM ({sql}) AS capped GROUP BY reason", params)
        found = cursor.fetchall()
    if sum(n for _reason, n in found) > COUNT_CAP:
        return None
    found.sort(key=lambda row: (-row[1], row[0]))
    return [(reason, Tally(n)) for reason, n in found]


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
            for row in _counted(Escalation.objects.filter(status=_OPEN))
        }
    return {
        key: (kept.get(key, 0), counted.get(key, 0))
        for key in sorted(kept.keys() | counted.keys())
        if kept.get(key, 0) != counted.get(key, 0)
    }


def _counted(escalations: QuerySet[Escalation]) -> QuerySet:
    return escalations.order_by().values("reason", "severity", "is_spot_check").annotate(open=Count("*"))
