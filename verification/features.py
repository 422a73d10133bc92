"""What the offline verifier measures about one claim against the evidence retrieved for it.

Each measure is a plain number so a small logistic model can weigh them (see `offline.py` and
`benchmarks/fit_offline.py`); the typed comparisons are also kept whole, because a mismatching value
is reported to the reviewer as the reason for a REFUTED or CONFLICTING verdict.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from verification.antonyms import flipped_word
from verification.commitments import (
    MONTHS,
    VALUE_KINDS,
    Mention,
    agree,
    comparable,
    contradicts,
    find_mentions,
    find_names,
    grounds,
)
from verification.evidence import Hit, Passage, SourceIndex
from verification.novelty import unsupported_words
from verification.substitution import swapped_name
from verification.tokens import (
    STOP_WORDS,
    TEXT_CACHE_SIZE,
    after_negation_stems,
    content_stems,
    negated_stems,
    stem,
    words,
)

FEATURE_NAMES = (
    "coverage",
    "best_sentence_coverage",
    "global_coverage",
    "missing_words",
    "bigram_coverage",
    "values_confirmed",
    "entities_missing",
    "claim_length",
    "window_missing",
    "names_missing",
    "source_length",
    "best_score",
    # The unsupported part of a claim is a few words; an average over all of them hides it.
    "weakest_token",
    "weakest_two_tokens",
    "names_absent",
    # A short source (a summary's document) and a long web page call for different trust in coverage.
    "short_source",
    "short_x_window_missing",
    "short_x_coverage",
    # The token model (novelty.py): the likeliest unsupported word, the two likeliest, the expected count.
    "novel_max",
    "novel_top2",
    "novel_expected",
    # A number no source sentence states, and a name no source mentions, each nearly decide alone.
    "value_unconfirmed",
    "name_absent",
)
"""The measures the logistic model weighs; typed disagreements decide by rule and are kept apart."""

_CONTEXT_FOR_VALUES = 0.4
"""Share of a claim's words a sentence must have before its values are compared with the claim's."""


@dataclass(frozen=True)
class ValueCheck:
    """How the sources speak to one value the claim commits to."""

    claim_value: Mention
    """The value in the claim."""
    agreeing: tuple[tuple[Passage, Mention], ...]
    """Sentences that state the same value, best first."""
    disagreeing: tuple[tuple[Passage, Mention], ...]
    """Sentences about the same thing that state a different value, best first."""
    grounding: tuple[tuple[Passage, Mention], ...] = ()
    """The agreeing sentences that state the value at least as precisely as the claim (`commitments.grounds`):
    "2015" agrees with "March 5, 2015" (so it does not contradict it) but does not ground it."""


@dataclass
class Assessment:
    """Everything measured about one claim; `vector` is what the logistic model reads."""

    hits: list[Hit]
    """The evidence selected for the claim, best first."""
    claim_text: str = ""
    """The claim as written."""
    values: list[ValueCheck] = field(default_factory=list)
    """One check per typed value of the claim."""
    negation_mismatch: Passage | None = None
    """A closely matching sentence whose polarity is the opposite of the claim's."""
    denied: tuple[Passage, str] | None = None
    """Evidence stating a word the claim negates, in a source that never negates it."""
    swapped: tuple[Passage, str, str] | None = None
    """A closely matching sentence with another name or number where the claim has its own."""
    flipped: tuple[Passage, str, str] | None = None
    """A closely matching sentence with the opposite of one of the claim's words (rise / fall)."""
    relation_conflict: tuple[Passage, Mention] | None = None
    """A sentence that swaps who did what to whom, or names someone else as the doer."""
    claim_stems: list[str] = field(default_factory=list)
    """The claim's content stems, each once, in order."""
    mentions: list[Mention] = field(default_factory=list)
    """Everything the claim commits to (`commitments.find_mentions`)."""
    candidates: list[Passage] = field(default_factory=list)
    """Every sentence the claim's values were compared with: the hits, their neighbours, other BM25 hits."""
    vector: tuple[float, ...] = ()
    """The measures, in FEATURE_NAMES order."""


