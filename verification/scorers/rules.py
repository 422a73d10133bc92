"""The rules-only scorer: a logistic model over word overlap and the typed checks' measures.

The fastest path (no model file, about 1,000 claims per CPU-second), and the first input of the learned
scorer, which reads its logit beside the cross-encoder's. Its weights, bias and threshold are on its card
(`rules.json`), fitted by `benchmarks/fit_offline.py --write` on the tune splits only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from verification.scorers import novelty
from verification.scorers.card import RULES_CARD, CardUnreadable, logistic, read_card, write_card
from verification.scorers.features import FEATURE_NAMES, Assessment


def sigmoid(z: float) -> float:
    """The probability a log-odds stands for."""
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))


class RulesScorer:
    """Support from word overlap, coverage and the token model's least supported words."""

    def __init__(self, card: Mapping[str, Any] | None = None) -> None:
        self.card: dict[str, Any] = dict(card if card is not None else _shipped_card())
        """The parameters and what they were fitted on and to (`get_params` reads them)."""
        self.weights, self.bias = logistic(self.card, "rules")
        if tuple(self.weights) != FEATURE_NAMES:
            raise CardUnreadable(f"model card rules: its features are not the measures {', '.join(FEATURE_NAMES)}")
        self.name: str = str(self.card.get("name", "rules/1"))
        """Name and version, part of the verifier's fingerprint."""
        self.threshold = float(self.card["threshold"])
        """Probability of support at or above which a claim may be SUPPORTED."""

    @classmethod
    def load(cls, path: Path = RULES_CARD) -> RulesScorer:
        """The scorer a card file describes."""
        return cls(read_card(path))

    def save(self, path: Path) -> None:
        """Write the scorer's card (its parameters, what it was fitted on, its figures)."""
        write_card(self.card, path)

    def get_params(self) -> dict[str, Any]:
        """The scorer's parameters: weights by feature, bias, threshold."""
        return {"weights": dict(self.weights), "bias": self.bias, "threshold": self.threshold}

    def fingerprint(self) -> dict[str, object]:
        """Everything of the scorer that changes a verdict (the token model's weights included)."""
        return {"name": self.name, "weights": self.weights, "bias": self.bias, "threshold": self.threshold,
                "features": FEATURE_NAMES, "token_weights": novelty.TOKEN_WEIGHTS, "token_bias": novelty.TOKEN_BIAS}

    def logit(self, vector: Sequence[float]) -> float:
        """The logistic model's log-odds that the evidence supports the claim."""
        weights = self.weights
        z = self.bias + sum(weights[name] * value for name, value in zip(FEATURE_NAMES, vector, strict=True))
        return max(-30.0, min(30.0, z))

    def probabilities(self, assessments: Sequence[Assessment]) -> list[float]:
        """P(supported) for each assessed claim."""
        return [sigmoid(self.logit(assessment.vector)) for assessment in assessments]


@cache
def _shipped_card() -> dict[str, Any]:
    return read_card(RULES_CARD)
