"""The rules-only scorer: a logistic model over word overlap and the typed checks' measures.

The fastest path (no model file, about 1,000 claims per CPU-second), and the first input of the learned
scorer, which reads its logit beside the cross-encoder's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from verification.features import FEATURE_NAMES, Assessment
from verification.novelty import TOKEN_BIAS, TOKEN_WEIGHTS

# Fitted by benchmarks/fit_offline.py on the tune splits only (WiCE claim_dev, SummEdits
# `evaluation`, HaluEval); rerun it and paste its output here after changing a feature.
WEIGHTS: dict[str, float] = {
    "coverage": 0.4016,
    "best_sentence_coverage": 0.0844,
    "global_coverage": 0.3429,
    "missing_words": 0.0075,
    "bigram_coverage": 0.0989,
    "values_confirmed": 0.3780,
    "entities_missing": -0.4493,
    "claim_length": -0.0363,
    "window_missing": -0.0476,
    "names_missing": -0.1883,
    "source_length": 0.0407,
    "best_score": 0.5232,
    "weakest_token": -0.1073,
    "weakest_two_tokens": -0.0421,
    "names_absent": -0.1972,
    "short_source": -0.2583,
    "short_x_window_missing": -0.1119,
    "short_x_coverage": -0.0069,
    "novel_max": -0.4883,
    "novel_top2": -0.1554,
    "novel_expected": 0.0146,
    "value_unconfirmed": -0.2982,
    "name_absent": -0.6013,
}
BIAS = 0.0139
THRESHOLD = 0.45
"""Probability of support at or above which a claim is SUPPORTED."""


def rules_logit(vector: Sequence[float]) -> float:
    """The logistic model's log-odds that the evidence supports the claim."""
    z = BIAS + sum(WEIGHTS[name] * value for name, value in zip(FEATURE_NAMES, vector, strict=True))
    return max(-30.0, min(30.0, z))


def sigmoid(z: float) -> float:
    """The probability a log-odds stands for."""
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))


class RulesScorer:
    """Support from word overlap, coverage and the token model's least supported words."""

    name = "rules/1"
    threshold = THRESHOLD

    def fingerprint(self) -> dict[str, object]:
        """Everything of the scorer that changes a verdict."""
        return {"name": self.name, "weights": WEIGHTS, "bias": BIAS, "threshold": THRESHOLD,
                "features": FEATURE_NAMES, "token_weights": TOKEN_WEIGHTS, "token_bias": TOKEN_BIAS}

    def probabilities(self, assessments: Sequence[Assessment]) -> list[float]:
        """P(supported) for each assessed claim."""
        return [sigmoid(rules_logit(assessment.vector)) for assessment in assessments]