def assess(claim_text: str, index: SourceIndex) -> Assessment:
    """Retrieve evidence for the claim and measure how well it is covered and where it disagrees."""
    hits = index.select(claim_text, 3)
    stems = content_stems(claim_text)
    unique = list(dict.fromkeys(stems))
    mentions = find_mentions(claim_text)
    assessment = Assessment(hits=hits, claim_text=claim_text, claim_stems=unique, mentions=mentions)
    if not unique:
        assessment.vector = (0.0,) * len(FEATURE_NAMES)
        return assessment

    window = set().union(*(hit.passage.stem_set for hit in hits)) if hits else set()
    weights = {stem: index.idf(stem) for stem in unique}
    total_weight = sum(weights.values()) or 1.0
    coverage = sum(w for stem, w in weights.items() if stem in window) / total_weight
    best = max((len(hit.passage.stem_set & set(unique)) / len(unique) for hit in hits), default=0.0)
    missing = [stem for stem in unique if stem not in index.vocabulary]
    global_coverage = 1 - len(missing) / len(unique)

    candidates = _candidates(claim_text, index, hits)
    assessment.candidates = candidates
    # What a sentence must share before its values can disagree: the claim's words, not the unit of a
    # time ("months" in "lasts 18 months" says how long, not what lasts). A counted noun stays:
    # "20 customers" is about customers.
    value_stems = {word for m in mentions if m.kind == "duration" for word in content_stems(m.text)}
    word_stems = {stem for stem in unique if not stem[:1].isdigit()}
    context_stems = (word_stems, word_stems - value_stems)
    subjects = _subjects(claim_text)
    assessment.values = [
        _check_value(value, candidates, context_stems, subjects, index)
        for value in mentions if value.kind in VALUE_KINDS
    ]
    confirmed = sum(1 for check in assessment.values if check.agreeing)
    assessment.negation_mismatch = _negation_mismatch(claim_text, hits, set(unique))
    assessment.relation_conflict = _relation_conflict(mentions, candidates)
    if len(unique) >= _NEGATION_MIN_STEMS:
        assessment.denied = _denied(claim_text, hits, index)
        assessment.flipped = _stated_elsewhere(
            _one_word_swapped(claim_text, hits, set(unique), flipped_word, allowance=1), hits, unique
        ) or _unsaid_opposite(claim_text, hits, index)
    assessment.swapped = _other_subject_swap(
        _one_word_swapped(claim_text, hits, set(unique), swapped_name), assessment, candidates, unique
    )
    entities = [m for m in mentions if m.kind == "entity" and m.start > 0]
    entities_missing = sum(
        1 for m in entities if not all(part in index.vocabulary for part in str(m.parts[0]).split())
    )

    short = 1.0 / (1.0 + len(index.passages) / 20)  # 1 for one sentence, 0.5 at 20, towards 0 beyond
    names = name_stems(claim_text)
    assessment.vector = (
        coverage,
        best,
        global_coverage,
        math.log1p(len(missing)),
        _bigram_coverage(stems, hits),
        confirmed / len(assessment.values) if assessment.values else 1.0,
        entities_missing / len(entities) if entities else 0.0,
        math.log(len(unique)),
        math.log1p(sum(1 for stem in unique if stem not in window)),
        float(sum(1 for stem in names if stem not in window)),
        math.log(len(index.passages) + 1),
        (hits[0].score / len(unique)) if hits else 0.0,
        *_token_support(unique, hits, index),
        float(sum(1 for stem in names if stem not in index.vocabulary)),
        short,
        short * math.log1p(sum(1 for stem in unique if stem not in window)),
        short * coverage,
        *_novelty(claim_text, hits, index),
        float(confirmed < len(assessment.values)),
        float(any(stem not in index.vocabulary for stem in names)),
    )
    return assessment


def _token_support(unique: list[str], hits: list[Hit], index: SourceIndex) -> tuple[float, float]:
    """How unsupported the claim's least supported words are, weighted by how rare they are.

    The unsupported part of a claim is usually a few words; an average over all of its words hides
    them, so the weakest one (and the mean of the weakest two) is measured instead.
    """
    window = set().union(*(hit.passage.stem_set for hit in hits)) if hits else set()
    around: set[str] = set()
    for hit in hits:
        for passage in index.neighbours(hit.passage):
            around |= passage.stem_set
    top_idf = index.idf("") or 1.0
    gaps = []
    for word in unique:
        support = 1.0 if word in window else 0.5 if word in around else 0.25 if word in index.vocabulary else 0.0
        gaps.append((1.0 - support) * min(1.0, index.idf(word) / top_idf))
    gaps.sort(reverse=True)
    return gaps[0], sum(gaps[:2]) / 2


