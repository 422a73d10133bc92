"""Finding the sentences of a case's sources that bear on one claim, with exact offsets.

The sources are split into sentences once per case and ranked with BM25 for every claim.
BM25 alone favours one sentence that repeats a rare word; a claim often needs two or three
sentences between them, so the best-ranked candidates are re-ordered greedily by how much of the
claim each new sentence covers, with BM25 and nearness to the sentences already chosen as lesser
credits. Every span returned is an exact slice of its source's text.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from verification.claims import language as languages
from verification.claims.commitments import Mention, find_mentions, find_values
from verification.claims.commitments.localized import find_localized_values
from verification.claims.segmentation import keys, sentence_spans
from verification.claims.sentences import split_sentences
from verification.claims.tokens import (
    content_stems,
    has_negation,
    negated_stems,
)
from verification.types import EvidenceSpan, Source

_CANDIDATES = 12
"""How many BM25 hits are considered before re-ordering by coverage."""
_RANK_WEIGHT = 2.0
"""Weight of a candidate's BM25 score (relative to the best remaining hit's) against the claim words
it adds.

When two candidates add about as much of the claim, the one BM25 ranks higher is usually a sentence
about the claim rather than a stray line sharing one rare word ("Quiet please."). Chosen, with
_NEARBY_BONUS, on WiCE claim_dev by evidence recall@3 and checked on held-out halves of it; the
verdict's cross-validated accuracy moves by no more than noise with it.
"""
_NEARBY_BONUS = 1.0
"""Bonus for a candidate within two sentences of one already chosen: the sentences that support a
claim between them are often told in a row ("the architect planned to construct the house after the
death of his daughter" / "the architect went crazy and decided to decorate the house")."""


_NOTHING_NEGATED: frozenset[str] = frozenset()


@dataclass
class Passage:
    """One sentence of a source, with what matching needs precomputed."""

    source_id: str
    """The source it comes from."""
    position: int
    """Its index in the index's list of passages."""
    start: int
    """Offset in the source's text."""
    end: int
    """End offset (exclusive)."""
    text: str
    """source.text[start:end]."""
    stems: list[str]
    """Content stems in order."""
    stem_set: frozenset[str] = field(default_factory=frozenset)
    """The same, as a set."""
    language: str = languages.ENGLISH
    """The language of its source (`language.detect`); stems are that language's keys."""
    _mentions: list[Mention] | None = None
    _values: list[Mention] | None = None
    _bigrams: frozenset[tuple[str, str]] | None = None
    _negated: bool | None = None
    _value_kinds: frozenset[str] | None = field(default=None, compare=False, repr=False)
    measures: dict[Mention, tuple[tuple[str, ...], tuple[str, ...]]] = field(
        default_factory=dict, compare=False, repr=False)
    """What each of its values is said of and counts, kept by the value checks as they read it (`values._measures`)."""

    @property
    def bigrams(self) -> frozenset[tuple[str, str]]:
        """Each pair of consecutive content stems; asked for every claim the sentence is evidence for."""
        if self._bigrams is None:
            self._bigrams = frozenset(zip(self.stems, self.stems[1:], strict=False))
        return self._bigrams

    @property
    def mentions(self) -> list[Mention]:
        """Values, names, relations and negations in the sentence, computed on first use (most sentences
        never need them)."""
        if self._mentions is None:
            self._mentions = self.values if self.language != languages.ENGLISH else find_mentions(self.text)
        return self._mentions

    @property
    def values(self) -> list[Mention]:
        """The mentions that are values (VALUE_KINDS): all a claim's values are compared with, and
        cheaper than `mentions`, which also reads names and relations."""
        if self._values is None:
            self._values = (find_localized_values(self.text, self.language) if self.language != languages.ENGLISH
                            else find_values(self.text))
        return self._values

    @property
    def value_kinds(self) -> frozenset[str]:
        """The kinds of its values ("money", "date", ...): a claim's value of a kind it lacks is passed over
        at once by the value checks of most kinds (`values._BEARING_KINDS`)."""
        if self._value_kinds is None:
            self._value_kinds = frozenset(value.kind for value in self.values)
        return self._value_kinds

    @property
    def negated(self) -> bool:
        """Whether the sentence contains a negating word."""
        if self._negated is None:
            self._negated = has_negation(self.text)
        return self._negated

    @property
    def negated_stems(self) -> frozenset[str]:
        """The words a negation in the sentence applies to; most sentences have no negation to read. "Worry-free"
        denies worry as a claim's view reads it (`tokens.negated_stems`), with no negating word."""
        if self.negated or "-free" in self.text.lower():
            return negated_stems(self.text)
        return _NOTHING_NEGATED

    def span(self, covers: Sequence[str] = ()) -> EvidenceSpan:
        """The passage as an evidence span, with what of the claim it grounds or contradicts."""
        return EvidenceSpan(source_id=self.source_id, start=self.start, end=self.end, quote=self.text,
                            covers=tuple(covers))


@dataclass(frozen=True)
class Hit:
    """One passage retrieved for a query, with its BM25 score."""

    passage: Passage
    """The sentence retrieved."""
    score: float
    """Its BM25 score for the query."""


class SourceIndex:
    """The sentences of a case's sources, indexed once and searched once per claim."""

    def __init__(self, sources: Sequence[Source]) -> None:
        self.sources = {source.id: source for source in sources}
        sentences = _sentences_of(tuple((source.id, source.text) for source in sources))
        self.passages = sentences.passages
        self.document_frequency = sentences.document_frequency
        self.vocabulary = sentences.vocabulary
        self._bm25 = sentences.bm25
        self._by_source = sentences.by_source
        self._subjects: dict[str, frozenset[str]] = {}
        # Retrieval, value checks and grounding each rank the same claim: it is scored once per case.
        self._ranked: dict[tuple[str, int], tuple[Hit, ...]] = {}
        self._neighbours: dict[int, tuple[Passage, ...]] = {}
        self._by_start: dict[tuple[str, int], Passage] | None = None
        self._source_stems: dict[str, frozenset[str]] = {}
        self._idf: dict[str, float] = {}

    @functools.cached_property
    def prefixes(self) -> frozenset[str]:
        """First five letters of every longer stem: "reduc" for a source that says "reduction"."""
        return frozenset(word[:5] for word in self.vocabulary if len(word) >= 5)

    def idf(self, stem: str) -> float:
        """Inverse document frequency of a stem over the passages; high for stems no passage has."""
        # Asked for each claim word by selection, features and the token model: computed once per stem.
        weight = self._idf.get(stem)
        if weight is None:
            weight = self._idf[stem] = math.log((len(self.passages) + 1) / (self.document_frequency.get(stem, 0) + 0.5))
        return weight

    def rank(self, query: str, k: int = _CANDIDATES, stems: Sequence[str] | None = None) -> list[Hit]:
        """The k passages BM25 ranks highest for `query`, best first; passages scoring zero are left out.
        `stems`: the query's content stems where they are read already (a claim's view has them)."""
        if (query, k) not in self._ranked:
            self._ranked[query, k] = self._rank(content_stems(query) if stems is None else stems, k)
        return list(self._ranked[query, k])

    def _rank(self, query_stems: Sequence[str], k: int) -> tuple[Hit, ...]:
        stems = [stem for stem in query_stems if stem in self.vocabulary]
        if not stems:
            return ()
        scores = self._bm25.scores(stems)
        count = min(k, len(scores))
        top = np.argpartition(-scores, count - 1)[:count]
        values = scores.tolist()  # each float32 score as the Python float it equals, read without numpy
        # Ties are broken by position so the order never depends on numpy's partition internals.
        ordered = sorted(top.tolist(), key=lambda i: (-values[i], i))
        return tuple(Hit(self.passages[i], values[i]) for i in ordered if values[i] > 0)

    def select(self, query: str, k: int = 3, stems: Sequence[str] | None = None) -> list[Hit]:
        """Up to k passages that between them cover the most of the query, best first.

        Each next passage is the one adding the most of the query's words not yet covered (weighted
        by rarity), with its BM25 score and nearness to a passage already chosen as lesser credits.
        """
        stems = content_stems(query) if stems is None else stems
        hits = self.rank(query, stems=stems)
        needed = {stem: self.idf(stem) for stem in stems}
        chosen: list[Hit] = []
        nearby: set[int] = set()
        # The query's words each candidate has and no chosen passage covers yet, in the query's order:
        # found once, then shortened as passages are chosen, rather than filtered again every round.
        uncovered = {
            hit.passage.position: {stem: weight for stem, weight in needed.items() if stem in hit.passage.stem_set}
            for hit in hits
        }
        # What each candidate would add, summed again (in the query's order) only when its words shrink.
        gains = {position: sum(shared.values()) for position, shared in uncovered.items()}

        def merit(hit: Hit) -> tuple[float, int]:
            credit = _RANK_WEIGHT * hit.score / top_score + _NEARBY_BONUS * (hit.passage.position in nearby)
            return gains[hit.passage.position] + credit, -hit.passage.position

        while hits and len(chosen) < k:
            top_score = hits[0].score or 1.0
            best = max(hits, key=merit)
            chosen.append(best)
            if len(chosen) == k:
                break  # what the others would add is asked no more
            nearby |= self._around(best.passage, 2)
            hits = [hit for hit in hits if hit is not best]
            covered = best.passage.stem_set
            for hit in hits:
                position = hit.passage.position
                shared = uncovered[position]
                if not covered.isdisjoint(shared):
                    shared = uncovered[position] = {
                        stem: weight for stem, weight in shared.items() if stem not in covered
                    }
                    gains[position] = sum(shared.values())
        return chosen

    def search(self, query: str, k: int = 3) -> list[EvidenceSpan]:
        """Up to k exact source spans bearing on `query`, best first."""
        return [hit.passage.span() for hit in self.select(query, k)]

    def _around(self, passage: Passage, distance: int) -> set[int]:
        """Positions of the sentences within `distance` of `passage` in the same source."""
        return {
            position
            for position in range(passage.position - distance, passage.position + distance + 1)
            if 0 <= position < len(self.passages) and self.passages[position].source_id == passage.source_id
        }

    def subject_stems(self, source_id: str) -> frozenset[str]:
        """Stems of what a source is about: its title, and its first line when that is a heading.

        A spec sheet titled "Arden 14 specifications" says "Weight: 1.2 kg" of the Arden 14 without
        naming it again; the title is where the subject of its label lines is written.
        """
        if source_id not in self._subjects:
            source = self.sources.get(source_id)
            found = set(content_stems(source.title or "")) if source is not None else set()
            first = next(iter(self._of_source(source_id)), None)
            if first is not None and is_heading(first.text):
                found |= first.stem_set
            self._subjects[source_id] = frozenset(found)
        return self._subjects[source_id]

    def source_stems(self, source_id: str) -> frozenset[str]:
        """The content stems of every sentence of a source: whether a source says a word anywhere."""
        # Asked for each candidate sentence of a claim: each source's words are gathered once per case.
        if source_id not in self._source_stems:
            self._source_stems[source_id] = frozenset().union(
                *(passage.stem_set for passage in self._of_source(source_id))
            )
        return self._source_stems[source_id]

    def _of_source(self, source_id: str) -> Iterator[Passage]:
        """The sentences of the source(s) with this id, in order."""
        for first, end in self._by_source.get(source_id, ()):
            yield from itertools.islice(self.passages, first, end)

    def passage_at(self, source_id: str, start: int) -> Passage | None:
        """The sentence of source `source_id` that starts at offset `start`, if there is one."""
        # Asked for each span of each verdict: the lookup table is made once per case.
        if self._by_start is None:
            self._by_start = {(passage.source_id, passage.start): passage for passage in self.passages}
        return self._by_start.get((source_id, start))

    def neighbours(self, passage: Passage) -> list[Passage]:
        """The sentences just before and after `passage` in the same source."""
        # Asked of each hit by retrieval, features, the token model and grounding: found once per sentence.
        if passage.position not in self._neighbours:
            self._neighbours[passage.position] = tuple(
                self.passages[position] for position in (passage.position - 1, passage.position + 1)
                if 0 <= position < len(self.passages) and self.passages[position].source_id == passage.source_id
            )
        return list(self._neighbours[passage.position])


@dataclass(frozen=True)
class _Sentences:
    """What indexing a case's sources makes, before any claim is asked: shared by every index of them."""

    passages: list[Passage]
    document_frequency: Counter[str]
    vocabulary: frozenset[str]
    bm25: _Bm25
    by_source: dict[str, list[tuple[int, int]]]
    """Where each source's sentences are: positions from, to (exclusive); a list, as ids may repeat outside a Case."""


# Each candidate of a case is checked against the same sources with an index of its own: the sentences are
# split, stemmed and weighed once, which for a case of a megabyte of sources is most of its cost. Nothing
# an index learns about a claim is kept here, only what follows from the sources, and no caller changes
# it. One entry, the case being checked: a worker keeps no more than one case's sentences after it.
@functools.lru_cache(maxsize=1)
def _sentences_of(sources: tuple[tuple[str, str], ...]) -> _Sentences:
    passages: list[Passage] = []
    by_source: dict[str, list[tuple[int, int]]] = {}
    for source_id, source_text in sources:
        first = len(passages)
        language = languages.of_source(source_text)
        english = language == languages.ENGLISH
        spans = split_sentences(source_text, bounded=True) if english else sentence_spans(source_text, language)
        for start, end in spans:
            text = source_text[start:end]
            stems = content_stems(text) if english else keys(text, language)
            passages.append(Passage(source_id, len(passages), start, end, text, stems, frozenset(stems), language))
        by_source.setdefault(source_id, []).append((first, len(passages)))
    document_frequency: Counter[str] = Counter(word for passage in passages for word in passage.stem_set)
    return _Sentences(passages, document_frequency, frozenset(document_frequency),
                      _Bm25(passages, document_frequency), by_source)


class _Bm25:
    """BM25 scores of a case's sentences, exactly as `bm25s` (Lucene variant, k1=1.5, b=0.75) computes them.

    bm25s builds a sparse index meant for millions of documents; for a case's few dozen sentences
    building it cost more than all of the case's queries together. This computes the same numbers,
    operation for operation, so rankings, ties and the scores the features read are unchanged: each
    word's weight in a sentence in float64 from the float32 idf, rounded to float32; a query adds the
    weights of its words (repeats included) in float32, in the query's order.
    `tests/verification/test_evidence.py` checks it against bm25s itself.
    """

    k1 = 1.5
    b = 0.75

    def __init__(self, passages: Sequence[Passage], document_frequency: Counter[str]) -> None:
        self._count = count = len(passages)
        # Per word, the sentences that have it and its weight in each; made a row of weights when first queried.
        self._postings: dict[str, tuple[list[int], list[float]]] = {word: ([], []) for word in document_frequency}
        self._rows: dict[str, np.ndarray] = {}
        if not document_frequency:
            return  # no sentence has a word (a source of only punctuation): nothing to score
        # Rounded to float32 all at once: one array rather than a numpy scalar per word.
        rounded = np.array(
            [math.log(1 + (count - df + 0.5) / (df + 0.5)) for df in document_frequency.values()], dtype=np.float32
        ).tolist()
        idf = dict(zip(document_frequency, rounded, strict=True))
        average_length = sum(len(passage.stems) for passage in passages) / count
        for position, passage in enumerate(passages):
            length_norm = self.k1 * ((1 - self.b) + self.b * len(passage.stems) / average_length)
            # Counted in a plain dict (in the order a Counter keeps): a Counter costs more to make than a
            # sentence's dozen words cost to count.
            frequencies: dict[str, int] = {}
            for word in passage.stems:
                frequencies[word] = frequencies.get(word, 0) + 1
            for word, frequency in frequencies.items():
                positions, weights = self._postings[word]
                positions.append(position)
                weights.append(idf[word] * (frequency / (length_norm + frequency)))

    def scores(self, stems: Sequence[str]) -> np.ndarray:
        """Each sentence's score for a query of indexed stems, as float32."""
        total = np.zeros(self._count, dtype=np.float32)
        for word in stems:
            row = self._rows.get(word)
            if row is None:
                positions, weights = self._postings[word]
                # float32 here is where bm25s rounds each weight too.
                row = self._rows[word] = np.zeros(self._count, dtype=np.float32)
                row[positions] = weights
            # A whole row is added rather than the word's sentences picked out (a case has a few dozen
            # sentences): a sentence without the word adds 0, which leaves its float32 sum as it was.
            total += row
        return total


def retrieve(claim_text: str, sources: Sequence[Source], k: int = 3) -> list[EvidenceSpan]:
    """One-off search; build a `SourceIndex` instead when checking several claims of a case."""
    return SourceIndex(sources).search(claim_text, k)


_HEADING_MAX_WORDS = 6
"""Longest first line, in words, read as a heading ("Refund policy") rather than a sentence."""


def is_heading(text: str) -> bool:
    """Whether a line is a title or heading: short, with no sentence punctuation and no label."""
    return len(text.split()) <= _HEADING_MAX_WORDS and not text.rstrip().endswith((".", "!", "?", ":")) \
        and ":" not in text
