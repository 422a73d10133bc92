"""A value the claim commits to that no cited sentence states: the scorer may read "refunds within 60
days" as covered by "refunds within 30 days" (every word is there), but nothing states "60 days"."""

from __future__ import annotations

from verification.checks.check import PREFIX, Check, CheckFinding, Role
from verification.claims.commitments import value_words
from verification.claims.view import ClaimView
from verification.retrieval import citations
from verification.retrieval.evidence import Evidence
from verification.types import State


class UngroundedValue(Check):
    """Holds back a claim the scorer would release when a value it commits to is nowhere stated."""

    name = "ungrounded-value"
    version = 1
    role = Role.UNSTATED_VALUE

    def run(self, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
        elapsed = [
            check for check in evidence.values
            if check.claim_value.role == "elapsed" and not any(found.role == "elapsed" for _, found in check.grounding)
        ]
        if elapsed:
            # Word overlap cannot tell which of a source's windows a time passed falls under ("within 30
            # days" / "after 30 days" share every word); only the window rule can ground it.
            passed = value_words(claim.text, elapsed[0].claim_value)
            rationale = f"No rule the sources give for \"{passed}\" states the rest of the claim."
            return self._finding(claim, evidence, [passed], rationale)
        if not evidence.hits:
            return None  # nothing retrieved: no value could be grounded, and none is singled out
        unstated = list(dict.fromkeys(check.claim_value.text for check in evidence.values if not check.grounding))
        if not unstated:
            return None
        named = ", ".join(f'"{text}"' for text in unstated)
        rationale = f"Nothing the sources say states {named}; the rest of the claim is covered."
        return self._finding(claim, evidence, unstated, rationale)

    def _finding(self, claim: ClaimView, evidence: Evidence, unstated: list[str], rationale: str) -> CheckFinding:
        return CheckFinding(
            state=State.INSUFFICIENT_EVIDENCE,
            method=PREFIX + self.name,
            evidence=citations.closest_spans(claim, evidence),
            confidence=0.7,
            rationale=rationale,
            extra={"ungrounded": unstated},
        )