def _novelty(claim_text: str, hits: list[Hit], index: SourceIndex) -> tuple[float, float, float]:
    """The token model's view: the likeliest unsupported word, the two likeliest, the expected count."""
    probabilities = sorted(unsupported_words(claim_text, hits, index), reverse=True)
    if not probabilities:
        return 0.0, 0.0, 0.0
    return probabilities[0], sum(probabilities[:2]) / 2, math.log1p(sum(probabilities))


def name_stems(claim_text: str) -> set[str]:
    """Stems of the words that name something: capitalised (past the first word) or numeric."""
    # A lone initial ("J." in "Michael J. Fox") names nothing a source must repeat.
    return {
        stem(word) for word, start, _ in words(claim_text)
        if word[:1].isdigit()
        or (start > 0 and claim_text[start].isupper() and word not in STOP_WORDS and len(word) > 1)
    }


def _candidates(claim_text: str, index: SourceIndex, hits: list[Hit]) -> list[Passage]:
    """Sentences worth comparing values with: the selected evidence, its neighbours, other BM25 hits."""
    seen: dict[int, Passage] = {}
    for hit in hits:
        seen.setdefault(hit.passage.position, hit.passage)
    for hit in index.rank(claim_text):
        seen.setdefault(hit.passage.position, hit.passage)
    for hit in hits:
        for passage in index.neighbours(hit.passage):
            seen.setdefault(passage.position, passage)
    return list(seen.values())


def _check_value(
    value: Mention,
    candidates: list[Passage],
    context_stems: tuple[set[str], set[str]],
    subjects: frozenset[tuple[str, str]],
    index: SourceIndex,
) -> ValueCheck:
    agreeing, disagreeing, grounding = [], [], []
    for passage in candidates:
        # A bare "400" confirms "400 freshmen" (and "230 metres" confirms "230 meters"): numbers agree
        # on value alone, but only numbers with the same unit can disagree (`commitments.grounds`).
        stated = passage.values
        # Only the first mention of each sort is reported, so each search stops at it.
        matching = next((m for m in stated if grounds(value, m)), None)
        if matching is None and _dated_in_parts(value, passage, index):
            matching = value
        if matching is None and not stated:
            continue  # most sentences state no value: nothing to agree or disagree with
        # "2015" is consistent with "March 5, 2015", and "7 days" with "5 to 10 days": neither grounds
        # the claim's value, and neither lets another sentence's value contradict it.
        consistent = matching or next(
            (m for m in stated if comparable(value, m) and (agree(value, m) or _inside(value, m))), None
        )
        if consistent is not None:
            agreeing.append((passage, consistent))
            if matching is not None:
                grounding.append((passage, matching))
            continue
        against = next((m for m in stated if contradicts(value, m)), None)
        if (
            against is not None
            and max(_context(passage, stems) for stems in context_stems) >= _CONTEXT_FOR_VALUES
            and not _another_subject(passage, subjects)
        ):
            disagreeing.append((passage, against))
    return ValueCheck(value, tuple(agreeing), tuple(disagreeing), tuple(grounding))


def _dated_in_parts(value: Mention, passage: Passage, index: SourceIndex) -> bool:
    """A claim's date told in parts: "May 2018" against "to screen in May" in a source dated 2018.

    The month (and the day beside it) must be in the sentence; the year may be anywhere in the same
    source, which is where a dateline puts it. The sentence is read as text: its own date parsing can
    miss "Thursday 18 October 15:30".
    """
    if value.kind != "date" or value.parts[1] is None:
        return False
    year, month, day = value.parts
    names = "|".join(re.escape(name) for name, number in MONTHS.items() if number == month)
    month_pattern = rf"\b(?i:{names})\.?" if month != 5 else r"\bMay\b"
    if day is None:
        stated = re.search(month_pattern, passage.text)
    else:
        stated = re.search(rf"\b{day}(?:st|nd|rd|th)?\s+(?:of\s+)?{month_pattern}", passage.text) or re.search(
            rf"{month_pattern}\s+{day}(?:st|nd|rd|th)?(?![\d:])", passage.text
        )
    if not stated:
        return False
    return year is None or any(
        other.source_id == passage.source_id and str(year) in other.stem_set for other in index.passages
    )


def _inside(value: Mention, found: Mention) -> bool:
    """Whether the value lies in the range `found` ends."""
    return value.value is not None and found.bounds is not None and found.bounds[0] <= value.value <= found.bounds[1]


