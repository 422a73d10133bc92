"""How a sentence that closely matches a claim can still say the opposite: a negation on a shared word,
a denial of what the source states, an opposite word, a swapped name or number, a reversed relation.

Each check compares the claim with its best sentences only, and stands down when another sentence
states the claim's own words as closely: then the two are different statements that share words.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from verification.antonyms import flipped_word
from verification.commitments import Mention, contradicts
from verification.evidence import Hit, Passage, SourceIndex
from verification.grounding.comparisons import states_comparison
from verification.grounding.negation import contrasted_names, excepted
from verification.substitution import swapped_name
from verification.tokens import after_negation_stems, content_stems, free_of_stems, negated_stems, stem, words
from verification.value_checks import ValueCheck

_NEGATION_MIN_STEMS = 3
"""A claim needs this many content words before its polarity is compared: a bare name has none."""
_NEGATION_MIN_OVERLAP = 0.55
"""Share of the claim's words a sentence must have before its polarity is compared with the claim's."""


def negation_mismatch(
    claim_text: str, hits: list[Hit], claim_stems: set[str], values: Sequence[ValueCheck] = ()
) -> Passage | None:
    """A closely matching sentence that negates a word the claim asserts, or the other way round.

    A sentence that matches the claim at least as closely with the claim's own polarity says it is a
    different statement that happens to share words ("take 1 or 2 tablets" beside "do not take more
    than 6 tablets"): then nothing is contradicted, unless the opposed sentence is the only one that
    states a value of the claim. "Refunded after 30 days" shares more words with "refunded within 30
    days" than with "after 30 days, plans are not refundable", but only the last speaks of "after 30 days".
    """
    if len(claim_stems) < _NEGATION_MIN_STEMS:
        return None
    claim_negated = negated_stems(claim_text)
    mismatch: tuple[Passage, float] | None = None
    agreeing = 0.0
    for hit in hits[:3]:
        passage = hit.passage
        overlap = _overlap(passage, claim_stems)
        if overlap < _NEGATION_MIN_OVERLAP:
            continue
        if _opposed(passage, claim_negated, claim_stems):
            if mismatch is None and hit in hits[:2]:
                mismatch = passage, overlap
        else:
            agreeing = max(agreeing, overlap)
    if (
        mismatch is not None and agreeing < mismatch[1]
        and not contrasted_names(mismatch[0].text, claim_text) and not excepted(mismatch[0].text, claim_text)
    ):
        return mismatch[0]
    for check in values:
        stating = [passage for passage, _ in check.grounding]
        if stating and all(
            _overlap(passage, claim_stems) >= _NEGATION_MIN_OVERLAP and _opposed(passage, claim_negated, claim_stems)
            and not excepted(passage.text, claim_text)
            for passage in stating
        ):
            return stating[0]
    return None


def _opposed(passage: Passage, claim_negated: frozenset[str] | set[str], claim_stems: set[str]) -> bool:
    """Whether the negation lands on a word both sides share, with opposite polarity."""
    return bool(
        (claim_negated - passage.negated_stems) & passage.stem_set
        or (passage.negated_stems - claim_negated) & claim_stems
    )


def denied(
    claim_text: str, hits: list[Hit], claim_stems: list[str], index: SourceIndex
) -> tuple[Passage, str] | None:
    """A word the claim negates that the evidence states and no sentence of the source negates."""
    if len(claim_stems) < _NEGATION_MIN_STEMS:
        return None
    return _denied(claim_text, hits, index)


def flipped(
    claim_text: str, hits: list[Hit], claim_stems: list[str], index: SourceIndex
) -> tuple[Passage, str, str] | None:
    """A closely matching sentence with the opposite of one of the claim's words (rise / fall).

    The opposite word with the two sides of a comparison swapped says the same thing: "the Enterprise
    plan is more expensive than the Pro plan" is "the Pro plan is cheaper than the Enterprise plan".
    """
    if len(claim_stems) < _NEGATION_MIN_STEMS:
        return None
    found = _stated_elsewhere(
        _one_word_swapped(claim_text, hits, set(claim_stems), flipped_word, allowance=1), hits, claim_stems
    ) or _unsaid_opposite(claim_text, hits, index)
    if found is not None and states_comparison(claim_text, found[0].text):
        return None
    return found


def swapped(
    claim_text: str, hits: list[Hit], claim_stems: list[str], values: Sequence[ValueCheck], candidates: list[Passage]
) -> tuple[Passage, str, str] | None:
    """A closely matching sentence with another name or number where the claim has its own."""
    return _other_subject_swap(
        _one_word_swapped(claim_text, hits, set(claim_stems), swapped_name), values, candidates, claim_stems
    )


def _overlap(passage: Passage, claim_stems: Collection[str]) -> float:
    return len(passage.stem_set.intersection(claim_stems)) / len(claim_stems) if claim_stems else 0.0


def _stated_elsewhere(
    found: tuple[Passage, str, str] | None, hits: list[Hit], claim_stems: list[str]
) -> tuple[Passage, str, str] | None:
    """`found`, unless another of the best sentences has the claim's own word and matches it as closely."""
    if found is None:
        return None
    passage, said, _ = found
    said_stems = set(content_stems(said))
    for hit in hits[:3]:
        other = hit.passage
        if other is passage or not said_stems <= other.stem_set:
            continue
        if _overlap(other, claim_stems) >= _overlap(passage, claim_stems):
            return None
    return found


def _other_subject_swap(
    found: tuple[Passage, str, str] | None,
    values: Sequence[ValueCheck],
    candidates: list[Passage],
    claim_stems: list[str],
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
        if not grounded_here and any(
            contradicts(check.claim_value, m) for m in passage.values
        ):
            return None
    folded = said.casefold()
    overlap = _overlap(passage, claim_stems)
    for other in candidates:
        if other is not passage and folded in other.text.casefold() and _overlap(other, claim_stems) >= overlap:
            return None
    return found


_CONDITIONALS = frozenset({"if", "unless", "whether", "when", "until"})


def _denied(claim_text: str, hits: list[Hit], index: SourceIndex) -> tuple[Passage, str] | None:
    """A word the claim negates that the evidence states and no sentence of the source negates.

    A summary rarely repeats its source sentence closely enough for the comparison above, but
    "does not offer" where the evidence says "offers", and the source never says otherwise, is the
    same contradiction. A negation inside a condition ("if the website is not working") asserts
    nothing, so such claims are left alone.
    """
    tokens = words(claim_text)
    if not hits or any(word in _CONDITIONALS for word, _, _ in tokens):
        return None
    stated = set().union(*(hit.passage.stem_set for hit in hits))
    denied = negated_stems(claim_text) & stated
    if not denied or any(_negates(passage, denied) for passage in index.passages):
        return None
    word = next(word for word, _, _ in tokens if stem(word) in denied)
    passage = next(hit.passage for hit in hits if denied & hit.passage.stem_set)
    return passage, word


def _negates(passage: Passage, denied: frozenset[str]) -> bool:
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


_SWAP_OVERLAP = 0.6
"""Share of the claim's words a sentence must have before a swapped word or name in it counts."""


def _one_word_swapped(
    claim_text: str,
    hits: list[Hit],
    claim_stems: set[str],
    compare: Callable[[str, str], tuple[str, str] | None],
    allowance: int = 0,
) -> tuple[Passage, str, str] | None:
    """The first of the two best sentences where `compare` finds the claim's word replaced by another.

    Only sentences that share most of the claim's words are compared: a swap is one word changed in
    an otherwise matching sentence, not two sentences about different things.
    """
    for hit in hits[:2]:
        passage = hit.passage
        # `allowance` words may differ besides: an opposite is a different stem from the word it flips,
        # so without it a short claim with one flipped word of four could never reach the overlap.
        if (len(passage.stem_set & claim_stems) + allowance) / len(claim_stems) < _SWAP_OVERLAP:
            continue
        swap = compare(claim_text, passage.text)
        if swap is not None:
            return passage, *swap
    return None


def _unsaid_opposite(claim_text: str, hits: list[Hit], index: SourceIndex) -> tuple[Passage, str, str] | None:
    """A word the source never uses whose opposite the evidence has, next to a word the claim shares.

    A summary rarely repeats its source sentence closely enough for the one-word comparison above,
    but "an increase in revenue" where the source never says "increase" and its best sentences say
    "revenue decreased" is the same flip.
    """
    # Only the claim's own words are asked about. "reducing" is said by a source that writes
    # "reduction": stems that differ only past the fifth letter count as used.
    said = {
        word for word in content_stems(claim_text) if word in index.vocabulary or word[:5] in index.prefixes
    }
    for hit in hits:
        flip = flipped_word(claim_text, hit.passage.text, unsaid_in=said)
        if flip is not None:
            return hit.passage, *flip
    return None


def relation_conflict(mentions: list[Mention], candidates: list[Passage]) -> tuple[Passage, Mention] | None:
    """A sentence that swaps who did what to whom, or names someone else as the doer; None when some
    sentence states the claimed relation exactly."""
    claimed = [m for m in mentions if m.kind == "relation"]
    if not claimed:
        return None
    conflict = None
    for passage in candidates:
        for found in passage.mentions:
            if found.kind != "relation":
                continue
            for relation in claimed:
                if found.unit != relation.unit or found.parts[2] != relation.parts[2]:
                    continue
                if found.parts[:2] == relation.parts[:2]:
                    return None  # some sentence states exactly the claimed relation
                subject, obj = relation.parts[0], relation.parts[1]
                swapped_roles = found.parts[0] == obj and found.parts[1] == subject
                other_doer = found.parts[1] == obj and found.parts[0] != subject
                if (swapped_roles or other_doer) and conflict is None:
                    conflict = passage, found
    return conflict
