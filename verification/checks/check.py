"""What a check is: a name, a version, the part it plays in the decision, and one method from a claim
view and its evidence to a finding or nothing."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar

from verification.claims.language import SCORED
from verification.claims.view import ClaimView
from verification.retrieval import citations
from verification.retrieval.evidence import Evidence
from verification.retrieval.index import Passage
from verification.types import EvidenceSpan, State

PREFIX = "offline:"
"""What every offline method name starts with ("offline:typed-mismatch")."""


class Role(StrEnum):
    """The part a check's finding plays in the decision, in the order the decider asks."""

    UNREAD = "unread"
    """Not SUPPORTED, whatever else is found: what the claim asserts lies outside the words the rules read (a
    bare yes or no asserts its question). Never a reason to reject an answer unseen; with an LLM endpoint,
    the model reads it."""
    CONTRADICTION = "contradiction"
    """REFUTED or CONFLICTING whatever the scorer says: a typed contradiction keeps its veto."""
    RESEMBLANCE = "resemblance"
    """Never SUPPORTED, whatever the score: a claim that resembles a sentence but changes who did what or
    a name, a number or its polarity (asked of a claim otherwise SUPPORTED, other than by a proof)."""
    PROVEN = "proven"
    """SUPPORTED whatever the scorer says: the claim aligns to a cited span, every commitment accounted for."""
    COMMITMENT = "commitment"
    """Contradicted (REFUTED whatever the score) or left unsaid (holds back a claim the scorer would release)."""
    UNSTATED_VALUE = "unstated-value"
    """Holds back a claim the scorer would release when a value it commits to is nowhere stated."""
    RULE_SUPPORT = "rule-support"
    """SUPPORTED by rule where the scorer doubts: every word and value is stated somewhere it soundly can be."""


@dataclass(frozen=True)
class CheckFinding:
    """What a check found: the state it calls for, the sentences it cites and why."""

    state: State
    """The state the finding calls for."""
    method: str
    """The verdict's method: "offline:" and the check's own name or one of its `methods`."""
    evidence: tuple[EvidenceSpan, ...]
    """The sentences that decided, each with what of the claim it covers."""
    confidence: float
    """How sure the check is, 0..1."""
    rationale: str
    """One line for the reviewer."""
    extra: dict[str, object] = field(default_factory=dict)
    """Details kept for the audit, such as the claim's words at issue ("ungrounded")."""


class Check:
    """One check of the offline verifier. A subclass sets the class attributes and implements `run`."""

    name: ClassVar[str]
    """The check's name, as the `off` setting and the run record's method name it."""
    version: ClassVar[int]
    """Bumped by whoever changes what the check decides (a word list, a pattern, a constant): the
    verifier's fingerprint, and with it every cached verdict and calibration, changes with it."""
    role: ClassVar[Role]
    """The part its finding plays in the decision."""
    languages: ClassVar[frozenset[str]] = SCORED
    """The languages of the claims it reads (`language.py`); the English word lists' checks read English only."""
    reasons: ClassVar[tuple[str, ...]] = ()
    """The method names the check reports under, when not its own name (grounding has one per commitment)."""

    @classmethod
    def methods(cls) -> tuple[str, ...]:
        """Every method name a verdict decided by this check can carry."""
        return tuple(PREFIX + reason for reason in (cls.reasons or (cls.name,)))

    def run(self, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
        """What the check finds about the claim against its evidence, or None when it has nothing to say."""
        raise NotImplementedError


def first_finding(checks: Iterable[Check], role: Role, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
    """The first finding of the checks that play `role` and read the claim's language, in the order given."""
    for check in checks:
        if check.role is role and claim.language in check.languages:
            finding = check.run(claim, evidence)
            if finding is not None:
                return finding
    return None


def refuted(passage: Passage, check: type[Check], confidence: float, rationale: str, claim: ClaimView,
            evidence: Evidence, contradicted: str) -> CheckFinding:
    """REFUTED, citing the one contradicting sentence and what of the claim it contradicts."""
    return CheckFinding(
        state=State.REFUTED, method=PREFIX + check.name,
        evidence=(citations.span(passage, claim, evidence, [contradicted]),),
        confidence=confidence, rationale=rationale,
    )
