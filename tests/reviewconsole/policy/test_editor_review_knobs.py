"""The editor's double-review and deadline knobs: shown as they are stored, saved, and refused with a
message on their own field."""

from __future__ import annotations

import re

import pytest

from reviewconsole.policy.models import ConstitutionVersion
from tests.reviewconsole.policy.conftest import editor_post
from verification.policy.constitution import CUSTOMER_SUPPORT

pytestmark = pytest.mark.django_db

EDIT = "/policy/constitutions/customer-support/v1/edit"


def _error(html: str, field: str) -> str:
    found = re.search(rf'<p id="{re.escape(field)}-error" class="error field-error">(.*?)</p>', html, re.S)
    return found.group(1).strip() if found else ""


def _saved_policy() -> dict:
    version = ConstitutionVersion.objects.filter(document__name="customer-support").order_by("-number").first()
    assert version.number == 2, "the edit was not saved"
    return version.content["policy"]


def test_the_editor_offers_the_three_knobs_unset(admin_client):
    html = admin_client.get(EDIT).content.decode()

    assert "Double review: reasons whose cases need two independent reviews" in html
    assert 'name="policy-double_review_reasons" value="CONFLICTING_EVIDENCE">' in html
    assert 'name="policy-double_review_severities" value="CRITICAL">' in html
    assert re.search(r'<input id="policy-review_deadline_hours" name="policy-review_deadline_hours" value=""', html)
    assert "checked" not in re.search(r'<fieldset id="policy-double_review_reasons">(.*?)</fieldset>', html, re.S)[1]


def test_saving_the_knobs_makes_a_version_that_has_them_and_the_editor_shows_them_again(admin_client):
    data = editor_post(CUSTOMER_SUPPORT, **{"policy-review_deadline_hours": "24"})
    data["policy-double_review_reasons"] = ["CRITICAL_CLAIM", "CONFLICTING_EVIDENCE"]
    data["policy-double_review_severities"] = ["CRITICAL"]

    response = admin_client.post(EDIT, data)

    assert response.status_code == 302
    policy = _saved_policy()
    assert policy["double_review_reasons"] == ["CRITICAL_CLAIM", "CONFLICTING_EVIDENCE"]
    assert policy["double_review_severities"] == ["CRITICAL"]
    assert policy["review_deadline_hours"] == 24
    html = admin_client.get("/policy/constitutions/customer-support/v2/edit").content.decode()
    assert 'name="policy-double_review_reasons" value="CRITICAL_CLAIM" checked>' in html
    assert 'name="policy-double_review_reasons" value="UNSUPPORTED_CLAIM">' in html
    assert 'name="policy-double_review_severities" value="CRITICAL" checked>' in html
    assert 'name="policy-review_deadline_hours" value="24"' in html


def test_an_empty_deadline_is_no_deadline(admin_client):
    response = admin_client.post(EDIT, editor_post(CUSTOMER_SUPPORT, **{"policy-review_deadline_hours": ""}))

    assert response.status_code == 302
    assert _saved_policy()["review_deadline_hours"] is None


@pytest.mark.parametrize("typed", ["0", "-3", "2161", "1.5", "a day"])
def test_a_deadline_that_is_not_a_whole_number_of_hours_in_range_is_refused_on_its_field(admin_client, typed):
    response = admin_client.post(EDIT, editor_post(CUSTOMER_SUPPORT, **{"policy-review_deadline_hours": typed}))

    assert response.status_code == 400
    message = _error(response.content.decode(), "policy-review_deadline_hours")
    assert message.startswith("review_deadline_hours must be a whole number of hours from 1 to 2160"), message
    assert ConstitutionVersion.objects.filter(document__name="customer-support").count() == 1


@pytest.mark.parametrize(
    ("field", "value"),
    [("policy-double_review_reasons", "WHENEVER"), ("policy-double_review_severities", "HUGE")],
)
def test_a_code_the_engine_does_not_know_is_refused_on_its_field(admin_client, field, value):
    data = editor_post(CUSTOMER_SUPPORT)
    data[field] = ["CRITICAL_CLAIM" if "reasons" in field else "CRITICAL", value]

    response = admin_client.post(EDIT, data)

    assert response.status_code == 400
    knob = field.removeprefix("policy-")
    assert _error(response.content.decode(), field) == f"{knob}: {value} is not one of the available choices."
    assert ConstitutionVersion.objects.filter(document__name="customer-support").count() == 1


