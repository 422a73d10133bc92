"""The embedded verifier: deterministic, offline, no API key. A pipeline, for each claim on its own:

1. the claim parsed once (`features.assess`): its content words, the values, names, relations and
   negations it commits to;
2. retrieval: the source sentences that between them cover it best (`evidence.SourceIndex.select`);
3. the registered checks (`CHECKS`, each with a name and a version): typed disagreement ("refunds within
   60 days" against "within 30 days", "Tier 2" where the source in the same words says "Tier 1", a
   swapped relation, a flipped word, a negation) and the grounding rules of `grounding/`;
4. a scorer (`scorer/`): by default the MiniLM cross-encoder reading the claim against its window,
   stacked with the rules' logistic model; rules-only on request;
5. one decider (`OfflineVerifier._decide`): a typed contradiction is REFUTED whatever the scorer says;
   otherwise a commitment the grounding rules find contradicted or unsaid decides; otherwise the score.

SUPPORTED is earned, not defaulted to: when the scorer would say SUPPORTED, every value the claim
commits to (numbers with units, money, percentages, dates, durations, "lifetime", "unlimited") must
be stated by a sentence the verdict cites, or the claim is INSUFFICIENT_EVIDENCE with the value named.
A claim whose every word is accounted for by the sentences that state its values ("weighs 1.2 kg"
against the line "Weight: 1.2 kg" of the Arden 14's spec sheet) is SUPPORTED by that rule even where
the scorer doubts it. A verdict cites only the sentences that ground or contradict it, each with what
of the claim it covers.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence

from verification import citations
from verification.antonyms import OPPOSITES
from verification.claims import ExtractedClaim
from verification.commitments import Mention, value_words
from verification.evidence import Passage, SourceIndex
from verification.features import FEATURE_NAMES, Assessment, assess, name_stems
from verification.grounded_support import grounded_support
from verification.grounding import grounding_verdict
from verification.methods import Method
from verification.scorer import Scorer, make_scorer
from verification.types import Source, State
from verification.value_checks import ValueCheck
from verification.verifier import Verdict

CHECKS: tuple[tuple[str, int], ...] = (
    ("claims", 1),
    ("retrieval", 1),
    ("features", 1),
    ("source-conflict", 1),
    ("typed-mismatch", 1),
    ("relation-mismatch", 1),
    ("name-swap", 1),
    ("opposite-word", 1),
    ("negation-mismatch", 1),
    ("denied", 1),
    ("grounding", 1),
    ("grounded-support", 1),
    ("ungrounded-value", 1),
)
"""The stages before the scorer, in the order they run, each with its version. Whoever changes what a
stage decides (a word list, a pattern, a gate constant) bumps its version here: the fingerprint, and so
every cached verdict and calibration keyed by it, changes with it. `benchmarks/engine_golden.py` shows
which verdicts a change moves."""
SWITCHABLE = tuple(name for name, _ in CHECKS[3:])
"""The checks `OfflineVerifier(off=...)` can leave out, to measure what each is worth."""


class OfflineVerifier:
    """Checks claims against the case's sources: retrieval, typed checks with their veto, a scorer, one decider."""

    name = "offline/7"

    def __init__(self, scorer: Scorer | None = None, *, off: frozenset[str] = frozenset()) -> None:
        unknown = off - set(SWITCHABLE)
        if unknown:
            raise ValueError(f"off: no such check: {', '.join(sorted(unknown))}")
        self.scorer = scorer if scorer is not None else make_scorer()
        self.off = off
        """Checks switched off (only to measure what each is worth; never in production)."""

    def config_fingerprint(self) -> str:
        """sha256 of the stages' names and versions, the opposites list and the scorer's own fingerprint
        (its weights, thresholds and the hash of any model file)."""
        settings = {
            "stages": [stage for stage in CHECKS if stage[0] not in self.off],
            "opposites": sorted((word, sorted(others)) for word, others in OPPOSITES.items()),
            "scorer": self.scorer.fingerprint(),
        }
        return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]

    def verify(self, claims: Sequence[ExtractedClaim], sources: Sequence[Source]) -> list[Verdict]:
        """One verdict per claim, in order; each claim is judged on its own against the sources."""
        return self.verify_claims(claims, SourceIndex(sources))

    def verify_claim(self, claim: ExtractedClaim, index: SourceIndex) -> Verdict:
        """The verdict for one claim, given an index built once for the case."""
        return self.verify_claims([claim], index)[0]

    def verify_claims(self, claims: Sequence[ExtractedClaim], index: SourceIndex) -> list[Verdict]:
        """The verdicts for a case's claims: each assessed on its own, then scored in one batch."""
        checkable = [claim for claim in claims if claim.checkable]
        assessments = [assess(claim.text, index, claim.context) for claim in checkable]
        probabilities = iter(self.scorer.probabilities(assessments) if assessments else [])
        found = iter(assessments)
        return [
            self._decide(next(found), next(probabilities), index) if claim.checkable else _NOT_CHECKABLE
            for claim in claims
        ]

    def _decide(self, assessment: Assessment, probability: float, index: SourceIndex) -> Verdict:
        """The typed checks first (they keep their veto), then the grounding rules, then the score."""
        threshold = self.scorer.threshold
        extra: dict[str, object] = {
            "probability": round(probability, 4),
            "scorer": self.scorer.name,
            "features": dict(zip(FEATURE_NAMES, (round(v, 4) for v in assessment.vector), strict=True)),
        }
        off = self.off
        verdict = (
            _typed_verdict(assessment, extra, off)
            or (None if "grounding" in off else
                grounding_verdict(assessment.claim_text, assessment.hits, index, probability, threshold, extra))
            or _coverage_verdict(assessment, probability, threshold, extra, index, off)
        )
        verdict = dataclasses.replace(verdict, evidence=citations.with_covers(verdict.evidence, assessment, index))
        return _with_release_score(verdict, probability, threshold, assessment)


