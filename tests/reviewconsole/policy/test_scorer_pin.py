"""The scorer model a constitution pins is promoted and rolled back from the scorer page, never typed in the
editor: saving an edit keeps the pin of the version the edit was based on."""

from __future__ import annotations

import pytest
from django.utils import timezone

from reviewconsole.policy import services
from reviewconsole.policy.models import ConstitutionVersion
from reviewconsole.policy.selectors import constitution_in_force
from tests.reviewconsole.policy.conftest import editor_post
from verification.decision.calibration import GroupBound, ReleaseCalibration
from verification.policy.constitution import CUSTOMER_SUPPORT, Constitution

pytestmark = pytest.mark.django_db

NAME = "customer-support"
PROMOTED, OTHER = "a" * 64, "b" * 64
CALIBRATION = ReleaseCalibration(
    threshold=0.9, max_unsafe_release_rate=0.05, confidence=0.95, verifier="offline/test 0123456789abcdef",
    groups=[GroupBound(name="customer-support/held-out-labels", consistent=40, inconsistent=60, unsafe_released=0,
                       unsafe_release_rate=0.0, unsafe_upper_bound=0.0487, automation=0.7)],
    computed="2026-11-20T10:00:00+00:00",
)


def _pinned(scorer_model: str, calibration: ReleaseCalibration | None = None) -> Constitution:
    policy = CUSTOMER_SUPPORT.policy.model_copy(update={"scorer_model": scorer_model,
                                                        "release_calibration": calibration})
    return CUSTOMER_SUPPORT.model_copy(update={"policy": policy})


def _version(number: int) -> ConstitutionVersion:
    return ConstitutionVersion.objects.get(document__name=NAME, number=number)


def _edit(admin_client, based_on: ConstitutionVersion, **changes: str) -> ConstitutionVersion:
    response = admin_client.post(f"/policy/constitutions/{NAME}/v{based_on.number}/edit",
                                 editor_post(based_on.constitution(), **changes))
    saved = ConstitutionVersion.objects.filter(document__name=NAME).order_by("-number").first()
    assert response.status_code == 302 and response["Location"] == f"/policy/constitutions/{NAME}/v{saved.number}/"
    return saved


@pytest.fixture
def promoted(policy_admin) -> ConstitutionVersion:
    """customer-support v2 in force, pinning a promoted model with a calibration made for it."""
    draft = services.constitution_draft_save(constitution=_pinned(PROMOTED, CALIBRATION), author=policy_admin,
                                             note="scorer model v1 promoted", based_on=constitution_in_force(NAME))
    return services.version_publish(version=draft, actor=policy_admin, now=timezone.now())


def test_an_edit_keeps_the_pin_of_the_version_it_was_based_on(admin_client, promoted, policy_admin):
    other = services.constitution_draft_save(constitution=_pinned(OTHER), author=policy_admin, based_on=promoted)

    from_in_force = _edit(admin_client, promoted, **{"rules-0-max_words": "90"})
    from_draft = _edit(admin_client, other, **{"rules-0-max_words": "80"})
    from_unpinned = _edit(admin_client, _version(1), **{"rules-0-max_words": "70"})

    assert from_in_force.constitution().policy.scorer_model == PROMOTED
    assert from_in_force.constitution().policy.release_calibration == CALIBRATION
    assert from_in_force.constitution().rules[0].max_words == 90
    assert from_draft.constitution().policy.scorer_model == OTHER
    assert from_unpinned.constitution().policy.scorer_model is None
    # What the admin confirms before publishing: the edited rule, not the pin.
    confirm = admin_client.get(f"/policy/constitutions/{NAME}/v{from_in_force.number}/publish").content.decode()
    assert "Most words" in confirm and "Scorer model" not in confirm
    assert constitution_in_force(NAME).number == promoted.number  # nothing in force changed until published


def test_a_new_budget_drops_the_calibration_but_keeps_the_pin(admin_client, promoted):
    saved = _edit(admin_client, promoted, **{"policy-max_unsafe_release_rate": "0.1"})

    policy = saved.constitution().policy
    assert policy.max_unsafe_release_rate == 0.1 and policy.release_calibration is None
    assert policy.scorer_model == PROMOTED
    confirm = admin_client.get(f"/policy/constitutions/{NAME}/v{saved.number}/publish").content.decode()
    assert "<td>Release calibration</td>" in confirm and "Scorer model" not in confirm


def test_a_typed_pin_is_not_taken_from_the_form(admin_client, promoted):
    saved = _edit(admin_client, promoted, **{"policy-scorer_model": OTHER, "rules-0-max_words": "90"})

    assert saved.constitution().policy.scorer_model == PROMOTED
