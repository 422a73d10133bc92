"""What the offline verifier measures about one claim against the evidence retrieved for it.

Each measure is a plain number so a small logistic model can weigh them (`rules.py`, fitted by
`benchmarks/fit_offline.py`). The measures read the claim view and the evidence gathered for it; the
checks, which decide by rule, read the same two and are kept apart (`checks/`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from verification.claims.commitments import Mention
from verification.claims.view import ClaimView, read_claim
from verification.retrieval.evidence import Evidence, gather
from verification.retrieval.index import Hit, SourceIndex
from verification.scorers.novelty import unsupported_words


@dataclass(frozen=True, eq=False)
class Assessment:
    """A claim, its evidence and the measures the logistic model reads."""

    claim: ClaimView
    """The claim as read once."""
    evidence: Evidence
    """What retrieval found for it."""
    vector: tuple[float, ...]
    """The measures, in FEATURE_NAMES order."""

    @property
    def hits(self) -> list[Hit]:
        """The evidence selected for the claim, best first."""
        return self.evidence.hits

    @property
    def claim_text(self) -> str:
        """The claim as written."""
        return self.claim.text

    @property
    def context(self) -> str:
        """The question the claim answers on its own; only the scorer reads it."""
        return self.claim.context


def assess(claim_text: str, index: SourceIndex, context: str = "") -> Assessment:
    """Read the claim, gather its evidence and measure it: the whole per-claim path short of the checks
    (training and the benchmarks call this; the verifier builds each part once itself)."""
    claim = read_claim(claim_text, context)
    evidence = gather(claim, index)
    return Assessment(claim, evidence, measure(claim, evidence))


class _Reading:
    """What several measures share about one claim and its evidence, each computed once when first asked."""

    def __init__(self, claim: ClaimView, evidence: Evidence) -> None:
        self.claim, self.evidence, self.index, self.hits = claim, evidence, evidence.index, evidence.hits
        self.unique = claim.unique_stems

    @cached_property
    def window(self) -> frozenset[str]:
        return self.evidence.window

    @cached_property
    def coverage(self) -> float:
        weights = {stem: self.index.idf(stem) for stem in self.unique}
        total_weight = sum(weights.values()) or 1.0
        return sum(w for stem, w in weights.items() if stem in self.window) / total_weight

    @cached_property
    def missing(self) -> list[str]:
        return [stem for stem in self.unique if stem not in self.index.vocabulary]

    @cached_property
    def window_missing(self) -> float:
        return math.log1p(sum(1 for stem in self.unique if stem not in self.window))

    @cached_property
    def confirmed(self) -> int:
        return sum(1 for check in self.evidence.values if check.agreeing)

    @cached_property
    def entities(self) -> list[Mention]:
        return [m for m in self.claim.mentions if m.kind == "entity" and m.start > 0]

    @cached_property
    def short(self) -> float:
        return 1.0 / (1.0 + len(self.index.passages) / 20)  # 1 for one sentence, 0.5 at 20, towards 0 beyond

    @cached_property
    def token_gaps(self) -> tuple[float, float]:
        return _token_support(list(self.unique), self.hits, self.index)

    @cached_property
    def novelty(self) -> tuple[float, float, float]:
        return _novelty(self.claim, self.hits, self.index)


@dataclass(frozen=True)
class Feature:
    """One measure the logistic model weighs: its name (the key of its weight on the scorer's card) and how
    it is read from a claim and its evidence."""

    name: str
    read: Callable[[_Reading], float]


FEATURES: tuple[Feature, ...] = (
    Feature("coverage", lambda r: r.coverage),
    Feature("best_sentence_coverage", lambda r: max(
        (len(hit.passage.stem_set & set(r.unique)) / len(r.unique) for hit in r.hits), default=0.0)),
    Feature("global_coverage", lambda r: 1 - len(r.missing) / len(r.unique)),
    Feature("missing_words", lambda r: math.log1p(len(r.missing))),
    Feature("bigram_coverage", lambda r: _bigram_coverage(list(r.claim.stems), r.hits)),
    Feature("values_confirmed", lambda r: r.confirmed / len(r.evidence.values) if r.evidence.values else 1.0),
    Feature("entities_missing", lambda r: sum(
        1 for m in r.entities if not all(part in r.index.vocabulary for part in str(m.parts[0]).split())
    ) / len(r.entities) if r.entities else 0.0),
    Feature("claim_length", lambda r: math.log(len(r.unique))),
    Feature("window_missing", lambda r: r.window_missing),
    Feature("names_missing", lambda r: float(sum(1 for stem in r.claim.name_stems if stem not in r.window))),
    Feature("source_length", lambda r: math.log(len(r.index.passages) + 1)),
    Feature("best_score", lambda r: (r.hits[0].score / len(r.unique)) if r.hits else 0.0),
    # The unsupported part of a claim is a few words; an average over all of them hides it.
    Feature("weakest_token", lambda r: r.token_gaps[0]),
    Feature("weakest_two_tokens", lambda r: r.token_gaps[1]),
    Feature("names_absent", lambda r: float(sum(1 for stem in r.claim.name_stems if stem not in r.index.vocabulary))),
    # A short source (a summary's document) and a long web page call for different trust in coverage.
    Feature("short_source", lambda r: r.short),
    Feature("short_x_window_missing", lambda r: r.short * r.window_missing),
    Feature("short_x_coverage", lambda r: r.short * r.coverage),
    # The token model (novelty.py): the likeliest unsupported word, the two likeliest, the expected count.
    Feature("novel_max", lambda r: r.novelty[0]),
    Feature("novel_top2", lambda r: r.novelty[1]),
    Feature("novel_expected", lambda r: r.novelty[2]),
    # A number no source sentence states, and a name no source mentions, each nearly decide alone.
    Feature("value_unconfirmed", lambda r: float(r.confirmed < len(r.evidence.values))),
    Feature("name_absent", lambda r: float(any(stem not in r.index.vocabulary for stem in r.claim.name_stems))),
)
"""The measures, in the order of the vector; the logistic model's card names a weight for each."""

FEATURE_NAMES = tuple(feature.name for feature in FEATURES)
"""The measures' names, in vector order (read from FEATURES)."""


def measure(claim: ClaimView, evidence: Evidence) -> tuple[float, ...]:
    """How well the evidence covers the claim, in FEATURE_NAMES order."""
    if not claim.unique_stems:
        return (0.0,) * len(FEATURES)
    reading = _Reading(claim, evidence)
    return tuple(feature.read(reading) for feature in FEATURES)


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


def _novelty(claim: ClaimView, hits: list[Hit], index: SourceIndex) -> tuple[float, float, float]:
    """The token model's view: the likeliest unsupported word, the two likeliest, the expected count."""
    probabilities = sorted(unsupported_words(claim, hits, index), reverse=True)
    if not probabilities:
        return 0.0, 0.0, 0.0
    return probabilities[0], sum(probabilities[:2]) / 2, math.log1p(sum(probabilities))


def _bigram_coverage(stems: list[str], hits: list[Hit]) -> float:
    pairs = set(zip(stems, stems[1:], strict=False))
    if not pairs:
        return 1.0
    found = set().union(*(hit.passage.bigrams for hit in hits))
    return len(pairs & found) / len(pairs)
