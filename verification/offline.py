"""The embedded verifier: deterministic, offline, no model and no API key.

For each claim on its own: retrieve sentences from the case's sources (BM25 plus coverage), compare
the claim's typed values, names, opposites, polarity and relations with them, and weigh coverage and
the token model's view of its least supported words (`novelty.py`) with a small logistic model.
Typed disagreement decides before coverage does: "refunds within 60 days" against "within 30 days" is
REFUTED however many words the two sentences share; so is "Tier 2" where the source, in the same
words, says "Tier 1", or "rejected" where it says "approved"; so is "does not include dental cover"
where the source says it includes it and nowhere says otherwise.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence

from verification.antonyms import OPPOSITES
from verification.claims import ExtractedClaim
from verification.commitments import Mention
from verification.evidence import Passage, SourceIndex
from verification.features import FEATURE_NAMES, Assessment, ValueCheck, assess
from verification.novelty import TOKEN_BIAS, TOKEN_WEIGHTS
from verification.types import EvidenceSpan, Source, State
from verification.verifier import Verdict

# Fitted by benchmarks/fit_offline.py on the tune splits only (WiCE claim_dev, SummEdits
# `evaluation`, HaluEval); rerun it and paste its output here after changing a feature.
WEIGHTS: dict[str, float] = {
    "coverage": 0.4016,
    "best_sentence_coverage": 0.0844,
    "global_coverage": 0.3429,
    "missing_words": 0.0075,
    "bigram_coverage": 0.0989,
    "values_confirmed": 0.3780,
    "entities_missing": -0.4493,
    "claim_length": -0.0363,
    "window_missing": -0.0476,
    "names_missing": -0.1883,
    "source_length": 0.0407,
    "best_score": 0.5232,
    "weakest_token": -0.1073,
    "weakest_two_tokens": -0.0421,
    "names_absent": -0.1972,
    "short_source": -0.2583,
    "short_x_window_missing": -0.1119,
    "short_x_coverage": -0.0069,
    "novel_max": -0.4883,
    "novel_top2": -0.1554,
    "novel_expected": 0.0146,
    "value_unconfirmed": -0.2982,
    "name_absent": -0.6013,
}
BIAS = 0.0139
THRESHOLD = 0.45
"""Probability of support at or above which a claim is SUPPORTED."""


class OfflineVerifier:
    """Checks claims against the case's sources with retrieval, typed comparisons and coverage."""

    name = "offline/5"

    def config_fingerprint(self) -> str:
        """sha256 of everything that changes a verdict: the weights, bias and threshold of both models."""
        settings = {
            "weights": WEIGHTS, "bias": BIAS, "threshold": THRESHOLD, "features": FEATURE_NAMES,
            "token_weights": TOKEN_WEIGHTS, "token_bias": TOKEN_BIAS,
            # The typed rules' word lists change verdicts as much as the weights do.
            "opposites": sorted((word, sorted(others)) for word, others in OPPOSITES.items()),
        }
        return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]

    def verify(self, claims: Sequence[ExtractedClaim], sources: Sequence[Source]) -> list[Verdict]:
        """One verdict per claim, in order; each claim is judged on its own against the sources."""
        index = SourceIndex(sources)
        return [self.verify_claim(claim, index) for claim in claims]

    def verify_claim(self, claim: ExtractedClaim, index: SourceIndex) -> Verdict:
        """The verdict for one claim, given an index built once for the case."""
        if not claim.checkable:
            hits = index.select(claim.text, 3)
            return Verdict(
                state=State.NOT_VERIFIABLE,
                evidence=tuple(hit.passage.span() for hit in hits),
                confidence=0.9,
                method="offline:not-checkable",
                rationale="Opinion or advice: there is nothing a source could confirm or contradict.",
            )
        assessment = assess(claim.text, index)
        probability = support_probability(assessment.vector)
        extra: dict[str, object] = {
            "probability": round(probability, 4),
            "features": dict(zip(FEATURE_NAMES, (round(v, 4) for v in assessment.vector), strict=True)),
        }
        return (
            _typed_verdict(assessment, extra)
            or _coverage_verdict(assessment, probability, extra)
        )


def support_probability(vector: Sequence[float]) -> float:
    """The logistic model's probability that the evidence supports the claim."""
    z = BIAS + sum(WEIGHTS[name] * value for name, value in zip(FEATURE_NAMES, vector, strict=True))
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))


