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
from verification.features import FEATURE_NAMES, Assessment, ValueCheck, assess, name_stems
from verification.grounding import check as grounding_check
from verification.grounding import grounding_verdict
from verification.novelty import TOKEN_BIAS, TOKEN_WEIGHTS
from verification.tokens import content_stems, negated_stems, stem, words
from verification.types import Source, State
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
UNGROUNDED_SCORE_CAP = 0.5 * THRESHOLD
"""Highest release score of a claim held back because a value it commits to is nowhere stated."""

_VERDICT_MODULES = (
    "offline", "features", "commitments", "commitments.compare", "commitments.mention", "commitments.names",
    "commitments.relations", "commitments.values", "evidence", "citations", "tokens", "antonyms", "substitution",
    "novelty", "sentences", "claims", "severity", "grounding", "grounding.clauses", "grounding.finding",
    "grounding.negation", "grounding.qualifiers", "grounding.relations",
)
"""Every module whose word lists, patterns or gate constants shape an offline verdict (a package's
modules each by name: "grounding" is only its `__init__`)."""

# Words that complete a value rather than add to it: the period of a rate, the "ago" of a time passed.
_VALUE_COMPLETERS = frozenset(
    stem(word) for word in
    "day days week weeks month months quarter quarters year years annum daily weekly monthly quarterly "
    "yearly annually ago since earlier old".split()
)
# A price states what it is the price of: "costs $20" says no more than "$20" on the plan's line.
_MONEY_WORDS = frozenset(stem(word) for word in "cost costs price priced charge charged pay paid fee".split())
# What a time passed is counted from ("bought 40 days ago"), as a window in a source counts it ("within
# 30 days of purchase"): any of these on one side grounds any on the other.
_ELAPSED_ANCHORS = frozenset(
    stem(word) for word in
    "buy bought purchase purchased order ordered deliver delivered delivery receive received receipt "
    "sign signed join joined start started subscribe subscribed subscription renew renewed renewal".split()
)


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
            "rules": rules_digest(),
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
        probability = support_probability(assessment.vector)
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


def rules_digest() -> str:
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
        score = min(probability, UNGROUNDED_SCORE_CAP)
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
        passage, said, found = assessment.swapped
        rationale = f"The claim says \"{said}\" where the source, in the same words, says \"{found}\"."
        return _refuted(passage, "name-swap", 0.75, rationale, assessment, extra, said)
    if assessment.flipped is not None:
        passage, said, found = assessment.flipped
        rationale = f"The claim's \"{said}\" is the opposite of the source's \"{found}\"."
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
        grounded = _grounded_support(assessment, index, extra)
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
    grounded = _grounded_support(assessment, index, extra)
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


