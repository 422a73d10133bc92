"""A closely matching sentence whose polarity is the opposite of the claim's: a negation on a word both
share ("covers accidental damage" / "does not cover accidental damage")."""

from __future__ import annotations

from collections.abc import Sequence

from verification.checks.check import Check, CheckFinding, Role, refuted
from verification.checks.grounding.negation import contrasted_names, excepted
from verification.checks.overlap import MIN_STEMS, NEGATION_OVERLAP, overlap
from verification.claims.view import ClaimView
from verification.retrieval.evidence import Evidence
from verification.retrieval.index import Hit, Passage
from verification.retrieval.values import ValueCheck


class NegationMismatch(Check):
    """The matching source sentence says the opposite: one of the two is negated."""

    name = "negation-mismatch"
    version = 4
    role = Role.CONTRADICTION

    def run(self, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
        passage = negation_mismatch(claim, evidence.hits, evidence.values)
        if passage is None:
            return None
        rationale = "The matching source sentence says the opposite (one of them is negated)."
        return refuted(passage, NegationMismatch, 0.75, rationale, claim, evidence, "")


def negation_mismatch(claim: ClaimView, hits: list[Hit], values: Sequence[ValueCheck] = ()) -> Passage | None:
    """A closely matching sentence that negates a word the claim asserts, or the other way round.

    A sentence that matches the claim at least as closely with the claim's own polarity says it is a
    different statement that happens to share words ("take 1 or 2 tablets" beside "do not take more
    than 6 tablets"): then nothing is contradicted, unless the opposed sentence is the only one that
    states a value of the claim. "Refunded after 30 days" shares more words with "refunded within 30
    days" than with "after 30 days, plans are not refundable", but only the last speaks of "after 30 days".
    """
    claim_stems = claim.stem_set
    if len(claim_stems) < MIN_STEMS:
        return None
    claim_negated = claim.negated_stems
    mismatch: tuple[Passage, float] | None = None
    agreeing = 0.0
    for hit in hits[:3]:
        passage = hit.passage
        shared = overlap(passage, claim_stems)
        if shared < NEGATION_OVERLAP:
            continue
        if _opposed(passage, claim_negated, claim_stems):
            if mismatch is None and hit in hits[:2]:
                mismatch = passage, shared
        else:
            agreeing = max(agreeing, shared)
    if (
        mismatch is not None and agreeing < mismatch[1]
        and not contrasted_names(mismatch[0].text, claim) and not excepted(mismatch[0].text, claim)
    ):
        return mismatch[0]
    for check in values:
        stating = [passage for passage, _ in check.grounding]
        if stating and all(
            overlap(passage, claim_stems) >= NEGATION_OVERLAP and _opposed(passage, claim_negated, claim_stems)
            and not excepted(passage.text, claim)
            for passage in stating
        ):
            return stating[0]
    return None


def _opposed(passage: Passage, claim_negated: frozenset[str], claim_stems: frozenset[str]) -> bool:
    """Whether the negation lands on a word both sides share, with opposite polarity. A word the sentence
    says more than once it may deny once and state once: "people who were rich in the Eighties, and aren't
    rich now" says "who were rich in the Eighties" too."""
    denied = {stem for stem in passage.negated_stems - claim_negated if passage.stems.count(stem) == 1}
    return bool((claim_negated - passage.negated_stems) & passage.stem_set or denied & claim_stems)
