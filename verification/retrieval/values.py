"""How the sources speak to each value a claim commits to: the sentences that state it, and those that
state another value for the same thing.

A bare "400" agrees with "400 freshmen", but only values with the same unit can disagree, and only in a
sentence that shares enough of the claim's words and is not about another subject of the same sort
("Team plan: $25" says nothing about the Basic plan's price), and only where the sentence's value is
said of what the claim is about (`measured`): the "6 months" one must have worked to qualify for leave
is no length of leave.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from verification.claims.clauses import CLAUSE_JOIN, clause_tokens
from verification.claims.commitments import (
    MONTHS,
    VALUE_KINDS,
    Mention,
    agree,
    comparable,
    contradicts,
    grounds,
)
from verification.claims.commitments.measured import closeness, counted, said_of, same_count, same_quantity
from verification.claims.commitments.names import subject_names
from verification.claims.tokens import content_stems, stem
from verification.claims.view import ClaimView
from verification.retrieval.index import Passage, SourceIndex

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


def check_values(claim: ClaimView, candidates: list[Passage], index: SourceIndex) -> list[ValueCheck]:
    """One check per typed value the claim commits to, against every candidate sentence."""
    # What a sentence must share before its values can disagree: the claim's words, not the unit of a
    # time ("months" in "lasts 18 months" says how long, not what lasts). A counted noun stays:
    # "20 customers" is about customers.
    word_stems = {stem for stem in claim.unique_stems if not stem[:1].isdigit()}
    context_stems = (word_stems, word_stems - claim.duration_stems)
    subjects, claim_names = claim.subject_names
    names = frozenset(stem(word) for name in claim_names for word in name) & frozenset(word_stems)
    values = [mention for mention in claim.mentions if mention.kind in VALUE_KINDS]
    claim_keys = tuple(token.key for token in claim.clause_tokens if token.content and not token.word[:1].isdigit())
    return [
        _check_value(value, candidates, context_stems, subjects, index, (names, frozenset(word_stems - names)),
                     (said_of(claim.clause_tokens, value, values), claim_keys, counted(claim.clause_tokens, value)),
                     [other for other in values if other is not value], _slot(claim.text, value))
        for value in values
    ]


def _check_value(
    value: Mention,
    candidates: list[Passage],
    context_stems: tuple[set[str], set[str]],
    subjects: tuple[tuple[str, str], ...],
    index: SourceIndex,
    claim_words: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset()),
    measures: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]] = ((), (), ()),
    others: Sequence[Mention] = (),
    slot: frozenset[str] = frozenset(),
) -> ValueCheck:
    """`measures`: what the claim's value is said of (`measured.said_of`), the claim's content words, and
    what the value counts (`measured.counted`); `others`: the claim's other values; `slot`: the words
    just around the value in the claim (`_slot`)."""
    agreeing, disagreeing, grounding = [], [], []
    bearing = _BEARING_KINDS.get(value.kind)
    for passage in candidates:
        if bearing is not None and bearing.isdisjoint(passage.value_kinds):
            continue  # no value of the sentence can agree with this one or contradict it
        # A bare "400" confirms "400 freshmen" (and "230 metres" confirms "230 meters"): numbers agree
        # on value alone, but only numbers with the same unit can disagree (`commitments.grounds`).
        stated = passage.values
        if not stated and value.kind != "date":
            continue  # nothing to compare with: only a date can be told without a value (`_dated_in_parts`)
        # Only a value of the same sort can be consistent with the claim's or contradict it.
        same_sort = [m for m in stated if comparable(value, m)]
        owned = _parallel_value(same_sort, passage, *claim_words) if claim_words[0] else None
        if owned is None and len(same_sort) > 1 and slot:
            owned = _clause_value(same_sort, passage, claim_words[0] | claim_words[1], slot)
        if owned is not None and contradicts(value, owned) and not any(agree(other, owned) for other in others):
            # (Unless the claim states that value too: then it says both parts, as the sentence does.)
            # "The Basic plan includes 10 GB and the Pro plan 100 GB": its 100 GB is the Pro plan's;
            # of the Basic plan, which the claim is about, it says 10 GB.
            disagreeing.append((passage, owned))
            continue
        # Only the first mention of each sort is reported, so each search stops at it. One of the claim's
        # own unit comes first: "8 passes" is the "8 passes" of "in eight games ... 4-of-8 passes", though
        # the bare number of "eight games" agrees with it too.
        matching = next((m for m in same_sort if grounds(value, m)), None) or next(
            (m for m in stated if grounds(value, m)), None)
        if matching is None and _dated_in_parts(value, passage, index):
            matching = value
        if matching is None and not stated:
            continue  # most sentences state no value: nothing to agree or disagree with
        if matching is not None:
            agreeing.append((passage, matching))
            grounding.append((passage, matching))
            continue
        # "2015" is consistent with "March 5, 2015", and "7 days" with "5 to 10 days": neither grounds
        # the claim's value, and neither lets another sentence's value contradict it.
        consistent = next((m for m in same_sort if agree(value, m) or _inside(value, m)), None)
        if consistent is not None:
            agreeing.append((passage, consistent))
            continue
        contradicting = [m for m in same_sort if contradicts(value, m)]
        if (
            contradicting
            and max(_context(passage, stems) for stems in context_stems) >= _CONTEXT_FOR_VALUES
            and not _another_subject(passage, subjects)
        ):
            # What each value is said of is read last: it takes the sentence's clauses, which most
            # sentences with a contradicting value never need (they are about something else).
            # A value the claim states beside this one is cited last: "earned $3.1 billion" is the claim's
            # too, so what "$6.89 per share" is told against is the sentence's "$6.78".
            unstated = [m for m in contradicting if not any(agree(other, m) for other in others)]
            against = (_same_quantity_against(passage, unstated, *measures) if len(unstated) < len(contradicting)
                       else None) or _same_quantity_against(passage, contradicting, *measures)
            if against is not None:
                disagreeing.append((passage, against))
    return ValueCheck(value, tuple(agreeing), tuple(disagreeing), tuple(grounding))


def _same_quantity_against(passage: Passage, contradicting: list[Mention], said: tuple[str, ...],
                           claim_keys: tuple[str, ...], counts: tuple[str, ...] = ()) -> Mention | None:
    """The value of the sentence that contradicts the claim's about the same quantity, or None.

    A value of the same unit measures the same thing only where what it is said of is in the claim: the
    "6 months" one "must have worked" to qualify is no length of leave. Of several, the one said of what
    the claim's value is said of: "closes at 5 pm", not "opens at 9 am", against "closes at 7 pm".
    """
    if not contradicting:
        return None
    measured = [(_measures(passage, found), found) for found in contradicting]
    kept = [(keys, found) for (keys, found_counts), found in measured
            if same_quantity(keys, claim_keys) and same_count(counts, found_counts)]
    if not kept:
        return None
    return max(kept, key=lambda item: closeness(said, item[0]))[1]


def _measures(passage: Passage, found: Mention) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What a value of the sentence is said of (`measured.said_of`) and what it counts (`measured.counted`).

    A sentence whose value contradicts one claim's often contradicts its neighbours' too: read once per
    value of the sentence, kept on the sentence (which the case's index keeps no longer than the case).
    """
    known = passage.measures.get(found)
    if known is None:
        tokens = clause_tokens(passage.text)
        known = passage.measures[found] = (said_of(tokens, found, passage.values), counted(tokens, found))
    return known


