"""Template filters for the console: codes in words, so no code or state is shown by colour or code alone."""

from __future__ import annotations

from django import template

from reviewconsole.review.reasons import code_label
from reviewconsole.review.states import FAILING_STATES

register = template.Library()


@register.filter
def label(code: str | None) -> str:
    """Any code a page shows (reason, state, terminal, origin, repair, reject reason, ...) as a phrase:
    `{{ case.reason|label }}`."""
    return code_label(code)


# The older names, one lookup underneath.
register.filter("reason_word", label)
register.filter("state_word", label)


@register.filter
def state_class(state: str) -> str:
    """A CSS class from a fixed vocabulary: unknown states get the neutral style."""
    return f"state-{state.lower()}" if state in _KNOWN else "state-unknown"


@register.filter
def is_failing(state: str) -> bool:
    return state in FAILING_STATES


_KNOWN = frozenset({"SUPPORTED", "REFUTED", "INSUFFICIENT_EVIDENCE", "CONFLICTING", "UNRESOLVED", "NOT_VERIFIABLE"})
