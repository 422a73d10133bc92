"""Which sentences a verdict cites, and what of the claim each one covers.

The evidence shown is the evidence used: a verdict cites the sentences that ground or contradict the
claim and nothing else, so the console highlights exactly those. Retrieval returns the best few
sentences for a claim; of those, a SUPPORTED verdict keeps the fewest that between them carry the
claim's words and values, an INSUFFICIENT_EVIDENCE verdict the closest one or two (to show what is
missing), and a contradiction only the contradicting sentence. Each span lists what of the claim it
covers, as the claim writes it ("$20", "Team plan").
"""

from __future__ import annotations

from collections.abc import Sequence

from verification.claims.tokens import NEGATION_WORDS, STOP_WORDS, stem, words
from verification.claims.view import ClaimView
from verification.retrieval.evidence import Evidence
from verification.retrieval.index import Passage
from verification.types import EvidenceSpan

_CLOSEST = 2
"""How many sentences an INSUFFICIENT_EVIDENCE verdict cites at most."""
_MIN_WORDS = 2
"""A sentence is cited for the claim's words only when it adds this many of them (or a value or a name,
"Switzerland"): one shared "includes" or "within" does not make a sentence evidence."""


def span(passage: Passage, claim: ClaimView, evidence: Evidence, first: Sequence[str] = ()) -> EvidenceSpan:
    """The passage as cited for this claim: what of the claim it speaks to, as the claim writes it."""
    values: list[tuple[int, int]] = []
    unstated: list[tuple[int, int]] = []
    for check in evidence.values:
        here = any(other is passage for other, _ in check.grounding)
        (values if here else unstated).append((check.claim_value.start, check.claim_value.end))
    covers = [item for item in first if item]
    covers += covered_phrases(claim.text, passage.stem_set, values, unstated, claim.words)
    return passage.span(list(dict.fromkeys(covers)))


def grounding_spans(claim: ClaimView, evidence: Evidence) -> tuple[EvidenceSpan, ...]:
    """The fewest retrieved sentences that between them carry the claim's words and values.

    Each next sentence is the one grounding the most of what is not yet grounded; a sentence (or a
    title) that adds nothing is not cited. A value stated only outside the retrieved sentences brings
    the sentence that states it.
    """
    pool = [hit.passage for hit in evidence.hits]
    for check in evidence.values:
        if check.grounding and not any(passage is other for other, _ in check.grounding for passage in pool):
            pool.append(check.grounding[0][0])
    chosen = _cover(claim, evidence, pool, limit=None, first_free=True)
    return tuple(span(passage, claim, evidence) for passage in chosen)


def closest_spans(claim: ClaimView, evidence: Evidence) -> tuple[EvidenceSpan, ...]:
    """The sentences closest to the claim (at most _CLOSEST) that share something real with it, or none."""
    pool = [hit.passage for hit in evidence.hits]
    chosen = _cover(claim, evidence, pool, limit=_CLOSEST, first_free=False)
    return tuple(span(passage, claim, evidence) for passage in chosen)


def with_covers(spans: Sequence[EvidenceSpan], claim: ClaimView, evidence: Evidence) -> tuple[EvidenceSpan, ...]:
    """`spans` with what each covers filled in where the verdict that cited them left it empty."""
    out = []
    for cited in spans:
        passage = evidence.index.passage_at(cited.source_id, cited.start)
        if cited.covers or passage is None or passage.end != cited.end:
            out.append(cited)
        else:
            out.append(span(passage, claim, evidence))
    return tuple(out)


def _cover(
    claim: ClaimView, evidence: Evidence, pool: list[Passage], limit: int | None, first_free: bool
) -> list[Passage]:
    """Greedy cover of the claim's words and values by sentences of `pool`.

    The words inside the claim's values are left to the values: "week" of "4 weeks" is not grounded
    by a sentence that says "16 weeks".
    """
    needed = set(claim.unique_stems) - claim.value_stems
    names = claim.entity_stems & needed
    covered: set[str] = set()
    grounded: set[int] = set()
    chosen: list[Passage] = []

    # Which of the claim's values each sentence grounds: asked of every sentence in every round.
    grounds = {
        id(passage): {
            i for i, check in enumerate(evidence.values) if any(other is passage for other, _ in check.grounding)
        }
        for passage in pool
    }

    def grounds_here(passage: Passage) -> set[int]:
        return grounds[id(passage)]

    def gain(passage: Passage) -> tuple[int, bool]:
        words_added = (passage.stem_set & needed) - covered
        values_added = grounds_here(passage) - grounded
        enough = bool(values_added) or bool(words_added & names) or len(words_added) >= _MIN_WORDS
        return len(words_added) + len(values_added), enough

    remaining = list(pool)
    while remaining and (limit is None or len(chosen) < limit):
        best = max(remaining, key=lambda passage: (gain(passage)[0], -remaining.index(passage)))
        size, enough = gain(best)
        if size == 0 or not (enough or (first_free and not chosen)):
            break
        chosen.append(best)
        covered |= best.stem_set & needed
        grounded |= grounds_here(best)
        remaining.remove(best)
    return chosen


def covered_phrases(
    claim_text: str,
    stems: frozenset[str],
    values: Sequence[tuple[int, int]] = (),
    unstated: Sequence[tuple[int, int]] = (),
    claim_words: Sequence[tuple[str, int, int]] | None = None,
) -> list[str]:
    """What of the claim a sentence grounds, as the claim writes it: its values, and runs of its words.

    `stems` are the sentence's content stems; `values` the (start, end) of the claim's values the
    sentence states, `unstated` those of its values it does not (their words count for nothing: the
    "10" of "$10" is not grounded by "10 seats"). Words the sentence shares are joined into phrases
    across the function words between them ("Team plan", "user per month"); each value is one item.
    """
    items: list[tuple[int, int]] = list(values)
    value_spans = (*values, *unstated)
    run: tuple[int, int] | None = None
    for word, start, end in words(claim_text) if claim_words is None else claim_words:
        if value_spans and any(v_start <= start < v_end for v_start, v_end in value_spans):
            if run:
                items.append(run)
            run = None
            continue
        content = word not in STOP_WORDS and (len(word) > 1 or word.isdigit())
        if content and stem(word) in stems:
            run = (run[0], end) if run else (start, end)
        elif content or word in NEGATION_WORDS:
            if run:
                items.append(run)
            run = None
    if run:
        items.append(run)
    return list(dict.fromkeys(claim_text[start:end] for start, end in sorted(items)))
