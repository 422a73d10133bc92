"""The metrics page's weekly series per constitution, against figures worked out by hand: the automation
rate, the unsafe release rate with its interval, decisions per day and the median time to decision; each
drawn as SVG, tabled, and downloadable as CSV."""

from __future__ import annotations

import csv
import io
import math
import re
from datetime import UTC, datetime, timedelta

import pytest

from reviewconsole.intake.models import Case
from reviewconsole.intake.services import client_create
from reviewconsole.review.models import Decision, Escalation
from reviewconsole.support.safety import wilson_interval
from reviewconsole.support.trends import Series, trend, trends, weeks_of
from tests.reviewconsole.audit.test_metrics_labels import _candidate, _label, _released, _version
from tests.reviewconsole.audit.test_pages import signed_in

pytestmark = pytest.mark.django_db

MONDAY = datetime(2026, 3, 2, tzinfo=UTC)  # a Monday
WEEK2 = MONDAY + timedelta(days=7)
PERIOD = {"since": MONDAY, "until": MONDAY + timedelta(days=14)}
PAGE_PERIOD = {"since": "2026-03-02", "until": "2026-03-15"}


def _finished(client, name: str, at: datetime, *, status: str, spot: bool | None = None,
              decided_after: timedelta | None = None, reviewer=None) -> Case:
    """A finished case of constitution `name`; with `spot` an escalation (a spot check or not), decided
    `decided_after` it opened (with a closing decision by `reviewer`)."""
    case = Case.objects.create(client=client, question="q", answer="a", status=status, terminal="PERMIT",
                               reason="ALL_SUPPORTED", finished_at=at, constitution_name=name)
    if spot is not None:
        decided = at + decided_after if decided_after is not None else None
        escalation = Escalation.objects.create(case=case, reason="ALL_SUPPORTED", severity="MINOR", is_spot_check=spot,
                                               status="DECIDED" if decided else "OPEN", decided_at=decided)
        Escalation.objects.filter(pk=escalation.pk).update(created_at=at)
        if decided is not None:
            candidate = _candidate(case, 0, "CLIENT", 1)
            Decision.objects.create(case=case, reviewer=reviewer, kind="APPROVE", candidate=candidate)
    return case


@pytest.fixture
def weeks(reviewer):
    """Week 1, default: 4 finished, 3 released alone (one of them spot-checked, still open), 1 approved by a
    reviewer after 600 s; shop: 1 released. Week 2, default: 2 decided after 60 s and 180 s, nothing
    released alone. Spot checks of shop: week 1, 4 labelled, 1 unsafe; week 2, none."""
    client, _ = client_create(name="bot")
    at = MONDAY + timedelta(hours=10)
    for _ in range(2):
        _finished(client, "", at, status="RELEASED")  # "" is the default
    _finished(client, "default", at, status="RELEASED", spot=True)
    _finished(client, "default", at, status="RELEASED", spot=False, decided_after=timedelta(seconds=600),
              reviewer=reviewer)
    _finished(client, "shop", at, status="RELEASED")
    at2 = WEEK2 + timedelta(days=2)
    _finished(client, "default", at2, status="REJECTED", spot=False, decided_after=timedelta(seconds=60),
              reviewer=reviewer)
    _finished(client, "default", at2, status="RELEASED", spot=False, decided_after=timedelta(seconds=180),
              reviewer=reviewer)
    shop = _version("shop", 1, 0.2)
    for labels in ("S", "S", "SS", "SR"):
        _label(_released(client, shop, len(labels), opened=at), labels, reviewer)


def test_weeks_start_on_monday_and_cover_the_period():
    assert weeks_of(MONDAY + timedelta(days=3), MONDAY + timedelta(days=8)) == [MONDAY.date(), WEEK2.date()]
    assert weeks_of(**PERIOD) == [MONDAY.date(), WEEK2.date()]


