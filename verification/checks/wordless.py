"""A claim with no word the rules can compare: "R&B", "B", "C++". Letters and symbols are no content words,
so nothing a source says can be matched with it, and no score of it means anything. Like a bare yes or
no, it is not supported as written and never a reason to reject an answer unseen
(`decision.methods.unread_methods`): a person, or the model, reads it with its question."""

from __future__ import annotations

from verification.checks.check import PREFIX, Check, CheckFinding, Role
from verification.claims.view import ClaimView
from verification.retrieval.evidence import Evidence
from verification.types import State


class Wordless(Check):
    """A claim none of whose words carries content the rules read: INSUFFICIENT_EVIDENCE, unread."""

    name = "wordless"
    version = 2
    role = Role.UNREAD

    def run(self, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
        if claim.unique_stems or not any(character.isalnum() for character in claim.text):
            return None  # (punctuation alone is no claim the extraction keeps)
        if evidence.copied is not None:
            return None  # "I had to have them all." copied whole: the proof cites the sentence it copies
        return CheckFinding(
            state=State.INSUFFICIENT_EVIDENCE, method=PREFIX + self.name, evidence=(), confidence=0.5,
            rationale="Its words are letters or symbols the offline rules cannot compare with the sources: a "
                      "person reads it with its question.",
        )