def _grounded_support(assessment: Assessment, index: SourceIndex, extra: dict[str, object]) -> Verdict | None:
    """SUPPORTED when the sentences that state the claim's values account for every other word of it.

    Word overlap doubts "The Arden 14 weighs 1.2 kg" against the line "Weight: 1.2 kg": the name is
    only in the source's title and "weighs" is not "Weight". Here each word is looked for where it can
    soundly be: in a sentence that states one of the claim's values, in that sentence's label
    ("Weight"), in its source's title or heading (the subject), or, for a time passed ("bought 40
    days ago"), in the window that applies to it and the sentence beside it ("within 30 days of
    purchase" / "After 30 days, annual plans are not refundable"). Polarity must match too.
    """
    checks = assessment.values
    if not checks or any(not check.grounding for check in checks):
        return None
    text, claim_stems = assessment.claim_text, set(assessment.claim_stems)
    elapsed = any(check.claim_value.role == "elapsed" for check in checks)
    chosen = {check.claim_value.start: _closest_pair(check, claim_stems) for check in checks}
    subject = set().union(*(index.subject_stems(passage.source_id) for passage, _ in chosen.values()))
    grounding: dict[int, Passage] = {}
    named: dict[int, list[str]] = {}  # position -> claim words a sentence grounds beyond its shared stems
    labels: dict[str, int] = {}  # label stem -> position of its line
    for check in checks:
        passage, found = chosen[check.claim_value.start]
        if check.claim_value.kind == "number" and found.kind == "number" and found.unit != check.claim_value.unit \
                and set(content_stems(check.claim_value.text)) & subject:
            continue  # the "14" of "Arden 14" is named by the title, not by a "14-inch" display
        grounding.setdefault(passage.position, passage)
        if found.label:
            labels.update({stem(word): passage.position for word, _, _ in words(found.label)})
    allowed = set(subject)
    for passage in grounding.values():
        allowed |= passage.stem_set
    beside = [other for passage in grounding.values() for other in index.neighbours(passage)] if elapsed else []
    # The value's own words are grounded with it: its number, and a unit the source's value shares
    # ("1.2 kg"); a word the parser took for a unit ("14 weighs") must be grounded like any other.
    excluded = _completing_negation(text)
    for check in checks:
        value = check.claim_value
        stated = set().union(*(content_stems(found.text) for _, found in check.grounding))
        excluded |= {word for word in content_stems(value.text) if word[:1].isdigit() or word in stated}
        excluded |= set(content_stems(value_words(text, value))) & _VALUE_COMPLETERS
        if value.kind == "money":
            excluded |= _MONEY_WORDS
    for word in claim_stems - excluded - allowed:
        label = next((label for label in labels if _same_word(word, label)), None)
        if label is not None:
            named.setdefault(labels[label], []).append(_surface(text, word))
            continue
        # A time passed and the window it falls in count from the same event ("bought" / "of purchase"),
        # often named in the sentence before the window's rule.
        helper = next((other for other in beside if word in other.stem_set or (
            word in _ELAPSED_ANCHORS and other.stem_set & _ELAPSED_ANCHORS)), None)
        if helper is None:
            return None
        grounding.setdefault(helper.position, helper)
        named.setdefault(helper.position, []).append(_surface(text, word))
    grounding_passages = sorted(grounding.values(), key=lambda passage: passage.position)
    claim_negated = negated_stems(text)
    source_negated = frozenset().union(*(passage.negated_stems for passage, _ in chosen.values()))
    if claim_negated - source_negated or (source_negated - claim_negated) & claim_stems:
        return None
    # Quantifiers, qualifiers and relations are function words to the check above ("only", "all"):
    # the grounding checks must find each of them stated too.
    if grounding_check(text, assessment.hits, index, unsaid=True) is not None:
        return None
    if elapsed:
        method = "offline:window"
        passed = next(check for check in checks if check.claim_value.role == "elapsed")
        limit = chosen[passed.claim_value.start][1]
        rationale = (
            f"\"{value_words(text, passed.claim_value)}\" falls under the source's \"{limit.text}\" rule, "
            "and the cited sentences state what applies then."
        )
    elif labels:
        method = "offline:label-value"
        rationale = "The source's labelled lines state the claim's values, of the subject its title names."
    else:
        method = "offline:grounded"
        rationale = "Every word and value of the claim is stated by the cited sentences or their source's title."
    return Verdict(
        state=State.SUPPORTED,
        evidence=tuple(
            citations.span(passage, assessment, named.get(passage.position, ())) for passage in grounding_passages
        ),
        confidence=0.8,
        method=method,
        rationale=rationale,
        extra=extra,
    )


def _closest_pair(check: ValueCheck, claim_stems: set[str]) -> tuple[Passage, Mention]:
    """Of the sentences stating a value, the one sharing the most of the claim's words."""
    return max(check.grounding, key=lambda pair: len(pair[0].stem_set & claim_stems))


def _surface(text: str, word_stem: str) -> str:
    """The claim's word with this stem, as the claim writes it."""
    return next((text[start:end] for word, start, end in words(text) if stem(word) == word_stem), word_stem)


def _same_word(a: str, b: str) -> bool:
    """"weigh" and "weight": one stem starts the other and the shorter has four letters or more."""
    shorter, longer = sorted((a, b), key=len)
    return len(shorter) >= 4 and longer.startswith(shorter)


def _completing_negation(text: str) -> set[str]:
    """The word that completes a negation ("longer" in "no longer"): part of the negation, not content."""
    tokens = [token for token, _, _ in words(text)]
    return {
        stem(token) for i, token in enumerate(tokens)
        if i and (tokens[i - 1], token) in (("no", "longer"), ("not", "longer"), ("never", "again"))
    }
