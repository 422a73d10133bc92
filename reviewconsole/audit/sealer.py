"""The sealer: gives committed events their positions and extends the Merkle tree, one signed head a batch.

Trillian's sequencer and integrator in one short transaction. Writers never wait for it: appending is
an INSERT with no position (`services.audit_record`), and the lock here is taken by sealers alone, so two
sealers never extend the same head while writers go on appending.

Nothing is skipped. A row the sealer can see is committed; it gives positions only to rows it saw, after
every position given before, in id order. A transaction that commits later is sealed by a later batch,
so a slow writer delays nothing and leaves no hole (numbering at insert time would leave one, which a
reader could not tell from a deletion until the writer commits).

Runs every AUDIT_SEAL_SECONDS as the `audit.seal` task, on demand as `manage.py audit_seal`, before each
export, and, where no broker runs the periodic task, after each commit that appended (AUDIT_SEAL_ON_COMMIT).
Each head is also appended to AUDIT_HEADS_FILE, where set, once its batch committed (`heads_file.py`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from reviewconsole.audit.heads import sign_head, signature_problem, trusted_keys
from reviewconsole.audit.heads_file import heads_file_append
from reviewconsole.audit.leaves import canonical_time
from reviewconsole.audit.merkle import CompactRange
from reviewconsole.audit.models import AuditEvent, AuditTreeHead
from reviewconsole.audit.selectors import latest_tree_head

# Any constant shared by every sealer; pg_advisory_xact_lock takes a bigint key ("sealer" in ASCII).
SEALER_LOCK_KEY = int.from_bytes(b"sealer", "big")
# Events per tree head at most: a batch is one transaction, kept short however large the backlog.
SEAL_BATCH = 10_000


class SealerError(Exception):
    """The log's newest head cannot be extended (it does not hold together): nothing was sealed."""


@dataclass(frozen=True)
class Batch:
    """Events sealed together and the signed head that covers them: seq `first_seq` to `head.tree_size`."""

    head: AuditTreeHead
    first_seq: int

    @property
    def events(self) -> int:
        return self.head.tree_size - self.first_seq + 1


def log_seal(*, wait: bool = True, batch: int = SEAL_BATCH) -> Batch | None:
    """Seal up to `batch` committed events into the next tree head; None when none wait.

    With `wait=False` it gives up at once (None) when another sealer is at work: that one seals the same
    events. The head's time is read once the events are, so no event looks appended after its sealing.
    """
    with transaction.atomic():
        if not _sealer_lock(wait=wait):
            return None
        # Read after the lock: the head the previous sealer committed is visible now.
        tree = _extendable_tree(latest_tree_head())
        pending = list(
            AuditEvent.objects.filter(seq__isnull=True).order_by("id").values_list("id", "leaf_hash")[:batch]
        )
        if not pending:
            return None
        first_seq = tree.size + 1
        for _, leaf_hash in pending:
            tree.append(bytes.fromhex(leaf_hash))
        _give_positions([event_id for event_id, _ in pending], first_seq=first_seq)
        now = timezone.now()
        signed = sign_head(tree_size=tree.size, root_hash=tree.root().hex(), sealed_at=canonical_time(now))
        head = AuditTreeHead.objects.create(
            tree_size=signed.tree_size, root_hash=signed.root_hash, sealed_at=now,
            frontier=[subtree.hex() for subtree in tree.hashes], key_id=signed.key_id, signature=signed.signature,
        )
        if settings.AUDIT_HEADS_FILE is not None:
            # Once committed: a head in the file for a batch that rolled back would be a false alarm for ever.
            transaction.on_commit(partial(heads_file_append, path=settings.AUDIT_HEADS_FILE, head=signed), robust=True)
        return Batch(head=head, first_seq=first_seq)


def log_seal_pending(*, wait: bool = True, batch: int = SEAL_BATCH, budget_seconds: float = 30.0) -> list[Batch]:
    """Seal batch after batch until no committed event waits, or `budget_seconds` have passed (a backlog
    left after an outage is then finished by the next run rather than by one endless task)."""
    deadline = time.monotonic() + budget_seconds
    batches: list[Batch] = []
    while True:
        sealed = log_seal(wait=wait, batch=batch)
        if sealed is None:
            return batches
        batches.append(sealed)
        if sealed.events < batch or time.monotonic() >= deadline:
            return batches


def seal_after_commit() -> None:
    """Registered by `audit_record` where nothing else runs the sealer: seals once the append committed."""
    transaction.on_commit(lambda: log_seal_pending(wait=True), robust=True)


def _sealer_lock(*, wait: bool) -> bool:
    if connection.vendor != "postgresql":
        return True  # SQLite takes the database's write lock when the transaction begins: one sealer at a time.
    with connection.cursor() as cursor:
        if wait:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [SEALER_LOCK_KEY])
            return True
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [SEALER_LOCK_KEY])
        return bool(cursor.fetchone()[0])


def _extendable_tree(latest: AuditTreeHead | None) -> CompactRange:
    """The newest head's tree, once it is shown to be the head this log signed.

    Extending a forged or damaged head would put a valid signature over it, so both its signature and
    its frontier (which is not signed) are checked first; `audit_verify` says what went wrong.
    """
    if latest is None:
        return CompactRange()
    problem = signature_problem(latest.signed(), trusted_keys())
    if problem:
        raise SealerError(f"tree head {latest.tree_size} cannot be extended: {problem}; run audit_verify")
    try:
        tree = CompactRange(latest.tree_size, [bytes.fromhex(subtree) for subtree in latest.frontier])
    except (TypeError, ValueError) as error:
        raise SealerError(f"tree head {latest.tree_size}'s frontier is unreadable: {error}; run audit_verify") from None
    if tree.root().hex() != latest.root_hash:
        raise SealerError(f"tree head {latest.tree_size}'s frontier does not hash to its root; run audit_verify")
    return tree


def _give_positions(event_ids: list[int], *, first_seq: int) -> None:
    """Set seq on exactly these unsealed events: the one UPDATE the log's trigger lets through."""
    table = AuditEvent._meta.db_table
    seqs = list(range(first_seq, first_seq + len(event_ids)))
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                f"UPDATE {table} AS event SET seq = given.seq FROM unnest(%s::bigint[], %s::bigint[]) AS given(id, seq)"
                " WHERE event.id = given.id AND event.seq IS NULL",
                [event_ids, seqs],
            )
            updated = cursor.rowcount
        else:
            given = list(zip(seqs, event_ids, strict=True))
            cursor.executemany(f"UPDATE {table} SET seq = %s WHERE id = %s AND seq IS NULL", given)
            updated = cursor.rowcount
    if updated != len(event_ids):
        # Someone else gave some of these a position meanwhile: not a sealer (they hold the lock), so abort.
        raise SealerError(f"{len(event_ids) - updated} of the events to seal were given a position by someone else")
