"""The gate in a real headless Chromium: a constitution in shadow mode whose labels now allow a threshold, its
chart and arithmetic, publishing it; then the breaker's banner on the release gate and metrics pages, closing
refused before a recalibration and accepted after one."""

from __future__ import annotations

import pytest
from django.utils import timezone

from reviewconsole.intake.services import client_create
from reviewconsole.policy.breaker import breaker_trip
from reviewconsole.policy.models import ReleaseBreaker
from reviewconsole.policy.selectors import constitution_in_force
from reviewconsole.policy.services import constitution_draft_save, version_publish
from tests.browser.session import sign_in
from tests.reviewconsole.workbench.test_release_gate import Seed
from verification import Constitution, Policy

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAME = "shop"
S, R = "SUPPORTED", "REFUTED"


@pytest.fixture
def shadowed(policy_admin, reviewer):
    """A constitution in shadow mode at a 10% budget, with 40 consistent labelled answers scoring 1 and 30
    inconsistent ones the engine refuted: 0 of 30 released bounds the unsafe rate at 9.5%, within the budget."""
    draft = constitution_draft_save(constitution=Constitution(name=NAME, policy=Policy(
        shadow=True, max_unsafe_release_rate=0.1)), author=policy_admin)
    version_publish(version=draft, actor=policy_admin, now=timezone.now())
    seed = Seed(client_create(name="shop-bot")[0], [reviewer])
    for _ in range(40):
        seed.answer(seed.case(constitution=NAME), (S, 1.0, (S,)))
    for _ in range(30):
        seed.answer(seed.case(constitution=NAME), (R, 0.0, (R,)))
    return seed


def test_the_release_gate_page_shows_shadow_mode_the_chart_and_publishes_the_threshold(page, shadowed):
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, "paul")
    page.goto(f"/policy/constitutions/{NAME}/release-gate/")

    assert page.locator("#shadow-state").inner_text().startswith("Shadow mode.")
    assert page.locator("#auto-labelled").inner_text() == "70"
    assert page.locator("#auto-unsafe").inner_text() == "30"
    assert page.locator("#auto-threshold").inner_text() == "1.0000"
    assert page.locator("#labels-needed").inner_text() == "0"
    chart = page.get_by_role("img", name="The bound on unsafe releases as labels arrived")
    assert chart.is_visible() and chart.bounding_box()["width"] > 300
    assert page.locator("#bound-chart polyline").count() == 1
    assert page.locator("#bound-chart circle").count() >= 2
    # The arithmetic is one click away, and names the exact bound and the count it needs.
    page.locator("#labels-arithmetic summary").click()
    steps = page.locator("#labels-arithmetic li").all_inner_texts()
    assert "Clopper-Pearson" in steps[1] and "n = 30 (bound 9.50% with 0 of 30)" in steps[2]
    assert "allowed today" in steps[-1]

    page.get_by_role("button", name="Publish it and start releasing").click()
    page.locator("#shadow-state").get_by_text("Releasing").wait_for()
    assert "Published v2" in page.locator(".messages").inner_text()
    assert page.locator("#publish-threshold").count() == 0
    in_force = constitution_in_force(NAME)
    assert in_force is not None and in_force.number == 2 and not in_force.constitution().policy.in_shadow
    assert errors == []  # nothing refused by the Content-Security-Policy, no script error


def test_the_breaker_banner_shows_why_and_a_person_closes_it_after_recalibrating(page, browser, live_server,
                                                                                  shadowed, policy_admin, support_lead):
    breaker_trip(constitution=NAME, now=timezone.now(), evidence={
        "spot_checks": 3, "unsafe": 2, "estimate": 0.6667, "interval": [0.2077, 0.9385], "budget": 0.1,
        "since": "2000-01-01T00:00:00+00:00", "unsafe_cases": [shadowed.case(constitution=NAME).pk],
    })
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, "paul")
    page.goto(f"/policy/constitutions/{NAME}/release-gate/")
    banner = page.locator("#breaker-banner")
    assert banner.is_visible() and banner.get_attribute("role") == "alert"
    assert "Releases of shop are stopped" in banner.inner_text()
    assert "2 of 3 blind spot checks" in banner.inner_text() and "20.8% – 93.8%" in banner.inner_text()

    # Closing before a recalibration is refused, saying what to do.
    page.get_by_label("Why releasing is safe again").fill("looked at it")
    page.get_by_role("button", name="Close the breaker").click()
    assert "recalibrate first" in page.locator("#breaker-error").inner_text()
    assert ReleaseBreaker.objects.get().is_open

    # The support lead sees the same banner on the metrics page.
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
    sam = context.new_page()
    sign_in(sam, "sam")
    sam.goto("/audit/metrics/")
    assert "Releases of shop are stopped" in sam.locator("#breakers").inner_text()

    in_force = constitution_in_force(NAME)
    assert in_force is not None
    stricter = in_force.constitution().model_copy(update={"policy": in_force.constitution().policy.model_copy(
        update={"max_unsafe_release_rate": 0.05})})
    version_publish(version=constitution_draft_save(constitution=stricter, author=policy_admin, based_on=in_force),
                    actor=policy_admin, now=timezone.now())
    page.get_by_label("Why releasing is safe again").fill("a stricter budget until the new labels are in")
    page.get_by_role("button", name="Close the breaker").click()
    page.locator("#breaker-closed").wait_for()
    assert page.locator("#breaker-banner").count() == 0
    assert "a stricter budget" in page.locator("#breaker-history").inner_text()
    sam.goto("/audit/metrics/")
    assert sam.locator("#breaker-banner").count() == 0 and "paul" in sam.locator("#breaker-history").inner_text()
    context.close()
