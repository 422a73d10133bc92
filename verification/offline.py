"""The embedded verifier: deterministic, offline, no model and no API key.

For each claim on its own: retrieve sentences from the case's sources (BM25 plus coverage), compare
the claim's typed values, names, opposites, polarity and relations with them, and weigh coverage and
the token model's view of its least supported words (`novelty.py`) with a small logistic model.
Typed disagreement decides before coverage does: "refunds within 60 days" against "within 30 days" is
REFUTED however many words the two sentences share; so is "Tier 2" where the source, in the same
words, says "Tier 1", or "rejected" where it says "approved"; so is "does not include dental cover"
where the source says it includes it and nowhere says otherwise.

SUPPORTED is earned, not defaulted to: when the model would say SUPPORTED, every value the claim
commits to (numbers with units, money, percentages, dates, durations, "lifetime", "unlimited") must
be stated by a sentence the verdict cites, or the claim is INSUFFICIENT_EVIDENCE with the value named.
A claim whose every word is accounted for by the sentences that state its values ("weighs 1.2 kg"
against the line "Weight: 1.2 kg" of the Arden 14's spec sheet) is SUPPORTED by that rule even where
the model, reading word overlap, doubts it. A verdict cites only the sentences that ground or
contradict it, each with what of the claim it covers.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.util
import json
import math
from collections.abc import Sequence
from pathlib import Path

from verification import citations
from verification.antonyms import OPPOSITES
from verification.claims import ExtractedClaim
from verification.commitments import Mention, value_words
from verification.evidence import Passage, SourceIndex
from verification.features import FEATURE_NAMES, Assessment, assess, name_stems
from verification.grounded_support import grounded_support
from verification.grounding import grounding_verdict
from verification.novelty import TOKEN_BIAS, TOKEN_WEIGHTS
from verification.types import Source, State
from verification.value_checks import ValueCheck
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
_UNGROUNDED_SCORE_CAP = 0.5 * THRESHOLD
"""Highest release score of a claim held back because a value it commits to is nowhere stated."""

_VERDICT_MODULES = (
    "offline", "features", "value_checks", "disagreements", "grounded_support", "commitments",
    "commitments.compare", "commitments.frequencies", "commitments.mention", "commitments.names",
    "commitments.relations", "commitments.spans", "commitments.values", "commitments.value_patterns",
    "evidence", "citations", "tokens", "antonyms", "substitution", "novelty", "sentences", "claims",
    "severity", "grounding", "grounding.clauses", "grounding.comparisons", "grounding.conditions",
    "grounding.conjuncts", "grounding.directions", "grounding.finding", "grounding.hedges", "grounding.negation",
    "grounding.qualifiers", "grounding.relations", "grounding.subjects",
)
"""Every module whose word lists, patterns or gate constants shape an offline verdict (a package's
modules each by name: "grounding" is only its `__init__`)."""

class OfflineVerifier:
    """Checks claims against the case's sources with retrieval, typed comparisons and coverage."""

    name = "offline/6"

    def config_fingerprint(self) -> str:
        """sha256 of everything that changes a verdict: the weights, bias and threshold of both models,
        and the source of every module whose word lists and gate constants decide typed verdicts."""
        settings = {
            "weights": WEIGHTS, "bias": BIAS, "threshold": THRESHOLD, "features": FEATURE_NAMES,
            "token_weights": TOKEN_WEIGHTS, "token_bias": TOKEN_BIAS,
            "opposites": sorted((word, sorted(others)) for word, others in OPPOSITES.items()),
            # A word list or a gate constant changes verdicts as much as a weight does; hashing the
            # modules' text catches every one of them, including lists added later.
            "rules": _rules_digest(),
        }
        return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]

    def verify(self, claims: Sequence[ExtractedClaim], sources: Sequence[Source]) -> list[Verdict]:
        """One verdict per claim, in order; each claim is judged on its own against the sources."""
        index = SourceIndex(sources)
        return [self.verify_claim(claim, index) for claim in claims]

    def verify_claim(self, claim: ExtractedClaim, index: SourceIndex) -> Verdict:
        """The verdict for one claim, given an index built once for the case."""
        if not claim.checkable:
            # Nothing in a source grounds an opinion, so no sentence is cited.
            return Verdict(
                state=State.NOT_VERIFIABLE,
                confidence=0.9,
                method="offline:not-checkable",
                rationale="Opinion or advice: there is nothing a source could confirm or contradict.",
            )
        assessment = assess(claim.text, index)
        probability = _support_probability(assessment.vector)
        extra: dict[str, object] = {
            "probability": round(probability, 4),
            "features": dict(zip(FEATURE_NAMES, (round(v, 4) for v in assessment.vector), strict=True)),
        }
        verdict = (
            _typed_verdict(assessment, extra)
            or grounding_verdict(claim.text, assessment.hits, index, probability, THRESHOLD, extra)
            or _coverage_verdict(assessment, probability, extra, index)
        )
        verdict = dataclasses.replace(verdict, evidence=citations.with_covers(verdict.evidence, assessment, index))
        return _with_release_score(verdict, probability, assessment)


