"""The embedded verifier: deterministic, offline, no API key. A pipeline, for each claim on its own:

1. the claim read once into its view (`claims/view.py`): its words, stems, values, names, relations
   and negations;
2. retrieval: the source sentences that between them cover it best, and how the sources state each
   of its values (`retrieval/evidence.py`);
3. the registered checks (`checks/registry.py`, each with a name, a version and a role): typed
   disagreement ("refunds within 60 days" against "within 30 days", "Tier 2" where the source in the
   same words says "Tier 1", a swapped relation, a flipped word, a negation), the grounding rules of
   `checks/grounding/`, support proven by rule and values left unstated;
4. a scorer (`scorers/`): by default the MiniLM cross-encoder reading the claim against its window,
   stacked with the rules' logistic model; rules-only on request;
5. one decider (`OfflineVerifier._rule`, then `_decide`): a contradiction is REFUTED or CONFLICTING
   whatever the scorer says; otherwise a commitment the grounding rules find contradicted or unsaid
   decides; otherwise a proof (`checks/proof/`: the claim aligned to one or two adjacent sentences, every
   word, value, negation and qualifier accounted for) is SUPPORTED at the top of the scale; otherwise
   the score, held back where a value is unstated and proven where the scorer doubts.

SUPPORTED is earned, not defaulted to: when the scorer would say SUPPORTED, every value the claim
commits to (numbers with units, money, percentages, dates, durations, "lifetime", "unlimited") must
be stated by a sentence the verdict cites, or the claim is INSUFFICIENT_EVIDENCE with the value named.
A claim whose every word is accounted for by the sentences that state its values ("weighs 1.2 kg"
against the line "Weight: 1.2 kg" of the Arden 14's spec sheet) is SUPPORTED by that rule even where
the scorer doubts it. A verdict cites only the sentences that ground or contradict it, each with what
of the claim it covers.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from verification.checks import registry
from verification.checks.check import Check, CheckFinding, Role, first_finding
from verification.checks.polar_answer import PolarAnswer
from verification.checks.proof import Proof
from verification.checks.verbatim import Verbatim
from verification.claims.antonyms import OPPOSITES
from verification.claims.extraction import ExtractedClaim
from verification.claims.language import name as language_name
from verification.claims.language import reads, scored
from verification.claims.view import ClaimView, read_claim
from verification.decision.methods import Method
from verification.decision.strata import UNSCORED
from verification.decision.verifier import Verdict
from verification.retrieval import citations
from verification.retrieval.evidence import Evidence, gather
from verification.retrieval.index import SourceIndex
from verification.scorers import Scorer, make_scorer
from verification.scorers.features import FEATURE_NAMES, Assessment, measure
from verification.types import Source, State

STAGES: tuple[tuple[str, int], ...] = (("claims", 25), ("retrieval", 12), ("features", 1))
"""The stages before the checks, each with its version: bumped by whoever changes what the claim view,
retrieval or the measures produce."""


def switchable(checks: Sequence[Check] | None = None) -> tuple[str, ...]:
    """The checks `OfflineVerifier(off=...)` can leave out (the registry's, unless others are given)."""
    return tuple(check.name for check in (registry.CHECKS if checks is None else checks))


SWITCHABLE = switchable()
"""The registered checks' names, as the module was loaded (`switchable()` reads the registry now)."""


class OfflineVerifier:
    """Checks claims against the case's sources: retrieval, checks with their veto, a scorer, one decider."""

    name = "offline/7"

    def __init__(self, scorer: Scorer | None = None, *, off: frozenset[str] = frozenset(),
                 checks: Sequence[Check] | None = None) -> None:
        checks = registry.CHECKS if checks is None else checks
        unknown = off - set(switchable(checks))
        if unknown:
            raise ValueError(f"off: no such check: {', '.join(sorted(unknown))}")
        self.scorer = scorer if scorer is not None else make_scorer()
        self.off = off
        """Checks switched off (only to measure what each is worth; never in production)."""
        self.checks = tuple(check for check in checks if check.name not in off)
        """The checks that run, in registry order."""

    def config_fingerprint(self) -> str:
        """sha256 of the stages' and checks' names and versions, the opposites list and the scorer's own
        fingerprint (its weights, thresholds and the hash of any model file)."""
        settings = {
            "stages": [*STAGES, *((check.name, check.version) for check in self.checks)],
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
        """The verdicts for a case's claims: each read and checked on its own; those no rule settles are
        measured and scored, in one batch. Claims in a language the scorer was not trained for are decided
        by the rules alone (`_by_rules`)."""
        views = [read_claim(claim.statement, claim.context, claim.language) for claim in claims
                 if claim.checkable and scored(claim.language)]
        ruled = [self._rule(view, gather(view, index)) for view in views]
        # A claim a rule settles (a contradiction, a refuted commitment, a proof) needs no probability: the
        # scorer, the model above all, reads only the others.
        assessments = [Assessment(r.claim, r.evidence, measure(r.claim, r.evidence))
                       for r in ruled if r.verdict is None]
        probabilities = iter(self.scorer.probabilities(assessments) if assessments else [])
        found, rulings = iter(assessments), iter(ruled)
        verdicts = [
            _NOT_CHECKABLE if not claim.checkable
            else self._ruled_or_decided(next(rulings), found, probabilities) if scored(claim.language)
            else self._by_rules(read_claim(claim.statement, claim.context, claim.language), index)
            for claim in claims
        ]
        if not any(check.name == PolarAnswer.name for check in self.checks):
            return verdicts
        return [_as_its_question(verdict, claim) if claim.asserts else verdict
                for claim, verdict in zip(claims, verdicts, strict=True)]

    def _ruled_or_decided(self, ruling: _Ruling, found: Iterator[Assessment],
                          probabilities: Iterator[float]) -> Verdict:
        if ruling.verdict is not None:
            return ruling.verdict
        return self._decide(next(found), next(probabilities), ruling.commitment)

    def _by_rules(self, claim: ClaimView, index: SourceIndex) -> Verdict:
        """The verdict on a claim in a language no scorer was trained for: a contradiction of its values or a
        proof decide; otherwise a person does (UNRESOLVED), unless no source sentence states most of it.
        Nothing here is released on a score: its stratum, `unscored`, has no threshold."""
        if not reads(claim.language):
            return Verdict(
                state=State.UNRESOLVED, confidence=0.0, method=Method.LANGUAGE, release_score=0.0, stratum=UNSCORED,
                rationale=f"Written in {language_name(claim.language)}, which the offline verifier does not read.",
                extra={"language": claim.language},
            )
        evidence = gather(claim, index)
        extra: dict[str, object] = {"language": claim.language}
        decided = self._first(Role.UNREAD, claim, evidence) or self._first(Role.CONTRADICTION, claim, evidence)
        if decided is not None:
            return _verdict(decided, claim, evidence, extra, release_score=0.0)
        proven = self._first(Role.PROVEN, claim, evidence)
        if proven is not None:
            return _verdict(proven, claim, evidence, extra, release_score=1.0, exact=True)
        # One sentence must state most of it: words scattered over several say nothing together.
        share = max((len(claim.stem_set & hit.passage.stem_set) / len(claim.stem_set) for hit in evidence.hits
                     if claim.stem_set), default=0.0)
        closest = citations.closest_spans(claim, evidence)
        if share < _STATED:
            insufficient = Verdict(
                state=State.INSUFFICIENT_EVIDENCE, evidence=closest, confidence=round(1 - share, 3),
                method=Method.WORDS_STATED,
                rationale=f"The sources do not say this: the closest sentence states {share:.0%} of its words.",
                extra=extra,
            )
            return _finished(insufficient, claim, evidence, 0.0)
        unresolved = Verdict(
            state=State.UNRESOLVED, evidence=closest, confidence=0.0, method=Method.WORDS_STATED,
            rationale=(f"The closest sentence states {share:.0%} of its words, not all of them word for word; "
                       f"{language_name(claim.language)} is read by rules only, so a person decides."),
            extra=extra,
        )
        return _finished(unresolved, claim, evidence, 0.0)

    def _rule(self, claim: ClaimView, evidence: Evidence) -> _Ruling:
        """What the rules settle before any score: an unread answer or a contradiction (they keep their
        veto), a commitment the sources refute, else (no commitment unsaid) a proof."""
        decided = self._first(Role.UNREAD, claim, evidence) or self._first(Role.CONTRADICTION, claim, evidence)
        if decided is not None:
            return _Ruling(claim, evidence, _verdict(decided, claim, evidence, {}, release_score=0.0))
        commitment = self._first(Role.COMMITMENT, claim, evidence)
        if commitment is not None and commitment.state is State.REFUTED:
            return _Ruling(claim, evidence, _verdict(commitment, claim, evidence, {}, release_score=0.0, exact=True))
        if commitment is None:
            proven = self._first(Role.PROVEN, claim, evidence)
            if proven is not None:
                # Proof is not a probability: an exact copy and a proven paraphrase both top the scale.
                return _Ruling(claim, evidence, _verdict(proven, claim, evidence, {}, release_score=1.0, exact=True))
        return _Ruling(claim, evidence, None, commitment)

    def _decide(self, assessment: Assessment, probability: float, commitment: CheckFinding | None) -> Verdict:
        """The verdict of `_judge`; where it is SUPPORTED by anything but a proof, the claim must not merely
        resemble its evidence (`Role.RESEMBLANCE`). Asked only then: a claim that is not SUPPORTED is held
        back whatever else is wrong with it, and the resemblance checks are the costliest."""
        verdict = self._judge(assessment, probability, commitment)
        if verdict.state is not State.SUPPORTED or verdict.stratum == "proven":
            return verdict
        resembling = self._first(Role.RESEMBLANCE, assessment.claim, assessment.evidence)
        if resembling is None:
            return verdict
        return _verdict(resembling, assessment.claim, assessment.evidence, _details(verdict), release_score=0.0)

    def _judge(self, assessment: Assessment, probability: float, commitment: CheckFinding | None) -> Verdict:
        """A claim no rule settled (`_rule`), by its score: a commitment left unsaid holds it back, a value
        left unstated too unless a rule proves it; below the threshold, a rule may still prove it."""
        claim, evidence, threshold = assessment.claim, assessment.evidence, self.scorer.threshold
        extra: dict[str, object] = {
            "probability": round(probability, 4),
            "scorer": self.scorer.name,
            "features": dict(zip(FEATURE_NAMES, (round(v, 4) for v in assessment.vector), strict=True)),
        }
        release = probability >= threshold
        if commitment is not None and release:
            # What is left unsaid matters only where the scorer would release the claim.
            held = min(probability, 0.5 * threshold)
            return _verdict(commitment, claim, evidence, extra, release_score=held, confidence=round(1 - held, 3),
                            exact=True)
        if release:
            unstated = self._first(Role.UNSTATED_VALUE, claim, evidence)
            if unstated is not None:
                proven = self._first(Role.RULE_SUPPORT, claim, evidence)
                if proven is not None:
                    return _verdict(proven, claim, evidence, extra, release_score=max(probability, threshold))
                return _verdict(unstated, claim, evidence, extra, release_score=min(probability, 0.5 * threshold))
            if evidence.hits:
                # (No sentence retrieved at all: nothing could ground it, whatever the score.) The scorer
                # read the whole window: where no sentence of it carries the claim's words (a paraphrase),
                # the window it read is what grounded the verdict, and it is what is cited.
                cited = citations.grounding_spans(claim, evidence) or tuple(hit.passage.span() for hit in evidence.hits)
                supported = Verdict(
                    state=State.SUPPORTED, evidence=cited, confidence=round(probability, 3), method=Method.SCORED,
                    rationale=f"The cited sentences state what the claim says (support {probability:.0%}).",
                    extra=extra,
                )
                return _finished(supported, claim, evidence, probability * _names_grounded(claim, evidence))
        proven = self._first(Role.RULE_SUPPORT, claim, evidence)
        if proven is not None:
            return _verdict(proven, claim, evidence, extra, release_score=max(probability, threshold))
        closest = citations.closest_spans(claim, evidence)
        missing = "no source sentence matches it" if not closest else "the closest sentences leave parts unsaid"
        insufficient = Verdict(
            state=State.INSUFFICIENT_EVIDENCE, evidence=closest, confidence=round(1 - probability, 3),
            method=Method.SCORED,
            rationale=f"The sources do not say this: {missing} (support {probability:.0%}).",
            extra=extra,
        )
        return _finished(insufficient, claim, evidence, probability)

    def _first(self, role: Role, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
        """The first finding of the checks that play this role, in registry order."""
        return first_finding(self.checks, role, claim, evidence)


@dataclass(frozen=True)
class _Ruling:
    """A claim, its evidence and what the rules settled of it before any score."""

    claim: ClaimView
    evidence: Evidence
    verdict: Verdict | None
    """The verdict a rule settled; None where the score decides."""
    commitment: CheckFinding | None = None
    """A commitment the grounding rules find unsaid, which holds back a claim the score would release."""


_PROOFS = frozenset((*Proof.methods(), *Verbatim.methods()))
"""The methods of a proof: the claim aligned word for word to its evidence (in English, or by rules alone)."""

_STATED = 0.5
"""Share of its words the closest sentences must state before a claim read by rules only is a person's to
decide; below it, nothing in the sources states it."""

_NOT_CHECKABLE = Verdict(
    state=State.NOT_VERIFIABLE,
    confidence=0.9,
    # Nothing in a source grounds an opinion, so no sentence is cited.
    method=Method.NOT_CHECKABLE,
    rationale="Opinion or advice: there is nothing a source could confirm or contradict.",
)


def _details(verdict: Verdict) -> dict[str, object]:
    """The scorer's details a verdict carries (probability, scorer, features), without a finding's own."""
    return {key: verdict.extra[key] for key in ("probability", "scorer", "features") if key in verdict.extra}


def _verdict(finding: CheckFinding, claim: ClaimView, evidence: Evidence, extra: dict[str, object], *,
             release_score: float, confidence: float | None = None, exact: bool = False) -> Verdict:
    """The verdict a check's finding calls for, with its release score (`exact`: not rounded further)."""
    verdict = Verdict(
        state=finding.state, evidence=finding.evidence,
        confidence=finding.confidence if confidence is None else confidence,
        method=finding.method, rationale=finding.rationale, extra={**extra, **finding.extra},
        release_score=release_score if exact else None,
    )
    return _finished(verdict, claim, evidence, release_score)


def _finished(verdict: Verdict, claim: ClaimView, evidence: Evidence, release_score: float) -> Verdict:
    """The verdict with what each cited sentence covers filled in, and its release score (0 for a
    contradiction, the probability of support otherwise) unless the verdict set one already."""
    covered = citations.with_covers(verdict.evidence, claim, evidence)
    score = verdict.release_score if verdict.release_score is not None else round(release_score, 4)
    return Verdict(
        state=verdict.state, evidence=covered, confidence=verdict.confidence, release_score=score,
        method=verdict.method, rationale=verdict.rationale, extra=verdict.extra,
        stratum=stratum(verdict, claim, evidence),
    )


def _as_its_question(verdict: Verdict, claim: ExtractedClaim) -> Verdict:
    """The verdict on a bare yes or no, checked as the statement its question makes (`polar.asserted`).

    It is released only where that statement is SUPPORTED. Anything else is a person's (or the model's) to
    read, as a yes or no is without a statement: the statement is built from the question's words, so a
    verdict against it is no reason to reject the answer unseen."""
    read_as = f'Read as its question\'s statement, "{claim.asserts}": '
    if verdict.state is State.SUPPORTED:
        return replace(verdict, rationale=read_as + verdict.rationale)
    return replace(
        verdict, state=State.INSUFFICIENT_EVIDENCE, confidence=0.5, release_score=0.0, method=PolarAnswer.methods()[0],
        rationale=read_as + f"{verdict.state.value.lower().replace('_', ' ')} ({verdict.rationale.rstrip('.')}). "
                  "A yes or no asserts what its question asks; a person reads it with the question.",
    )


def stratum(verdict: Verdict, claim: ClaimView, evidence: Evidence) -> str:
    """What the claim's evidence is (`strata.STRATA`): proven word for word, all its words in the
    retrieved sentences, some of them missing, or a bare answer read with its question."""
    if verdict.method in _PROOFS:
        return "proven"
    if not scored(claim.language):
        return UNSCORED
    if claim.context:
        return "bare"
    return "aligned" if claim.stem_set <= evidence.window else "partial"


def _names_grounded(claim: ClaimView, evidence: Evidence) -> float:
    """Share of the claim's names (capitalised words past the first, numbers) the retrieved evidence states.

    "held in San Diego" against sentences that never name San Diego may well be true, but nothing cited
    shows it, so it is the first a person should see.
    """
    # The word the claim opens with is no name for all its capital, unless no source says it anywhere:
    # "Vogue is an American women's magazine" against sources that name Jane and Elle, a bare "Portugal".
    opener = claim.opening_stem
    unknown = opener is not None and opener not in claim.name_stems and not any(
        opener in evidence.index.source_stems(source) for source in evidence.index.sources)
    if not claim.name_stems and not unknown:
        return 1.0
    window = evidence.window
    return sum(name in window for name in claim.name_stems) / (len(claim.name_stems) + unknown)
