"""What the evidence of an answer's claims is (its stratum), and an answer's release score: what the release
gate reads of a run's claims before it applies a threshold (`calibration`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from verification.types import State

PROVEN = "proven"
"""The stratum of a claim aligned word for word to a cited span: released at the top of the scale."""

STRATA = (PROVEN, "aligned", "partial", "bare")
"""What the evidence of an answer's claims is, strongest first; an answer is in the stratum of its weakest
claim. proven: every claim aligned word for word to a cited span (`checks/proof/`); aligned: every
word of each claim is in the sentences retrieved for it, though no span proves it; partial: some word of
a claim is in no retrieved sentence; bare: a claim without a verb, read with the question it answers."""


UNSCORED = "unscored"
"""The stratum of a claim in a language no scorer was trained for (`language.SCORED`): no calibration has
labels for it, so it has no threshold and nothing in it is released on a score; its claims are released
only on proof, which puts them in `proven`. It is weaker than every stratum of `STRATA`."""



class Scored(Protocol):
    """A claim or a verdict: anything with a state and a release score."""

    @property
    def state(self) -> State:
        """The verification state."""
        ...

    @property
    def release_score(self) -> float | None:
        """How safe the claim is to release as written, 0..1; None when the verifier gives no score."""
        ...


class Stratified(Scored, Protocol):
    """A claim or a verdict with the stratum its evidence puts it in."""

    @property
    def stratum(self) -> str | None:
        """`STRATA`'s name for what its evidence is; None where the verifier gives none (the model's)."""
        ...

    @property
    def decided_by(self) -> str | None:
        """In a cascade, the verifier that decided the claim when it is not the run's own (the model)."""
        ...


def answer_stratum(claims: Iterable[Stratified]) -> str | None:
    """The stratum of an answer: its weakest checkable claim's (`STRATA`, strongest first). None when a
    claim has none (decided by the model, whose own calibration gates it) or the answer has no claim."""
    strata = [claim.stratum for claim in claims if claim.state is not State.NOT_VERIFIABLE]
    if UNSCORED in strata:
        return UNSCORED
    if not strata or any(stratum not in STRATA for stratum in strata):
        return None
    return max(strata, key=STRATA.index)


def gated_stratum(claims: Iterable[Stratified]) -> str | None:
    """The stratum the run's own calibration gates an answer at: that of the claims the run's verifier
    decided. In a cascade, a claim the model decided is gated by the model path's calibration, so it does
    not weaken the stratum of the claims the offline verifier settled."""
    return answer_stratum([claim for claim in claims if claim.decided_by is None])


def answer_score(claims: Iterable[Scored]) -> float:
    """The weakest claim's release score; a claim that is not SUPPORTED scores 0, no claim at all 0."""
    scores = [claim_score(claim) for claim in claims if claim.state is not State.NOT_VERIFIABLE]
    return min(scores) if scores else 0.0


def claim_score(claim: Scored) -> float:
    """A claim's release score as the gate reads it: 0 unless it is SUPPORTED."""
    if claim.state is not State.SUPPORTED:
        return 0.0
    return claim.release_score if claim.release_score is not None else 0.0
