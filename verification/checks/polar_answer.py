"""A bare yes or no is read by a person, never scored: "No." (or "No, they are not.") to "Are both plans
billed monthly?" is right or wrong by what the question asserts, and the claim's own words say nothing a
source could state or contradict. A score on them would read the question's words as the claim's, so a correct answer
would be held back, or rejected unseen, as unsupported."""

from __future__ import annotations

from verification.checks.check import PREFIX, Check, CheckFinding, Role
from verification.claims.polar import POLAR_WORDS, polar
from verification.claims.view import ClaimView
from verification.retrieval.evidence import Evidence
from verification.types import State


class PolarAnswer(Check):
    """A claim that is only a yes or a no: UNRESOLVED, for a person (or the model, which reads the question)."""

    name = "polar-answer"
    version = 1
    role = Role.UNREAD
    languages = frozenset(POLAR_WORDS)

    def run(self, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
        if not polar(claim.text, claim.language, claim.stems):
            return None
        return CheckFinding(
            state=State.UNRESOLVED, method=PREFIX + self.name, evidence=(), confidence=0.0,
            rationale="Its own words carry nothing a source could state: a yes or no asserts what the question "
                      "asks, which the offline rules do not read as a statement, so a person decides.",
        )
