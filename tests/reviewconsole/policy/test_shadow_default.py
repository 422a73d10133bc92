"""A new constitution starts in shadow mode unless its admin accepts the built-in calibration, and shadow mode
ends once a calibration of its own meets the budget."""

from __future__ import annotations

from reviewconsole.policy.models import ConstitutionVersion
from verification import Policy, ReleaseCalibration


def _created(admin_client, **form: str) -> Policy:
    response = admin_client.post("/policy/constitutions/new", form)
    assert response.status_code == 302
    return ConstitutionVersion.objects.get(document__name=form["name"]).constitution().policy


def test_a_new_constitution_starts_in_shadow_mode(admin_client):
    policy = _created(admin_client, name="billing")
    assert policy.shadow and policy.in_shadow and not policy.auto_publish_calibration


def test_accepting_the_built_in_calibration_releases_from_the_start(admin_client):
    policy = _created(admin_client, name="billing", builtin_calibration="1")
    assert not policy.shadow and not policy.in_shadow


def test_the_page_offers_the_choice(admin_client):
    page = admin_client.get("/policy/").content.decode()
    assert 'name="builtin_calibration"' in page and "starts in shadow mode" in page


def test_shadow_mode_ends_with_an_own_calibration_that_meets_the_budget():
    calibration = {"threshold": 1.0, "max_unsafe_release_rate": 0.1, "confidence": 0.95, "verifier": "offline/7 x",
                   "groups": [], "computed": "2026-01-01T00:00:00+00:00"}
    assert not Policy(shadow=True, release_calibration=ReleaseCalibration(**calibration)).in_shadow
    assert Policy(shadow=True, release_calibration=ReleaseCalibration(**calibration, met=False)).in_shadow
    assert not Policy(shadow=False).in_shadow
