"""Verifier doubles for the recovery loop: states decided by the claim's words, not by its position."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from verification.claims.extraction import ExtractedClaim
from verification.decision.calibration import ReleaseCalibration
from verification.decision.verifier import Verdict, Verifier, identity
from verification.policy.constitution import DEFAULT, Constitution, Route
from verification.types import EvidenceSpan, Source, State


@dataclass
class KeywordVerifier:
    """SUPPORTED unless the claim contains one of `states`' keys; remembers every claim it was asked.

    The evidence is the first source sentence sharing the keyword, or the first source's opening words, so
    repairs that read evidence have something real to read.
    """

    states: Mapping[str, State]
    name: str = "keyword/1"
    seen: list[str] = field(default_factory=list)

    def config_fingerprint(self) -> str:
        return ",".join(f"{key}={state.value}" for key, state in sorted(self.states.items()))

    def verify(self, claims: Sequence[ExtractedClaim], sources: Sequence[Source]) -> list[Verdict]:
        verdicts = []
        for claim in claims:
            self.seen.append(claim.text)
            state = next((s for key, s in self.states.items() if key.casefold() in claim.text.casefold()), None)
            source = sources[0]
            span = EvidenceSpan(source_id=source.id, start=0, end=min(5, len(source.text)), quote=source.text[:5])
            verdicts.append(
                Verdict(
                    state=state or State.SUPPORTED,
                    evidence=(span,),
                    confidence=0.9,
                    method="keyword",
                    rationale=f"told {state or State.SUPPORTED}",
                )
            )
        return verdicts


def calibrated(verifier: Verifier, constitution: Constitution | None = None) -> Constitution:
    """`constitution` (default: "default") with a release calibration made for exactly `verifier`.

    A verifier double's scores were never calibrated, so without one every answer it clears goes to a
    person (NOT_CALIBRATED); tests of what happens after the gate give it a threshold of its own: 0, so
    every SUPPORTED claim clears it and the states alone decide.
    """
    base = constitution or DEFAULT
    calibration = ReleaseCalibration(threshold=0.0, max_unsafe_release_rate=0.05, confidence=0.95,
                                     verifier=identity(verifier), groups=[], computed="2026-12-01T00:00:00+00:00")
    return base.model_copy(update={"policy": base.policy.model_copy(update={"release_calibration": calibration})})


def every_claim(constitution: Constitution | None = None) -> Constitution:
    """`constitution` (default: "default") sending every claim to the model, the offline verifier not
    consulted: chain-of-verification on its own, as tests of the model path read it."""
    base = constitution or DEFAULT
    return base.model_copy(update={"policy": base.policy.model_copy(update={"model_verification": Route.ALL})})
