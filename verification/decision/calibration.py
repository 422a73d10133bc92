"""The release gate: how safe an answer is to send as written, and the threshold a risk budget sets.

Each claim carries a release score (0..1). An answer's score is its weakest claim's, and a claim that
is not SUPPORTED scores 0: one unproven claim is enough to hold an answer back. A constitution states
its risk budget, `max_unsafe_release_rate`: the largest share of inconsistent answers it accepts to
release. The threshold comes from labelled cases, with a finite-sample guarantee in the manner of
Learn-then-Test: thresholds are tried from the strictest down, and each is accepted only while an exact
(Clopper-Pearson) upper confidence bound on the unsafe release rate stays within the budget in every
group of labelled data. The first threshold that fails stops the descent, so the guarantee holds at the
stated confidence without a correction for the number of thresholds tried.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from verification.decision.bounds import LabelsNeeded, _bisect, upper_bound
from verification.decision.strata import STRATA, UNSCORED, Stratified, claim_score, gated_stratum
from verification.errors import PermanentError
from verification.types import Claim, State

DEFAULT_MAX_UNSAFE_RELEASE_RATE = 0.05
DEFAULT_CONFIDENCE = 0.95
BUILTIN_PATH = Path(__file__).with_name("release_calibration.json")
"""Scores of the tune splits' answers under the offline verifier with its default (learned) scorer."""
BUILTIN_DIR = BUILTIN_PATH.parent
"""Where the built-in calibration data lie: one file per scorer (`builtin_path`)."""


def builtin_path(scorer: str) -> Path:
    """The built-in calibration file of the offline verifier with the scorer named `scorer`."""
    return BUILTIN_PATH if scorer == "learned" else BUILTIN_DIR / f"release_calibration.{scorer}.json"

_METHOD = "Learn-then-Test fixed-sequence descent; exact binomial (Clopper-Pearson) upper bound per group"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class LabelledScores(_Frozen):
    """The answer scores of one group of labelled cases (one data set, or one team's reviewer labels)."""

    name: str
    """Where the labels come from, such as "wice/hold"."""
    consistent: list[float]
    """Scores of the answers people judged consistent with their sources."""
    inconsistent: list[float]
    """Scores of the answers people judged inconsistent."""
    stratum: str | None = None
    """The answers' stratum (`STRATA`) when the group holds one stratum's answers only; None: all of them."""

    def labels_needed(self, max_unsafe_release_rate: float, confidence: float = DEFAULT_CONFIDENCE) -> LabelsNeeded:
        """How far these labels are from a threshold within `max_unsafe_release_rate` (`LabelsNeeded`): the
        bound at the strictest threshold now, and (computed when read) the inconsistent answers it needs."""
        n = len(self.inconsistent)
        k = sum(score >= 1.0 for score in self.inconsistent)
        return LabelsNeeded(budget=max_unsafe_release_rate, confidence=confidence, inconsistent=n,
                            released_at_strictest=k, bound_now=upper_bound(k, n, confidence))


class GroupBound(_Frozen):
    """What calibration measured on one group at the chosen threshold."""

    name: str
    """The group's name."""
    consistent: int
    """Consistent answers in the group."""
    inconsistent: int
    """Inconsistent answers in the group."""
    unsafe_released: int
    """Inconsistent answers at or above the threshold: the ones that would be released."""
    unsafe_release_rate: float
    """unsafe_released / inconsistent."""
    unsafe_upper_bound: float
    """The upper confidence bound on the unsafe release rate."""
    automation: float
    """Share of the consistent answers at or above the threshold: released without a person."""


class GroupThreshold(_Frozen):
    """A group's own threshold: the descent run on that group alone, so its bound holds for answers of
    that group (and says nothing of the others)."""

    name: str
    """The group's name."""
    threshold: float
    """The lowest threshold whose bound stays within the budget on this group."""
    bound: GroupBound
    """What calibration measured on the group at that threshold."""


