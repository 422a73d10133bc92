"""A closely matching sentence with the opposite of one of the claim's words: "revenue rose" where the
source says "revenue fell"."""

from __future__ import annotations

from verification.checks.check import Check, CheckFinding, Role, refuted
from verification.checks.grounding.comparisons import states_comparison
from verification.checks.overlap import one_word_swapped, overlap
from verification.claims.antonyms import flipped_word
from verification.claims.tokens import content_stems
from verification.claims.view import ClaimView
from verification.retrieval.evidence import Evidence
from verification.retrieval.index import Hit, Passage, SourceIndex

_MIN_STEMS = 2
"""A claim of two content words may flip one: "The store is open" against "The store is closed" (the
other word must be the sentence's, and it matches the claim as closely as any)."""


class OppositeWord(Check):
    """The claim's word is the opposite of the source's (rise / fall, more / less)."""

    name = "opposite-word"
    version = 5
    role = Role.CONTRADICTION

    def run(self, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
        found = flipped(claim, evidence.hits, evidence.index)
        if found is None:
            return None
        passage, said, source_word = found
        rationale = f"The claim's \"{said}\" is the opposite of the source's \"{source_word}\"."
        return refuted(passage, OppositeWord, 0.7, rationale, claim, evidence, said)


def flipped(claim: ClaimView, hits: list[Hit], index: SourceIndex) -> tuple[Passage, str, str] | None:
    """A closely matching sentence with the opposite of one of the claim's words (rise / fall).

    The opposite word with the two sides of a comparison swapped says the same thing: "the Enterprise
    plan is more expensive than the Pro plan" is "the Pro plan is cheaper than the Enterprise plan".
    """
    if len(claim.unique_stems) < _MIN_STEMS:
        return None
    found = _stated_elsewhere(
        one_word_swapped(claim, hits, flipped_word, allowance=1), hits, claim
    ) or _unsaid_opposite(claim, hits, index)
    if found is not None and states_comparison(claim, found[0].text):
        return None
    return found


def _stated_elsewhere(
    found: tuple[Passage, str, str] | None, hits: list[Hit], claim: ClaimView
) -> tuple[Passage, str, str] | None:
    """`found`, unless another of the best sentences has the claim's own word and matches it as closely."""
    if found is None:
        return None
    passage, said, _ = found
    said_stems = set(content_stems(said))
    # Matched on the claim's other words: "Pets are not allowed" shares only the word itself with "Smoking is
    # allowed", and says nothing against "Smoking is prohibited everywhere" being about it.
    rest = claim.stem_set - said_stems
    for hit in hits[:3]:
        other = hit.passage
        if other is passage or not said_stems <= other.stem_set:
            continue
        if overlap(other, rest) >= overlap(passage, rest):
            return None
    return found


def _unsaid_opposite(claim: ClaimView, hits: list[Hit], index: SourceIndex) -> tuple[Passage, str, str] | None:
    """A word the source never uses whose opposite the evidence has, next to a word the claim shares.

    A summary rarely repeats its source sentence closely enough for the one-word comparison above,
    but "an increase in revenue" where the source never says "increase" and its best sentences say
    "revenue decreased" is the same flip.
    """
    # Only the claim's own words are asked about. "reducing" is said by a source that writes
    # "reduction": stems that differ only past the fifth letter count as used.
    said = {word for word in claim.stems if word in index.vocabulary or word[:5] in index.prefixes}
    for hit in hits:
        flip = flipped_word(claim, hit.passage.text, unsaid_in=said)
        if flip is not None:
            return hit.passage, *flip
    return None
