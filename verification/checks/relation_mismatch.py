"""Who did what to whom, the other way round: "Tessaly acquired Corvane" where the source says Corvane
acquired Tessaly, or names someone else as the doer."""

from __future__ import annotations

from verification.checks.check import Check, CheckFinding, Role, refuted
from verification.claims.commitments import Mention
from verification.claims.view import ClaimView
from verification.retrieval.evidence import Evidence
from verification.retrieval.index import Passage


class RelationMismatch(Check):
    """A sentence that swaps who did what to whom, or names someone else as the doer."""

    name = "relation-mismatch"
    version = 1
    role = Role.CONTRADICTION

    def run(self, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
        conflict = _relation_conflict(claim, evidence.candidates)
        if conflict is None:
            return None
        passage, found = conflict
        rationale = f"The source has it the other way: \"{found.text}\"."
        said = next((m.text for m in claim.mentions if m.kind == "relation"), "")
        return refuted(passage, RelationMismatch, 0.8, rationale, claim, evidence, said)


def _relation_conflict(claim: ClaimView, candidates: list[Passage]) -> tuple[Passage, Mention] | None:
    """A sentence that swaps who did what to whom, or names someone else as the doer; None when some
    sentence states the claimed relation exactly."""
    claimed = [m for m in claim.mentions if m.kind == "relation"]
    if not claimed:
        return None
    conflict = None
    for passage in candidates:
        for found in passage.mentions:
            if found.kind != "relation":
                continue
            for relation in claimed:
                if found.unit != relation.unit or found.parts[2] != relation.parts[2]:
                    continue
                if found.parts[:2] == relation.parts[:2]:
                    return None  # some sentence states exactly the claimed relation
                subject, obj = relation.parts[0], relation.parts[1]
                swapped_roles = found.parts[0] == obj and found.parts[1] == subject
                other_doer = found.parts[1] == obj and found.parts[0] != subject
                if (swapped_roles or other_doer) and conflict is None:
                    conflict = passage, found
    return conflict