_NOT_CHECKABLE = Verdict(
    state=State.NOT_VERIFIABLE,
    confidence=0.9,
    # Nothing in a source grounds an opinion, so no sentence is cited.
    method=Method.NOT_CHECKABLE,
    rationale="Opinion or advice: there is nothing a source could confirm or contradict.",
)


def _with_release_score(verdict: Verdict, probability: float, threshold: float, assessment: Assessment) -> Verdict:
    """The verdict with its release score: 0 for a contradiction, the probability of support otherwise.

    A supported claim's score is also scaled by the share of the names it commits to that its evidence
    states: "held in San Diego" against sentences that never name San Diego may well be true, but
    nothing cited shows it, so it is the first a person should see.
    """
    if verdict.release_score is not None or verdict.state is State.NOT_VERIFIABLE:
        return verdict
    if verdict.state in (State.REFUTED, State.CONFLICTING):
        score = 0.0
    elif verdict.state is State.SUPPORTED and verdict.method != Method.SCORED:
        # Proven by rule (every word accounted for) where the scorer alone doubted it.
        score = max(probability, threshold)
    elif verdict.method == Method.UNGROUNDED_VALUE:
        # Held back because a value it commits to is nowhere stated: well below any release threshold.
        score = min(probability, 0.5 * threshold)
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


def _typed_verdict(
    assessment: Assessment, extra: dict[str, object], off: frozenset[str] = frozenset()
) -> Verdict | None:
    """CONFLICTING or REFUTED when what the claim commits to disagrees with the sources (checks named in
    `off` are skipped: the ablation that measures what each one is worth)."""
    for check in assessment.values if "source-conflict" not in off else ():
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
                method=Method.SOURCE_CONFLICT,
                rationale=(
                    f"Sources disagree about \"{check.claim_value.text}\": {agreeing[0].source_id} says "
                    f"\"{agreeing[1].text}\", {disagreeing[0].source_id} says \"{disagreeing[1].text}\"."
                ),
                extra=extra,
            )
    for check in assessment.values if "typed-mismatch" not in off else ():
        if check.disagreeing and not check.agreeing:
            passage, found = check.disagreeing[0]
            rationale = f"The claim says \"{check.claim_value.text}\"; the source says \"{found.text}\"."
            return _refuted(passage, "typed-mismatch", 0.85, rationale, assessment, extra, check.claim_value.text)
    if assessment.relation_conflict is not None and "relation-mismatch" not in off:
        passage, found = assessment.relation_conflict
        rationale = f"The source has it the other way: \"{found.text}\"."
        said = next((m.text for m in assessment.mentions if m.kind == "relation"), "")
        return _refuted(passage, "relation-mismatch", 0.8, rationale, assessment, extra, said)
    if assessment.swapped is not None and "name-swap" not in off:
        passage, said, source_word = assessment.swapped
        rationale = f"The claim says \"{said}\" where the source, in the same words, says \"{source_word}\"."
        return _refuted(passage, "name-swap", 0.75, rationale, assessment, extra, said)
    if assessment.flipped is not None and "opposite-word" not in off:
        passage, said, source_word = assessment.flipped
        rationale = f"The claim's \"{said}\" is the opposite of the source's \"{source_word}\"."
        return _refuted(passage, "opposite-word", 0.7, rationale, assessment, extra, said)
    if assessment.negation_mismatch is not None and "negation-mismatch" not in off:
        rationale = "The matching source sentence says the opposite (one of them is negated)."
        return _refuted(assessment.negation_mismatch, "negation-mismatch", 0.75, rationale, assessment, extra, "")
    if assessment.denied is not None and "denied" not in off:
        passage, word = assessment.denied
        rationale = f"The claim denies \"{word}\"; the source states it and never says otherwise."
        return _refuted(passage, "denied", 0.65, rationale, assessment, extra, word)
    return None


