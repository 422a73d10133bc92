"""What the offline verifier measures about one claim against the evidence retrieved for it.

Each measure is a plain number so a small logistic model can weigh them (`rules.py`, fitted by
`benchmarks/fit_offline.py`). The measures read the claim view and the evidence gathered for it; the
checks, which decide by rule, read the same two and are kept apart (`checks/`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from verification.claims.view import ClaimView, read_claim
from verification.retrieval.evidence import Evidence, gather
from verification.retrieval.index import Hit, SourceIndex
from verification.scorers.novelty import unsupported_words

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


def measure(claim: ClaimView, evidence: Evidence) -> tuple[float, ...]:
    """How well the evidence covers the claim, in FEATURE_NAMES order."""
    unique, stems, index, hits = claim.unique_stems, claim.stems, evidence.index, evidence.hits
    if not unique:
        return (0.0,) * len(FEATURE_NAMES)
    window = evidence.window
    weights = {stem: index.idf(stem) for stem in unique}
    total_weight = sum(weights.values()) or 1.0
    coverage = sum(w for stem, w in weights.items() if stem in window) / total_weight
    best = max((len(hit.passage.stem_set & set(unique)) / len(unique) for hit in hits), default=0.0)
    missing = [stem for stem in unique if stem not in index.vocabulary]
    global_coverage = 1 - len(missing) / len(unique)
    values = evidence.values
    confirmed = sum(1 for check in values if check.agreeing)
    entities = [m for m in claim.mentions if m.kind == "entity" and m.start > 0]
    entities_missing = sum(
        1 for m in entities if not all(part in index.vocabulary for part in str(m.parts[0]).split())
    )
    short = 1.0 / (1.0 + len(index.passages) / 20)  # 1 for one sentence, 0.5 at 20, towards 0 beyond
    names = claim.name_stems
    return (
        coverage,
        best,
        global_coverage,
        math.log1p(len(missing)),
        _bigram_coverage(list(stems), hits),
        confirmed / len(values) if values else 1.0,
        entities_missing / len(entities) if entities else 0.0,
        math.log(len(unique)),
        math.log1p(sum(1 for stem in unique if stem not in window)),
        float(sum(1 for stem in names if stem not in window)),
        math.log(len(index.passages) + 1),
        (hits[0].score / len(unique)) if hits else 0.0,
        *_token_support(list(unique), hits, index),
        float(sum(1 for stem in names if stem not in index.vocabulary)),
        short,
        short * math.log1p(sum(1 for stem in unique if stem not in window)),
        short * coverage,
        *_novelty(claim, hits, index),
        float(confirmed < len(values)),
        float(any(stem not in index.vocabulary for stem in names)),
    )


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