def test_each_series_per_constitution_and_week(weeks):
    found = {found.series: found for found in trends(**PERIOD)}

    automation = found[Series.AUTOMATION].lines
    assert [(p.part, p.count) for p in automation["default"]] == [(3, 4), (0, 2)]
    assert automation["default"][0].value == 0.75 and automation["default"][1].value == 0.0
    assert [(p.part, p.count) for p in automation["shop"]] == [(1, 1), (0, 0)] and automation["shop"][1].value is None

    unsafe = found[Series.UNSAFE_RELEASE].lines
    week1, week2 = unsafe["shop"]
    assert (week1.part, week1.count, week1.value) == (1, 4, 0.25)
    assert (week1.low, week1.high) == wilson_interval(1, 4)
    assert week2.value is None and week2.count == 0

    decisions = found[Series.DECISIONS].lines["default"]
    assert [p.count for p in decisions] == [1, 2] and math.isclose(decisions[1].value, 2 / 7)

    seconds = found[Series.TIME_TO_DECISION].lines["default"]
    assert [p.value for p in seconds] == [600, 60]  # nearest-rank median of (60, 180) is 60
    assert "shop" not in found[Series.TIME_TO_DECISION].lines


def test_the_page_draws_each_series_with_its_table_and_csv_link(client, support_lead, weeks):
    html = signed_in(client, support_lead).get("/audit/metrics/", PAGE_PERIOD).content.decode()

    section = html[html.index('id="trends"'):]
    for series in Series:
        assert f'id="trend-{series.value}"' in section
        assert f'href="/audit/metrics/{series.value}.csv?since=2026-03-02&amp;until=2026-03-15"' in section
    automation = section[section.index('id="trend-automation"'):section.index('id="trend-unsafe-release"')]
    assert "<title>default, week of 2026-03-02: 75.0%, over 4 finished cases</title>" in automation
    assert automation.count("<polyline") == 1  # default's two weeks; shop's second week is a gap, not a zero
    unsafe = section[section.index('id="trend-unsafe-release"'):section.index('id="trend-decisions"')]
    low, high = wilson_interval(1, 4)
    assert (f"shop, week of 2026-03-02: 25.0% (95% interval {low * 100:.1f}% – {high * 100:.1f}%), "
            "over 4 labelled spot checks") in unsafe
    # Its interval as a whisker, in shop's colour (the second line: default has spot checks, none labelled).
    assert re.search(r'<line x1="[\d.]+" y1="[\d.]+" x2="[\d.]+" y2="[\d.]+" stroke="#E69F00" stroke-opacity', unsafe)
    # The same numbers as a table, newest week first; no inline style for the CSP to refuse.
    assert "<th scope=\"row\">2026-03-09</th><td>0.0%, over 2 finished cases</td><td>—</td>" in automation
    assert "style=" not in section and "<script" not in section


def test_a_csv_per_series(client, policy_admin, weeks):
    signed_in(client, policy_admin)

    response = client.get("/audit/metrics/unsafe-release.csv", PAGE_PERIOD)

    assert response.status_code == 200 and response["Content-Type"] == "text/csv; charset=utf-8"
    assert 'filename="unsafe-release-2026-03-02-2026-03-15.csv"' in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    low, high = wilson_interval(1, 4)
    assert rows == [
        ["constitution", "week", "unsafe_release_rate", "interval_low", "interval_high", "spot_checks", "unsafe"],
        # default's spot check is not labelled yet: drawn, not counted.
        ["default", "2026-03-02", "", "", "", "0", "0"],
        ["default", "2026-03-09", "", "", "", "0", "0"],
        ["shop", "2026-03-02", "0.25", str(round(low, 6)), str(round(high, 6)), "4", "1"],
        ["shop", "2026-03-09", "", "", "", "0", "0"],
    ]
    rows = list(csv.reader(io.StringIO(b"".join(
        client.get("/audit/metrics/time-to-decision.csv", PAGE_PERIOD).streaming_content).decode())))
    assert rows[1:] == [["default", "2026-03-02", "600.0", "1"], ["default", "2026-03-09", "60.0", "2"]]


def test_csv_refusals(client, support_lead, reviewer):
    assert client.get("/audit/metrics/automation.csv")["Location"].startswith("/login/")
    signed_in(client, reviewer)
    assert client.get("/audit/metrics/automation.csv").status_code == 403
    signed_in(client, support_lead)
    response = client.get("/audit/metrics/no-such-series.csv")
    assert response.status_code == 404 and "there is no series" in response.content.decode()
    assert client.post("/audit/metrics/automation.csv").status_code == 405


def test_an_empty_period_says_so(client, support_lead):
    html = signed_in(client, support_lead).get("/audit/metrics/", PAGE_PERIOD).content.decode()
    assert html[html.index('id="trends"'):].count("Nothing to measure in this period.") == 4
    assert trend(Series.AUTOMATION, **PERIOD).empty
