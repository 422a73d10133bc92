"""What the cross-encoder reads: the sentences retrieval chose for a claim, in source order, against the
claim with the question it answers where it carries one.

One pair of functions for training and for run time, so that the model reads at run time exactly the
kind of pair it was trained on.
"""

from __future__ import annotations

from collections.abc import Sequence

from verification.retrieval.index import Hit


def window_text(hits: Sequence[Hit]) -> str:
    """The selected sentences joined in the order they stand in their sources (sources by id)."""
    # By source and offset, not by index position: the same window whatever order the sources came in.
    ordered = sorted(hits, key=lambda hit: (hit.passage.source_id, hit.passage.start))
    return " ".join(hit.passage.text for hit in ordered)


HYPOTHESIS = "question claim"
"""How a model trained on `hypothesis` pairs reads a claim; its `figures.json` says so under "hypothesis"."""


def hypothesis(claim_text: str, context: str = "") -> str:
    """The claim as the model reads it: after the question it answers, where it carries one."""
    return f"{context} {claim_text}" if context else claim_text
