"""Old scorer model against new, on labels the new one never trained on.

Each held-out claim is verified again by the offline verifier with each model, on its own against the
sources of its case, exactly as a run verifies it: typed checks keep their veto, and the claim's release
score is what the gate compares with the threshold (0 when the claim is not SUPPORTED). The figures are
the ones the release gate lives by:
- AUROC over claims: how often a supported claim outscores an unsupported one;
- at the constitution's budget, answers: the threshold the engine's calibration (`release.calibrate`, the
  exact upper bound) sets on these answers, the unsafe releases it lets through and its upper bound, and
  automation, the share of consistent answers released without a person.

An answer is released only when every claim clears the threshold, so its score is its weakest claim's.
It counts with the claims whose label is settled; it is consistent when every one is SUPPORTED.

A new model is not worse (`not_worse`) when within the budget it releases at least as many consistent
answers as the old one, and its AUROC is not lower beyond chance: a paired bootstrap over answers
(`auroc_gap_bound`) bounds the difference, and only a bound below zero counts as ranking worse.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from verification.claims.extraction import ExtractedClaim
from verification.decision.bounds import auroc
from verification.decision.calibration import DEFAULT_CONFIDENCE, LabelledScores
from verification.decision.calibration import calibrate as calibrate_release
from verification.decision.offline import OfflineVerifier
from verification.retrieval.index import SourceIndex
from verification.types import Source, State


@dataclass(frozen=True)
class LabelledClaim:
    """A person's label of one claim, with what the engine needs to verify it again."""

    answer: str
    """The labelled answer it belongs to (its claims are released together), such as "case 12 c0"."""
    text: str
    """The claim as the engine extracted it."""
    context: str
    """The question, where the claim is a bare answer to it (`ExtractedClaim.context`); else empty."""
    sources: tuple[Source, ...]
    """The case's sources as they were when the claim was judged."""
    supported: bool
    """The label: True for SUPPORTED, False for refuted or not in the sources."""


def release_scores(verifier: OfflineVerifier, claims: Sequence[LabelledClaim]) -> list[float]:
    """Each claim's release score under `verifier`, each verified on its own against its case's sources."""
    indexes: dict[tuple[Source, ...], SourceIndex] = {}
    scores = []
    for number, labelled in enumerate(claims):
        index = indexes.get(labelled.sources)
        if index is None:
            index = indexes[labelled.sources] = SourceIndex(labelled.sources)
        claim = ExtractedClaim(id=f"k{number + 1}", text=labelled.text, start=0, end=len(labelled.text),
                               context=labelled.context)
        verdict = verifier.verify_claim(claim, index)
        supported = verdict.state is State.SUPPORTED and verdict.release_score is not None
        scores.append(float(verdict.release_score) if supported and verdict.release_score is not None else 0.0)
    return scores


@dataclass(frozen=True)
class HeldOutFigures:
    """What one model does on the held-out labels."""

    claims: int
    supported_claims: int
    auroc: float | None
    """Over claims; None without both supported and unsupported ones."""
    answers: int
    consistent: int
    inconsistent: int
    budget: float
    """The constitution's risk budget the threshold is calibrated for."""
    met: bool
    """Some threshold keeps the upper bound on unsafe releases within the budget."""
    threshold: float | None
    """The calibrated threshold; None when none is met (nothing is released)."""
    unsafe_released: int
    unsafe_rate: float | None
    unsafe_bound: float | None
    """The exact upper confidence bound on the unsafe release rate at the threshold."""
    consistent_released: int
    automation: float | None
    """Share of consistent answers released without a person at the threshold."""
    scores: dict[str, list[float]] = field(default_factory=dict)
    """Answer scores ("consistent", "inconsistent"): what a calibration for this model is computed from."""

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HeldOutFigures:
        return cls(**data)

    def labelled_scores(self, name: str) -> LabelledScores:
        return LabelledScores(name=name, consistent=list(self.scores.get("consistent", [])),
                              inconsistent=list(self.scores.get("inconsistent", [])))


