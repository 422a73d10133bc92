"""The unsafe release rate, measured: blind spot checks of released answers, per constitution.

Spot checks are a uniform sample of the answers the engine released on its own. A spot check counts
(n) once every claim of the answer it released carries a reviewer's label; it is unsafe (k) when any
of those claims is labelled refuted or not in the sources. So k/n estimates the share of released
answers that were unsafe, and its 95% Wilson interval says how far that estimate can be trusted. The
upper bound is compared with the constitution's risk budget (`policy.max_unsafe_release_rate`): above
it, the console cannot show that the constitution keeps its promise (too many unsafe releases, or too
few spot checks yet to tell).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from reviewconsole.intake.models import Candidate, Claim, decided_by_model
from reviewconsole.policy.models import ConstitutionVersion
from reviewconsole.review.labels import UNSAFE_LABELS
from reviewconsole.review.models import ClaimLabel, Escalation
from verification import DEFAULT_CONSTITUTION, Constitution, Origin

Z_95 = 1.959963984540054
"""The standard normal quantile for a two-sided 95% interval."""


def wilson_interval(k: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval for a proportion seen `k` times in `n` (two-sided; 95% with the default z).

    With p = k/n:  centre = (p + z²/2n) / (1 + z²/n),  half-width = z·√(p(1−p)/n + z²/4n²) / (1 + z²/n).
    Unlike the textbook p ± z·√(p(1−p)/n), it stays inside [0, 1] and does not shrink to a point when
    k = 0, which is where a safe system's count sits. With n = 0 nothing is known: (0, 1).
    """
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= k <= n:
        raise ValueError(f"k must be between 0 and n, not {k} of {n}")
    p = k / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class UnsafeReleaseRate:
    """One constitution's spot checks and what they say about its released answers."""

    constitution: str
    spot_checks: int
    """n: spot checks with every claim of the released answer labelled."""
    unsafe: int
    """k: of those, the ones with a claim labelled refuted or not in the sources."""
    blind: int
    """Of the n, those whose every label was made blind (before the engine's verdicts were shown)."""
    pending: int
    """Spot checks in the period with claims still to label: not in n yet."""
    budget: float | None
    """The risk budget compared with: that of the newest version the spot checks ran under."""
    budget_version: int | None
    versions: list[int] = field(default_factory=list)
    """The versions the counted spot checks pinned, oldest first."""
    by_model: bool = False
    """The row of released answers in which the model decided a claim (a cascade's model path, with its own
    calibration); False: answers the offline verifier released alone."""
    stratum: str | None = None
    """With `by_stratum`: the calibration stratum of the released answers (what their evidence was); "" for
    answers the run recorded none for."""

    @property
    def estimate(self) -> float | None:
        return self.unsafe / self.spot_checks if self.spot_checks else None

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.unsafe, self.spot_checks)

    @property
    def low(self) -> float:
        return self.interval[0]

    @property
    def high(self) -> float:
        return self.interval[1]

    @property
    def over_budget(self) -> bool:
        """The interval's upper bound is above the budget: safety is not shown (only once there is data)."""
        return bool(self.spot_checks) and self.budget is not None and self.high > self.budget

    # As the page prints them: one decimal, so 1 in 12 reads 8.3%, not 8%.
    @property
    def estimate_text(self) -> str:
        return percent(self.estimate) if self.estimate is not None else "—"

    @property
    def interval_text(self) -> str:
        return f"{percent(self.low)} – {percent(self.high)}" if self.spot_checks else "—"

    @property
    def high_text(self) -> str:
        return percent(self.high)

    @property
    def budget_text(self) -> str:
        return f"{self.budget * 100:g}%" if self.budget is not None else "—"


def percent(share: float) -> str:
    return f"{share * 100:.1f}%"


@dataclass
class _Group:
    counted: int = 0
    unsafe: int = 0
    blind: int = 0
    pending: int = 0
    versions: dict[int, float] = field(default_factory=dict)


