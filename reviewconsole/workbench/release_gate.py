"""The release gate a constitution's own labels give: the threshold in force, the automation/unsafe-release
trade-off on reviewers' labels, and the threshold the engine's calibration sets for a chosen budget.

The threshold always comes from `verification`'s calibration (`calibrate_release`, the Learn-then-Test
descent with an exact upper bound); this module only counts what a threshold would release on the labels,
to draw the curve and show the operating points, and explains a budget no threshold meets.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import dataclass
from datetime import datetime

from reviewconsole.policy.breaker import open_breaker_names
from reviewconsole.policy.engine import configured_verifier
from reviewconsole.policy.models import ConstitutionVersion
from reviewconsole.policy.selectors import constitution_in_force, constitution_rows
from reviewconsole.workbench.labelled_answers import ReviewerLabels, released_by_stratum, reviewer_labels
from verification import (
    Cascade,
    LabelledScores,
    Policy,
    ReleaseCalibration,
    calibrate_release,
    describe_release,
    fingerprint,
    release_threshold,
    scorer_model,
)

BUDGETS = (0.01, 0.02, 0.05, 0.1, 0.2)
"""The budgets the comparison table offers beside the one the admin picked. Each is one run of the engine's
calibration, whose cost grows with the budget (the descent goes further down), so the list stays short."""

CURVE_ROWS = 24
"""At most this many thresholds in the curve's table (the chart draws every one)."""


@dataclass(frozen=True)
class VerifierInUse:
    """The verifier the console's engine runs now."""

    name: str
    """Name and version, as a run record carries it ("offline/7")."""
    fingerprint: str
    """The configuration fingerprint of that verifier."""
    cascade: bool = False
    """With a model endpoint: the verifier is the cascade's model path, calibrated on the claims it decides
    (the offline path keeps its built-in calibration)."""
    scorer_model: str | None = None
    """sha256 of the learned scorer's model file it scores with; None with the rules scorer."""

    @property
    def calibrated_as(self) -> str:
        """How a calibration names the verifier it was made for, as `python -m verification calibrate` does."""
        return f"{self.name} {self.fingerprint}"


def verifier_in_use(constitution: str | None = None) -> VerifierInUse:
    """The verifier the engine runs for `constitution`'s cases: with the scorer model its version in force pins."""
    in_force = constitution_in_force(constitution) if constitution is not None else None
    pinned = in_force.constitution().policy.scorer_model if in_force is not None else None
    verifier = configured_verifier(pinned)
    return VerifierInUse(verifier.name, fingerprint(verifier), cascade=isinstance(verifier, Cascade),
                         scorer_model=scorer_model(verifier))


@dataclass(frozen=True)
class OperatingPoint:
    """What a threshold does on the labelled answers."""

    threshold: float | None
    """None: nothing is released (a calibration that met no threshold)."""
    consistent: int
    consistent_released: int
    inconsistent: int
    unsafe_released: int

    @property
    def automation(self) -> float | None:
        """Share of consistent answers released without a person."""
        return self.consistent_released / self.consistent if self.consistent else None

    @property
    def unsafe_rate(self) -> float | None:
        """Share of inconsistent answers released: the unsafe release rate seen on the labels."""
        return self.unsafe_released / self.inconsistent if self.inconsistent else None


def operating_point(scores: LabelledScores, threshold: float | None) -> OperatingPoint:
    """Counts at `threshold` as the gate applies it: an answer is released when its score is at or above."""

    def released(values: list[float]) -> int:
        return 0 if threshold is None else sum(score >= threshold for score in values)

    return OperatingPoint(threshold, len(scores.consistent), released(scores.consistent),
                          len(scores.inconsistent), released(scores.inconsistent))


def curve(scores: LabelledScores) -> list[OperatingPoint]:
    """One point per threshold calibration may choose (every positive score, and 1), strictest first."""
    thresholds = {score for score in (*scores.consistent, *scores.inconsistent) if score > 0.0} | {1.0}
    consistent, inconsistent = sorted(scores.consistent), sorted(scores.inconsistent)
    return [
        # Released: the scores at or above the threshold, counted by bisection (a label set has thousands).
        OperatingPoint(threshold, len(consistent), len(consistent) - bisect_left(consistent, threshold),
                       len(inconsistent), len(inconsistent) - bisect_left(inconsistent, threshold))
        for threshold in sorted(thresholds, reverse=True)
    ]


def curve_rows(points: list[OperatingPoint], *, keep: set[float], limit: int = CURVE_ROWS) -> list[OperatingPoint]:
    """The curve for a table: every point when few, else evenly spaced ones plus the thresholds in `keep`."""
    if len(points) <= limit:
        return points
    step = (len(points) - 1) / (limit - 1)
    picked = {round(i * step) for i in range(limit)}
    return [point for i, point in enumerate(points) if i in picked or point.threshold in keep]


