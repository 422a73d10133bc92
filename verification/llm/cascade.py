"""The verification cascade: the offline verifier decides what it can, the model sees only what it cannot.

Every claim is read by the offline verifier first. It settles a claim when a typed check decided
against it (a contradiction, a value no cited sentence states: the checks keep their veto) or when its
release score is inside the calibrated safe band. Only the rest, the uncertain band, go to the
model-backed verifier, batched per case and run concurrently. A claim the model cannot decide (a
timeout, a 429, output that fails validation, a refusal) keeps the offline reading and goes to a person:
never to SUPPORTED.

Which claims go to the model is the constitution's `Policy.model_verification` (`Route`); left unset,
the uncertain band when the offline verifier has a calibration in force (a safe band exists), every
claim when it has none. Each path has its own release calibration: a claim the model decided is released
only by a calibration made from claims the model decided (`decided_by` names the verifier).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

from verification.claims.extraction import ExtractedClaim
from verification.decision.calibration import ReleaseCalibration
from verification.decision.methods import Method, unread_methods
from verification.decision.offline import OfflineVerifier
from verification.decision.strata import UNSCORED
from verification.decision.verifier import Verdict, Verifier, identity
from verification.llm.cove import ModelVerifier
from verification.policy.constitution import Policy, Route
from verification.types import Source, State, sha256_text

_VERSION = "cascade/1"
_UNREAD = unread_methods()

__all__ = ["Cascade", "CascadeVerifier", "Route", "escalation", "release_paths"]


def escalation(verdict: Verdict, safe_threshold: float | None) -> str | None:
    """Why the claim goes to the model, or None when the offline verdict `verdict` settles it."""
    if verdict.method == Method.NOT_CHECKABLE or verdict.stratum == "proven":
        return None  # a proof settles the claim whatever the calibration: the model has nothing to add
    if (verdict.stratum == UNSCORED and verdict.state is not State.REFUTED) or verdict.method in _UNREAD:
        # Read by rules alone, or not read at all: the model reads every language, and reads a bare yes or
        # no with the question it asserts.
        return f"offline {verdict.state.value}: {verdict.rationale}"
    if verdict.method != Method.SCORED and verdict.state not in (State.SUPPORTED, State.CONFLICTING):
        # A check's veto: a contradiction, or a committed value no cited sentence states. Sources that
        # disagree are no verdict on the claim: the model reads them.
        return None
    score = verdict.release_score or 0.0
    if safe_threshold is None:
        return f"offline {verdict.state.value} at {score:.2f}; the offline verifier has no calibrated safe band"
    if verdict.state is State.SUPPORTED and score >= safe_threshold:
        return None
    return f"offline {verdict.state.value} at {score:.2f}, below the safe band ({safe_threshold:.2f})"


@dataclass(frozen=True)
class Cascade:
    """The offline and the model-backed verifier, not yet bound to a constitution's policy.

    The engine binds it per run (`bind`): the route and the safe band come from the policy. Read on its
    own it verifies every claim with the model, as the model verifier alone does.
    """

    offline: OfflineVerifier
    model: ModelVerifier

    @property
    def name(self) -> str:
        return self.model.name

    def config_fingerprint(self) -> str:
        return self.model.config_fingerprint()

    def verify(self, claims: Sequence[ExtractedClaim], sources: Sequence[Source]) -> list[Verdict]:
        return self.model.verify(claims, sources)

    def bind(self, policy: Policy) -> Verifier:
        """The verifier a run under `policy` uses: offline alone, the model alone, or the cascade."""
        calibration = policy.calibration_for(identity(self.offline))
        met = calibration if calibration is not None and calibration.met else None
        route = policy.model_verification or (Route.UNCERTAIN if met is not None else Route.ALL)
        if route is Route.OFF:
            return self.offline
        if route is Route.ALL:
            return self.model
        return CascadeVerifier(self.offline, self.model, met.threshold if met else None, met)


@dataclass(frozen=True)
class CascadeVerifier:
    """The uncertain band to the model, the rest as the offline verifier read it; implements `Verifier`."""

    offline: OfflineVerifier
    model: ModelVerifier
    safe_threshold: float | None
    """The offline release threshold in force: a SUPPORTED claim scoring at least this is settled."""
    calibration: ReleaseCalibration | None = None
    """The offline calibration in force, where it has strata: then the band is the threshold of the
    stratum the answer's settled claims will be gated at (`band`), not the pooled `safe_threshold`."""

    name: str = _VERSION

    def config_fingerprint(self) -> str:
        """Both paths and the band between them."""
        settings: dict[str, object] = {
            "offline": identity(self.offline), "model": identity(self.model), "band": self.safe_threshold,
        }
        if self.calibration is not None and self.calibration.strata:
            settings["strata"] = [(each.name, each.threshold, each.pooled) for each in self.calibration.strata]
        return sha256_text(json.dumps(settings, sort_keys=True))

    def verify(self, claims: Sequence[ExtractedClaim], sources: Sequence[Source]) -> list[Verdict]:
        """One verdict per claim, in order: offline for every claim, then the model for the uncertain band."""
        verdicts = self.offline.verify(claims, sources)
        sent = self.uncertain(verdicts)
        if not sent:
            return verdicts
        answers = self.model.verify_each([claims[i] for i, _ in sent], sources)
        decided_by = identity(self.model)
        for (position, why), answer in zip(sent, answers, strict=True):
            offline = verdicts[position]
            if isinstance(answer, Verdict) and answer.state is not State.UNRESOLVED:
                verdicts[position] = replace(answer, decided_by=decided_by, escalation=why)
            else:
                verdicts[position] = _fallback(offline, answer, why)
        return verdicts


    def uncertain(self, verdicts: Sequence[Verdict]) -> list[tuple[int, str]]:
        """The claims to send to the model, by position, and why.

        Without strata, the band is the pooled threshold. With them, the claims the offline verifier settles
        are gated at the threshold of their own stratum (`ReleaseCalibration.for_answer`), so the band is
        that threshold; sending a claim can change the stratum of those left, so the band is read again
        until no claim left is below it. Each round sends more, so it ends, and every claim settled
        offline clears the gate it will meet: none is held for want of the model's reading."""
        sent: dict[int, str] = {}
        while True:
            band = self.safe_threshold
            if self.calibration is not None and self.calibration.strata:
                gate = self.calibration.for_answer([verdict for i, verdict in enumerate(verdicts) if i not in sent])
                band = gate.threshold if gate.met else None
            more = {i: why for i, verdict in enumerate(verdicts)
                    if i not in sent and (why := escalation(verdict, band))}
            if not more:
                return sorted(sent.items())
            sent.update(more)