def unsafe_release_rates(*, since: datetime, until: datetime, by_stratum: bool = False) -> list[UnsafeReleaseRate]:
    """Per constitution (by name), the spot checks drawn in [since, until) and the unsafe share among them; with
    `by_stratum`, per constitution and calibration stratum of the released answers."""
    rows = Escalation.objects.filter(is_spot_check=True, created_at__gte=since, created_at__lt=until)
    strata = dict(rows.values_list("case_id", "case__run_record__release_stratum")) if by_stratum else {}
    spot_checks = list(rows.values_list("case_id", "case__constitution_pin_id", "case__constitution_name"))
    if not spot_checks:
        return []
    case_ids = [case_id for case_id, _, _ in spot_checks]
    released = _released_candidates(case_ids)
    claims_of: dict[int, set[int]] = defaultdict(set)
    for candidate_id, claim_id in Claim.objects.filter(candidate_id__in=released.values()).values_list(
        "candidate_id", "pk"
    ):
        claims_of[candidate_id].add(claim_id)
    labels_of: dict[int, list[tuple[str, bool]]] = defaultdict(list)
    for claim_id, label, blind in ClaimLabel.objects.filter(claim__candidate_id__in=released.values()).values_list(
        "claim_id", "label", "blind"
    ):
        labels_of[claim_id].append((label, blind))
    pins = {
        pin.pk: pin
        for pin in ConstitutionVersion.objects.filter(pk__in={pin for _, pin, _ in spot_checks if pin})
        .select_related("document")
    }
    budgets = {pk: Constitution.model_validate(pin.content).policy.max_unsafe_release_rate for pk, pin in pins.items()}
    by_model = set(Claim.objects.filter(candidate_id__in=released.values()).filter(decided_by_model())
                   .values_list("candidate_id", flat=True))
    groups: dict[tuple[str, bool, str | None], _Group] = defaultdict(_Group)
    for case_id, pin_id, name in spot_checks:
        pin = pins.get(pin_id)
        candidate = released.get(case_id, -1)
        stratum = (strata.get(case_id) or "") if by_stratum else None
        group = groups[(pin.document.name if pin else (name or DEFAULT_CONSTITUTION.name), candidate in by_model,
                        stratum)]
        claims = claims_of.get(candidate, set())
        if not claims:
            continue  # nothing was released that a person could label
        if any(claim not in labels_of for claim in claims):
            group.pending += 1
            continue
        group.counted += 1
        labels = [label for claim in claims for label in labels_of[claim]]
        group.unsafe += any(label in UNSAFE_LABELS for label, _ in labels)
        group.blind += all(blind for _, blind in labels)
        if pin is not None:
            group.versions[pin.number] = budgets[pin.pk]
    rates = []
    for (name, model_path, stratum), group in sorted(groups.items(), key=lambda item: (item[0][0], item[0][1],
                                                                                     item[0][2] or "")):
        newest = max(group.versions) if group.versions else None
        rates.append(UnsafeReleaseRate(
            constitution=name, spot_checks=group.counted, unsafe=group.unsafe, blind=group.blind,
            pending=group.pending, budget=group.versions[newest] if newest is not None else None,
            budget_version=newest, versions=sorted(group.versions), by_model=model_path, stratum=stratum,
        ))
    return rates


def _released_candidates(case_ids: list[int]) -> dict[int, int]:
    """Case id -> its released candidate: the engine's last version (a reviewer's edit was never released)."""
    released: dict[int, tuple[int, int]] = {}
    engine = Candidate.objects.filter(case_id__in=case_ids).exclude(origin=Origin.REVIEWER.value)
    for case_id, pk, position in engine.values_list("case_id", "pk", "position"):
        if case_id not in released or position > released[case_id][1]:
            released[case_id] = (pk, position)
    return {case_id: pk for case_id, (pk, _) in released.items()}
