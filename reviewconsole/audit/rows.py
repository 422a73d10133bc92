"""The sealed log's rows as stored, streamed in bounded chunks: what exports write and `audit_verify` checks."""

from __future__ import annotations

from collections.abc import Iterator

from django.db import connection
from django.db.models import F, Func, QuerySet, TextField
from django.db.models.functions import Cast

from reviewconsole.audit.leaves import LEAF_FIELDS, canonical_time
from reviewconsole.audit.models import AuditEvent

# Rows fetched per round trip while streaming; big enough to be fast, small enough to stay flat in memory.
STREAM_CHUNK_ROWS = 5000

EXPORT_COLUMNS = ("id", "seq", "leaf_hash", *LEAF_FIELDS)
_SEQ = EXPORT_COLUMNS.index("seq")
_CREATED = EXPORT_COLUMNS.index("created_at")
# The database writes the two costly columns as text itself: decoding a JSON payload only to encode it
# again, and parsing a timestamp only to format it, were most of an export's time.
_CANONICAL_TIME_SQL = """to_char(%(expressions)s AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')"""


def event_rows(events: QuerySet[AuditEvent]) -> Iterator[tuple]:
    """Rows (id, seq, leaf_hash, created_at, actor, action, object_type, object_id, case_id, payload) of
    the sealed events among `events`, in log order, with created_at as canonical UTC text and payload as
    JSON text, fetched in bounded chunks so memory stays flat however many rows match.

    Keyset pages (seq > last seen) rather than one long server-side cursor: a slow download then holds
    no transaction or snapshot open, and a task can report progress between chunks.
    """
    on_postgresql = connection.vendor == "postgresql"
    text_columns: dict[str, Func] = {"payload": Cast("payload", TextField())}
    if on_postgresql:
        text_columns["created_at"] = Func(F("created_at"), template=_CANONICAL_TIME_SQL, output_field=TextField())
    sealed = events.filter(seq__isnull=False).order_by("seq")
    annotated = sealed.annotate(**{f"{name}_text": value for name, value in text_columns.items()})
    columns = annotated.values_list(*(f"{c}_text" if c in text_columns else c for c in EXPORT_COLUMNS))
    last_seq = None
    while True:
        page = columns.filter(seq__gt=last_seq) if last_seq is not None else columns
        rows: list[tuple] = list(page[:STREAM_CHUNK_ROWS])
        if on_postgresql:
            yield from rows
        else:
            yield from (_with_canonical_time(row) for row in rows)
        if len(rows) < STREAM_CHUNK_ROWS:
            return
        last_seq = rows[-1][_SEQ]


def _with_canonical_time(row: tuple) -> tuple:
    return (*row[:_CREATED], canonical_time(row[_CREATED]), *row[_CREATED + 1 :])


def leaf_hashes(*, up_to: int) -> Iterator[bytes]:
    """The stored leaf hashes of seq 1 to `up_to`, in order, in bounded chunks (for inclusion proofs)."""
    columns = AuditEvent.objects.filter(seq__lte=up_to).order_by("seq").values_list("seq", "leaf_hash")
    last_seq = 0
    while True:
        page = list(columns.filter(seq__gt=last_seq)[:STREAM_CHUNK_ROWS])
        yield from (bytes.fromhex(leaf) for _, leaf in page)
        if len(page) < STREAM_CHUNK_ROWS:
            return
        last_seq = page[-1][0]
