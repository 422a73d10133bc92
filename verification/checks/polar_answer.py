"""A bare yes or no whose question makes no statement is never scored: "Yes." to "Which plans can I
cancel?" asserts nothing its own words or the question's say, and nothing a source could state or
contradict. It is not supported as written: beside statements that say what it means a repair may leave
it out; alone, a person or the model reads it with its question, and the answer is never rejected unseen
(`decision.methods.unread_methods`). A yes or no to a yes-or-no question is checked as the statement the
question makes (`claims.polar.asserted`); where that statement is not SUPPORTED, the verifier gives the
claim this check's finding too (`decision.offline`), for the statement is built from the question."""

from __future__ import annotations

from verification.checks.check import PREFIX, Check, CheckFinding, Role
from verification.claims.polar import POLAR_WORDS, polar
from verification.claims.view import ClaimView
from verification.retrieval.evidence import Evidence
from verification.types import State


class PolarAnswer(Check):
    """A claim that says only yes or no: INSUFFICIENT_EVIDENCE, for what it is and not for a low score."""

    name = "polar-answer"
    version = 3
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
