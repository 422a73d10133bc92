"""Where the recovery loop stops, and why: the budgets a run spends against, and the final decision.

Budgets are caps, not tallies: a verification, a model call or a repair starts only while the budgets
left can pay for it (model calls counted at their worst case, every retry included). A claim the budget
did not reach is UNRESOLVED, never assumed supported, and the run stops with that budget's reason.
A run that got through its repairs is released only when nothing critical is undecided, policy does not
ask for a person and every claim clears the calibrated release threshold.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from verification.claims.language import name as language_name
from verification.decision.calibration import ReleaseCalibration, held_back
from verification.decision.strata import PROVEN, answer_stratum
from verification.decision.verifier import Verdict
from verification.llm.client import MAX_ATTEMPTS
from verification.policy.constitution import Policy
from verification.types import Candidate, Claim, Reason, Severity, State, Terminal

# No one could decide these: a critical one goes to a person whatever the policy says.
_UNDECIDED = frozenset({State.NOT_VERIFIABLE, State.UNRESOLVED, State.CONFLICTING})
_BUDGETS = {
    Reason.VERIFIER_BUDGET_EXHAUSTED: "verifier",
    Reason.MODEL_BUDGET_EXHAUSTED: "model",
    Reason.TIME_BUDGET_EXHAUSTED: "time",
}


@dataclass(frozen=True)
class Outcome:
    """Where the loop stopped and why."""

    terminal: Terminal
    """The terminal state."""
    reason: Reason
    """The reason code."""
    policy_reason: str | None = None
    """Why policy sends it to a person, in words."""
    budget_reason: str | None = None
    """Which budget ran out, if one did."""


@dataclass
class Budget:
    """What one run has spent against its policy's caps; each check gives the stop when they cannot pay."""

    policy: Policy
    """The caps."""
    uses_model: bool
    """Whether a model is configured: then every new candidate costs at least one role call."""
    verifier_calls: int = 0
    """Claim verifications run so far (cache hits are free)."""
    model_calls: int = 0
    """Model calls made so far, retries included."""
    model_tokens: int = 0
    """Tokens the model server reported for those calls."""
    started: float = field(default_factory=time.monotonic)
    """When the run started, on the monotonic clock."""

    def before_repair(self, attempts: int) -> Outcome | None:
        """The stop before a repair: one that the budgets left cannot carry through is not started."""
        if attempts >= self.policy.max_repairs:
            return exhausted(Reason.REPAIR_BUDGET_EXHAUSTED,
                             f"{attempts} repair attempts, the budget is {self.policy.max_repairs}")
        if self.verifier_calls >= self.policy.max_verifier_calls:
            return exhausted(Reason.VERIFIER_BUDGET_EXHAUSTED,
                             f"{self.verifier_calls} verifier calls, the budget is {self.policy.max_verifier_calls}")
        # With a model, every new candidate costs at least one role call (the critic's).
        return self.time_stop() or self.model_stop(MAX_ATTEMPTS if self.uses_model else 0)

    def time_stop(self) -> Outcome | None:
        """The stop when the run's wall time is up."""
        elapsed_ms = (time.monotonic() - self.started) * 1000
        if elapsed_ms >= self.policy.max_wall_ms:
            return exhausted(Reason.TIME_BUDGET_EXHAUSTED,
                             f"{elapsed_ms:.0f} ms, the budget is {self.policy.max_wall_ms} ms")
        return None

    def model_stop(self, calls: int) -> Outcome | None:
        """The stop when `calls` more model calls cannot be made: the time is up or the budget cannot afford them."""
        if not calls:
            return None
        if (stop := self.time_stop()) is not None:
            return stop
        if self.model_calls + calls > self.policy.max_model_calls:
            return exhausted(Reason.MODEL_BUDGET_EXHAUSTED,
                             f"{self.model_calls} model calls, {calls} more could be needed and the budget is "
                             f"{self.policy.max_model_calls}")
        return None

    def affordable(self, wanted: int, per_claim: int) -> tuple[int, Outcome | None]:
        """How many of `wanted` verifications the budgets allow now (at least one), or the stop when none.

        `per_claim` is the most model calls one verification can take (0 for a verifier without a model).
        """
        if (stop := self.time_stop()) is not None:
            return 0, stop
        left = self.policy.max_verifier_calls - self.verifier_calls
        if left <= 0:
            why = f"{self.verifier_calls} verifier calls, the budget is {self.policy.max_verifier_calls}"
            return 0, exhausted(Reason.VERIFIER_BUDGET_EXHAUSTED, why)
        if per_claim:
            # Batches sized for the worst case (every call retried) keep the cap exact; what a batch
            # did not spend pays for the next one.
            by_model = (self.policy.max_model_calls - self.model_calls) // per_claim
            if by_model <= 0:
                return 0, exhausted(Reason.MODEL_BUDGET_EXHAUSTED,
                                    f"{self.model_calls} model calls, a claim can take {per_claim} more and the "
                                    f"budget is {self.policy.max_model_calls}")
            left = min(left, by_model)
        return min(wanted, left), None


def exhausted(reason: Reason, why: str) -> Outcome:
    """ABSTAIN because a budget ran out; `why` says which and how far it got."""
    return Outcome(Terminal.ABSTAIN, reason, "a budget ran out before the answer was safe", why)


