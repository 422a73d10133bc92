"""What the offline verifier measures about one claim against the evidence retrieved for it.

Each measure is a plain number so a small logistic model can weigh them (see `offline.py` and
`benchmarks/fit_offline.py`); the typed comparisons (`value_checks.py`) and the contradictions of a
closely matching sentence (`disagreements.py`) are also kept whole, because a mismatching value or a
flipped word is reported to the reviewer as the reason for a REFUTED or CONFLICTING verdict.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from verification.commitments import Mention, find_mentions
from verification.disagreements import denied, flipped, negation_mismatch, relation_conflict, swapped
from verification.evidence import Hit, Passage, SourceIndex
from verification.novelty import unsupported_words
from verification.tokens import STOP_WORDS, content_stems, stem, words
from verification.value_checks import ValueCheck, check_values

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

@dataclass
class Assessment:
    """Everything measured about one claim; `vector` is what the logistic model reads."""

    hits: list[Hit]
    """The evidence selected for the claim, best first."""
    claim_text: str = ""
    """The claim as written."""
    context: str = ""
    """The question the claim answers on its own (`ExtractedClaim.context`); only the scorer reads it."""
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


def assess(claim_text: str, index: SourceIndex, context: str = "") -> Assessment:
    """Retrieve evidence for the claim and measure how well it is covered and where it disagrees.

    Retrieval and every measure read the claim alone: the question may name things the answer never
    commits to, so only the scorer reads `context`."""
    hits = index.select(claim_text, 3)
    stems = content_stems(claim_text)
    unique = list(dict.fromkeys(stems))
    mentions = find_mentions(claim_text)
    assessment = Assessment(hits=hits, claim_text=claim_text, context=context, claim_stems=unique,
                            mentions=mentions)
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
    assessment.values = check_values(claim_text, mentions, unique, candidates, index)
    confirmed = sum(1 for check in assessment.values if check.agreeing)
    assessment.negation_mismatch = negation_mismatch(claim_text, hits, set(unique), assessment.values)
    assessment.relation_conflict = relation_conflict(mentions, candidates)
    assessment.denied = denied(claim_text, hits, unique, index)
    assessment.flipped = flipped(claim_text, hits, unique, index)
    assessment.swapped = swapped(claim_text, hits, unique, assessment.values, candidates)
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


def _bigram_coverage(stems: list[str], hits: list[Hit]) -> float:
    pairs = set(zip(stems, stems[1:], strict=False))
    if not pairs:
        return 1.0
    found = set().union(*(hit.passage.bigrams for hit in hits))
    return len(pairs & found) / len(pairs)
