"""Scorers: how likely a claim's evidence supports it, for the claims no typed check has decided.

A scorer reads the engine's assessments of a case's claims (retrieved windows and the measures of
`features.py`) and gives each a probability of support; the decider (`offline.py`) turns that into a
state and a release score, after the typed checks, which keep their veto. Two are shipped:
- `rules.RulesScorer`: a logistic model over word overlap; no model file, the fastest path;
- `learned.LearnedScorer`, the default: the MiniLM cross-encoder (`cross_encoder.py`) reading each claim
  against its window, stacked with the rules scorer's logit.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from verification.errors import PermanentError

if TYPE_CHECKING:
    from verification.scorers.features import Assessment

SCORERS = ("learned", "rules")
"""The names `make_scorer` takes: the default first."""


class UnknownScorer(PermanentError):
    """A scorer name that is not one of SCORERS."""


class Scorer(Protocol):
    """Gives each assessed claim its probability of support."""

    name: str
    """Name and version, such as "rules/1"; part of the verifier's fingerprint."""
    threshold: float
    """Probability at or above which the decider may call a claim SUPPORTED."""

    def fingerprint(self) -> dict[str, object]:
        """Everything of the scorer that changes a verdict: weights, thresholds, model file hashes."""
        ...

    def probabilities(self, assessments: Sequence[Assessment]) -> list[float]:
        """P(supported) for each assessment, in order; the claims are scored together, each on its own."""
        ...


def learned_scorer(folder: Path) -> Scorer:
    """The learned scorer with the model in `folder` (a retrained model version), loaded once per process."""
    from verification.scorers.cross_encoder import shipped
    from verification.scorers.learned import LearnedScorer

    return LearnedScorer(shipped(folder))


def make_scorer(name: str | None = None) -> Scorer:
    """The scorer called `name`, else the one VERIFICATION_SCORER names, else "learned"; "learned" loads
    the model in VERIFICATION_MODEL_DIR, else the shipped one, once per process (ModelUnavailable names a
    missing or unreadable file)."""
    name = name or os.environ.get("VERIFICATION_SCORER") or SCORERS[0]
    if name == "rules":
        from verification.scorers.rules import RulesScorer

        return RulesScorer()
    if name == "learned":
        from verification.scorers.cross_encoder import MODEL_DIR

        return learned_scorer(Path(os.environ.get("VERIFICATION_MODEL_DIR") or MODEL_DIR))
    raise UnknownScorer(f"VERIFICATION_SCORER: unknown scorer {name!r}; choose one of {', '.join(SCORERS)}")
