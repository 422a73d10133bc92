"""An export never makes writers wait: on real PostgreSQL, with the export and the writer on two connections,
an audit append completes while the export counts its rows and while it streams them."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, connections, transaction

from reviewconsole.audit import rows
from reviewconsole.audit.models import AuditEvent, AuditExport, ExportFormat
from reviewconsole.audit.services import audit_record, chain_head_values
from reviewconsole.review.models import Decision
from reviewconsole.support import exports as export_formats
from reviewconsole.support.selectors import AuditFilter
from reviewconsole.support.services import export_start

pytestmark = pytest.mark.django_db(transaction=True)

# Long enough for any append on an idle database; a writer stuck behind an export waits far longer.
APPEND_SECONDS = 5


@pytest.fixture(autouse=True)
def postgresql_only():
    if connection.vendor != "postgresql":
        pytest.skip("the chain lock is a PostgreSQL advisory lock; set DATABASE_URL to a PostgreSQL database")


class Worker(threading.Thread):
    """Runs `work` on its own database connection and keeps its result or error."""

    def __init__(self, work):
        super().__init__(daemon=True)
        self.work, self.result, self.error = work, None, None

    def run(self):
        try:
            self.result = self.work()
        except BaseException as error:  # noqa: BLE001 - handed back to the test thread
            self.error = error
        finally:
            connections.close_all()


def _append(reviewer) -> AuditEvent:
    return audit_record(actor=reviewer, action="note.added", object_type="case_note", object_id=1,
                        payload={"chars": 12})


def _waiting_for_a_lock(fragment: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            " AND query ILIKE %s", [f"%{fragment}%"],
        )
        return cursor.fetchone()[0] > 0


def _until(condition, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_an_audit_append_completes_while_an_export_counts_its_rows(support_lead, reviewer):
    _append(reviewer)
    head_before = chain_head_values()
    table_held, release_count = threading.Event(), threading.Event()

    def hold_the_decisions_table():
        # Another session holding review_decision keeps the export's count waiting, as a count over a
        # large trail would keep it busy: the export is then, reliably, in the middle of counting.
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(f'LOCK TABLE "{Decision._meta.db_table}" IN ACCESS EXCLUSIVE MODE')
            table_held.set()
            release_count.wait(30)

    holder = Worker(hold_the_decisions_table)
    export = Worker(lambda: export_start(requested_by=support_lead, export_format=ExportFormat.FIXTURES,
                                         audit_filter=AuditFilter()))
    writer = Worker(lambda: _append(reviewer))
    holder.start()
    try:
        assert table_held.wait(10)
        export.start()
        _until(lambda: _waiting_for_a_lock(f'COUNT(*) AS "__count" FROM "{Decision._meta.db_table}"'))
        writer.start()
        writer.join(APPEND_SECONDS)
        appended_while_counting = not writer.is_alive()
    finally:
        release_count.set()
        for thread in (holder, export, writer):
            if thread.is_alive() or thread.ident is not None:
                thread.join(30)

    assert appended_while_counting, "an audit append waited for an export's count"
    assert writer.error is None and export.error is None and holder.error is None
    made = AuditExport.objects.get()
    assert (made.head_seq, made.head_hash) == head_before  # the export covers the chain as it was when asked
    events = AuditEvent.objects.filter(seq__gt=head_before[0]).order_by("seq")
    assert [event.action for event in events] == ["note.added", "export.created"]


def test_an_audit_append_completes_while_an_export_streams(support_lead, reviewer, monkeypatch):
    for _ in range(4):
        _append(reviewer)
    head_seq, _ = chain_head_values()
    # One row per fetch and per chunk: the stream is then mid-way after its first chunk.
    monkeypatch.setattr(rows, "STREAM_CHUNK_ROWS", 1)
    monkeypatch.setattr(export_formats, "_LINES_PER_CHUNK", 1)
    chunks = export_formats.export_chunks(ExportFormat.JSONL, AuditFilter(), head_seq)
    first = next(chunks)

    writer = Worker(lambda: _append(reviewer))
    writer.start()
    writer.join(APPEND_SECONDS)

    assert not writer.is_alive() and writer.error is None, "an audit append waited for an export's stream"
    rest = list(chunks)
    assert sum(rows for _, rows in [first, *rest]) == head_seq  # the stream still stops at its head
    assert writer.result.seq == head_seq + 1
