"""Nothing makes writers wait: on real PostgreSQL, with each party on its own connection, an audit append
commits while an export counts its rows, while it streams them, and while a sealer's transaction is open."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, connections, transaction

from reviewconsole.audit import rows
from reviewconsole.audit.models import AuditEvent, AuditExport, AuditTreeHead, ExportFormat
from reviewconsole.audit.sealer import log_seal, log_seal_pending
from reviewconsole.audit.selectors import latest_tree_head
from reviewconsole.audit.services import audit_record
from reviewconsole.review.models import Decision
from reviewconsole.support import exports as export_formats
from reviewconsole.support.selectors import AuditFilter
from reviewconsole.support.services import export_start

pytestmark = pytest.mark.django_db(transaction=True)

# Long enough for any append on an idle database; a writer stuck behind a lock waits far longer.
APPEND_SECONDS = 5


@pytest.fixture(autouse=True)
def postgresql_only(settings):
    if connection.vendor != "postgresql":
        pytest.skip("these are PostgreSQL's locks; set DATABASE_URL to a PostgreSQL database")
    settings.AUDIT_SEAL_ON_COMMIT = False  # the test decides when the sealer runs


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
    # The export sealed the first note before counting, and covers exactly that head.
    assert (made.tree_size, made.root_hash) == (1, AuditTreeHead.objects.get(tree_size=1).root_hash)
    later = AuditEvent.objects.filter(seq__isnull=True).order_by("id")
    assert [event.action for event in later] == ["note.added", "export.created"]


def test_an_audit_append_completes_while_an_export_streams(support_lead, reviewer, monkeypatch):
    for _ in range(4):
        _append(reviewer)
    (batch,) = log_seal_pending()
    # One row per fetch and per chunk: the stream is then mid-way after its first chunk.
    monkeypatch.setattr(rows, "STREAM_CHUNK_ROWS", 1)
    monkeypatch.setattr(export_formats, "_LINES_PER_CHUNK", 1)
    chunks = export_formats.export_chunks(ExportFormat.JSONL, AuditFilter(), batch.head.tree_size)
    first = next(chunks)

    writer = Worker(lambda: _append(reviewer))
    writer.start()
    writer.join(APPEND_SECONDS)

    assert not writer.is_alive() and writer.error is None, "an audit append waited for an export's stream"
    log_seal_pending()
    rest = list(chunks)
    assert sum(rows for _, rows in [first, *rest]) == 4  # the stream still stops at its head
    assert AuditEvent.objects.get(pk=writer.result.pk).seq == 5


def test_an_audit_append_commits_while_a_sealer_holds_its_transaction_open(reviewer):
    for _ in range(3):
        _append(reviewer)
    sealed, release = threading.Event(), threading.Event()

    def seal_and_hold():
        # The sealer's work done (positions given, head written, its lock held) but not committed yet.
        with transaction.atomic():
            batch = log_seal()
            sealed.set()
            release.wait(30)
        return batch

    sealer = Worker(seal_and_hold)
    sealer.start()
    try:
        assert sealed.wait(10)
        writer = Worker(lambda: _append(reviewer))
        writer.start()
        writer.join(APPEND_SECONDS)
        appended_while_sealing = not writer.is_alive()
        # A second sealer does not wait for the first: it has nothing to add that the first is not sealing.
        other = Worker(lambda: log_seal(wait=False))
        other.start()
        other.join(APPEND_SECONDS)
        other_returned = not other.is_alive()
    finally:
        release.set()
        sealer.join(30)

    assert appended_while_sealing, "an audit append waited for the sealer"
    assert writer.error is None and sealer.error is None
    assert other_returned and other.error is None and other.result is None
    assert sealer.result.events == 3 and latest_tree_head().tree_size == 3
    # The append committed during the batch is not in it: the next batch seals it, after the three.
    (after,) = log_seal_pending()
    assert after.first_seq == 4 and after.events == 1
    assert AuditEvent.objects.get(pk=writer.result.pk).seq == 4
