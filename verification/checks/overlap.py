"""How closely a source sentence matches a claim, for the checks that compare a claim with its best
sentences only: a sentence must share most of the claim's words before a flipped word, a swapped name
or an opposite polarity in it counts as a contradiction rather than a different statement."""

from __future__ import annotations

from collections.abc import Callable, Collection

from verification.claims.view import ClaimView
from verification.retrieval.index import Hit, Passage

MIN_STEMS = 3
"""A claim needs this many content words before its polarity or words are compared: a bare name has none."""
NEGATION_OVERLAP = 0.55
"""Share of the claim's words a sentence must have before its polarity is compared with the claim's."""
SWAP_OVERLAP = 0.6
"""Share of the claim's words a sentence must have before a swapped word or name in it counts."""


def overlap(passage: Passage, claim_stems: Collection[str]) -> float:
    """Share of the claim's stems the sentence has."""
    return len(passage.stem_set.intersection(claim_stems)) / len(claim_stems) if claim_stems else 0.0


def one_word_swapped(
    claim: ClaimView,
    hits: list[Hit],
    compare: Callable[[ClaimView, str], tuple[str, str] | None],
    allowance: int = 0,
) -> tuple[Passage, str, str] | None:
    """The first of the two best sentences where `compare` finds the claim's word replaced by another.

    Only sentences that share most of the claim's words are compared: a swap is one word changed in
    an otherwise matching sentence, not two sentences about different things.
    """
    claim_stems = claim.stem_set
    for hit in hits[:2]:
        passage = hit.passage
        # `allowance` words may differ besides: an opposite is a different stem from the word it flips,
        # so without it a short claim with one flipped word of four could never reach the overlap.
        if (len(passage.stem_set & claim_stems) + allowance) / len(claim_stems) < SWAP_OVERLAP:
            continue
        swap = compare(claim, passage.text)
        if swap is not None:
            return passage, *swap
    return None
