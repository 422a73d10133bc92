"""The text a claim is scored against: the sentences retrieval chose for it, in source order.

One function for training and for run time, so that the model reads at run time exactly the kind of
window it was trained on.
"""

from __future__ import annotations

from collections.abc import Sequence

from verification.evidence import Hit


def window_text(hits: Sequence[Hit]) -> str:
    """The selected sentences joined in the order they stand in their sources (sources by id)."""
    # By source and offset, not by index position: the same window whatever order the sources came in.
    ordered = sorted(hits, key=lambda hit: (hit.passage.source_id, hit.passage.start))
    return " ".join(hit.passage.text for hit in ordered)