def _typed_verdict(assessment: Assessment, extra: dict[str, object]) -> Verdict | None:
    """CONFLICTING or REFUTED when what the claim commits to disagrees with the sources."""
    for check in assessment.values:
        conflict = _source_conflict(check)
        if conflict is not None:
            agreeing, disagreeing = conflict
            return Verdict(
                state=State.CONFLICTING,
                evidence=_spans([agreeing[0], disagreeing[0]], assessment),
                confidence=0.8,
                method="offline:source-conflict",
                rationale=(
                    f"Sources disagree about \"{check.claim_value.text}\": {agreeing[0].source_id} says "
                    f"\"{agreeing[1].text}\", {disagreeing[0].source_id} says \"{disagreeing[1].text}\"."
                ),
                extra=extra,
            )
    for check in assessment.values:
        if check.disagreeing and not check.agreeing:
            passage, found = check.disagreeing[0]
            rationale = f"The claim says \"{check.claim_value.text}\"; the source says \"{found.text}\"."
            return _refuted(passage, "typed-mismatch", 0.85, rationale, assessment, extra)
    if assessment.relation_conflict is not None:
        passage, found = assessment.relation_conflict
        rationale = f"The source has it the other way: \"{found.text}\"."
        return _refuted(passage, "relation-mismatch", 0.8, rationale, assessment, extra)
    if assessment.swapped is not None:
        passage, said, found = assessment.swapped
        rationale = f"The claim says \"{said}\" where the source, in the same words, says \"{found}\"."
        return _refuted(passage, "name-swap", 0.75, rationale, assessment, extra)
    if assessment.flipped is not None:
        passage, said, found = assessment.flipped
        rationale = f"The claim's \"{said}\" is the opposite of the source's \"{found}\"."
        return _refuted(passage, "opposite-word", 0.7, rationale, assessment, extra)
    if assessment.negation_mismatch is not None:
        rationale = "The matching source sentence says the opposite (one of them is negated)."
        return _refuted(assessment.negation_mismatch, "negation-mismatch", 0.75, rationale, assessment, extra)
    if assessment.denied is not None:
        passage, word = assessment.denied
        rationale = f"The claim denies \"{word}\"; the source states it and never says otherwise."
        return _refuted(passage, "denied", 0.65, rationale, assessment, extra)
    return None


def _refuted(passage: Passage, reason: str, confidence: float, rationale: str, assessment: Assessment,
             extra: dict[str, object]) -> Verdict:
    return Verdict(state=State.REFUTED, evidence=_spans([passage], assessment), confidence=confidence,
                   method=f"offline:{reason}", rationale=rationale, extra=extra)


def _source_conflict(check: ValueCheck) -> tuple[tuple[Passage, Mention], tuple[Passage, Mention]] | None:
    """A source stating the claim's value and another source stating a different one."""
    if not check.agreeing:
        return None
    agreeing_sources = {passage.source_id for passage, _ in check.agreeing}
    for disagreeing in check.disagreeing:
        if disagreeing[0].source_id in agreeing_sources:
            continue
        return check.agreeing[0], disagreeing
    return None


def _coverage_verdict(assessment: Assessment, probability: float, extra: dict[str, object]) -> Verdict:
    evidence = tuple(hit.passage.span() for hit in assessment.hits)
    if probability >= THRESHOLD:
        return Verdict(
            state=State.SUPPORTED,
            evidence=evidence,
            confidence=round(probability, 3),
            method="offline:coverage",
            rationale=f"The cited sentences state what the claim says (support {probability:.0%}).",
            extra=extra,
        )
    missing = "no source sentence matches it" if not evidence else "the closest sentences leave parts unsaid"
    return Verdict(
        state=State.INSUFFICIENT_EVIDENCE,
        evidence=evidence,
        confidence=round(1 - probability, 3),
        method="offline:coverage",
        rationale=f"The sources do not say this: {missing} (support {probability:.0%}).",
        extra=extra,
    )


def _spans(first: list[Passage], assessment: Assessment) -> tuple[EvidenceSpan, ...]:
    """The deciding sentences first, then the rest of the retrieved evidence, without repeats."""
    ordered = list(first) + [hit.passage for hit in assessment.hits]
    seen: set[int] = set()
    spans = []
    for passage in ordered:
        if passage.position not in seen:
            seen.add(passage.position)
            spans.append(passage.span())
    return tuple(spans)
