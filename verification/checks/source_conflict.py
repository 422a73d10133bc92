"""Sources that disagree with each other about a value the claim commits to: one states the claim's
"$20", another "$25". Neither can be released as the answer; a person decides."""

from __future__ import annotations

from verification.checks.check import PREFIX, Check, CheckFinding, Role
from verification.claims.commitments import Mention
from verification.claims.view import ClaimView
from verification.retrieval import citations
from verification.retrieval.evidence import Evidence
from verification.retrieval.index import Passage
from verification.retrieval.values import ValueCheck
from verification.types import State


class SourceConflict(Check):
    """A source stating the claim's value and another source stating a different one."""

    name = "source-conflict"
    version = 3
    role = Role.CONTRADICTION

    def run(self, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
        for check in evidence.values:
            conflict = _source_conflict(check)
            if conflict is None:
                continue
            agreeing, disagreeing = conflict
            said = check.claim_value.text
            return CheckFinding(
                state=State.CONFLICTING,
                method=PREFIX + self.name,
                evidence=(
                    citations.span(agreeing[0], claim, evidence, [said]),
                    citations.span(disagreeing[0], claim, evidence, [said]),
                ),
                confidence=0.8,
                rationale=(
                    f"Sources disagree about \"{said}\": {agreeing[0].source_id} says "
                    f"\"{agreeing[1].text}\", {disagreeing[0].source_id} says \"{disagreeing[1].text}\"."
                ),
            )
        return None


def _source_conflict(check: ValueCheck) -> tuple[tuple[Passage, Mention], tuple[Passage, Mention]] | None:
    if not check.agreeing:
        return None
    agreeing_sources = {passage.source_id for passage, _ in check.agreeing}
    for disagreeing in check.disagreeing:
        if disagreeing[0].source_id in agreeing_sources:
            continue
        return check.agreeing[0], disagreeing
    return None