def release_paths(verifier: Verifier) -> tuple[Verifier, tuple[Verifier, ...]]:
    """The verifier whose calibration gates a run's claims, and those that decide claims under their own."""
    if isinstance(verifier, CascadeVerifier):
        return verifier.offline, (verifier.model,)
    return verifier, ()


def _fallback(offline: Verdict, failure: Verdict | Exception, why: str) -> Verdict:
    """The offline reading, marked undecided so that a person looks: what a failed model call leaves."""
    if isinstance(failure, Verdict):
        error = failure.rationale
        calls, tokens = failure.extra.get("model_calls", 0), failure.extra.get("model_tokens", 0)
        record = failure.model_record
    else:
        error, calls, tokens, record = str(failure), 1, 0, None  # the call that raised was made
    score = offline.release_score or 0.0
    return Verdict(
        state=State.UNRESOLVED,
        evidence=offline.evidence,
        confidence=0.0,
        release_score=0.0,
        method="cascade:model-failed",
        rationale=(f"The model could not verify this claim ({error}); the offline verifier read it as "
                   f"{offline.state.value} at {score:.2f}. A person decides."),
        model_record=record,
        escalation=why,
        extra={"offline_state": offline.state.value, "offline_method": offline.method,
               "offline_release_score": score, "model_calls": calls, "model_tokens": tokens},
    )