class StratumThreshold(_Frozen):
    """A stratum's own threshold: the descent run on the labelled answers of that stratum alone (every
    group's), so its bound holds for answers whose evidence is of that kind, whoever sends them."""

    name: str
    """The stratum (`STRATA`)."""
    threshold: float | None
    """The lowest threshold whose bound stays within the budget on the stratum; None when none does."""
    pooled: bool = False
    """Too few labelled answers to bound anything: the stratum releases at the pooled threshold. (Without
    a threshold of its own and not `pooled`, it releases nothing on a score.)"""
    bound: GroupBound
    """What calibration measured on the stratum at the threshold it releases at."""


class ReleaseCalibration(_Frozen):
    """A release threshold and its provenance: data, counts, bound, date."""

    threshold: float = Field(ge=0.0, le=1.0)
    """Answers release only when every claim is SUPPORTED with a score at or above this."""
    max_unsafe_release_rate: float = Field(gt=0.0, lt=1.0)
    """The risk budget the threshold was chosen for."""
    confidence: float = Field(gt=0.0, lt=1.0)
    """Confidence of the upper bound (1 - delta)."""
    verifier: str
    """The verifier (name and configuration fingerprint) whose scores were calibrated."""
    groups: list[GroupBound]
    """One entry per group of labelled data; the bound holds in each."""
    method: str = _METHOD
    """How the threshold was chosen."""
    computed: str
    """When, as an ISO 8601 UTC timestamp."""
    met: bool = True
    """False when no threshold meets the budget: then nothing is released without a person."""
    per_group: list[GroupThreshold] = Field(default_factory=list)
    """Each group's own threshold, where the budget can be met on it: what a constitution whose answers
    belong to that group (`Policy.calibration_group`) releases at. The pooled `threshold` is the fallback."""
    strata: list[StratumThreshold] = Field(default_factory=list)
    """Each stratum's own threshold (`STRATA`), computed from what the evidence of an answer is, so no
    caller has to say what kind of answer it sends. Empty for a calibration made without strata."""

    def for_group(self, name: str | None) -> ReleaseCalibration:
        """The calibration for answers of group `name`: its own threshold and bound where it has one, else
        this pooled one, which holds in every group. A group it was not calibrated on is an error."""
        if name is None:
            return self
        if name not in {group.name for group in self.groups}:
            known = ", ".join(group.name for group in self.groups) or "none"
            raise UnknownGroup(f"calibration_group: {name!r} is not a group of the calibration in force "
                               f"(its groups: {known})")
        own = next((group for group in self.per_group if group.name == name), None)
        if own is None:
            return self.model_copy(update={"strata": []})
        return self.model_copy(update={"threshold": own.threshold, "groups": [own.bound], "met": True,
                                       "per_group": [], "strata": []})

    def for_stratum(self, name: str | None) -> ReleaseCalibration:
        """The calibration for an answer of stratum `name`: the stratum's own threshold and bound where it
        has one, else this pooled one. None, or a calibration made without strata: this one. A stratum the
        calibration does not know is an error."""
        if name == UNSCORED:
            return self.model_copy(update={"threshold": 1.0, "met": False, "per_group": [], "strata": []})
        if name is None or not self.strata:
            return self
        own = next((stratum for stratum in self.strata if stratum.name == name), None)
        if own is None:
            known = ", ".join(stratum.name for stratum in self.strata)
            raise UnknownGroup(f"stratum: {name!r} is not a stratum of the calibration in force (its strata: {known})")
        if own.pooled:
            return self.model_copy(update={"strata": []})
        return self.model_copy(update={"threshold": 1.0 if own.threshold is None else own.threshold,
                                       "groups": [own.bound], "met": own.threshold is not None,
                                       "per_group": [], "strata": []})

    def for_answer(self, claims: Iterable[Stratified]) -> ReleaseCalibration:
        """The calibration an answer with these claims is gated at: that of its stratum (`gated_stratum`)."""
        return self.for_stratum(gated_stratum(claims))

    def group_bound(self, name: str) -> GroupBound | None:
        """What group `name` releases under `for_group(name)`: at its own threshold, else the pooled one."""
        own = next((group for group in self.per_group if group.name == name), None)
        if own is not None:
            return own.bound
        return next((group for group in self.groups if group.name == name), None)

    @property
    def data(self) -> str:
        """The groups' names, joined for display."""
        return ", ".join(group.name for group in self.groups)