_BEARING_KINDS = {
    "money": frozenset({"money"}),
    "time": frozenset({"time"}),
    "duration": frozenset({"duration", "number"}),
    "percentage": frozenset({"percentage", "number"}),
}
"""For a claim's value of each of these kinds, the kinds a sentence's value must be of to be comparable with it
or ground it (`commitments.comparable`, `commitments.grounds`: a value of another kind grounds none of these,
save the bare end of a range, "aged 10-24", a duration's or a percentage's). A sentence with none is passed
over: nothing of it would be read. A number or a date may be grounded by more, or told in parts, and is
always read."""


_PARALLEL = 0.5
"""Share of the claim's other words every part of a sentence must say for the parts to be parallel."""


def _parallel_value(same_sort: list[Mention], passage: Passage, names: frozenset[str],
                    others: frozenset[str]) -> Mention | None:
    """The value a sentence of parallel parts gives for the claim's name: "The Basic plan includes 10 GB
    and the Pro plan includes 100 GB" gives 10 GB for the Basic plan.

    `same_sort`: the sentence's values of the claim's value's sort (`comparable`), in order. The sentence
    is cut after each of them. The parts are parallel when each
    says most of the claim's words other than its names ("plan", "includes"); then the part naming
    the claim's name, and no other part, gives its value. None otherwise: values of one sort in a
    sentence often measure different things ("a dividend of $0.13", "debt below $25 billion").
    """
    if not names:
        return None
    if len(same_sort) < 2:
        return None
    ends = [m.end for m in same_sort]
    parts = [
        frozenset(content_stems(passage.text[start:end]))
        for start, end in zip([0, *ends[:-1]], [*ends[:-1], len(passage.text)], strict=True)
    ]
    if others and any(len(part & others) < _PARALLEL * len(others) for part in parts):
        return None
    naming = [i for i, part in enumerate(parts) if part & names]
    return same_sort[naming[0]] if len(naming) == 1 else None


