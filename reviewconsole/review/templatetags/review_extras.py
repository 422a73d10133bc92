"""Template filters for the console: states and reasons in words, so no state is shown by colour alone."""

from __future__ import annotations

from django import template

from reviewconsole.review.reasons import reason_label
from reviewconsole.review.states import FAILING_STATES, state_label

register = template.Library()


@register.filter
def state_word(state: str) -> str:
    return state_label(state or "")


@register.filter
def reason_word(reason: str) -> str:
    return reason_label(reason or "")


@register.filter
def state_class(state: str) -> str:
    """A CSS class from a fixed vocabulary: unknown states get the neutral style."""
    return f"state-{state.lower()}" if state in _KNOWN else "state-unknown"


@register.filter
def is_failing(state: str) -> bool:
    return state in FAILING_STATES


_KNOWN = frozenset({"SUPPORTED", "REFUTED", "INSUFFICIENT_EVIDENCE", "CONFLICTING", "UNRESOLVED", "NOT_VERIFIABLE"})
