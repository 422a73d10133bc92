"""The learned scorer: the cross-encoder's reading of a claim against its window, stacked with the rules.

P(supported) = sigmoid(STACK["model"] * cross-encoder logit + STACK["rules"] * rules logit + BIAS).
The cross-encoder reads meaning (paraphrase, who did what); the rules logit still knows what word
overlap knows (a name the window never mentions). The stack is fitted by
`benchmarks/fit_offline.py --stack` on tune data the network was never trained on (WiCE claim_dev, the
held halves of SummEdits `evaluation` and HaluEval).
"""

from __future__ import annotations

from collections.abc import Sequence

from verification.features import Assessment
from verification.scorer.cross_encoder import CrossEncoder
from verification.scorer.rules import RulesScorer, rules_logit, sigmoid
from verification.scorer.window import hypothesis, window_text

# Fitted by `benchmarks/fit_offline.py --stack pair --folds 5`; paste its output here after retraining.
STACK: dict[str, float] = {
    "model": 0.1734,
    "rules": 0.7709,
}
BIAS = 0.1398
THRESHOLD = 0.4
"""Probability of support at or above which a claim is SUPPORTED."""


class LearnedScorer:
    """Support from the cross-encoder and the rules logit together."""

    name = "learned/2"
    threshold = THRESHOLD

    def __init__(self, model: CrossEncoder) -> None:
        self.model = model
        self._rules = RulesScorer()
        own = model.stack
        # A retrained model carries the stack refitted for it; the shipped one uses the weights above.
        self.stack = {"model": own["model"], "rules": own["rules"]} if own is not None else STACK
        self.bias = own["bias"] if own is not None else BIAS

    def fingerprint(self) -> dict[str, object]:
        """The stack, the rules scorer it reads, and the model file's hash."""
        return {"name": self.name, "stack": self.stack, "bias": self.bias, "threshold": THRESHOLD,
                "model_sha256": self.model.sha256, "rules": self._rules.fingerprint()}

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
            sigmoid(self.stack["model"] * logit + self.stack["rules"] * rules_logit(assessment.vector) + self.bias)
            for assessment, logit in zip(assessments, logits, strict=True)
        ]

