"""Claim diffs between two versions of an answer, matched by claim id (stable across versions)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from reviewconsole.intake.models import Claim


class ChangeKind(StrEnum):
    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"
    UNCHANGED = "unchanged"


@dataclass(frozen=True)
class ClaimChange:
    """What happened to one claim id between the older and the newer version."""

    kind: ChangeKind
    claim_id: str
    old: Claim | None
    new: Claim | None

    @property
    def state_transition(self) -> tuple[str, str] | None:
        """(old state, new state) when the verdict moved, e.g. ("REFUTED", "SUPPORTED")."""
        if self.old is None or self.new is None or self.old.state == self.new.state:
            return None
        return self.old.state, self.new.state


def claim_diff(old: Iterable[Claim], new: Iterable[Claim]) -> list[ClaimChange]:
    """Claims added, removed, changed (text or state) and unchanged, in the newer version's order,
    with removed claims after, in the older version's order."""
    old_by_id = {claim.claim_id: claim for claim in old}
    new_claims = list(new)
    new_ids = {claim.claim_id for claim in new_claims}
    changes = []
    for claim in new_claims:
        before = old_by_id.get(claim.claim_id)
        if before is None:
            kind = ChangeKind.ADDED
        elif before.text != claim.text or before.state != claim.state:
            kind = ChangeKind.CHANGED
        else:
            kind = ChangeKind.UNCHANGED
        changes.append(ClaimChange(kind, claim.claim_id, before, claim))
    changes.extend(
        ClaimChange(ChangeKind.REMOVED, claim_id, claim, None)
        for claim_id, claim in old_by_id.items()
        if claim_id not in new_ids
    )
    return changes
