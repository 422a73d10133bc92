"""Which slice of an organisation's labels a labelled answer falls in, for retraining the scorer.

- "held_out" (HELD_OUT_SHARE of the answers): no retraining run trains on them; old and new models are
  compared on them (`comparison.py`), and the new model's calibration is made from them;
- "stack" (STACK_SHARE of the rest): they fit the retrained model's stack (`stack.py`), never its network,
  so the weight of its reading is measured on claims it never saw;
- "network": the rest, which the network is fine-tuned on.

By a hash of what the client submitted (the question and the answer), so an answer's slice never moves as
labels accrue, and the same answer submitted twice lands in one slice.
"""

from __future__ import annotations

import hashlib
from typing import Literal

HELD_OUT_SHARE = 0.3
STACK_SHARE = 0.25

Slice = Literal["held_out", "stack", "network"]


def _share(salt: str, question: str, answer: str) -> float:
    digest = hashlib.sha256(f"{salt}\x00{question}\x00{answer}".encode()).hexdigest()
    return int(digest[:8], 16) / 0xFFFFFFFF


def slice_of(question: str, answer: str) -> Slice:
    """The slice of the labels of the answer `answer` to `question`."""
    if _share("held-out", question, answer) < HELD_OUT_SHARE:
        return "held_out"
    return "stack" if _share("stack", question, answer) < STACK_SHARE else "network"
