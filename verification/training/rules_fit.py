"""Fitting the rules-only scorer: the token model and the claim model, each a logistic regression, and the
card that carries what they learnt (`scorers/rules.json`). The data they are fitted on are gathered by
`benchmarks/fit_offline.py` from the tune splits only."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from verification.scorers.features import FEATURE_NAMES
from verification.scorers.novelty import TOKEN_FEATURES
from verification.scorers.rules import RulesScorer

SOFTMIN_SHARPNESS = 8.0
"""How closely a record's score follows its weakest claim's (the soft minimum's sharpness)."""


def fit_token_model(x: np.ndarray, y: np.ndarray, steps: int = 3000, l2: float = 1e-3) -> tuple[np.ndarray, float]:
    """Plain logistic regression by gradient descent from zero: one row per claim word, y = 1 for a word of
    the unsupported part."""
    params = np.zeros(x.shape[1] + 1)
    for _ in range(steps):
        probability = 1 / (1 + np.exp(-(x @ params[:-1] + params[-1])))
        grad = np.append(x.T @ (probability - y), (probability - y).sum()) / len(y)
        params -= grad + l2 * np.append(params[:-1], 0.0)
    return params[:-1], float(params[-1])


def fit_weakest_claim(records: Sequence[np.ndarray], gold: np.ndarray, sample_weight: np.ndarray, steps: int,
                      l2: float) -> tuple[np.ndarray, float]:
    """Logistic weights over claim measures, fitted per record: a record (its claims' rows) is supported when
    its weakest claim is, so its score is a soft minimum of its claims' and the log loss is the record's.
    Adam from zero, so the same data give the same weights."""
    stacked = np.vstack(records)
    owner = np.concatenate([np.full(len(rows), i) for i, rows in enumerate(records)])
    mean, scale = stacked.mean(axis=0), stacked.std(axis=0) + 1e-9
    x = (stacked - mean) / scale
    params = np.zeros(x.shape[1] + 1)
    moment, velocity = np.zeros_like(params), np.zeros_like(params)
    for step in range(1, steps + 1):
        z = x @ params[:-1] + params[-1]
        exp = np.exp(-SOFTMIN_SHARPNESS * (z - z.min()))
        totals = np.bincount(owner, weights=exp, minlength=len(records))
        record_z = z.min() - np.log(totals) / SOFTMIN_SHARPNESS
        share = exp / totals[owner]
        probability = 1 / (1 + np.exp(-record_z))
        d_record = sample_weight * (probability - gold)
        d_claim = d_record[owner] * share
        grad = np.append(x.T @ d_claim, d_claim.sum()) + l2 * np.append(params[:-1], 0.0)
        moment = 0.9 * moment + 0.1 * grad
        velocity = 0.999 * velocity + 0.001 * grad**2
        params -= 0.05 * (moment / (1 - 0.9**step)) / (np.sqrt(velocity / (1 - 0.999**step)) + 1e-8)
    weights = params[:-1] / scale
    return weights, float(params[-1] - (weights * mean).sum())


def rules_scorer(weights: np.ndarray, bias: float, threshold: float, token_weights: Mapping[str, float],
                 token_bias: float, *, figures: Mapping[str, Any], fitted_on: str, fitted_by: str) -> RulesScorer:
    """The rules scorer these fitted parameters make, with its card (parameters rounded to four places)."""
    base = RulesScorer().card
    card = {
        **base,
        "features": list(FEATURE_NAMES),
        "weights": {name: round(float(w), 4) for name, w in zip(FEATURE_NAMES, weights, strict=True)},
        "bias": round(bias, 4),
        "threshold": threshold,
        "token_model": {
            **base["token_model"],
            "features": list(TOKEN_FEATURES),
            "weights": {name: round(float(token_weights[name]), 4) for name in TOKEN_FEATURES},
            "bias": round(token_bias, 4),
        },
        "fitted_on": fitted_on,
        "fitted_by": fitted_by,
        "figures": dict(figures),
    }
    return RulesScorer(card)
