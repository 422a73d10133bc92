"""The one interface every verifier implements, offline or model-backed.

A verifier sees one claim and the case's sources, never the draft or the other claims
(chain-of-verification: a claim checked with the draft in view tends to be confirmed by it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from verification.types import EvidenceSpan, ModelCallRecord, Source, State, sha256_text

if TYPE_CHECKING:
    from verification.claims.extraction import ExtractedClaim


@dataclass(frozen=True)
class Verdict:
    """What a verifier concluded about one claim."""

    state: State
    """The verification state."""
    evidence: tuple[EvidenceSpan, ...] = ()
    """Spans that bear on the claim, best first; each quote equals its source slice."""
    confidence: float = 0.5
    """How sure the verifier is, 0..1."""
    release_score: float | None = None
    """How safe the claim is to release as written, 0..1 (a support probability; 0 for a contradiction)."""
    method: str = ""
    """Which procedure decided, such as "offline:typed-mismatch" or "model:<id>"."""
    rationale: str = ""
    """One line a reviewer can read: why this state."""
    question: str | None = None
    """The verification question asked, where one was."""
    model_record: ModelCallRecord | None = None
    """Provenance when a model decided."""
    extra: dict[str, object] = field(default_factory=dict)
    """Verifier-specific details kept for the audit (scores, mismatching values)."""
    decided_by: str | None = None
    """In a cascade, the verifier ("name fingerprint") whose verdict this is when it is not the run's own:
    the release gate applies that verifier's calibration to the score."""
    escalation: str | None = None
    """In a cascade, why the offline verdict was sent to the model; None when it was not."""
    stratum: str | None = None
    """What the claim's evidence is (`strata.STRATA`), which picks the release threshold of an answer;
    None where the verifier gives none (the model's verdicts: the model path's calibration gates them)."""


class Verifier(Protocol):
    """Checks claims, each on its own, against the case's sources only."""

    @property
    def name(self) -> str:
        """Name and version, such as "offline/1"; part of the verification cache key."""
        ...

    def config_fingerprint(self) -> str:
        """A stable string of the settings that change verdicts; part of the cache key."""
        ...

    def verify(self, claims: Sequence[ExtractedClaim], sources: Sequence[Source]) -> list[Verdict]:
        """One verdict per claim, in order. Each claim is judged independently of the others."""
        ...


def fingerprint(verifier: Verifier) -> str:
    """The verifier's configuration as 16 hex digits (the offline verifier's own form)."""
    settings = verifier.config_fingerprint()
    return settings[:16] if re.fullmatch(r"[0-9a-f]{16,64}", settings) else sha256_text(settings)[:16]


def identity(verifier: Verifier) -> str:
    """Name, version and configuration, as calibrations name the verifier they were made for
    ("offline/7 10b68657cdbbcbc5")."""
    return f"{verifier.name} {fingerprint(verifier)}"
