"""What `manage.py audit_verify` checks, and how it names what went wrong.

One pass over the sealed events in log order, in constant memory: each event's content must hash to its
stored leaf hash (else it was altered), positions must run 1, 2, 3 ... (else events were deleted), and
at each stored tree head the tree built so far must hash to the head's root, under a valid signature
(else leaf hashes were recomputed, or rows were removed or inserted and renumbered). Every head is
recomputed from the same leaves, so each is shown to be a prefix of the next. Heads saved outside the
database earlier (`audit_heads`) are checked the same way, which catches even a rewrite whose every
hash and head was recomputed with the signing key. Then: events sealed but covered by no signed head
(inserted after sealing), events a head covers that are gone (the newest ones deleted), and events
waiting too long to be sealed (the sealer is not running).

Where a rewrite recomputed the hashes, only the batch is known (the heads are the evidence): the report
names the batch's seq and id range. The walk stops at the first break: past it, every root differs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from reviewconsole.audit.heads import SignedTreeHead, signature_problem, trusted_keys
from reviewconsole.audit.leaves import LEAF_FIELDS, leaf_hash
from reviewconsole.audit.merkle import CompactRange
from reviewconsole.audit.models import AuditEvent, AuditTreeHead
from reviewconsole.audit.rows import STREAM_CHUNK_ROWS, event_rows
from reviewconsole.audit.selectors import latest_tree_head, unsealed_before

# Events listed when some are sealed outside any head; one is enough to name, a few show the extent.
_UNHEADED_SHOWN = 5


@dataclass(frozen=True)
class Problem:
    """One way the log does not hold together, as precisely as the evidence allows."""

    kind: str
    """altered, missing, head, rewritten, saved head, unheaded or unsealed."""
    message: str
    event_id: int | None = None
    seq: int | None = None


@dataclass
class Report:
    events: int = 0
    """Sealed events whose leaves were checked."""
    heads: int = 0
    """Stored tree heads checked."""
    saved_heads: int = 0
    """Heads from outside the database checked."""
    tree_size: int = 0
    """The newest stored head when the check began: the log it vouches for."""
    root_hash: str = ""
    sealed_meanwhile: int = 0
    """Events sealed while the check ran, left for the next check."""
    unsealed: int = 0
    """Events waiting to be sealed (not a problem unless they wait too long)."""
    problems: list[Problem] = field(default_factory=list)

    @property
    def intact(self) -> bool:
        return not self.problems


def log_check(*, now: datetime, max_unsealed_age: timedelta, saved_heads: Sequence[SignedTreeHead] = ()) -> Report:
    """Check the whole log against its stored heads and against `saved_heads`; see the module's docstring."""
    keys = trusted_keys()
    latest = latest_tree_head()
    report = Report(tree_size=latest.tree_size if latest else 0, root_hash=latest.root_hash if latest else "")
    saved: list[SignedTreeHead] = []
    for head in sorted(saved_heads, key=lambda head: head.tree_size):
        problem = signature_problem(head, keys)
        if problem:
            report.problems.append(Problem("saved head", f"saved tree head {head.tree_size}: {problem}"))
        else:
            saved.append(head)
    walk = _Walk(report, stored=_stored_heads(up_to=report.tree_size), saved=saved, keys=keys)
    walk.run(up_to=max([report.tree_size, *(head.tree_size for head in saved)]))
    if walk.broken is None:
        walk.finish()
    _check_unheaded(report)
    _check_unsealed(report, now=now, max_age=max_unsealed_age)
    return report


