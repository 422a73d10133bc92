"""The learned scorer's stack refitted for a retrained model, on labels the network never trained on.

The stack (`learned.py`) weighs the cross-encoder's logit against the rules scorer's. The shipped weights
were fitted for the shipped network on the public tune splits; a network fine-tuned on an organisation's
labels reads that organisation's claims differently, and with the old weights its reading would barely
count. So a retraining run keeps a slice of the organisation's training labels out of the network's
training (the stack slice) and fits the three numbers here, by L2-regularised logistic regression on
(cross-encoder logit, rules logit) per claim. The result goes into the model's figures.json under "stack",
where `cross_encoder.CrossEncoder` reads it and `LearnedScorer` uses it; a model without one uses the
shipped stack.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from verification.retrieval.index import SourceIndex
from verification.scorers.card import read_card, write_card
from verification.scorers.cross_encoder import CrossEncoder
from verification.scorers.features import assess
from verification.scorers.rules import RulesScorer
from verification.scorers.window import hypothesis, window_text
from verification.training.comparison import LabelledClaim

MIN_CLAIMS = 30
"""Fewer claims (or claims of one label) fit nothing worth trusting: the model keeps the stack it had."""
L2 = 0.05
"""Pulls the weights towards zero on small slices; negligible from a few hundred claims."""


def inputs(model: CrossEncoder, claims: Sequence[LabelledClaim]) -> np.ndarray:
    """(cross-encoder logit, rules logit) per claim, each read as the verifier reads it."""
    indexes: dict[tuple[Any, ...], SourceIndex] = {}
    assessments = []
    for claim in claims:
        index = indexes.get(claim.sources)
        if index is None:
            index = indexes[claim.sources] = SourceIndex(claim.sources)
        assessments.append(assess(claim.text, index, claim.context))
    pairs = [(window_text(a.hits), hypothesis(a.claim_text, a.context if model.reads_question else ""))
             for a in assessments]
    logits = model.logits(pairs) if pairs else []
    rules = RulesScorer()
    return np.array([[logit, rules.logit(a.vector)] for logit, a in zip(logits, assessments, strict=True)],
                    dtype=float).reshape(-1, 2)


def fit(x: np.ndarray, y: np.ndarray, l2: float = L2, steps: int = 50) -> dict[str, float]:
    """Weights for ("model", "rules") and "bias": Newton's method on the regularised log loss."""
    design = np.hstack([x, np.ones((len(x), 1))])
    params = np.zeros(design.shape[1])
    penalty = np.diag([l2 * len(x)] * x.shape[1] + [0.0])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-np.clip(design @ params, -30, 30)))
        gradient = design.T @ (p - y) + penalty @ params
        hessian = design.T @ (design * (p * (1 - p))[:, None]) + penalty + 1e-9 * np.eye(len(params))
        step = np.linalg.solve(hessian, gradient)
        params -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    model, rules, bias = (round(float(value), 4) for value in params)
    return {"model": model, "rules": rules, "bias": bias}


def refit(folder: Path, claims: Sequence[LabelledClaim]) -> dict[str, Any]:
    """Fit the stack of the model in `folder` on `claims` and write it into its figures.json; returns what
    was done ("stack" with the weights, or "kept" with why the model keeps the shipped stack)."""
    labels = np.array([1.0 if claim.supported else 0.0 for claim in claims])
    if len(claims) < MIN_CLAIMS or labels.min(initial=1.0) == labels.max(initial=0.0):
        result: dict[str, Any] = {"kept": f"{len(claims)} claims in the stack slice, {int(labels.sum())} supported: "
                                          f"a refit needs at least {MIN_CLAIMS} of both labels"}
        save(folder, None, result)
    else:
        stack = fit(inputs(CrossEncoder(folder), claims), labels)
        result = {"stack": stack, "claims": len(claims), "supported": int(labels.sum())}
        save(folder, stack, result)
    return result


def save(folder: Path, stack: dict[str, Any] | None, fit_record: dict[str, Any]) -> None:
    """Write a stack into the figures.json of the model in `folder` ("stack"; None removes it, so the model
    uses the shipped one), with what its fit was ("stack_fit"); the card's other figures are kept."""
    figures_path = folder / "figures.json"
    figures = read_card(figures_path) if figures_path.is_file() else {}
    if stack is None:
        figures.pop("stack", None)
    else:
        figures["stack"] = stack
    figures["stack_fit"] = fit_record
    write_card(figures, figures_path)
