"""Text with spans marked: claims inside a candidate, evidence inside a source.

Everything here is client or model text, so it is escaped piece by piece with `format_html`; the
result is safe HTML because no input character ever reaches it unescaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString


@dataclass(frozen=True)
class Span:
    """A marked stretch [start, end) of a text, with its element id, CSS state class and title."""

    start: int
    end: int
    anchor: str
    state: str
    label: str
    href: str = ""
    badge: bool = False
    """Also print the label after the mark, so the state is readable without colour or hover."""


def highlight(text: str, spans: Sequence[Span]) -> SafeString:
    """`text` with each span wrapped in a <mark>; overlapping spans are cut so marks never nest.

    Spans outside the text (stale offsets) are clipped rather than trusted.
    """
    ordered = sorted(
        (s for s in spans if 0 <= s.start < s.end and s.start < len(text)), key=lambda s: (s.start, -s.end)
    )
    pieces: list[tuple[str, Span | None]] = []
    cursor = 0
    for span in ordered:
        start, end = max(span.start, cursor), min(span.end, len(text))
        if start >= end:
            continue  # wholly inside an earlier span: that mark already covers it
        if start > cursor:
            pieces.append((text[cursor:start], None))
        pieces.append((text[start:end], span))
        cursor = end
    if cursor < len(text):
        pieces.append((text[cursor:], None))
    return format_html_join("", "{}", ((_piece(chunk, span),) for chunk, span in pieces))


def _piece(chunk: str, span: Span | None) -> SafeString | str:
    if span is None:
        return chunk
    mark = format_html(
        '<mark id="{}" class="state-{}" title="{}">{}</mark>', span.anchor, span.state.lower(), span.label, chunk
    )
    if span.badge:
        mark = format_html('{}<span class="state state-{}">{}</span>', mark, span.state.lower(), span.label)
    if span.href:
        return format_html('<a class="mark-link" href="{}">{}</a>', span.href, mark)
    return mark
