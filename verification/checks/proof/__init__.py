"""Proof, not resemblance: a claim is proven when it aligns to a span of its evidence (one sentence, or
two adjacent ones of the same source) with every commitment accounted for.

Each content word of the claim is matched to a word of the span: the same stem ("costs" / "cost"), a
number written either way ("five" / "5"), or, inside a value, the same value ("$20" / "20 dollars",
"17:00" / "5 pm") as the value checks read it. What the words are said of must be kept as well:

- the span between the first and the last matched word omits nothing (no "vice" before "president");
- the order of the matched words is the span's, up to one moved phrase ("In 2010, X did Y" / "X did Y
  in 2010"), so "B supplies A" is not proven by "A supplies B";
- negations, modal verbs, quantifiers and comparisons are the same on both sides ("can" and "may" both
  grant what a policy allows), and the sentence states no condition or attribution ("unless",
  "according to") the claim leaves out;
- no value of the claim is contradicted by the span;
- a claim keeps one of two alternatives only where the span offers them as options or denies both ("can
  pay by card or transfer", "do not sell or rent"), not where it hedges ("arrives on Monday or Tuesday").

A claim without a verb, read with the question it answers ("Sergei Grinkov"), is never proven: the
span names the thing, but whether it answers the question is not something words can show.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from verification.checks.check import PREFIX, Check, CheckFinding, Role
from verification.checks.proof.alternatives import hedged
from verification.checks.proof.order import (
    list_swapped,
    one_move_from_order,
    prepositioned,
)
from verification.checks.proof.span import (
    conjuncts_left_out,
    denied_in_clause,
    end_of,
    inside_value,
    next_stating,
    widened,
)
from verification.checks.proof.voice import explains_order, voice_kept
from verification.checks.proof.words import (
    Word,
    content_words,
    keyed,
    qualifiers,
    sentence_words,
)
from verification.claims.commitments import VALUE_KINDS
from verification.claims.speaker import SPEAKER, speaker
from verification.claims.tokens import STOP_WORDS, spelled_out, words
from verification.claims.verbs import later_clause, later_predicate
from verification.claims.view import ClaimView
from verification.retrieval import citations
from verification.retrieval.evidence import Evidence
from verification.retrieval.index import Passage, SourceIndex
from verification.retrieval.values import ValueCheck
from verification.types import AlignedWord, State

"""A conjunct that opens with an auxiliary has its own tense and modality ("and was a later suspect")."""
_REFERRING = frozenset("i we you he she it they this that these those".split())
"""Words whose referent a short claim leaves to its neighbours: "It is not allowed" names nothing to find."""
"""What opens a conjunct after the word it is joined to."""
# Words that put a whole sentence under a condition or on someone's word: a claim that leaves them out
# states as fact what the source does not, wherever in the sentence they stand.
_CONDITIONS = frozenset(
    "unless except excluding provided providing if whether when where according reportedly allegedly alleged "
    "said says claimed believed rumored rumoured suggested expected planned plans proposed".split()
)

_EXCEPTIONS = frozenset({"except", "excluding"})
"""Of `_CONDITIONS`, those that carve out of their own predicate only: one that closes a predicate joined
after the claim's words is that predicate's (`verbs.later_predicate`)."""


class Proof(Check):
    """SUPPORTED whatever the score: the claim aligns to a cited span with every commitment accounted for."""

    name = "proof"
    version = 19
    role = Role.PROVEN

    def run(self, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
        return prove(claim, evidence)


class Reordered(Check):
    """Never SUPPORTED: every word of the claim is one sentence's, but arguments changed places."""

    name = "reordered"
    version = 11
    role = Role.RESEMBLANCE

    def run(self, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
        return reordered(claim, evidence)


def prove(claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
    """The proof of the claim by the first span of its evidence that proves it, or None."""
    found = None if claim.context else _aligned(claim, evidence)
    aligned = found is not None and found[1].in_order and _said_by_the_same(claim.text, found[0][0].text)
    if not aligned and evidence.copied is not None and not claim.context:
        # The sentence that says the claim word for word proves it, where an alignment cannot be made (a
        # claim of function words alone, "I had to have them all.") or reads what both say alike as a
        # difference: every qualifier, condition and speaker of the sentence is the claim's too.
        whole, opening = evidence.copied
        span: tuple[Passage, ...] = (whole,)
        pairs = [AlignedWord(word=claim.text[start:end], source_id=whole.source_id, start=whole.start + theirs[1],
                             end=whole.start + theirs[2])
                 for (_, start, end), theirs in zip(spelled_out(claim.words), spelled_out(words(whole.text))[opening:],
                                                    strict=False)]
    elif not aligned or found is None:
        return None
    else:
        span, alignment = found
        pairs = [
            AlignedWord(word=claim.text[word.start:word.end], source_id=span[0].source_id, start=source.start,
                        end=source.end)
            for word, source in alignment.pairs
        ]
    return CheckFinding(
        state=State.SUPPORTED,
        method=PREFIX + Proof.name,
        evidence=tuple(citations.span(passage, claim, evidence) for passage in span),
        confidence=0.99,
        rationale="Proven: every word and value of the claim is stated, in the same sense, by the cited "
                  + ("sentence." if len(span) == 1 else "sentences."),
        extra={"alignment": pairs},
    )


def reordered(claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
    """Not proven, whatever the score, when the claim's words are all one sentence's, in another order."""
    found = _aligned(claim, evidence)
    if found is not None and found[1].in_order:
        return None
    span = found[0] if found is not None else _names_swapped(claim, evidence)
    if span is None:
        return None
    if explains_order(claim.words, [words(passage.text) for passage in span]):
        return None  # "B was acquired by A" is "A acquired B": a change of voice moves the arguments
    return CheckFinding(
        state=State.INSUFFICIENT_EVIDENCE,
        method=PREFIX + Reordered.name,
        evidence=tuple(citations.span(passage, claim, evidence) for passage in span),
        confidence=0.7,
        rationale="The claim uses the cited sentence's words in another order: who did what to whom may not be "
                  "what the source says.",
    )


def _names_swapped(claim: ClaimView, evidence: Evidence) -> tuple[Passage, ...] | None:
    """A retrieved sentence with every content word of the claim whose names it says in another order, though
    it says more between the claim's words than a proof allows: "Castro, who is an alum of Broad City
    series Comedy Central" against "Castro, who is repped by WME and Avalon, is an alum of Comedy Central
    series Broad City". None where some retrieved sentence says them in the claim's order."""
    content = content_words(claim.words, 0, claim.text)
    swapped = None
    for hit in evidence.hits:
        passage = hit.passage
        by_key = keyed(sentence_words(passage.text, passage.start))
        options = _options(content, {}, by_key)
        if options is None:
            continue
        # A name the sentence says twice is read where the claim's words lie closest together: "Parrott had
        # confronted Heimbach ... Parrott said" says Heimbach after Parrott, though a later Parrott follows
        # it. Of two readings as close, the one in order is taken.
        text = evidence.index.sources[passage.source_id].text
        readings = [reading for compact in (True, False)
                    if (reading := _name_order(claim.text, _matched(content, options, {}, by_key, compact=compact),
                                               text)) is not None]
        if not readings:
            continue
        closest = min(spread for spread, _ in readings)
        if any(order == sorted(order) for spread, order in readings if spread == closest):
            return None
        if swapped is None:
            swapped = (passage,)
    return swapped


def _name_order(claim: str, matched: list[tuple[Word, Word, int]] | None,
                text: str) -> tuple[int, list[int]] | None:
    """How far apart the span says the claim's words, and where it says the claim's names (words capitalised
    on both sides, past the claim's first), in the claim's order; None when the claim names fewer than two."""
    if matched is None:
        return None
    order = [source.start for word, source, _ in matched
             if word.start > 0 and claim[word.start].isupper() and text[source.start].isupper()]
    places = [source.start for _, source, _ in matched]
    return (max(places) - min(places), order) if len(order) >= 2 else None


@lru_cache(maxsize=16)
def _aligned(claim: ClaimView, evidence: Evidence) -> tuple[tuple[Passage, ...], _Alignment] | None:
    """The first span of the evidence the claim aligns to, preferring one whose order it keeps. Asked by
    both `Proof` and `Reordered` of the same claim and evidence: aligned once."""
    if not evidence.hits:
        return None
    content = content_words(claim.words, 0, claim.text)
    if len(content) < 2 and not (content and qualifiers(claim.words)
                                 and not any(word in _REFERRING for word, _, _ in claim.words)):
        return None  # "It is free" says too little to find; "Pets are not allowed" says what it denies
    values = [check for check in evidence.values if check.claim_value.kind in VALUE_KINDS]
    # The words outside the claim's values must each be in the span as they are: most spans lack one.
    plain = {word.key for word in content
             if not any(check.claim_value.start <= word.start < check.claim_value.end for check in values)}
    out_of_order = None
    for span in _spans(evidence):
        if not all(key[:1].isdigit() or len(key) == 1 or key in STOP_WORDS
                   or any(_says(passage, key) for passage in span) for key in plain):
            continue  # a word of the claim is not in the span (the index's stems, read already, tell, but
            # of an initial, "J" of "J. K. Rowling", "S" of "S&P", or a name in capitals, "US", which the
            # alignment reads)
        alignment = _align(claim, content, values, span, evidence.index)
        if alignment is not None and alignment.in_order:
            return span, alignment
        if alignment is not None and out_of_order is None and len(span) == 1:
            out_of_order = span, alignment
    return out_of_order


def _said_by_the_same(claim: str, sentence: str) -> bool:
    """Whether a claim that opens with whom it is said by ("Sales Agent: ...") is the span's line by the
    same speaker: the label is what the line claims, though its words may be none a proof aligns ("Am I")."""
    ours = SPEAKER.match(claim)
    if ours is None:
        return True
    theirs = SPEAKER.match(sentence)
    return theirs is not None and speaker(ours[1]) == speaker(theirs[1])


def _says(passage: Passage, key: str) -> bool:
    """Whether a sentence has the word of `key` among its stems, or it denied by a prefix: "available" of
    the claim is in "unavailable", which the alignment reads as "not available" (`tokens.denied_quality`)."""
    stems = passage.stem_set
    return key in stems or "un" + key in stems or "non" + key in stems


def _spans(evidence: Evidence) -> Iterator[tuple[Passage, ...]]:
    """One sentence, then it with the sentence after it, for the retrieved sentences best first and then
    those that state one of the claim's values: the sentences a verdict can cite."""
    seen: set[tuple[int, ...]] = set()
    stating = [passage for check in evidence.values for passage, _ in check.grounding]
    for passage in [hit.passage for hit in evidence.hits] + stating:
        after = [other for other in evidence.index.neighbours(passage) if other.position == passage.position + 1]
        for span in ((passage,), (passage, *after[:1])):
            key = tuple(part.position for part in span)
            if key not in seen:
                seen.add(key)
                yield span


@dataclass(frozen=True)
class _Alignment:
    pairs: list[tuple[Word, Word]]
    """Each content word of the claim with the word of the span it matches."""
    in_order: bool
    """Whether the matched words keep the span's order, up to one moved phrase."""


def _align(claim: ClaimView, content: list[Word], values: Sequence[ValueCheck], span: tuple[Passage, ...],
           index: SourceIndex) -> _Alignment | None:
    """The claim's words aligned to the span's, or None when the span leaves a word, a value, a qualifier
    or a condition of the claim unaccounted for."""
    text = index.sources[span[0].source_id].text
    source_words = [word for passage in span for word in sentence_words(passage.text, passage.start)]
    stated: dict[int, Word] = {}  # claim offset -> the source word the value check found stated
    anchored: set[int] = set()  # where in the source the values stated so far are
    for check in values:
        if any(passage in span for passage, _ in check.disagreeing):
            return None
        found = next(((passage, mention) for passage, mention in check.grounding if passage in span), None)
        if found is not None:
            passage, mention = found
            mention = next_stating(check.claim_value, passage, mention, anchored)
            anchored.add(passage.start + mention.start)
            anchor = Word("", passage.start + mention.start, passage.start + mention.end)
            for word in content:
                if check.claim_value.start <= word.start < check.claim_value.end:
                    stated[word.start] = anchor
    by_key = keyed(source_words)
    options = _options(content, stated, by_key)
    if options is None:
        return None
    greedy = _matched(content, options, stated, by_key, compact=False)
    reading = _judged(claim, greedy, values, span, source_words, text)
    if reading is not None and reading.in_order or all(len(found) < 2 for found in options):
        return reading
    # A word the span says twice was matched to the wrong one: "offered" to "the offer was declined" after
    # its subject. Matched near the words the span says once instead, the claim reads as the span does,
    # or shows the arguments it swapped.
    compact = _judged(claim, _matched(content, options, stated, by_key, compact=True), values, span, source_words, text)
    return compact if compact is not None and (reading is None or compact.in_order) else reading


def _options(content: list[Word], stated: dict[int, Word],
             by_key: dict[str, list[Word]]) -> list[list[Word]] | None:
    """The span's words each content word of the claim may match, or None when one has none. A number is
    matched digit for digit, inside the value that states it where there is one: a value check that finds
    "$291 million" within a source's range must not stand for the 291 itself."""
    options = []
    for word in content:
        value = stated.get(word.start)
        if value is not None and not word.key[:1].isdigit():
            options.append([value])  # "dollars" of "20 dollars" is stated by "$20" as a whole
            continue
        found = [other for other in by_key.get(word.key, ()) if value is None or value.start <= other.start < value.end]
        if not found:
            return None
        options.append(found)
    return options


def _matched(content: list[Word], options: list[list[Word]], stated: dict[int, Word],
             by_key: dict[str, list[Word]], compact: bool) -> list[tuple[Word, Word, int]] | None:
    """Each claim word with the span word it matches and its place in the span (a value's words at the
    value's start), or None when the span has too few of a word. Each span word states one claim word
    ("2020 and 2020" is not "2020"). A word the span has more than once takes the next one after the word
    before it, or, `compact`, the one nearest a word the span has once."""
    anchors = [found[0].start for found in options if len(found) == 1]
    matched: list[tuple[Word, Word, int]] = []
    taken: set[int] = set()
    previous = -1
    for word, found in zip(content, options, strict=True):
        value = stated.get(word.start)
        if value is not None and not word.key[:1].isdigit():
            matched.append((word, value, value.start))
            continue
        free = [other for other in found if other.start not in taken]
        if not free and value is not None:
            # The value check cites one sentence's first mention of a value: "2013" of "... (2013)." is
            # cited at "10 May 2013", whose 2013 the date took. Another 2013 of the span states it there.
            value, free = None, [other for other in by_key.get(word.key, ()) if other.start not in taken]
        if not free:
            return None
        if compact and anchors:
            match = min(free, key=lambda other: min(abs(other.start - anchor) for anchor in anchors))
        else:
            match = next((other for other in free if other.start > previous), free[0])
        previous = match.start
        taken.add(match.start)
        matched.append((word, match, match.start if value is None else value.start))
    return matched


def _judged(claim: ClaimView, matched: list[tuple[Word, Word, int]] | None, values: Sequence[ValueCheck],
            span: tuple[Passage, ...], source_words: list[Word], text: str) -> _Alignment | None:
    """The alignment the matches make, or None when the span says more between them, or qualifies or
    conditions what the claim states plainly."""
    if matched is None:
        return None
    pairs = [(word, source) for word, source, _ in matched]
    places = [place for _, _, place in matched]
    first, last = min(source.start for _, source in pairs), max(source.start for _, source in pairs)
    used = {source.start for _, source in pairs}
    # The values the claim's words were matched to, as a whole ("one fumble" read for a claim's second
    # "one fumble", which its value check, citing a sentence's first, does not name).
    anchors = [(source.start, source.end) for _, source in pairs if not source.key]
    region_words = [word for word in source_words if first <= word.start <= last]
    omitted = [word.start not in used and not inside_value(word, values, span)
               and not any(start <= word.start < end for start, end in anchors) for word in region_words]
    conjuncts = conjuncts_left_out(text, region_words, omitted, span)
    if conjuncts is None:
        return None  # the span says more between the words it shares with the claim
    if hedged(text, span, source_words, used, qualifiers):
        return None  # "arrives on Monday or Tuesday" does not say "on Tuesday"
    said_last = max(word.end for word, _ in pairs)
    tail = [word for word, start, _ in claim.words if start >= said_last]
    region = widened(text, span, source_words, first, last, tail)
    # The modal of a conjunct left out is its own where the next one has its own verb: "would" of "Abe
    # Weinberg would become a gunman and was a later suspect" says nothing of the suspect.
    stated = Counter(qualifiers(words(region)))
    stated.subtract(key for start, end in conjuncts for key in qualifiers(words(text[start:end])))
    if sorted(qualifiers(claim.words)) != sorted(stated.elements()):
        return None
    if denied_in_clause(text, span, first, last, conjuncts) > qualifiers(claim.words).count("not"):
        return None  # "We rent your data" is denied by "We do not sell or rent your data"
    claim_words = {word for word, _, _ in claim.words}
    end_of_last = end_of(text, last)
    if any(word in _CONDITIONS and word not in claim_words
           and not (word in _EXCEPTIONS and later_predicate(text, end_of_last, span[0].start + start))
           and not later_clause(text, end_of_last, span[0].start + start)
           for word, start, _ in words(text[span[0].start:span[-1].end])):
        return None
    # The words of one value share the place of the value they state ("20 dollars" -> "$20"). A passive
    # said actively in the same order has swapped who did what (`voice.voice_kept`).
    firsts: dict[int, int] = {}  # each place, in the claim's order, with where its first claim word starts
    for (word, _), place in zip(pairs, places, strict=True):
        # A value opens where it does, not at its first content word ("May" of "in May 1784" reads as a modal).
        value = next((check.claim_value for check in values
                      if check.claim_value.start <= word.start < check.claim_value.end), None)
        firsts.setdefault(place, value.start if value is not None else word.start)
    in_order = one_move_from_order(list(firsts), span, text,
                                   [prepositioned(claim.words, start, claim.text) for start in firsts.values()]) \
        or list_swapped(list(firsts), list(firsts.values()), text, claim.text, span)
    return _Alignment(pairs, in_order and voice_kept(claim.words, text, span[0].start, span[-1].end, used))
