"""The evidence for one claim: the sentences retrieval chose, those worth comparing values with, and how
the sources speak to each value the claim commits to. Gathered once per claim; every check, the
features and the citations read it."""

from __future__ import annotations

from dataclasses import dataclass

from verification.claims.language import ENGLISH
from verification.claims.view import ClaimView
from verification.retrieval.index import Hit, Passage, SourceIndex
from verification.retrieval.values import ValueCheck, check_values


@dataclass(frozen=True, eq=False)
class Evidence:
    """What the case's sources hold for one claim."""

    index: SourceIndex
    """The case's sources, split into sentences and indexed once per case."""
    hits: list[Hit]
    """The sentences selected for the claim, best first."""
    candidates: list[Passage]
    """Every sentence the claim's values were compared with: the hits, their neighbours, other BM25 hits."""
    values: list[ValueCheck]
    """One check per typed value of the claim: the sentences that state it, and those that say otherwise."""

    @property
    def window(self) -> frozenset[str]:
        """The stems of the selected sentences."""
        return frozenset().union(*(hit.passage.stem_set for hit in self.hits))


def gather(claim: ClaimView, index: SourceIndex) -> Evidence:
    """Retrieve the evidence for a claim. Retrieval reads the claim alone, never the question: the
    question may name things the answer never commits to."""
    hits = index.select(claim.text, 3, stems=claim.stems)
    if not claim.unique_stems or claim.language != ENGLISH:
        # Other languages' values are compared by their own check (`checks/stated_values.py`).
        return Evidence(index=index, hits=hits, candidates=[], values=[])
    candidates = _candidates(claim, index, hits)
    values = check_values(claim, candidates, index)
    return Evidence(index=index, hits=hits, candidates=candidates, values=values)


def _candidates(claim: ClaimView, index: SourceIndex, hits: list[Hit]) -> list[Passage]:
    """Sentences worth comparing values with: the selected evidence, its neighbours, other BM25 hits."""
    seen: dict[int, Passage] = {}
    for hit in hits:
        seen.setdefault(hit.passage.position, hit.passage)
    for hit in index.rank(claim.text, stems=claim.stems):
        seen.setdefault(hit.passage.position, hit.passage)
    for hit in hits:
        for passage in index.neighbours(hit.passage):
            seen.setdefault(passage.position, passage)
    return list(seen.values())
