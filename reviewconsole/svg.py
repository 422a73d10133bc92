"""Small pieces of the console's server-drawn SVG charts, shared by the apps that draw them.

No inline `style` attributes: the Content-Security-Policy allows only the console's own stylesheet, so
colours are SVG presentation attributes (`fill`), which it does not govern.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString


def legend(entries: Iterable[tuple[str, str]]) -> SafeString:
    """A chart's legend: one colour swatch and its words per (colour, label)."""
    return format_html(
        '<ul class="legend">{}</ul>',
        format_html_join(
            "",
            '<li><svg class="swatch" viewBox="0 0 1 1" aria-hidden="true"><rect width="1" height="1" fill="{}"/>'
            "</svg>{}</li>",
            entries,
        ),
    )