class _Walk:
    """The pass over sealed events: leaf by leaf, head by head, until the first break."""

    def __init__(self, report: Report, *, stored: Iterator[AuditTreeHead], saved: list[SignedTreeHead], keys):
        self.report, self.keys = report, keys
        self.tree = CompactRange()
        self.stored = stored
        self.next_stored = next(stored, None)
        self.saved = iter(saved)
        self.next_saved = next(self.saved, None)
        self.broken: Problem | None = None
        # Where the current batch began (for stored heads) and where the last saved head left off.
        self.batch_start: tuple[int, int | None] = (1, None)
        self.saved_start: tuple[int, int | None] = (1, None)
        self.last_id: int | None = None

    def run(self, *, up_to: int) -> None:
        self._reach()
        for event_id, seq, stored_leaf, *content in event_rows(AuditEvent.objects.filter(seq__lte=up_to)):
            if self.broken is not None:
                return
            expected = self.tree.size + 1
            if seq != expected:
                self._break("missing", f"{_events(expected, seq - 1)} missing: the next event is id={event_id} "
                            f"(seq {seq})", event_id, expected)
                return
            fields = dict(zip(LEAF_FIELDS, content, strict=True))
            computed = leaf_hash(**{**fields, "payload": json.loads(fields["payload"])})
            if computed != stored_leaf:
                self._break("altered", f"event id={event_id} (seq {seq}) was altered: its content hashes to "
                            f"{computed}, its stored leaf hash is {stored_leaf}", event_id, seq)
                return
            if self.batch_start[1] is None:
                self.batch_start = (seq, event_id)
            if self.saved_start[1] is None:
                self.saved_start = (seq, event_id)
            self.tree.append(bytes.fromhex(stored_leaf))
            self.last_id = event_id
            self.report.events += 1
            self._reach()

    def _reach(self) -> None:
        """Check every head, stored or saved, that covers exactly the events walked so far."""
        size, root = self.tree.size, None
        while self.broken is None and self.next_stored is not None and self.next_stored.tree_size <= size:
            head = self.next_stored
            root = root or self.tree.root().hex()
            problem = signature_problem(head.signed(), self.keys)
            if problem:
                self._break("head", f"tree head {head.tree_size} (sealed {head.signed().sealed_at}) is not one "
                            f"this log signed: {problem}", None, head.tree_size)
            elif head.root_hash != root:
                self._break("rewritten", f"tree head {head.tree_size} (sealed {head.signed().sealed_at}) does not "
                            f"match its events: {self._culprits(self.batch_start)} was altered with its leaf hash "
                            "recomputed, or events were removed or inserted and renumbered",
                            self.batch_start[1], self.batch_start[0])
            else:
                self.report.heads += 1
                self.batch_start = (size + 1, None)
                self.next_stored = next(self.stored, None)
        while self.broken is None and self.next_saved is not None and self.next_saved.tree_size <= size:
            saved = self.next_saved
            root = root or self.tree.root().hex()
            if saved.root_hash != root:
                self._break("saved head", f"saved tree head {saved.tree_size} (sealed {saved.sealed_at}) does not "
                            f"match the log: {self._culprits(self.saved_start)} was rewritten after it was saved",
                            self.saved_start[1], self.saved_start[0])
            else:
                self.report.saved_heads += 1
                self.saved_start = (size + 1, None)
                self.next_saved = next(self.saved, None)

    def _culprits(self, start: tuple[int, int | None]) -> str:
        first_seq, first_id = start
        if first_seq == self.tree.size:
            return f"event id={first_id} (seq {first_seq})"
        return f"an event among seq {first_seq}..{self.tree.size} (ids {first_id}..{self.last_id})"

    def finish(self) -> None:
        """After the last sealed event: heads that cover more events than the log still holds."""
        size = self.tree.size
        if self.next_stored is not None:
            head = self.next_stored
            self._break("missing", f"{_events(size + 1, head.tree_size)} missing: tree head {head.tree_size} "
                        f"covers them, the log ends at seq {size}", None, size + 1)
        elif self.next_saved is not None:
            saved = self.next_saved
            first_seq, first_id = self.saved_start
            if first_seq <= size:
                # Events since the last matching head remain, so the log was renumbered: which of them went is
                # not known, only the range they were in.
                gone = (f"{saved.tree_size - size} of the events seq {first_seq}..{saved.tree_size} (ids from "
                        f"{first_id}) are gone, the rest renumbered")
            else:
                gone = f"{_events(size + 1, saved.tree_size)} gone"
            self._break("saved head", f"saved tree head {saved.tree_size} (sealed {saved.sealed_at}) covers "
                        f"{saved.tree_size} events, the log holds {size}: {gone}", first_id, first_seq)

    def _break(self, kind: str, message: str, event_id: int | None, seq: int | None) -> None:
        self.broken = Problem(kind, message, event_id, seq)
        self.report.problems.append(self.broken)


def _events(first: int, last: int) -> str:
    return f"event seq {first} is" if first == last else f"events seq {first}..{last} are"


def _stored_heads(*, up_to: int) -> Iterator[AuditTreeHead]:
    """Stored heads up to a size, smallest first, in bounded pages (a busy log makes one every few seconds)."""
    heads = AuditTreeHead.objects.filter(tree_size__lte=up_to).order_by("tree_size")
    last = -1
    while True:
        page = list(heads.filter(tree_size__gt=last)[:STREAM_CHUNK_ROWS])
        yield from page
        if len(page) < STREAM_CHUNK_ROWS:
            return
        last = page[-1].tree_size


def _check_unheaded(report: Report) -> None:
    """Sealed events past the newest head are unheaded, unless a sealer signed their head meanwhile.

    Read in this order, the check needs no snapshot: a sealer commits positions and head together, so
    the head of any event listed first is visible to the head read after it.
    """
    beyond = list(
        AuditEvent.objects.filter(seq__gt=report.tree_size).order_by("seq").values_list("id", "seq")[:_UNHEADED_SHOWN]
    )
    if not beyond:
        return
    newest = latest_tree_head()
    covered = newest.tree_size if newest else 0
    report.sealed_meanwhile = max(covered - report.tree_size, 0)
    unheaded = [(event_id, seq) for event_id, seq in beyond if seq > covered]
    if unheaded:
        event_id, seq = unheaded[0]
        report.problems.append(Problem(
            "unheaded", f"event id={event_id} (seq {seq}) is sealed but no signed tree head covers it (the newest "
            f"covers seq 1..{covered}): it was inserted or numbered outside the sealer", event_id, seq,
        ))


def _check_unsealed(report: Report, *, now: datetime, max_age: timedelta) -> None:
    report.unsealed = AuditEvent.objects.filter(seq__isnull=True).count()
    late = unsealed_before(now - max_age)
    oldest = late.first()
    if oldest is not None:
        count = late.count()
        report.problems.append(Problem(
            "unsealed", f"{count} event{'s' if count != 1 else ''} appended more than {max_age.total_seconds():.0f} s "
            f"ago {'are' if count != 1 else 'is'} not sealed (oldest: id={oldest.pk}, appended "
            f"{oldest.created_at.isoformat()}): is the sealer running (celery beat, task audit.seal)?", oldest.pk,
        ))
