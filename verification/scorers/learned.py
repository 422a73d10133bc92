"""The learned scorer: the cross-encoder's reading of a claim against its window, stacked with the rules.

P(supported) = sigmoid(stack["model"] * cross-encoder logit + stack["rules"] * rules logit + stack["bias"]).
The cross-encoder reads meaning (paraphrase, who did what); the rules logit still knows what word
overlap knows (a name the window never mentions). The stack is on the model's card (`figures.json`,
"stack"): the shipped one fitted by `benchmarks/fit_offline.py --stack` on tune data the network never
trained on (WiCE claim_dev, the held halves of SummEdits `evaluation` and HaluEval); a retrained model's
refitted by `training/stack.py`, or the shipped one where it keeps it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from verification.scorers.card import CardUnreadable, read_card
from verification.scorers.cross_encoder import MODEL_DIR, CrossEncoder
from verification.scorers.features import Assessment
from verification.scorers.rules import RulesScorer, sigmoid
from verification.scorers.window import hypothesis, window_text


class LearnedScorer:
    """Support from the cross-encoder and the rules logit together."""

    name = "learned/2"

    def __init__(self, model: CrossEncoder, rules: RulesScorer | None = None) -> None:
        self.model = model
        self.rules = rules if rules is not None else RulesScorer()
        """The rules scorer whose logit the stack reads."""
        shipped = _shipped_stack()
        own = model.stack if model.stack is not None else shipped
        self.stack = {"model": own["model"], "rules": own["rules"]}
        self.bias = own["bias"]
        self.threshold = shipped["threshold"]
        """Probability of support at or above which a claim may be SUPPORTED."""

    @classmethod
    def load(cls, folder: Path = MODEL_DIR) -> LearnedScorer:
        """The scorer with the model (and its card) in `folder`."""
        return cls(CrossEncoder(folder))

    def get_params(self) -> dict[str, Any]:
        """The stack's weights, its bias and threshold, and the model file's hash."""
        return {"stack": dict(self.stack), "bias": self.bias, "threshold": self.threshold,
                "model_sha256": self.model.sha256}

    def fingerprint(self) -> dict[str, object]:
        """The stack, the rules scorer it reads, and the model file's hash."""
        return {"name": self.name, "stack": self.stack, "bias": self.bias, "threshold": self.threshold,
                "model_sha256": self.model.sha256, "rules": self.rules.fingerprint()}

    def model_logits(self, assessments: Sequence[Assessment]) -> list[float]:
        """The cross-encoder's logit for each claim against the window retrieval chose for it."""
        reads_question = self.model.reads_question
        return self.model.logits([
            (window_text(a.hits), hypothesis(a.claim_text, a.context if reads_question else "")) for a in assessments
        ])

    def probabilities(self, assessments: Sequence[Assessment]) -> list[float]:
        """P(supported) for each assessed claim."""
        logits = self.model_logits(assessments)
        return [
            sigmoid(self.stack["model"] * logit + self.stack["rules"] * self.rules.logit(assessment.vector) + self.bias)
            for assessment, logit in zip(assessments, logits, strict=True)
        ]


_SHIPPED: dict[str, float] = {}


def _shipped_stack() -> dict[str, float]:
    """The shipped model's stack and threshold, from its card: what a model without its own stack uses."""
    if not _SHIPPED:
        stack: Any = read_card(MODEL_DIR / "figures.json").get("stack")
        try:
            _SHIPPED.update({key: float(stack[key]) for key in ("model", "rules", "bias", "threshold")})
        except (KeyError, TypeError, ValueError) as error:
            raise CardUnreadable(f"model card {MODEL_DIR / 'figures.json'}: stack needs model, rules, bias and "
                                 f"threshold ({error!r})") from error
    return _SHIPPED
