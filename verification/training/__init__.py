"""Training: fitting and fine-tuning scorers, exporting them, comparing models, evaluating the verifier
on labelled data sets. Needs the training extra for fine-tuning; the runtime never imports this package."""

# The names below are what a retraining job outside the engine (the console's) calls: building training
# pairs from reviewers' claim labels, fine-tuning, refitting the stack, comparing the new model with the
# old on held-out claims. (`retrain` is `retraining.fine_tune`: `fine_tune` here names the fine-tuning
# module.) Each is imported when first read, as in `verification/__init__.py`: a process
# that only names a model folder's files loads neither numpy nor the fine-tuning code.

from __future__ import annotations

from typing import TYPE_CHECKING

from verification.surface import lazy_names

if TYPE_CHECKING:
    from verification.claims.extraction import extract_claims
    from verification.retrieval.index import SourceIndex
    from verification.scorers.window import hypothesis, window_text
    from verification.training.comparison import (
        HeldOutFigures,
        LabelledClaim,
        auroc_gap_bound,
        held_out_figures,
        not_worse,
        release_scores,
    )
    from verification.training.extra import NEEDS as TRAINING_NEEDS
    from verification.training.pairs import Pair
    from verification.training.retraining import RetrainSettings
    from verification.training.retraining import fine_tune as retrain
    from verification.training.slices import slice_of
    from verification.training.stack import refit as refit_stack

__all__ = [
    # Training pairs from labelled claims: the claims of an answer, the window each is read against.
    "LabelledClaim",
    "Pair",
    "SourceIndex",
    "extract_claims",
    "hypothesis",
    "slice_of",
    "window_text",
    # Fine-tuning and refitting the stack.
    "TRAINING_NEEDS",
    "RetrainSettings",
    "refit_stack",
    "retrain",
    # The new model against the old, on held-out claims.
    "HeldOutFigures",
    "auroc_gap_bound",
    "held_out_figures",
    "not_worse",
    "release_scores",
]

_HOMES = {
    "LabelledClaim": "verification.training.comparison",
    "Pair": "verification.training.pairs",
    "SourceIndex": "verification.retrieval.index",
    "extract_claims": "verification.claims.extraction",
    "hypothesis": "verification.scorers.window",
    "slice_of": "verification.training.slices",
    "window_text": "verification.scorers.window",
    "TRAINING_NEEDS": "verification.training.extra:NEEDS",
    "RetrainSettings": "verification.training.retraining",
    "retrain": "verification.training.retraining:fine_tune",
    "refit_stack": "verification.training.stack:refit",
    "HeldOutFigures": "verification.training.comparison",
    "auroc_gap_bound": "verification.training.comparison",
    "held_out_figures": "verification.training.comparison",
    "not_worse": "verification.training.comparison",
    "release_scores": "verification.training.comparison",
}
"""Where each public name is defined: "module" (the same name there) or "module:name"."""


if not TYPE_CHECKING:
    __getattr__ = lazy_names(__name__, _HOMES, globals())


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