class UnknownGroup(PermanentError, ValueError):
    """A group or stratum was asked for that the calibration in force was not made with."""


def held_back(claims: Iterable[Claim], calibration: ReleaseCalibration) -> list[Claim]:
    """The SUPPORTED claims the gate holds back: proven, but not surely enough to send as written."""
    return [
        claim for claim in claims
        if claim.state is State.SUPPORTED and (not calibration.met or claim_score(claim) < calibration.threshold)
    ]


def calibrate(
    groups: Sequence[LabelledScores],
    *,
    max_unsafe_release_rate: float = DEFAULT_MAX_UNSAFE_RELEASE_RATE,
    confidence: float = DEFAULT_CONFIDENCE,
    verifier: str,
    now: datetime | None = None,
) -> ReleaseCalibration:
    """The lowest threshold whose unsafe release rate is bounded by the budget in every group, each
    group's own, and each stratum's own where the groups are given by stratum.

    Thresholds are the distinct scores, tried from the highest down (fixed-sequence testing); the
    descent stops at the first that fails in any group. A group without inconsistent answers cannot
    bound anything and is refused. Entries of one group name given per stratum (`LabelledScores.stratum`)
    are one group to the pooled threshold; each stratum's threshold is the descent on the entries of that
    stratum, every group's together.
    """
    if not 0.0 < max_unsafe_release_rate < 1.0:
        raise ValueError("max_unsafe_release_rate: must be between 0 and 1")
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence: must be between 0 and 1")
    if not groups:
        raise ValueError("groups: no labelled data")
    pooled = _merged(groups, key=lambda group: group.name)
    for group in pooled:
        if not group.inconsistent:
            raise ValueError(f"groups: {group.name!r} has no inconsistent answers, so it bounds nothing")
    chosen = _descend(pooled, max_unsafe_release_rate, confidence)
    # When nothing passes, no score releases: `met` is False and the gate holds every answer back.
    met = chosen is not None
    per_group = []
    if len(pooled) > 1:
        for group in pooled:
            own = _descend([group], max_unsafe_release_rate, confidence)
            # The pooled threshold holds in this group too; where it is the lower one, it stays.
            if own is not None and (chosen is None or own < chosen):
                per_group.append(GroupThreshold(name=group.name, threshold=own,
                                                bound=_group_bound(group, own, confidence)))
    threshold = chosen if chosen is not None else 1.0
    return ReleaseCalibration(
        threshold=threshold,
        max_unsafe_release_rate=max_unsafe_release_rate,
        confidence=confidence,
        verifier=verifier,
        groups=[_group_bound(group, threshold if met else math.inf, confidence) for group in pooled],
        computed=(now or datetime.now(UTC)).replace(microsecond=0).isoformat(),
        met=met,
        per_group=per_group,
        strata=_strata(groups, threshold if met else math.inf, max_unsafe_release_rate, confidence),
    )


def _descend(groups: Sequence[LabelledScores], budget: float, confidence: float) -> float | None:
    """The lowest threshold the fixed-sequence descent accepts in every group, or None."""
    if any(not group.inconsistent for group in groups):
        return None
    ranked = [sorted(group.inconsistent) for group in groups]
    candidates = sorted({score for group in groups for score in (*group.consistent, *group.inconsistent)} | {1.0},
                        reverse=True)
    chosen: float | None = None
    for threshold in candidates:
        if threshold <= 0.0:
            break  # a score of 0 is a claim that is not SUPPORTED: never released
        if all(
            upper_bound(len(scores) - _bisect(scores, threshold, strict=True), len(scores), confidence) <= budget
            for scores in ranked
        ):
            chosen = threshold
        else:
            break
    return chosen