def unverified(stop: Outcome) -> Verdict:
    """The verdict of a claim the budget did not reach."""
    # Never a guess: a claim the budget did not reach is undecided, and the case goes to a person.
    budget = _BUDGETS.get(stop.reason, "run")
    return Verdict(
        state=State.UNRESOLVED,
        confidence=0.0,
        method="budget",
        rationale=f"Not verified: the {budget} budget ran out ({stop.budget_reason}).",
    )


def unrepaired(failing: Sequence[Claim]) -> Outcome:
    """REVIEW for claims that are still not supported when no repair is left to try."""
    critical = _critical_ids(failing)
    if critical:
        why = f"critical claims are not supported: {', '.join(critical)}"
        return Outcome(Terminal.REVIEW, Reason.CRITICAL_CLAIM, why)
    return Outcome(Terminal.REVIEW, Reason.UNSUPPORTED_CLAIM,
                   f"claims are not supported: {', '.join(c.id for c in failing)}")


def unreadable(claims: Sequence[Claim]) -> Outcome:
    """REVIEW for claims written in a language the verifier does not read, the language named."""
    named = dict.fromkeys(language_name(c.language) for c in claims)
    why = f"written in {', '.join(named)}, which the offline verifier does not read: {', '.join(c.id for c in claims)}"
    return Outcome(Terminal.REVIEW, Reason.LANGUAGE_NOT_SUPPORTED, why)


def permit_or_review(
    candidates: Sequence[Candidate],
    policy: Policy,
    calibration: ReleaseCalibration | None,
    path_calibrations: Mapping[str, ReleaseCalibration | None] | None = None,
    excused: frozenset[str] = frozenset(),
) -> Outcome:
    """The decision on a chain whose last candidate passed: PERMIT, or REVIEW when a person should look.

    `calibration` gates every claim but those another verifier decided (`Claim.decided_by`, in a cascade):
    those are gated by that verifier's own entry in `path_calibrations`, and go to a person without one.
    `excused` are MINOR claims the constitution lets out with its note (`Policy.minor_unsupported`).
    A claim proven word for word (stratum `proven`) needs no calibration: an answer of proven claims is
    released without one, and a proven claim the model decided without the model path's.
    """
    # A promise no one could check is never released, whatever the policy says (NOT_VERIFIABLE
    # included: that a verifier cannot check a refund promise does not make it true).
    undecided = _critical_ids(c for candidate in candidates for c in candidate.claims if c.state in _UNDECIDED)
    if undecided:
        why = f"critical claims could not be verified: {', '.join(undecided)}"
        return Outcome(Terminal.REVIEW, Reason.CRITICAL_CLAIM, why)
    original = candidates[0]
    critical = _critical_ids(c for c in original.claims if c.state is not State.SUPPORTED)
    if critical and policy.review_critical_claims:
        why = f"critical claims were not supported in the original answer: {', '.join(critical)}"
        return Outcome(Terminal.REVIEW, Reason.CRITICAL_CLAIM, why)
    final = [c for c in candidates[-1].claims if c.id not in excused]
    if calibration is None:
        if answer_stratum(final) == PROVEN:
            # A proof is not a probability: every claim aligned word for word to what its source says
            # needs no score, so no calibration of one (a model's verdict confirmed by its quotes included).
            return Outcome(Terminal.PERMIT, Reason.REPAIRED if len(candidates) > 1 else Reason.ALL_SUPPORTED)
        why = ("no release calibration was made for the verifier as it is configured now, so no score is "
               "known to keep unsafe releases within the budget")
        return Outcome(Terminal.REVIEW, Reason.NOT_CALIBRATED, why)
    paths = path_calibrations or {}
    for name, own in paths.items():
        decided = [c.id for c in final if c.decided_by == name and c.state is State.SUPPORTED and c.stratum != PROVEN]
        if decided and own is None:
            why = (f"claims decided by {name} ({', '.join(decided)}) have no release calibration of their own: "
                   "no score of that verifier is known to keep unsafe releases within the budget")
            return Outcome(Terminal.REVIEW, Reason.NOT_CALIBRATED, why)
    # The offline verifier's claims are gated at the threshold of the answer's stratum (what its evidence is).
    offline = calibration.for_answer(final)
    gated = [(c, paths.get(c.decided_by or "", offline)) for c in final]
    doubtful = [(c, gate) for c, gate in gated if gate is not None and held_back([c], gate)]
    if doubtful:
        scores = ", ".join(f"{c.id} {c.release_score or 0:.2f}" for c, _ in doubtful)
        threshold = " / ".join(dict.fromkeys(f"{gate.threshold:.2f}" for _, gate in doubtful))
        why = (f"supported, but below the release threshold {threshold} that keeps "
               f"unsafe releases under {calibration.max_unsafe_release_rate:.0%}: {scores}")
        return Outcome(Terminal.REVIEW, Reason.BELOW_RELEASE_THRESHOLD, why)
    return Outcome(Terminal.PERMIT, Reason.REPAIRED if len(candidates) > 1 else Reason.ALL_SUPPORTED)


def _critical_ids(claims: Iterable[Claim]) -> list[str]:
    """The ids of the CRITICAL ones among `claims`, once each, in order."""
    return list(dict.fromkeys(c.id for c in claims if c.severity is Severity.CRITICAL))
