"""Template filters of the audit pages: payloads as JSON (one line, or laid out), durations in words."""

from __future__ import annotations

import json

from django import template

from reviewconsole.audit.leaves import canonical_json

register = template.Library()


@register.filter
def as_json(value: object) -> str:
    """A payload as the JSON that was hashed, not Python's repr of it."""
    return canonical_json(value)


@register.filter
def pretty_json(value: object) -> str:
    """A payload laid out for reading, keys sorted as in the hashed JSON; autoescaped like any text."""
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)


@register.filter
def duration(seconds: float | None) -> str:
    """Seconds as a person reads them: "45 s", "12 min", "3.5 h"; "—" when there is no figure."""
    if seconds is None:
        return "—"
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