def _rules_digest() -> str:
    """sha256 of the source text of every module in _VERDICT_MODULES that exists; computed once."""
    return _digest(tuple(_module_text(name) for name in _VERDICT_MODULES))


def _module_text(name: str) -> bytes:
    """The source of `verification.<name>`, or nothing when there is no such module."""
    return _read_module(name)


@functools.cache
def _read_module(name: str) -> bytes:
    spec = importlib.util.find_spec(f"verification.{name}")
    if spec is None or spec.origin is None:
        return b""
    return Path(spec.origin).read_bytes()


@functools.cache
def _digest(texts: tuple[bytes, ...]) -> str:
    digest = hashlib.sha256()
    for name, text in zip(_VERDICT_MODULES, texts, strict=True):
        digest.update(f"{name}:{len(text)}:".encode())
        digest.update(text)
    return digest.hexdigest()


def _with_release_score(verdict: Verdict, probability: float, assessment: Assessment) -> Verdict:
    """The verdict with its release score: 0 for a contradiction, the probability of support otherwise.

    A supported claim's score is also scaled by the share of the names it commits to that its evidence
    states: "held in San Diego" against sentences that never name San Diego may well be true, but
    nothing cited shows it, so it is the first a person should see.
    """
    if verdict.release_score is not None or verdict.state is State.NOT_VERIFIABLE:
        return verdict
    if verdict.state in (State.REFUTED, State.CONFLICTING):
        score = 0.0
    elif verdict.state is State.SUPPORTED and verdict.method != "offline:coverage":
        # Proven by rule (every word accounted for) where word overlap alone doubted it.
        score = max(probability, THRESHOLD)
    elif verdict.method == "offline:ungrounded-value":
        score = min(probability, _UNGROUNDED_SCORE_CAP)
    elif verdict.state is State.SUPPORTED:
        score = probability * _names_grounded(assessment)
    else:
        score = probability
    return dataclasses.replace(verdict, release_score=round(score, 4))


def _names_grounded(assessment: Assessment) -> float:
    """Share of the claim's names (capitalised words past the first, numbers) the retrieved evidence states."""
    names = name_stems(assessment.claim_text)
    if not names:
        return 1.0
    window = set().union(*(hit.passage.stem_set for hit in assessment.hits)) if assessment.hits else set()
    return sum(name in window for name in names) / len(names)