def test_a_calibration_group_is_saved_and_an_empty_one_is_the_pooled_threshold(admin_client):
    response = admin_client.post(EDIT, editor_post(CUSTOMER_SUPPORT, **{"policy-calibration_group": "wice/hold"}))

    assert response.status_code == 302
    assert _saved_policy()["calibration_group"] == "wice/hold"
    html = admin_client.get("/policy/constitutions/customer-support/v2/edit").content.decode()
    assert 'name="policy-calibration_group" value="wice/hold"' in html
    assert "summedits/hold (summaries)" in html


def test_an_overlong_calibration_group_is_refused_on_its_field(admin_client):
    response = admin_client.post(EDIT, editor_post(CUSTOMER_SUPPORT, **{"policy-calibration_group": "g" * 101}))

    assert response.status_code == 400
    assert "calibration_group" in _error(response.content.decode(), "policy-calibration_group")
    assert ConstitutionVersion.objects.filter(document__name="customer-support").count() == 1


def test_a_calibration_group_the_calibration_lacks_is_refused_naming_it_and_the_known_ones(admin_client):
    response = admin_client.post(EDIT, editor_post(CUSTOMER_SUPPORT, **{"policy-calibration_group": "wice"}))

    assert response.status_code == 400
    assert _error(response.content.decode(), "policy-calibration_group") == (
        "calibration_group: &#x27;wice&#x27; is not a group of the calibration in force; choose one of: "
        "wice/hold, summedits/hold, halueval/hold")
    assert ConstitutionVersion.objects.filter(document__name="customer-support").count() == 1


def test_the_claims_sent_to_the_model_are_saved_shown_on_the_version_and_offered_again(admin_client):
    html = admin_client.get(EDIT).content.decode()
    assert '<option value="" selected>Chosen from the calibration</option>' in html

    response = admin_client.post(EDIT, editor_post(CUSTOMER_SUPPORT, **{"policy-model_verification": "uncertain"}))

    assert response.status_code == 302
    assert _saved_policy()["model_verification"] == "uncertain"
    version = admin_client.get("/policy/constitutions/customer-support/v2/").content.decode()
    assert re.search(r'<dd id="model-verification">The uncertain band: what the offline verifier cannot settle',
                     version)
    again = admin_client.get("/policy/constitutions/customer-support/v2/edit").content.decode()
    assert '<option value="uncertain" selected>' in again


def test_an_unknown_choice_of_claims_sent_to_the_model_is_refused_on_its_field(admin_client):
    response = admin_client.post(EDIT, editor_post(CUSTOMER_SUPPORT, **{"policy-model_verification": "sometimes"}))

    assert response.status_code == 400
    assert _error(response.content.decode(), "policy-model_verification") == (
        "model_verification must be one of: off, uncertain, all, or empty to choose from the calibration")
    assert ConstitutionVersion.objects.filter(document__name="customer-support").count() == 1


def test_a_minor_tier_with_its_note_is_saved_and_shown_on_the_version(admin_client):
    note = "We could not confirm this in our documentation."
    response = admin_client.post(EDIT, editor_post(CUSTOMER_SUPPORT, **{
        "policy-minor_unsupported": "note", "policy-minor_note": note}))

    assert response.status_code == 302
    assert (_saved_policy()["minor_unsupported"], _saved_policy()["minor_note"]) == ("note", note)
    version = admin_client.get("/policy/constitutions/customer-support/v2/").content.decode()
    assert ('<dd id="minor-unsupported">Kept, followed by the note below (a contradicted one is taken out): '
            f"<q>{note}</q></dd>") in version


def test_noting_minor_claims_without_a_note_is_refused_on_the_note(admin_client):
    response = admin_client.post(EDIT, editor_post(CUSTOMER_SUPPORT, **{"policy-minor_unsupported": "note"}))

    assert response.status_code == 400
    assert _error(response.content.decode(), "policy-minor_note") == (
        'minor_note: required when minor_unsupported is &quot;note&quot;')
    assert ConstitutionVersion.objects.filter(document__name="customer-support").count() == 1