def _strata(groups: Sequence[LabelledScores], pooled: float, budget: float,
            confidence: float) -> list[StratumThreshold]:
    """Each stratum's own threshold, from the entries given for it (none when no entry names a stratum).

    A stratum too thinly labelled to bound anything (no unsafe release at all would keep its bound within
    the budget) releases at the pooled threshold, whose bound covers its answers among the rest. One with
    labels enough whose descent accepts no threshold releases nothing on a score.
    """
    if not any(group.stratum for group in groups):
        return []
    by_stratum = {group.name: group for group in _merged(groups, key=lambda group: group.stratum or "")}
    strata = []
    for name in STRATA:
        group = by_stratum.get(name, LabelledScores(name=name, consistent=[], inconsistent=[]))
        # The bound must hold on the stratum's answers together and on each group's that are many enough to
        # bound anything: a stratum pooled over data sets must not hide one of them releasing too much.
        parts = [part for part in groups if part.stratum == name and not _thin(part, budget, confidence)]
        own = _descend([group, *parts], budget, confidence)
        thin = _thin(group, budget, confidence)
        at = own if own is not None else pooled if thin else math.inf
        strata.append(StratumThreshold(name=name, threshold=own, pooled=own is None and thin,
                                       bound=_group_bound(group, at, confidence)))
    return strata


def _thin(group: LabelledScores, budget: float, confidence: float) -> bool:
    """Too few inconsistent answers to bound anything: even none released would leave the bound above budget."""
    return upper_bound(0, len(group.inconsistent), confidence) > budget


def _merged(groups: Sequence[LabelledScores], key: Callable[[LabelledScores], str]) -> list[LabelledScores]:
    """The entries with the same key as one group named by it, in first-seen order."""
    merged: dict[str, tuple[list[float], list[float]]] = {}
    for group in groups:
        consistent, inconsistent = merged.setdefault(key(group), ([], []))
        consistent.extend(group.consistent)
        inconsistent.extend(group.inconsistent)
    return [LabelledScores(name=name, consistent=pair[0], inconsistent=pair[1]) for name, pair in merged.items()]


def _group_bound(group: LabelledScores, threshold: float, confidence: float) -> GroupBound:
    unsafe = sum(score >= threshold for score in group.inconsistent)
    released = sum(score >= threshold for score in group.consistent)
    n = len(group.inconsistent)
    return GroupBound(
        name=group.name,
        consistent=len(group.consistent),
        inconsistent=n,
        unsafe_released=unsafe,
        unsafe_release_rate=round(unsafe / n, 4) if n else 0.0,
        unsafe_upper_bound=round(upper_bound(unsafe, n, confidence), 4),
        automation=round(released / len(group.consistent), 4) if group.consistent else 0.0,
    )


# ---------------------------------------------------------------------------------------------
# The built-in calibration


class CalibrationData(_Frozen):
    """Labelled scores saved for one verifier, so any budget's threshold can be computed from them."""

    verifier: str
    """Name and fingerprint of the verifier that produced the scores."""
    groups: list[LabelledScores]
    """The labelled scores, one entry per group."""
    computed: str
    """When the scores were computed."""
    confidence: float = DEFAULT_CONFIDENCE
    """Confidence of the bounds computed from them."""


def save_builtin(data: CalibrationData, path: Path = BUILTIN_PATH) -> None:
    """Write the built-in calibration data (scores rounded to 4 places keep the file small and stable)."""
    rounded = data.model_copy(update={"groups": [
        group.model_copy(update={"consistent": sorted(round(s, 4) for s in group.consistent),
                                 "inconsistent": sorted(round(s, 4) for s in group.inconsistent)})
        for group in data.groups
    ]})
    path.write_text(json.dumps(rounded.model_dump(mode="json"), indent=1) + "\n", encoding="utf-8")
    _builtin_data.cache_clear()
    builtin_calibration.cache_clear()


