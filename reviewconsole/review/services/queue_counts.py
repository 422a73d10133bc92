"""Keeping the queue's counts per reason (`review/queue_counts.py` says why they are kept and reads them):
called in the transactions of the services that change an escalation's status, and rebuilt on demand."""

from __future__ import annotations

import random

from django.db import connection, transaction

from reviewconsole.review.models import Escalation, EscalationStatus, QueueCount
from reviewconsole.review.queue_counts import counts_by_key

# Rows per key. Routing adds to a reason's count in the transaction that stores a finished run, and
# holds that row's lock until the commit (a WAL flush): with one row per reason, concurrent workers
# finishing cases of a busy reason queue for it. Measured on the 2-core machine, 8 writers committing
# two inserts and the count: about 2,500 transactions a second without a count, 600-1,200 with one row
# for all, 1,800-2,100 with 8 rows. A page sums 8 times more rows, a few hundred in all.
SHARDS = 8

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
            QueueCount(shard=0, **row) for row in counts_by_key(Escalation.objects.filter(status=_OPEN))
        )
        return sum(row.open for row in rows)
