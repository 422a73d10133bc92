"""Finding the sentences of a case's sources that bear on one claim, with exact offsets.

The sources are split into sentences once per case and ranked with BM25 (`bm25s`) for every claim.
BM25 alone favours one sentence that repeats a rare word; a claim often needs two or three
sentences between them, so the best-ranked candidates are re-ordered greedily by how much of the
claim each new sentence covers, with BM25 and nearness to the sentences already chosen as lesser
credits. Every span returned is an exact slice of its source's text.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import bm25s
import numpy as np

from verification.commitments import Mention, find_mentions
from verification.sentences import split_sentences
from verification.tokens import content_stems, has_negation, negated_stems
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
    _mentions: list[Mention] | None = None

    @property
    def mentions(self) -> list[Mention]:
        """Typed values in the sentence, computed on first use (most sentences never need them)."""
        if self._mentions is None:
            self._mentions = find_mentions(self.text)
        return self._mentions

    @property
    def negated(self) -> bool:
        """Whether the sentence contains a negating word."""
        return has_negation(self.text)

    @property
    def negated_stems(self) -> frozenset[str]:
        """The words a negation in the sentence applies to."""
        return negated_stems(self.text)

    def span(self) -> EvidenceSpan:
        """The passage as an evidence span."""
        return EvidenceSpan(source_id=self.source_id, start=self.start, end=self.end, quote=self.text)


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
        self.passages: list[Passage] = []
        for source in sources:
            for start, end in split_sentences(source.text):
                stems = content_stems(source.text[start:end])
                self.passages.append(Passage(source.id, len(self.passages), start, end,
                                             source.text[start:end], stems, frozenset(stems)))
        self.document_frequency: Counter[str] = Counter()
        for passage in self.passages:
            self.document_frequency.update(passage.stem_set)
        self.vocabulary = frozenset(self.document_frequency)
        self.prefixes = frozenset(word[:5] for word in self.vocabulary if len(word) >= 5)
        """First five letters of every longer stem: "reduc" for a source that says "reduction"."""
        self._retriever = bm25s.BM25()
        # bm25s cannot index a corpus without a single token (a source of only punctuation).
        if self.vocabulary:
            self._retriever.index([passage.stems for passage in self.passages], show_progress=False)

    def idf(self, stem: str) -> float:
        """Inverse document frequency of a stem over the passages; high for stems no passage has."""
        return math.log((len(self.passages) + 1) / (self.document_frequency.get(stem, 0) + 0.5))

    def rank(self, query: str, k: int = _CANDIDATES) -> list[Hit]:
        """The k passages BM25 ranks highest for `query`, best first; passages scoring zero are left out."""
        stems = [stem for stem in content_stems(query) if stem in self.vocabulary]
        if not stems:
            return []
        scores = self._retriever.get_scores(stems)
        count = min(k, len(scores))
        top = np.argpartition(-scores, count - 1)[:count]
        # Ties are broken by position so the order never depends on numpy's partition internals.
        ordered = sorted(top.tolist(), key=lambda i: (-float(scores[i]), i))
        return [Hit(self.passages[i], float(scores[i])) for i in ordered if scores[i] > 0]

    def select(self, query: str, k: int = 3) -> list[Hit]:
        """Up to k passages that between them cover the most of the query, best first.

        Each next passage is the one adding the most of the query's words not yet covered (weighted
        by rarity), with its BM25 score and nearness to a passage already chosen as lesser credits.
        """
        hits = self.rank(query)
        needed = {stem: self.idf(stem) for stem in content_stems(query)}
        chosen: list[Hit] = []
        covered: set[str] = set()
        nearby: set[int] = set()

        def merit(hit: Hit) -> tuple[float, int]:
            stems = hit.passage.stem_set
            gain = sum(weight for stem, weight in needed.items() if stem in stems and stem not in covered)
            credit = _RANK_WEIGHT * hit.score / top_score + _NEARBY_BONUS * (hit.passage.position in nearby)
            return gain + credit, -hit.passage.position

        while hits and len(chosen) < k:
            top_score = hits[0].score or 1.0
            best = max(hits, key=merit)
            chosen.append(best)
            covered |= best.passage.stem_set
            nearby |= self._around(best.passage, 2)
            hits = [hit for hit in hits if hit is not best]
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

    def neighbours(self, passage: Passage) -> list[Passage]:
        """The sentences just before and after `passage` in the same source."""
        around = []
        for position in (passage.position - 1, passage.position + 1):
            if 0 <= position < len(self.passages) and self.passages[position].source_id == passage.source_id:
                around.append(self.passages[position])
        return around


def retrieve(claim_text: str, sources: Sequence[Source], k: int = 3) -> list[EvidenceSpan]:
    """One-off search; build a `SourceIndex` instead when checking several claims of a case."""
    return SourceIndex(sources).search(claim_text, k)
