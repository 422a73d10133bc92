"""Verification states as a reviewer reads them: a word next to every colour, and which states fail."""

from __future__ import annotations

from verification import State

STATE_LABELS: dict[str, str] = {
    State.SUPPORTED.value: "Supported",
    State.REFUTED.value: "Refuted",
    State.INSUFFICIENT_EVIDENCE.value: "Insufficient evidence",
    State.CONFLICTING.value: "Conflicting",
    State.UNRESOLVED.value: "Unresolved",
    State.NOT_VERIFIABLE.value: "Not verifiable",
}

# Approving a candidate with any claim in one of these states needs a written override reason.
FAILING_STATES = frozenset(
    {State.REFUTED.value, State.INSUFFICIENT_EVIDENCE.value, State.CONFLICTING.value, State.UNRESOLVED.value}
)


def state_label(state: str) -> str:
    return STATE_LABELS.get(state, state.replace("_", " ").capitalize())