def _refuted(passage: Passage, reason: str, confidence: float, rationale: str, assessment: Assessment,
             extra: dict[str, object], contradicted: str) -> Verdict:
    """REFUTED, citing the one contradicting sentence and what of the claim it contradicts."""
    return Verdict(state=State.REFUTED, evidence=(citations.span(passage, assessment, [contradicted]),),
                   confidence=confidence, method=Method(f"offline:{reason}"), rationale=rationale, extra=extra)


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
    assessment: Assessment, probability: float, threshold: float, extra: dict[str, object], index: SourceIndex,
    off: frozenset[str] = frozenset(),
) -> Verdict:
    """SUPPORTED when the model says so and every value is stated; else by the grounding rule; else not."""
    elapsed = [
        check for check in assessment.values
        if check.claim_value.role == "elapsed" and not any(found.role == "elapsed" for _, found in check.grounding)
    ]
    if probability >= threshold and elapsed and "ungrounded-value" not in off:
        # Word overlap cannot tell which of a source's windows a time passed falls under ("within 30
        # days" / "after 30 days" share every word); only the window rule can ground it.
        grounded = None if "grounded-support" in off else grounded_support(assessment, index, extra)
        if grounded is not None:
            return grounded
        passed = value_words(assessment.claim_text, elapsed[0].claim_value)
        return _ungrounded_value(
            assessment, [passed], f"No rule the sources give for \"{passed}\" states the rest of the claim.", extra
        )
    if probability >= threshold and assessment.hits:
        # (No sentence retrieved at all: nothing could ground it, whatever the score.)
        ungrounded = [check.claim_value.text for check in assessment.values if not check.grounding]
        if not ungrounded or "ungrounded-value" in off:
            # The scorer read the whole window: where no sentence of it carries the claim's words (a
            # paraphrase), the window it read is what grounded the verdict, and it is what is cited.
            cited = citations.grounding_spans(assessment) or tuple(hit.passage.span() for hit in assessment.hits)
            return Verdict(
                state=State.SUPPORTED,
                evidence=cited,
                confidence=round(probability, 3),
                method=Method.SCORED,
                rationale=f"The cited sentences state what the claim says (support {probability:.0%}).",
                extra=extra,
            )
        unstated = list(dict.fromkeys(ungrounded))
        named = ", ".join(f'"{text}"' for text in unstated)
        return _ungrounded_value(
            assessment, unstated, f"Nothing the sources say states {named}; the rest of the claim is covered.", extra
        )
    grounded = None if "grounded-support" in off else grounded_support(assessment, index, extra)
    if grounded is not None:
        return grounded
    evidence = citations.closest_spans(assessment)
    missing = "no source sentence matches it" if not evidence else "the closest sentences leave parts unsaid"
    return Verdict(
        state=State.INSUFFICIENT_EVIDENCE,
        evidence=evidence,
        confidence=round(1 - probability, 3),
        method=Method.SCORED,
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
        method=Method.UNGROUNDED_VALUE,
        rationale=rationale,
        extra={**extra, "ungrounded": unstated},
    )
