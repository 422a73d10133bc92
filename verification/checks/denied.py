"""A claim that denies what its source states: "does not offer refunds" where the evidence says "offers
refunds" and no sentence of the source negates it."""

from __future__ import annotations

from verification.checks.check import Check, CheckFinding, Role, refuted
from verification.checks.overlap import MIN_STEMS
from verification.claims.tokens import after_negation_stems, free_of_stems, stem
from verification.claims.view import ClaimView
from verification.retrieval.evidence import Evidence
from verification.retrieval.index import Passage

_CONDITIONALS = frozenset({"if", "unless", "whether", "when", "until"})


class Denied(Check):
    """A word the claim negates that the evidence states and no sentence of the source negates."""

    name = "denied"
    version = 3
    role = Role.CONTRADICTION

    def run(self, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
        found = denied(claim, evidence)
        if found is None:
            return None
        passage, word = found
        rationale = f"The claim denies \"{word}\"; the source states it and never says otherwise."
        return refuted(passage, Denied, 0.65, rationale, claim, evidence, word)


def denied(claim: ClaimView, evidence: Evidence) -> tuple[Passage, str] | None:
    """A word the claim negates that the evidence states and no sentence of the source negates.

    A summary rarely repeats its source sentence closely enough for the negation-mismatch check, but
    "does not offer" where the evidence says "offers", and the source never says otherwise, is the
    same contradiction. A negation inside a condition ("if the website is not working") asserts
    nothing, so such claims are left alone.
    """
    hits = evidence.hits
    if len(claim.unique_stems) < MIN_STEMS or not hits or any(word in _CONDITIONALS for word, _, _ in claim.words):
        return None
    stated = set().union(*(hit.passage.stem_set for hit in hits))
    said = claim.negated_stems & stated
    if not said or any(negates(passage, said) for passage in evidence.index.passages):
        return None
    word = next(word for word, _, _ in claim.words if stem(word) in said)
    passage = next(hit.passage for hit in hits if said & hit.passage.stem_set)
    return passage, word


def negates(passage: Passage, denied: frozenset[str]) -> bool:
    """Whether the sentence has one of the `denied` words after a negating word.

    Every sentence of the source is asked, so the cheap tests come first: the sentence must have the
    word, as one of its content words (a word after a negation that is not one is a single letter,
    which a claim's content word stems to only in a rare "x's"), and a negating word.
    """
    if not (denied & passage.stem_set or any(len(word) == 1 for word in denied)):
        return False
    if denied & free_of_stems(passage.text):
        return True  # "a 30-day risk-free trial" says there is no risk
    return passage.negated and bool(denied & after_negation_stems(passage.text))