@lru_cache(maxsize=1)
def _builtin_data() -> tuple[CalibrationData, ...]:
    return tuple(
        CalibrationData.model_validate_json(path.read_text(encoding="utf-8"))
        for path in sorted(BUILTIN_DIR.glob("release_calibration*.json"))
    )


@lru_cache(maxsize=64)
def builtin_calibration(verifier: str, max_unsafe_release_rate: float) -> ReleaseCalibration | None:
    """The built-in threshold for a verifier ("offline/7 <fingerprint>") and budget, computed from the
    tune-split scores saved for exactly that verifier and configuration.

    None when none were saved for it (the model-backed verifier, or a configuration changed since the
    scores were saved): then no threshold is in force and the gate sends answers to a person.
    """
    data = next((entry for entry in _builtin_data() if entry.verifier == verifier), None)
    if data is None:
        return None
    computed = datetime.fromisoformat(data.computed)
    return calibrate(data.groups, max_unsafe_release_rate=max_unsafe_release_rate, confidence=data.confidence,
                     verifier=data.verifier, now=computed)


def calibration_groups(own: ReleaseCalibration | None = None) -> list[str]:
    """The group names a constitution may name (`Policy.calibration_group`): its own calibration's where it
    has one, else those of the built-in calibrations. Read from the saved scores: no scorer is loaded."""
    if own is not None:
        return [group.name for group in own.groups]
    return list(dict.fromkeys(group.name for data in _builtin_data() for group in data.groups))


def release_threshold(
    verifier: str, *, max_unsafe_release_rate: float, calibration: ReleaseCalibration | None = None
) -> ReleaseCalibration | None:
    """The calibration in force for `verifier` ("name fingerprint"): the constitution's own when it was
    made for exactly this verifier and configuration, else the built-in one for it, else None. A
    threshold is a point on one configuration's scale of scores: another verifier's scores, or the same
    verifier's with other weights or another model file, mean something else there."""
    if calibration is not None and calibrated_for(calibration, verifier):
        return calibration
    return builtin_calibration(verifier, max_unsafe_release_rate)


def calibrated_for(calibration: ReleaseCalibration, verifier: str) -> bool:
    """Whether `calibration` was computed from the scores of `verifier` ("name fingerprint")."""
    return calibration.verifier == verifier


def describe(calibration: ReleaseCalibration) -> str:
    """One line a reviewer or admin reads: the threshold, the budget and what backs it."""
    if not calibration.met:
        return (f"no threshold keeps unsafe releases under {calibration.max_unsafe_release_rate:.0%} on "
                f"{calibration.data or 'the labelled data'}: nothing is released without a person")
    if not calibration.groups:
        return (f"release threshold {calibration.threshold:.4f} for at most {calibration.max_unsafe_release_rate:.0%} "
                f"unsafe releases (set by hand, without labelled data, {calibration.computed[:10]})")
    worst = max(calibration.groups, key=lambda group: group.unsafe_upper_bound)
    return (f"release threshold {calibration.threshold:.4f} for at most {calibration.max_unsafe_release_rate:.0%} "
            f"unsafe releases ({calibration.confidence:.0%} upper bound {worst.unsafe_upper_bound:.1%} on "
            f"{worst.name}; calibrated on {calibration.data}, "
            f"{sum(g.inconsistent + g.consistent for g in calibration.groups)} labelled answers, "
            f"{calibration.computed[:10]})")


def group_scores(rows: Iterable[tuple[str, bool, float]]) -> list[LabelledScores]:
    """Labelled scores by group from (group, consistent, score) rows, groups in first-seen order."""
    grouped: dict[str, tuple[list[float], list[float]]] = {}
    for name, consistent, score in rows:
        grouped.setdefault(name, ([], []))[0 if consistent else 1].append(score)
    return [LabelledScores(name=name, consistent=pair[0], inconsistent=pair[1]) for name, pair in grouped.items()]
