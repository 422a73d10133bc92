"""Inclusion proofs: evidence that one event is in the signed log, checkable with the tree head alone.

RFC 6962's audit path: the roots of the subtrees beside the event's leaf on its way up to the root. Given
the event's leaf hash, its position and a signed head, anyone can recompute the head's root
(`merkle.verify_inclusion`, or any RFC 9162 client) without the rest of the log.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from reviewconsole.audit.heads import SignedTreeHead
from reviewconsole.audit.leaves import leaf_hash
from reviewconsole.audit.merkle import inclusion_proof, verify_inclusion
from reviewconsole.audit.models import AuditEvent
from reviewconsole.audit.rows import leaf_hashes
from reviewconsole.audit.selectors import latest_tree_head


class ProofError(Exception):
    """No proof can be given for the event; the message says why."""


@dataclass(frozen=True)
class InclusionProof:
    event_id: int
    seq: int
    leaf_hash: str
    head: SignedTreeHead
    proof: list[str]
    """Hex subtree roots, the one beside the leaf first (RFC 6962 2.1.1)."""

    def as_json(self) -> dict[str, Any]:
        return {"event_id": self.event_id, "seq": self.seq, "leaf_index": self.seq - 1, "leaf_hash": self.leaf_hash,
                "tree_head": asdict(self.head), "proof": self.proof}


def event_inclusion(*, event_id: int) -> InclusionProof:
    """The proof that event `event_id` is in the newest signed head, checked before it is returned."""
    event = AuditEvent.objects.filter(pk=event_id).first()
    if event is None:
        raise ProofError(f"there is no event id={event_id}")
    if event.seq is None:
        raise ProofError(f"event id={event_id} is not sealed yet: it will be within seconds (or run audit_seal)")
    computed = leaf_hash(created_at=event.created_at, actor=event.actor, action=event.action,
                         object_type=event.object_type, object_id=event.object_id, case_id=event.case_id,
                         payload=event.payload)
    if computed != event.leaf_hash:
        raise ProofError(f"event id={event_id} (seq {event.seq}) was altered: its content no longer hashes to its "
                         "leaf hash; run audit_verify")
    head = latest_tree_head()
    if head is None or head.tree_size < event.seq:
        raise ProofError(f"event id={event_id} (seq {event.seq}) is covered by no signed tree head; run audit_verify")
    index = event.seq - 1
    path = inclusion_proof(index, head.tree_size, leaf_hashes(up_to=head.tree_size))
    if not verify_inclusion(leaf_hash=bytes.fromhex(computed), index=index, size=head.tree_size, proof=path,
                            root=bytes.fromhex(head.root_hash)):
        raise ProofError(f"the log's leaves do not hash to tree head {head.tree_size}'s root; run audit_verify")
    return InclusionProof(event_id=event_id, seq=event.seq, leaf_hash=computed, head=head.signed(),
                          proof=[node.hex() for node in path])
