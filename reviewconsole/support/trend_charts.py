"""The metrics page's weekly series as server-rendered SVG: one line per constitution over the weeks, each
point titled with its figure and what it is over, the unsafe release rate with its 95% interval drawn as
whiskers. The table under each chart holds the same numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from reviewconsole import svg
from reviewconsole.support.charts import PALETTE
from reviewconsole.support.templatetags.audit_extras import duration
from reviewconsole.support.trends import Series, Trend, WeekPoint

_WIDTH, _HEIGHT = 720, 220
_LEFT, _RIGHT, _TOP, _BOTTOM = 60, 12, 10, 28
_PLOT_W, _PLOT_H = _WIDTH - _LEFT - _RIGHT, _HEIGHT - _TOP - _BOTTOM
_AXIS = "#5b6475"
_DURATION_TOPS = (60, 600, 1800, 3600, 2 * 3600, 4 * 3600, 8 * 3600, 24 * 3600, 2 * 86400, 7 * 86400)

_OVER = {
    Series.AUTOMATION: "finished cases",
    Series.UNSAFE_RELEASE: "labelled spot checks",
    Series.DECISIONS: "decisions",
    Series.TIME_TO_DECISION: "decided cases",
}
"""What each series' point is over, as its title says it."""


def value_text(series: Series, value: float | None) -> str:
    """A figure of `series` as the page prints it; "—" where nothing was measured."""
    if value is None:
        return "—"
    if series in (Series.AUTOMATION, Series.UNSAFE_RELEASE):
        return f"{value * 100:.1f}%"
    if series is Series.DECISIONS:
        return f"{value:.1f}"
    return duration(value)


def point_text(series: Series, point: WeekPoint) -> str:
    """A point's figure with what it is over: "12.5% (95% interval 3.5% – 36.0%) of 8 labelled spot checks"."""
    text = value_text(series, point.value)
    if point.low is not None and point.high is not None:
        text += f" (95% interval {value_text(series, point.low)} – {value_text(series, point.high)})"
    return f"{text}, over {point.count} {_OVER[series]}"


def nice_top(value: float) -> float:
    """A round axis top at or above `value`: 1, 2 or 5 times a power of ten (1 when there is nothing)."""
    if value <= 0:
        return 1.0
    step = 10.0 ** math.floor(math.log10(value))
    return next(step * factor for factor in (1, 2, 5, 10) if step * factor >= value * (1 - 1e-9))


def _top(trend: Trend) -> float:
    if trend.series is Series.AUTOMATION:
        return 1.0
    highs = [point.high if point.high is not None else point.value or 0.0
             for points in trend.lines.values() for point in points]
    highest = max(highs, default=0.0)
    if trend.series is Series.TIME_TO_DECISION:
        # Round durations (10 min, 2 h, 1 day) rather than round numbers of seconds.
        return next((top for top in _DURATION_TOPS if top >= highest), nice_top(highest))
    top = nice_top(highest)
    return min(top, 1.0) if trend.series is Series.UNSAFE_RELEASE else top


def _n(value: float) -> str:
    return f"{value:.1f}"


def trend_chart(trend: Trend) -> SafeString:
    """One series: a line per constitution over the weeks, a y axis at 0, half and the top."""
    top = _top(trend)
    slot = _PLOT_W / max(len(trend.weeks), 1)

    def x(index: int) -> float:
        return _LEFT + (index + 0.5) * slot

    def y(value: float) -> float:
        return _TOP + _PLOT_H * (1 - min(value, top) / top)

    marks = []
    legend = []
    for number, (name, points) in enumerate(trend.lines.items()):
        colour = PALETTE[number % len(PALETTE)]
        legend.append((colour, name))
        # A week with nothing measured breaks the line: it is no zero.
        runs: list[list[str]] = [[]]
        for index, point in enumerate(points):
            if point.value is None:
                runs.append([])
                continue
            runs[-1].append(f"{_n(x(index))},{_n(y(point.value))}")
            if point.low is not None and point.high is not None:
                marks.append(format_html(
                    '<line x1="{x}" y1="{lo}" x2="{x}" y2="{hi}" stroke="{c}" stroke-opacity="0.6"/>'
                    '<line x1="{x0}" y1="{hi}" x2="{x1}" y2="{hi}" stroke="{c}" stroke-opacity="0.6"/>'
                    '<line x1="{x0}" y1="{lo}" x2="{x1}" y2="{lo}" stroke="{c}" stroke-opacity="0.6"/>',
                    x=_n(x(index)), x0=_n(x(index) - 3), x1=_n(x(index) + 3), lo=_n(y(point.low)),
                    hi=_n(y(point.high)), c=colour,
                ))
            marks.append(format_html(
                '<circle cx="{}" cy="{}" r="3" fill="{}"><title>{}, week of {}: {}</title></circle>',
                _n(x(index)), _n(y(point.value)), colour, name, trend.weeks[index].isoformat(),
                point_text(trend.series, point),
            ))
        marks[:0] = [format_html('<polyline points="{}" fill="none" stroke="{}" stroke-width="2"/>', " ".join(run),
                                 colour) for run in runs if len(run) > 1]
    bottom = _TOP + _PLOT_H
    ticks = format_html_join("", (
        '<line x1="{l}" y1="{y}" x2="{r}" y2="{y}" stroke="{axis}" stroke-opacity="0.25"/>'
        '<text x="{lt}" y="{yt}" text-anchor="end">{t}</text>'
    ), ({"l": _LEFT, "r": _LEFT + _PLOT_W, "y": _n(y(share * top)), "yt": _n(y(share * top) + 4), "lt": _LEFT - 6,
         "t": value_text(trend.series, share * top), "axis": _AXIS} for share in (0.0, 0.5, 1.0)))
    every = max(1, len(trend.weeks) // 8)
    x_labels = format_html_join("", '<text x="{}" y="{}" text-anchor="middle">{}</text>', (
        (_n(x(index)), _HEIGHT - 8, week.strftime("%b %d")) for index, week in enumerate(trend.weeks)
        if index % every == 0
    ))
    axes = format_html('<line x1="{l}" y1="{t}" x2="{l}" y2="{b}" stroke="{a}"/>'
                       '<line x1="{l}" y1="{b}" x2="{r}" y2="{b}" stroke="{a}"/>',
                       l=_LEFT, t=_TOP, b=bottom, r=_LEFT + _PLOT_W, a=_AXIS)
    title_id = f"trend-{trend.series.value}-title"
    return format_html(
        '<figure class="chart"><svg viewBox="0 0 {} {}" role="img" aria-labelledby="{}">'
        '<title id="{}">{} per constitution and week</title>{}{}{}{}</svg>{}</figure>',
        _WIDTH, _HEIGHT, title_id, title_id, trend.series.label, axes, ticks,
        format_html_join("", "{}", ((mark,) for mark in marks)), x_labels, svg.legend(legend),
    )


@dataclass(frozen=True)
class TrendPanel:
    """One series as the metrics page shows it: the chart, and the same numbers as a table."""

    trend: Trend
    chart: SafeString
    rows: list[tuple[date, list[str]]]
    """Per week, newest first: each constitution's figure with what it is over (as `trend.lines` orders them)."""


def trend_panels(trends: list[Trend]) -> list[TrendPanel]:
    return [
        TrendPanel(trend, trend_chart(trend), [
            (week, [point_text(trend.series, points[index]) if points[index].count else "—"
                    for points in trend.lines.values()])
            for index, week in reversed(list(enumerate(trend.weeks)))
        ])
        for trend in trends
    ]