def held_out_figures(
    claims: Sequence[LabelledClaim], scores: Sequence[float], *, budget: float, verifier: str,
    confidence: float = DEFAULT_CONFIDENCE,
) -> HeldOutFigures:
    """The figures of one model's `scores` (one per claim, in order) on the labelled `claims`."""
    if len(claims) != len(scores):
        raise ValueError(f"scores: {len(scores)} for {len(claims)} claims")
    supported = [score for claim, score in zip(claims, scores, strict=True) if claim.supported]
    unsupported = [score for claim, score in zip(claims, scores, strict=True) if not claim.supported]
    answers: dict[str, tuple[bool, float]] = {}
    for claim, score in zip(claims, scores, strict=True):
        consistent, weakest = answers.get(claim.answer, (True, 1.0))
        answers[claim.answer] = (consistent and claim.supported, min(weakest, score))
    consistent_scores = sorted(score for ok, score in answers.values() if ok)
    inconsistent_scores = sorted(score for ok, score in answers.values() if not ok)
    met, threshold, bound = False, None, None
    if inconsistent_scores:
        calibration = calibrate_release(
            [LabelledScores(name="held-out", consistent=consistent_scores, inconsistent=inconsistent_scores)],
            max_unsafe_release_rate=budget, confidence=confidence, verifier=verifier,
        )
        met = calibration.met
        threshold = calibration.threshold if met else None
        bound = calibration.groups[0].unsafe_upper_bound
    unsafe = sum(score >= threshold for score in inconsistent_scores) if threshold is not None else 0
    released = sum(score >= threshold for score in consistent_scores) if threshold is not None else 0
    value = auroc(supported, unsupported)
    return HeldOutFigures(
        claims=len(claims), supported_claims=len(supported),
        auroc=round(value, 4) if value is not None else None,
        answers=len(answers), consistent=len(consistent_scores), inconsistent=len(inconsistent_scores),
        budget=budget, met=met, threshold=threshold, unsafe_released=unsafe,
        unsafe_rate=unsafe / len(inconsistent_scores) if inconsistent_scores else None,
        unsafe_bound=bound, consistent_released=released,
        automation=released / len(consistent_scores) if consistent_scores else None,
        scores={"consistent": consistent_scores, "inconsistent": inconsistent_scores},
    )


def auroc_gap_bound(claims: Sequence[LabelledClaim], old: Sequence[float], new: Sequence[float], *,
                    confidence: float = DEFAULT_CONFIDENCE, resamples: int = 2000, seed: int = 0) -> float | None:
    """The upper confidence bound on AUROC(new) - AUROC(old) over these claims: a paired bootstrap that
    resamples whole answers (their claims are not independent). Below 0, the new model ranks claims worse
    beyond what the sample's chance explains. None without both supported and unsupported claims."""
    labels = np.array([claim.supported for claim in claims], dtype=bool)
    if labels.all() or not labels.any():
        return None
    owners = {answer: number for number, answer in enumerate(dict.fromkeys(claim.answer for claim in claims))}
    members: list[list[int]] = [[] for _ in owners]
    for index, claim in enumerate(claims):
        members[owners[claim.answer]].append(index)
    old_scores, new_scores = np.asarray(old, dtype=float), np.asarray(new, dtype=float)
    rng = np.random.default_rng(seed)
    gaps = []
    for _ in range(resamples):
        picked = np.concatenate([members[i] for i in rng.integers(0, len(members), len(members))])
        chosen = labels[picked]
        if chosen.all() or not chosen.any():
            continue
        gaps.append(_auroc(new_scores[picked], chosen) - _auroc(old_scores[picked], chosen))
    return round(float(np.quantile(gaps, confidence)), 4) if gaps else None


def _auroc(scores: np.ndarray, labels: np.ndarray) -> float:
    """Mann-Whitney AUROC with ties counted half, by average ranks."""
    values, inverse, counts = np.unique(scores, return_inverse=True, return_counts=True)
    average_rank = np.cumsum(counts) - (counts - 1) / 2.0
    ranks = average_rank[inverse]
    positives = int(labels.sum())
    negatives = len(labels) - positives
    return float((ranks[labels].sum() - positives * (positives + 1) / 2.0) / (positives * negatives))


def not_worse(old: HeldOutFigures, new: HeldOutFigures, auroc_gap: float | None = None) -> tuple[bool, str]:
    """Whether `new` may replace `old` on the same held-out labels: within the budget it releases at least as
    many consistent answers, and it ranks claims no worse. A lower AUROC counts as worse unless `auroc_gap`
    (`auroc_gap_bound`, the upper confidence bound on the difference) shows the sample cannot tell them apart.
    The reason, either way."""
    if old.met and not new.met:
        return False, "no threshold keeps the new model's unsafe releases within the budget"
    if new.met and old.met and (new.automation or 0.0) < (old.automation or 0.0):
        return False, (f"the new model releases fewer consistent answers: {new.automation or 0.0:.1%} against "
                       f"{old.automation or 0.0:.1%}")
    if new.auroc is None or old.auroc is None:
        return False, "the held-out labels need both supported and unsupported claims to compare the models"
    ranking = f"AUROC {new.auroc:.3f} against {old.auroc:.3f}"
    if new.auroc < old.auroc:
        if auroc_gap is None or auroc_gap < 0:
            return False, f"the new model ranks claims worse: {ranking}"
        ranking += f" (within chance: the 95% bound on the difference is {auroc_gap:+.3f})"
    return True, f"not worse: automation {new.automation or 0.0:.1%} against {old.automation or 0.0:.1%}, {ranking}"
