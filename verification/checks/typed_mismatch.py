"""A value of the claim that the sources state otherwise, and nowhere as the claim does: "refunds within
60 days" against "within 30 days"."""

from __future__ import annotations

from verification.checks.check import Check, CheckFinding, Role, refuted
from verification.claims.view import ClaimView
from verification.retrieval.evidence import Evidence


class TypedMismatch(Check):
    """A typed value (number, money, date, duration...) every stating sentence contradicts."""

    name = "typed-mismatch"
    version = 3
    role = Role.CONTRADICTION

    def run(self, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
        for check in evidence.values:
            if check.disagreeing and not check.agreeing:
                passage, found = check.disagreeing[0]
                said = check.claim_value.text
                rationale = f"The claim says \"{said}\"; the source says \"{found.text}\"."
                return refuted(passage, TypedMismatch, 0.85, rationale, claim, evidence, said)
        return None
