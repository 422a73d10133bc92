"""What a grounding check reports: the commitment at issue, the verdict it calls for and why."""

from __future__ import annotations

from dataclasses import dataclass

from verification.retrieval.index import Passage
from verification.types import State


@dataclass(frozen=True)
class Finding:
    """A commitment of the claim that the evidence contradicts or leaves unsaid."""

    state: State
    """REFUTED or INSUFFICIENT_EVIDENCE."""
    passages: tuple[Passage, ...]
    """The deciding sentences."""
    reason: str
    """Which check decided, the method's suffix ("qualifier-restricted"), one of `Grounding.reasons`."""
    rationale: str
    """One line for the reviewer."""
    commitment: str
    """The claim's words at issue."""
