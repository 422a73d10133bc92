"""The automation/unsafe-release curve as server-rendered SVG: no JavaScript, every mark titled with its numbers.

The table beside it holds the same numbers; the chart is the overview. Colours are Okabe-Ito, as the
support lead's charts use, so the two read alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from reviewconsole import svg
from reviewconsole.workbench.automation import BoundPoint
from reviewconsole.workbench.release_gate import OperatingPoint, ReleaseGate

_WIDTH, _HEIGHT = 560, 320
_LEFT, _RIGHT, _TOP, _BOTTOM = 52, 16, 12, 44
_PLOT_W, _PLOT_H = _WIDTH - _LEFT - _RIGHT, _HEIGHT - _TOP - _BOTTOM
_CURVE, _IN_FORCE, _CHOSEN, _AXIS = "#0072B2", "#E69F00", "#009E73", "#5b6475"


@dataclass(frozen=True)
class Mark:
    """A point to mark on the curve, such as the threshold in force."""

    label: str
    point: OperatingPoint
    colour: str


def in_force_mark(point: OperatingPoint) -> Mark:
    return Mark("in force", point, _IN_FORCE)


def chosen_mark(point: OperatingPoint) -> Mark:
    return Mark("for the chosen budget", point, _CHOSEN)


def _x(rate: float) -> float:
    return _LEFT + rate * _PLOT_W


def _y(share: float) -> float:
    return _TOP + (1.0 - share) * _PLOT_H


def _n(value: float) -> str:
    return f"{value:.1f}"


def _caption(point: OperatingPoint) -> str:
    where = "nothing released" if point.threshold is None else f"threshold {point.threshold:.4f}"
    return (f"{where}: {point.consistent_released} of {point.consistent} consistent answers released "
            f"({(point.automation or 0.0):.0%}), {point.unsafe_released} of {point.inconsistent} inconsistent "
            f"({(point.unsafe_rate or 0.0):.1%})")


def tradeoff_chart(*, points: list[OperatingPoint], marks: list[Mark], budget: float) -> SafeString:
    """Automation (y) against the unsafe release rate seen on the labels (x), one vertex per threshold,
    strictest first from the origin (nothing released); `budget` is drawn as a dashed line."""
    plotted = [point for point in points if point.automation is not None and point.unsafe_rate is not None]
    if not plotted:
        return SafeString("")
    vertices = [(0.0, 0.0), *((point.unsafe_rate or 0.0, point.automation or 0.0) for point in plotted)]
    polyline = " ".join(f"{_n(_x(x))},{_n(_y(y))}" for x, y in vertices)
    dots = format_html_join("", '<circle cx="{}" cy="{}" r="2.5" fill="{}"><title>{}</title></circle>', (
        (_n(_x(point.unsafe_rate or 0.0)), _n(_y(point.automation or 0.0)), _CURVE, _caption(point))
        for point in plotted
    ))
    shown = [mark for mark in marks if mark.point.automation is not None and mark.point.unsafe_rate is not None]
    marked = format_html_join("", (
        '<circle cx="{}" cy="{}" r="6" fill="none" stroke="{}" stroke-width="2.5"><title>{}: {}</title></circle>'
    ), ((_n(_x(mark.point.unsafe_rate or 0.0)), _n(_y(mark.point.automation or 0.0)), mark.colour, mark.label,
         _caption(mark.point)) for mark in shown))
    bottom = _TOP + _PLOT_H
    ticks = format_html_join("", (
        '<line x1="{x}" y1="{b}" x2="{x}" y2="{b5}" stroke="{axis}"/>'
        '<text x="{x}" y="{bt}" text-anchor="middle">{t}</text>'
        '<line x1="{l5}" y1="{y}" x2="{l}" y2="{y}" stroke="{axis}"/>'
        '<text x="{lt}" y="{yt}" text-anchor="end">{t}</text>'
    ), ({"x": _n(_x(share)), "y": _n(_y(share)), "yt": _n(_y(share) + 4), "b": bottom, "b5": bottom + 5,
         "bt": bottom + 17, "l": _LEFT, "l5": _LEFT - 5, "lt": _LEFT - 8, "t": f"{share:.0%}", "axis": _AXIS}
        for share in (0.0, 0.25, 0.5, 0.75, 1.0)))
    axes = format_html(
        '<line x1="{l}" y1="{t}" x2="{l}" y2="{b}" stroke="{axis}"/>'
        '<line x1="{l}" y1="{b}" x2="{r}" y2="{b}" stroke="{axis}"/>'
        '<text x="{cx}" y="{h}" text-anchor="middle">{x_title}</text>'
        '<text x="12" y="{cy}" text-anchor="middle" transform="rotate(-90 12 {cy})">{y_title}</text>',
        l=_LEFT, t=_TOP, b=bottom, r=_LEFT + _PLOT_W, cx=_n(_LEFT + _PLOT_W / 2), h=_HEIGHT - 6,
        cy=_n(_TOP + _PLOT_H / 2), axis=_AXIS,
        x_title="unsafe release rate on the labels (inconsistent answers released)",
        y_title="automation (consistent answers released)",
    )
    budget_line = format_html(
        '<line x1="{x}" y1="{t}" x2="{x}" y2="{b}" stroke="{c}" stroke-dasharray="4 3">'
        "<title>budget {p}</title></line>",
        x=_n(_x(budget)), t=_TOP, b=bottom, c=_CHOSEN, p=f"{budget:.1%}",
    )
    legend = svg.legend((
        (_CURVE, "each threshold"), *((mark.colour, f"threshold {mark.label}") for mark in shown),
        (_CHOSEN, f"budget {budget:.1%} (dashed)"),
    ))
    return format_html(
        '<figure class="chart release-curve">'
        '<svg viewBox="0 0 {} {}" role="img" aria-labelledby="release-curve-title">'
        '<title id="release-curve-title">{}</title>{}{}{}'
        '<polyline points="{}" fill="none" stroke="{}" stroke-width="2"/>{}{}</svg>'
        '{}</figure>',
        _WIDTH, _HEIGHT, "Automation against unsafe releases, per threshold, on reviewers' labels",
        axes, ticks, budget_line, polyline, _CURVE, dots, marked, legend,
    )


def release_gate_chart(gate: ReleaseGate) -> SafeString:
    """The gate page's chart: the curve, the threshold in force and the chosen budget's threshold marked."""
    marks = []
    if gate.in_force.point is not None:
        marks.append(in_force_mark(gate.in_force.point))
    if gate.chosen.point is not None and gate.chosen.met:
        marks.append(chosen_mark(gate.chosen.point))
    return tradeoff_chart(points=list(gate.curve), marks=marks, budget=gate.chosen.budget)


def bound_chart(*, points: list[BoundPoint], budget: float) -> SafeString:
    """The exact upper bound at the strictest threshold (y) as labelled answers arrived (x), with the budget
    dashed: once the line is under it, a threshold within the budget is allowed."""
    if not points:
        return SafeString("")
    most = max(point.answers for point in points)
    top = max(budget * 2, min(1.0, max(point.bound for point in points)))

    def x(answers: int) -> float:
        return _LEFT + answers / most * _PLOT_W

    def y(bound: float) -> float:
        return _TOP + (1.0 - min(bound, top) / top) * _PLOT_H

    polyline = " ".join(f"{_n(x(point.answers))},{_n(y(point.bound))}" for point in points)
    dots = format_html_join("", '<circle cx="{}" cy="{}" r="2.5" fill="{}"><title>{}</title></circle>', (
        (_n(x(point.answers)), _n(y(point.bound)), _CURVE,
         f"after {point.answers} labelled answers ({point.inconsistent} inconsistent): bound {point.bound:.1%}")
        for point in points))
    bottom = _TOP + _PLOT_H
    axes = format_html(
        '<line x1="{l}" y1="{t}" x2="{l}" y2="{b}" stroke="{axis}"/>'
        '<line x1="{l}" y1="{b}" x2="{r}" y2="{b}" stroke="{axis}"/>'
        '<text x="{l}" y="{bt}" text-anchor="middle">0</text><text x="{r}" y="{bt}" text-anchor="middle">{most}</text>'
        '<text x="{lt}" y="{b}" text-anchor="end">0%</text><text x="{lt}" y="{tt}" text-anchor="end">{top}</text>'
        '<text x="{cx}" y="{h}" text-anchor="middle">labelled answers, in the order they arrived</text>'
        '<text x="12" y="{cy}" text-anchor="middle" transform="rotate(-90 12 {cy})">'
        'upper bound, unsafe releases</text>',
        l=_LEFT, t=_TOP, b=bottom, r=_LEFT + _PLOT_W, bt=bottom + 17, lt=_LEFT - 8, tt=_TOP + 4, most=most,
        top=f"{top:.0%}", cx=_n(_LEFT + _PLOT_W / 2), h=_HEIGHT - 6, cy=_n(_TOP + _PLOT_H / 2), axis=_AXIS,
    )
    budget_line = format_html(
        '<line x1="{l}" y1="{y}" x2="{r}" y2="{y}" stroke="{c}" stroke-dasharray="4 3">'
        '<title>budget {p}</title></line>',
        l=_LEFT, r=_LEFT + _PLOT_W, y=_n(y(budget)), c=_CHOSEN, p=f"{budget:.1%}",
    )
    legend = svg.legend(((_CURVE, "95% upper bound at the strictest threshold"), (_CHOSEN, f"budget {budget:.1%}")))
    return format_html(
        '<figure class="chart bound-chart" id="bound-chart">'
        '<svg viewBox="0 0 {} {}" role="img" aria-labelledby="bound-chart-title">'
        '<title id="bound-chart-title">{}</title>{}{}<polyline points="{}" fill="none" stroke="{}" stroke-width="2"/>'
        '{}</svg>{}</figure>',
        _WIDTH, _HEIGHT, "The bound on unsafe releases as labels arrived", axes, budget_line, polyline, _CURVE,
        dots, legend,
    )
