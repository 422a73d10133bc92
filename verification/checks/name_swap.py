"""A name or number in the claim where its source, in the very same words around it, has another:
"Tier 2" where the source says "Tier 1"."""

from __future__ import annotations

from collections.abc import Sequence

from verification.checks.check import Check, CheckFinding, Role, refuted
from verification.checks.overlap import one_word_swapped, overlap
from verification.checks.substitution import swapped_name
from verification.claims.commitments import contradicts
from verification.claims.view import ClaimView
from verification.retrieval.evidence import Evidence
from verification.retrieval.index import Passage
from verification.retrieval.values import ValueCheck


class NameSwap(Check):
    """A closely matching sentence with another name or number where the claim has its own."""

    name = "name-swap"
    version = 2
    role = Role.CONTRADICTION

    def run(self, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
        if not claim.unique_stems:
            return None
        found = _other_subject_swap(
            one_word_swapped(claim, evidence.hits, swapped_name), evidence.values, evidence.candidates, claim
        )
        if found is None:
            return None
        passage, said, source_word = found
        rationale = f"The claim says \"{said}\" where the source, in the same words, says \"{source_word}\"."
        return refuted(passage, NameSwap, 0.75, rationale, claim, evidence, said)


def _other_subject_swap(
    found: tuple[Passage, str, str] | None,
    values: Sequence[ValueCheck],
    candidates: list[Passage],
    claim: ClaimView,
) -> tuple[Passage, str, str] | None:
    """A swapped name, unless the sentence is about another subject rather than a mistake about this one.

    "The Basic plan costs $10" against "The Team plan costs $25" differs in the name and the price: it
    is the Team plan's sentence. So is any sentence when another one says the claim's name in as many
    of its words.
    """
    if found is None:
        return None
    passage, said, _ = found
    for check in values:
        grounded_here = any(other is passage for other, _ in check.agreeing)
        if grounded_here and said in check.claim_value.text:
            return None  # "$240 per year" is the passage's "$20 per month", not another number
        if said in check.claim_value.text or check.claim_value.text in said:
            continue  # the swapped name is this value: that is the swap, not another subject
        if not grounded_here and any(contradicts(check.claim_value, m) for m in passage.values):
            return None
    folded = said.casefold()
    closeness = overlap(passage, claim.unique_stems)
    for other in candidates:
        if other is not passage and folded in other.text.casefold() and overlap(other, claim.unique_stems) >= closeness:
            return None
    return found