# A sentence is asked about its subjects for every claim whose value it contradicts: read once per text.
@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _subjects(text: str) -> frozenset[tuple[str, str]]:
    """(name, the word after it) for each name in `text`: ("basic", "plan") for "the Basic plan"."""
    found = set()
    for mention in find_names(text):
        following = words(text[mention.end : mention.end + 40])
        if following and following[0][0] not in STOP_WORDS:
            found.add((str(mention.parts[0]), stem(following[0][0])))
    return frozenset(found)


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _names(text: str) -> tuple[frozenset[str], ...]:
    """The words of each name in `text`."""
    return tuple(frozenset(str(m.parts[0]).split()) for m in find_names(text))


def _another_subject(passage: Passage, subjects: frozenset[tuple[str, str]]) -> bool:
    """Whether the sentence is about something else of the same sort as the claim's subject.

    "Team plan: $25 per month" says nothing about the Basic plan's price: it names another plan
    where the claim names its own, and never names the claim's.
    """
    if not subjects:
        return False
    found = _subjects(passage.text)
    named = _names(passage.text)
    # "Oue served" is "Eiji Oue served": a name that is part of the other is the same name.
    return any(
        head == other_head
        and not (set(name.split()) & set(other.split()))
        and not any(set(name.split()) <= words_named or words_named <= set(name.split()) for words_named in named)
        for name, head in subjects
        for other, other_head in found
    )


def _context(passage: Passage, word_stems: set[str]) -> float:
    return len(passage.stem_set & word_stems) / len(word_stems) if word_stems else 1.0


_NEGATION_MIN_STEMS = 3
"""A claim needs this many content words before its polarity is compared: a bare name has none."""


def _negation_mismatch(claim_text: str, hits: list[Hit], claim_stems: set[str]) -> Passage | None:
    """A closely matching sentence that negates a word the claim asserts, or the other way round.

    A sentence that matches the claim at least as closely with the claim's own polarity says it is a
    different statement that happens to share words ("take 1 or 2 tablets" beside "do not take more
    than 6 tablets"): then nothing is contradicted.
    """
    if len(claim_stems) < _NEGATION_MIN_STEMS:
        return None
    claim_negated = negated_stems(claim_text)
    mismatch: tuple[Passage, float] | None = None
    agreeing = 0.0
    for hit in hits[:3]:
        passage = hit.passage
        overlap = len(passage.stem_set & claim_stems) / len(claim_stems)
        if overlap < 0.55:
            continue
        # The negation must land on a word both sides share, with opposite polarity.
        if (claim_negated - passage.negated_stems) & passage.stem_set or (
            passage.negated_stems - claim_negated
        ) & claim_stems:
            if mismatch is None and hit in hits[:2]:
                mismatch = passage, overlap
        else:
            agreeing = max(agreeing, overlap)
    if mismatch is None or agreeing >= mismatch[1]:
        return None
    return mismatch[0]


def _overlap(passage: Passage, claim_stems: list[str]) -> float:
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
    found: tuple[Passage, str, str] | None, assessment: Assessment, candidates: list[Passage], claim_stems: list[str]
) -> tuple[Passage, str, str] | None:
    """A swapped name, unless the sentence is about another subject rather than a mistake about this one.

    "The Basic plan costs $10" against "The Team plan costs $25" differs in the name and the price: it
    is the Team plan's sentence. So is any sentence when another one says the claim's name in as many
    of its words.
    """
    if found is None:
        return None
    passage, said, _ = found
    for check in assessment.values:
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
    if not denied or any(denied & after_negation_stems(passage.text) for passage in index.passages):
        return None
    word = next(word for word, _, _ in tokens if stem(word) in denied)
    passage = next(hit.passage for hit in hits if denied & hit.passage.stem_set)
    return passage, word


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


def _relation_conflict(mentions: list[Mention], candidates: list[Passage]) -> tuple[Passage, Mention] | None:
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
                swapped = found.parts[0] == obj and found.parts[1] == subject
                other_doer = found.parts[1] == obj and found.parts[0] != subject
                if (swapped or other_doer) and conflict is None:
                    conflict = passage, found
    return conflict


def _bigram_coverage(stems: list[str], hits: list[Hit]) -> float:
    pairs = set(zip(stems, stems[1:], strict=False))
    if not pairs:
        return 1.0
    found = set().union(*(hit.passage.bigrams for hit in hits))
    return len(pairs & found) / len(pairs)