def _clause_value(same_sort: list[Mention], passage: Passage, claim_stems: frozenset[str],
                  slot: frozenset[str]) -> Mention | None:
    """The value a sentence of joined clauses, one value each, gives in the clause the claim's words are
    from: "The fee is $5 for domestic orders and $15 for international orders" gives $5 for domestic
    orders, "Interest is 5% for the first year and 8% thereafter" 5% for the first year.

    The sentence is cut at the word that joins each value's clause to the next ("and", "but", "or", a
    semicolon between them); the claim's words that some clauses say and others do not must all be in one
    clause, and the words just around the claim's value (`slot`) must be around that clause's value too:
    "the 2016 Olympics" is no slot of "the Baku 2015 European Games and the Rio 2016 Olympic Games",
    whatever else the claim takes from the sentence. None where a gap between two values joins nothing,
    or the claim's words are spread over several clauses ("Profit fell 8% in Q1" against "Revenue rose 5%
    in Q1 and profit fell 8%").
    """
    text = passage.text
    cuts = []
    for before, after in zip(same_sort, same_sort[1:], strict=False):
        joins = list(CLAUSE_JOIN.finditer(text, before.end, after.start))
        if not joins:
            return None
        cuts.append(joins[-1].start())
    bounds = list(zip([0, *cuts], [*cuts, len(text)], strict=True))
    parts = [frozenset(content_stems(text[start:end])) & claim_stems for start, end in bounds]
    telling = frozenset().union(*parts) - frozenset.intersection(*parts)
    naming = [i for i, part in enumerate(parts) if part & telling]
    if not telling or len(naming) != 1:
        return None
    owned = same_sort[naming[0]]
    start, end = bounds[naming[0]]
    return owned if _slot(text, owned, start, end) & slot else None


def _slot(text: str, value: Mention, start: int = 0, end: int | None = None) -> frozenset[str]:
    """The stems of the content words just before and just after a value, within text[start:end]."""
    before = content_stems(text[start:value.start])[-1:]
    after = content_stems(text[value.end:len(text) if end is None else end])[:1]
    return frozenset(before + after)


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
    own = _OWN_YEAR.match(passage.text, stated.end())
    if own is not None and year is not None and int(own[1]) != year:
        return False  # "In August 1857" has its own year: August 1855 is not told in parts there
    return year is None or str(year) in index.source_stems(passage.source_id)


_OWN_YEAR = re.compile(r",?\s*(\d{4})\b")


def _inside(value: Mention, found: Mention) -> bool:
    """Whether the value lies in the range `found` ends."""
    return value.value is not None and found.bounds is not None and found.bounds[0] <= value.value <= found.bounds[1]


def _another_subject(passage: Passage, subjects: tuple[tuple[str, str], ...]) -> bool:
    """Whether the sentence is about something else of the same sort as the claim's subject.

    "Team plan: $25 per month" says nothing about the Basic plan's price: it names another plan
    where the claim names its own, and never names the claim's.
    """
    if not subjects:
        return False
    found, named = subject_names(passage.text)
    # "Oue served" is "Eiji Oue served": a name that is part of the other is the same name.
    return any(
        head == other_head
        and not (set(name.split()) & set(other.split()))
        and not any(
            set(name.split()).issubset(words) or set(name.split()).issuperset(words) for words in named
        )
        for name, head in subjects
        for other, other_head in found
    )


def _context(passage: Passage, word_stems: set[str]) -> float:
    return len(passage.stem_set & word_stems) / len(word_stems) if word_stems else 1.0
