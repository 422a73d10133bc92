"""A bare yes or no is never scored: "No." (or "No, they are not.") to "Are both plans billed monthly?" is
right or wrong by what the question asserts, and its own words say nothing a source could state or
contradict. It is not supported as written: beside statements that say what it means ("Yes. You can
cancel at any time.") a repair may leave it out; alone, a person or the model reads it with its question,
and the answer is never rejected unseen (`decision.methods.unread_methods`)."""

from __future__ import annotations

from verification.checks.check import PREFIX, Check, CheckFinding, Role
from verification.claims.polar import POLAR_WORDS, polar
from verification.claims.view import ClaimView
from verification.retrieval.evidence import Evidence
from verification.types import State


class PolarAnswer(Check):
    """A claim that says only yes or no: INSUFFICIENT_EVIDENCE, for what it is and not for a low score."""

    name = "polar-answer"
    version = 1
    role = Role.UNREAD
    languages = frozenset(POLAR_WORDS)

    def run(self, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
        if not polar(claim.text, claim.language, claim.stems):
            return None
        return CheckFinding(
            state=State.INSUFFICIENT_EVIDENCE, method=PREFIX + self.name, evidence=(), confidence=0.5,
            rationale="Its own words carry nothing a source could state: a yes or no asserts what the question "
                      "asks, which the offline rules do not read as a statement.",
        )
