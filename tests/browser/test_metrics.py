"""The metrics page in a real browser: the chart legend as drawn, and a review lead reading agreement (κ)."""

from __future__ import annotations

import pytest

from reviewconsole.accounts.roles import Role
from tests.browser.session import sign_in
from tests.personas import _user_with
from tests.reviewconsole.audit.test_metrics import dataset  # noqa: F401 (fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


PERIOD = "?since=2026-03-02&until=2026-03-03"  # the dataset's two days


def test_the_escalations_legend_shows_small_swatches_beside_their_reasons(page, support_lead, dataset):  # noqa: F811
    sign_in(page, "sam")
    page.goto(f"/audit/metrics/{PERIOD}")

    swatches = page.locator("figure.chart .legend .swatch")
    assert swatches.count() >= 1
    for index in range(swatches.count()):
        box = swatches.nth(index).bounding_box()
        # A text-sized square (.8em of the legend's 13.6 px), not a chart-wide one.
        assert box is not None and 8 <= box["width"] <= 16 and 8 <= box["height"] <= 16, box
    legend = page.locator("figure.chart .legend").first
    assert legend.bounding_box()["height"] < 60  # one or two lines of entries, not a tower of squares
    assert page.locator("figure.chart > svg").first.bounding_box()["width"] > 400  # the chart itself is wide


def test_a_review_lead_opens_the_metrics_and_reads_reviewer_agreement(page, dataset):  # noqa: F811
    _user_with("lou", Role.REVIEW_LEAD)
    sign_in(page, "lou")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Metrics").click()
    page.wait_for_url("**/audit/metrics/")
    assert page.get_by_role("heading", name="Agreement between reviewers (Cohen's κ)").is_visible()
    assert page.locator("#kappa-by-pair").is_visible()

    page.goto(f"/audit/metrics/{PERIOD}")
    assert page.locator("#agreement-by-reason tbody tr").count() == 2
    # The rest of the audit pages stay the support leads'.
    navigation = page.get_by_role("navigation", name="Main")
    assert navigation.get_by_role("link", name="Audit", exact=True).count() == 0
    assert page.goto("/audit/").status == 403