def inconsistent_needed(budget: float, confidence: float) -> int:
    """The fewest inconsistent answers whose exact upper bound, with none released, is within `budget`.

    With none of n released, the one-sided Clopper-Pearson bound is 1 - (1 - confidence)^(1/n), so n must
    reach ln(1 - confidence) / ln(1 - budget).
    """
    needed = math.ceil(math.log(1.0 - confidence) / math.log1p(-budget) - 1e-9)
    return max(needed, 1)


@dataclass(frozen=True)
class BudgetOutcome:
    """What the engine's calibration gives for one budget on the labels."""

    budget: float
    calibration: ReleaseCalibration | None
    """None when the labels cannot bound anything (no answers, or none inconsistent)."""
    point: OperatingPoint | None
    """The threshold's operating point on the labels; None with no calibration."""
    why_not: str = ""
    """Why no threshold qualifies, when none does."""
    needed: int | None = None
    """When too few inconsistent answers are the reason: how many the budget takes."""

    @property
    def met(self) -> bool:
        return self.calibration is not None and self.calibration.met


def budget_outcome(
    labels: ReviewerLabels, budget: float, verifier: VerifierInUse, *, now: datetime | None = None
) -> BudgetOutcome:
    """The threshold the engine's calibration sets for `budget` on `labels`, or why there is none; `now`
    dates the calibration (the engine's clock when None)."""
    scores = labels.scores()
    if not labels.answers:
        return BudgetOutcome(budget, None, None, "no labelled answers yet: an answer counts once a reviewer has "
                                                 "labelled every one of its claims on the case page")
    if not scores.inconsistent:
        return BudgetOutcome(budget, None, None, f"all {len(scores.consistent)} labelled answers are consistent: "
                             "a bound on unsafe releases needs inconsistent answers to count them")
    calibration = calibrate_release([scores], max_unsafe_release_rate=budget, verifier=verifier.calibrated_as,
                                    now=now)
    if calibration.met:
        return BudgetOutcome(budget, calibration, operating_point(scores, calibration.threshold))
    n, confidence = len(scores.inconsistent), calibration.confidence
    top = sum(score >= 1.0 for score in scores.inconsistent)
    if not top:
        # The strictest threshold, 1, released no inconsistent answer and still failed: the bound with none
        # released is above the budget. A calibration that met nothing reports that bound for its group.
        smallest, needed = calibration.groups[0].unsafe_upper_bound, inconsistent_needed(budget, confidence)
        why = (f"too few labels for the bound: with {n} inconsistent answers, even releasing none of them the "
               f"{confidence:.0%} upper bound on the unsafe release rate is {smallest:.1%}, above the budget of "
               f"{budget:.1%}; it takes at least {needed} labelled inconsistent answers")
        return BudgetOutcome(budget, calibration, operating_point(scores, None), why, needed)
    why = (f"{top} of the {n} inconsistent answers score 1, the highest score there is: no threshold holds them "
           f"back, and with them released the {confidence:.0%} upper bound exceeds the budget of {budget:.1%}")
    return BudgetOutcome(budget, calibration, operating_point(scores, None), why)


@dataclass(frozen=True)
class GateInForce:
    """The threshold new cases are judged with now, and where it comes from."""

    version: ConstitutionVersion | None
    budget: float
    calibration: ReleaseCalibration | None
    """None when the verifier has no calibration: release rests on claim states alone."""
    own: bool
    """The constitution's own calibration (from labels), not the verifier's built-in one."""
    point: OperatingPoint | None
    """The threshold's operating point on the labels; None without labels or calibration."""
    verifier: VerifierInUse

    @property
    def provenance(self) -> str:
        if self.calibration is None:
            return f"no calibration for verifier {self.verifier.name}: release rests on claim states alone"
        return describe_release(self.calibration)

    @property
    def other_verifier(self) -> str:
        """The verifier the threshold was calibrated for, when it is not the one in use; else empty."""
        if self.calibration is None or self.calibration.verifier == self.verifier.calibrated_as:
            return ""
        return self.calibration.verifier


def gate_in_force(version: ConstitutionVersion | None, labels: ReviewerLabels, verifier: VerifierInUse) -> GateInForce:
    # Without a version in force, the engine's default policy says what a new one would start from.
    policy = version.constitution().policy if version is not None else Policy()
    budget, own = policy.max_unsafe_release_rate, policy.release_calibration
    calibration = release_threshold(verifier.calibrated_as, max_unsafe_release_rate=budget, calibration=own)
    point = None
    if calibration is not None and labels.answers:
        point = operating_point(labels.scores(), calibration.threshold if calibration.met else None)
    return GateInForce(version, budget, calibration, own is not None, point, verifier)


