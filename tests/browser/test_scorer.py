"""A policy admin in a real browser retrains the scorer on reviewers' labels, reads old against new, promotes
the new model and rolls it back."""

from __future__ import annotations

import pytest
from django.utils import timezone

from reviewconsole.intake.services import client_create
from reviewconsole.policy.selectors import constitution_in_force
from reviewconsole.policy.services import constitution_draft_save, version_publish
from reviewconsole.workbench.models import RetrainingRun, RetrainingStatus
from reviewconsole.workbench.retraining import training_extra_missing
from tests.browser.session import sign_in
from tests.reviewconsole.workbench.labelled_claims import laptop_cases
from verification import Constitution
from verification.policy.constitution import Policy

pytestmark = [
    pytest.mark.browser, pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(bool(training_extra_missing()), reason="needs the training extra"),
]


def test_a_policy_admin_retrains_compares_promotes_and_rolls_back(page, policy_admin, reviewer):
    draft = constitution_draft_save(constitution=Constitution(name="shop", policy=Policy(max_unsafe_release_rate=0.5)),
                                    author=policy_admin)
    version_publish(version=draft, actor=policy_admin, now=timezone.now())
    laptop_cases(client_create(name="shop-bot")[0], reviewer, constitution="shop")
    sign_in(page, "paul")
    page.goto("/policy/constitutions/shop/")
    page.get_by_role("link", name="Scorer", exact=True).click()
    page.get_by_role("heading", name="Scorer: shop").wait_for()
    assert page.locator("#scorer-model").inner_text().startswith("the deployment's model")
    assert page.locator("#held-out-not-supported").inner_text() != "0"

    page.get_by_label("Passes over the training pairs (epochs)").fill("1")
    # Without a broker the run is carried out in the request that queued it: it takes a while.
    with page.expect_navigation(timeout=240_000):
        page.get_by_role("button", name="Start a retraining run").click(no_wait_after=True)
    run = RetrainingRun.objects.get()
    assert run.status == RetrainingStatus.DONE, run.error
    row = page.locator(f'#retraining-runs tr[data-run="{run.pk}"]')
    assert row.locator(".run-status").inner_text() == "Done"
    row.get_by_role("link", name="scorer model v1").click()

    page.get_by_role("heading", name="Old against new on the held-out labels").wait_for()
    table = page.locator("#held-out-table")
    assert table.get_by_role("row", name="AUROC (claims)").is_visible()
    assert "Not worse" in page.locator("#held-out-verdict").inner_text()
    page.get_by_role("button", name="Promote for shop").click()
    page.get_by_text("scorer model v1 promoted for shop").wait_for()
    assert page.locator("#scorer-model").inner_text().startswith("scorer model v1")
    assert constitution_in_force("shop").constitution().policy.scorer_model == run.model.sha256

    page.get_by_role("button", name="Roll back to the deployment's model").click()
    page.get_by_text("Rolled back: shop is scored with the deployment's model again").wait_for()
    assert page.locator("#scorer-model").inner_text().startswith("the deployment's model")
    assert constitution_in_force("shop").constitution().policy.scorer_model is None
