"""Filters for the workbench's pages."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def percent(share: float | None, places: int = 1) -> str:
    """A share (0..1) as a percentage, "12.5%"; a dash when there is no share (nothing to divide by)."""
    if share is None:
        return "—"
    return f"{share * 100:.{int(places)}f}%"