@dataclass(frozen=True)
class StratumRow:
    """One stratum of the calibration in force: its labelled answers, where it releases, and what it released."""

    name: str
    labelled: int
    threshold: str
    """"0.7010", "pooled 0.7382" (too few labels of its own) or "none" (nothing released on a score)."""
    unsafe_upper_bound: float
    automation: float
    released: int
    """Cases of this constitution released as written whose answer was of this stratum."""


@dataclass(frozen=True)
class ReleaseGate:
    """Everything the release-gate page shows for one constitution."""

    constitution: str
    verifier: VerifierInUse
    labels: ReviewerLabels
    in_force: GateInForce
    chosen: BudgetOutcome
    """The budget the admin picked (the one in force until they pick another)."""
    budgets: tuple[BudgetOutcome, ...]
    curve: tuple[OperatingPoint, ...]
    strata: tuple[StratumRow, ...] = ()
    """The calibration in force by stratum (what an answer's evidence is); empty when it has no strata."""

    @property
    def curve_table(self) -> list[OperatingPoint]:
        """The curve's rows, the threshold in force among them even when no labelled answer scores it."""
        keep = {point.threshold for point in (self.in_force.point, self.chosen.point)
                if point is not None and point.threshold is not None}
        rows = curve_rows(list(self.curve), keep=keep)
        in_force = self.in_force.point
        if rows and in_force is not None and in_force.threshold is not None and in_force.threshold not in {
            row.threshold for row in rows
        }:
            rows = sorted([*rows, in_force], key=lambda row: -(row.threshold or 0.0))
        return rows


def release_gate(*, constitution: str, budget: float | None = None) -> ReleaseGate:
    """The release gate of `constitution` on its reviewers' labels; `budget` None means the one in force."""
    verifier = verifier_in_use(constitution)
    labels = reviewer_labels(constitution=constitution, verifier=verifier.name,
                             model_path=verifier.calibrated_as if verifier.cascade else None,
                             scorer_model=verifier.scorer_model)
    in_force = gate_in_force(constitution_in_force(constitution), labels, verifier)
    chosen = budget_outcome(labels, budget if budget is not None else in_force.budget, verifier)
    others = tuple(
        chosen if offered == chosen.budget else budget_outcome(labels, offered, verifier)
        for offered in sorted({*BUDGETS, chosen.budget})
    ) if labels.inconsistent else ()
    return ReleaseGate(constitution, verifier, labels, in_force, chosen, others,
                       tuple(curve(labels.scores())) if labels.answers else (),
                       strata_rows(in_force.calibration, released_by_stratum(constitution)))


def strata_rows(calibration: ReleaseCalibration | None, released: dict[str, int]) -> tuple[StratumRow, ...]:
    """The calibration's strata as the page lists them, each with the cases it released."""
    if calibration is None:
        return ()
    rows = []
    for stratum in calibration.strata:
        bound = stratum.bound
        threshold = ("none" if stratum.threshold is None and not stratum.pooled else
                     f"pooled {calibration.threshold:.4f}" if stratum.pooled else f"{stratum.threshold:.4f}")
        rows.append(StratumRow(stratum.name, bound.consistent + bound.inconsistent, threshold,
                               bound.unsafe_upper_bound, bound.automation, released.get(stratum.name, 0)))
    return tuple(rows)


@dataclass(frozen=True)
class GateSummary:
    """One constitution's line on the release-gate index."""

    constitution: str
    labels: ReviewerLabels
    in_force: GateInForce
    breaker_open: bool = False
    """Blind spot checks stopped its releases (`policy.breaker`)."""

    @property
    def shadow(self) -> bool:
        """Shadow mode: what the gate would release goes to a person until its own labels set a threshold."""
        version = self.in_force.version
        return version is not None and version.constitution().policy.in_shadow


def gate_summaries() -> list[GateSummary]:
    """Every constitution: its labelled answers, the threshold in force, shadow mode and the breaker."""
    breakers_open = open_breaker_names()
    summaries = []
    for row in constitution_rows():
        name = row.document.name
        verifier = verifier_in_use(name)
        labels = reviewer_labels(constitution=name, verifier=verifier.name, scorer_model=verifier.scorer_model)
        version = row.in_force if isinstance(row.in_force, ConstitutionVersion) else None
        summaries.append(GateSummary(name, labels, gate_in_force(version, labels, verifier),
                                     breaker_open=name in breakers_open))
    return summaries