def _support_probability(vector: Sequence[float]) -> float:
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
                evidence=(
                    citations.span(agreeing[0], assessment, [check.claim_value.text]),
                    citations.span(disagreeing[0], assessment, [check.claim_value.text]),
                ),
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
            return _refuted(passage, "typed-mismatch", 0.85, rationale, assessment, extra, check.claim_value.text)
    if assessment.relation_conflict is not None:
        passage, found = assessment.relation_conflict
        rationale = f"The source has it the other way: \"{found.text}\"."
        said = next((m.text for m in assessment.mentions if m.kind == "relation"), "")
        return _refuted(passage, "relation-mismatch", 0.8, rationale, assessment, extra, said)
    if assessment.swapped is not None:
        passage, said, source_word = assessment.swapped
        rationale = f"The claim says \"{said}\" where the source, in the same words, says \"{source_word}\"."
        return _refuted(passage, "name-swap", 0.75, rationale, assessment, extra, said)
    if assessment.flipped is not None:
        passage, said, source_word = assessment.flipped
        rationale = f"The claim's \"{said}\" is the opposite of the source's \"{source_word}\"."
        return _refuted(passage, "opposite-word", 0.7, rationale, assessment, extra, said)
    if assessment.negation_mismatch is not None:
        rationale = "The matching source sentence says the opposite (one of them is negated)."
        return _refuted(assessment.negation_mismatch, "negation-mismatch", 0.75, rationale, assessment, extra, "")
    if assessment.denied is not None:
        passage, word = assessment.denied
        rationale = f"The claim denies \"{word}\"; the source states it and never says otherwise."
        return _refuted(passage, "denied", 0.65, rationale, assessment, extra, word)
    return None


def _refuted(passage: Passage, reason: str, confidence: float, rationale: str, assessment: Assessment,
             extra: dict[str, object], contradicted: str) -> Verdict:
    """REFUTED, citing the one contradicting sentence and what of the claim it contradicts."""
    return Verdict(state=State.REFUTED, evidence=(citations.span(passage, assessment, [contradicted]),),
                   confidence=confidence, method=f"offline:{reason}", rationale=rationale, extra=extra)


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


def _coverage_verdict(
    assessment: Assessment, probability: float, extra: dict[str, object], index: SourceIndex
) -> Verdict:
    """SUPPORTED when the model says so and every value is stated; else by the grounding rule; else not."""
    elapsed = [
        check for check in assessment.values
        if check.claim_value.role == "elapsed" and not any(found.role == "elapsed" for _, found in check.grounding)
    ]
    if probability >= THRESHOLD and elapsed:
        # Word overlap cannot tell which of a source's windows a time passed falls under ("within 30
        # days" / "after 30 days" share every word); only the window rule can ground it.
        grounded = grounded_support(assessment, index, extra)
        if grounded is not None:
            return grounded
        passed = value_words(assessment.claim_text, elapsed[0].claim_value)
        return _ungrounded_value(
            assessment, [passed], f"No rule the sources give for \"{passed}\" states the rest of the claim.", extra
        )
    if probability >= THRESHOLD:
        ungrounded = [check.claim_value.text for check in assessment.values if not check.grounding]
        if not ungrounded:
            return Verdict(
                state=State.SUPPORTED,
                evidence=citations.grounding_spans(assessment),
                confidence=round(probability, 3),
                method="offline:coverage",
                rationale=f"The cited sentences state what the claim says (support {probability:.0%}).",
                extra=extra,
            )
        unstated = list(dict.fromkeys(ungrounded))
        named = ", ".join(f'"{text}"' for text in unstated)
        return _ungrounded_value(
            assessment, unstated, f"Nothing the sources say states {named}; the rest of the claim is covered.", extra
        )
    grounded = grounded_support(assessment, index, extra)
    if grounded is not None:
        return grounded
    evidence = citations.closest_spans(assessment)
    missing = "no source sentence matches it" if not evidence else "the closest sentences leave parts unsaid"
    return Verdict(
        state=State.INSUFFICIENT_EVIDENCE,
        evidence=evidence,
        confidence=round(1 - probability, 3),
        method="offline:coverage",
        rationale=f"The sources do not say this: {missing} (support {probability:.0%}).",
        extra=extra,
    )


def _ungrounded_value(
    assessment: Assessment, unstated: list[str], rationale: str, extra: dict[str, object]
) -> Verdict:
    """INSUFFICIENT_EVIDENCE for a claim the words cover but whose values no cited sentence states."""
    return Verdict(
        state=State.INSUFFICIENT_EVIDENCE,
        evidence=citations.closest_spans(assessment),
        confidence=0.7,
        method="offline:ungrounded-value",
        rationale=rationale,
        extra={**extra, "ungrounded": unstated},
    )
