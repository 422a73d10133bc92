"""Charts as server-rendered SVG: no JavaScript, readable without styles, each mark titled with its number.

Every chart here has the same numbers as a table next to it; the SVG is the overview, not the record.
"""

from __future__ import annotations

from datetime import date

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from reviewconsole import svg

# Colour-blind-safe palette (Okabe-Ito); reasons beyond it repeat colours but keep their legend names.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
_WIDTH, _HEIGHT, _LEFT, _BOTTOM, _TOP = 720, 240, 36, 28, 10


def _nice_max(value: int) -> int:
    """A round axis maximum at or above `value` (1, 2, 5, 10, 20, 50 ...)."""
    step = 1
    while True:
        for factor in (1, 2, 5):
            if step * factor >= value:
                return max(step * factor, 1)
        step *= 10


def stacked_bars(*, title: str, days: list[date], series: dict[str, list[int]]) -> SafeString:
    """Bars per day, stacked by series (reason), with a y axis and a legend."""
    totals = [sum(values[i] for values in series.values()) for i in range(len(days))]
    top = _nice_max(max(totals, default=0))
    plot_w, plot_h = _WIDTH - _LEFT - 10, _HEIGHT - _BOTTOM - _TOP
    slot = plot_w / max(len(days), 1)
    bar_w = max(slot * 0.8, 1)
    marks = []
    for i, day in enumerate(days):
        y: float = _TOP + plot_h
        for j, (name, values) in enumerate(series.items()):
            if not values[i]:
                continue
            h = plot_h * values[i] / top
            y -= h
            marks.append(format_html(
                '<rect x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{}: {} {}</title></rect>',
                _n(_LEFT + i * slot + (slot - bar_w) / 2), _n(y), _n(bar_w), _n(h), PALETTE[j % len(PALETTE)],
                day.isoformat(),
                values[i], name,
            ))
    labels_every = max(1, len(days) // 8)
    x_labels = format_html_join("", '<text x="{}" y="{}" text-anchor="middle">{}</text>', (
        (_n(_LEFT + i * slot + slot / 2), _HEIGHT - 8, day.strftime("%b %d"))
        for i, day in enumerate(days) if i % labels_every == 0
    ))
    y_axis = format_html(
        '<line x1="{l}" y1="{t}" x2="{l}" y2="{b}" stroke="#5b6475"/>'
        '<line x1="{l}" y1="{b}" x2="{r}" y2="{b}" stroke="#5b6475"/>'
        '<text x="{tx}" y="{ty}" text-anchor="end">{top}</text><text x="{tx}" y="{b}" text-anchor="end">0</text>',
        l=_LEFT, t=_TOP, b=_TOP + plot_h, r=_WIDTH - 10, tx=_LEFT - 4, ty=_TOP + 10, top=top,
    )
    legend = svg.legend((PALETTE[j % len(PALETTE)], name) for j, name in enumerate(series))
    return format_html(
        '<figure class="chart"><svg viewBox="0 0 {} {}" role="img" aria-labelledby="{}-title">'
        '<title id="{}-title">{}</title>{}{}{}</svg>{}</figure>',
        _WIDTH, _HEIGHT, _slug(title), _slug(title), title, y_axis,
        format_html_join("", "{}", ((mark,) for mark in marks)), x_labels, legend,
    )


def share_bars(*, title: str, rows: list[tuple[str, float, str]]) -> SafeString:
    """Horizontal bars of shares (0..1), one per (label, share, caption) row."""
    row_h, label_w = 24, 260
    height = row_h * len(rows) + 6
    marks = format_html_join("", (
        '<text x="{lx}" y="{ty}" text-anchor="end">{label}</text>'
        '<rect x="{x}" y="{y}" width="{w}" height="16" fill="#0072B2"><title>{label}: {caption}</title></rect>'
        '<text x="{cx}" y="{ty}">{caption}</text>'
    ), (
        {"lx": label_w - 6, "ty": i * row_h + 16, "label": label, "x": label_w, "y": i * row_h + 4,
         "w": _n(max(share, 0) * (_WIDTH - label_w - 90)), "caption": caption,
         "cx": _n(label_w + max(share, 0) * (_WIDTH - label_w - 90) + 6)}
        for i, (label, share, caption) in enumerate(rows)
    )) if rows else ""
    return format_html(
        '<figure class="chart"><svg viewBox="0 0 {} {}" role="img" aria-labelledby="{}-title">'
        '<title id="{}-title">{}</title>{}</svg></figure>',
        _WIDTH, max(height, 30), _slug(title), _slug(title), title, marks,
    )


def _n(value: float) -> str:
    return f"{value:.1f}"


def _slug(title: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in title.lower())
