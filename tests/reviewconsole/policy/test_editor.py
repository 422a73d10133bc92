"""The constitution editor: a message per field for each rule kind, adding rules, saving a new version."""

from __future__ import annotations

import re

import pytest

from reviewconsole.policy import services
from reviewconsole.policy.models import ConstitutionVersion, VersionStatus
from reviewconsole.policy.selectors import constitution_in_force
from reviewconsole.policy.versioning import content_sha256
from tests.reviewconsole.policy.conftest import editor_post
from verification.decision.calibration import GroupBound, ReleaseCalibration
from verification.policy.constitution import CUSTOMER_SUPPORT

pytestmark = pytest.mark.django_db

EDIT = "/policy/constitutions/customer-support/v1/edit"
_BUDGET_ERROR = "max_unsafe_release_rate must be a number strictly between 0 and 1"
# customer-support's rules, in order: word-limit, no-guarantees, say-when-not-found,
# no-promise-outside-sources, answers-the-question.


def _error(html: str, field: str) -> str:
    found = re.search(rf'<p id="{re.escape(field)}-error" class="error field-error">(.*?)</p>', html, re.S)
    return found.group(1).strip() if found else ""


@pytest.mark.parametrize(
    ("field", "typed", "message"),
    [
        ("rules-0-max_words", "many", "valid integer"),
        ("rules-0-max_words", "0", "greater than or equal to 1"),
        ("rules-1-phrases", "  \n ", "at least 1 item"),
        ("rules-2-disclosure", "Here is more.", "must contain one of the phrases"),
        ("rules-2-phrases", "", "at least 1 item"),
        ("rules-3-name", "", "at least 1 character"),
        ("rules-4-instruction", "", "at least 1 character"),
        ("policy-spot_check_share", "1.5", "less than or equal to 1"),
        ("policy-max_repairs", "-1", "greater than or equal to 0"),
        ("policy-max_unsafe_release_rate", "0", _BUDGET_ERROR),
        ("policy-max_unsafe_release_rate", "1", _BUDGET_ERROR),
        ("policy-max_unsafe_release_rate", "-0.1", _BUDGET_ERROR),
        ("policy-max_unsafe_release_rate", "five percent", _BUDGET_ERROR),
        ("policy-max_unsafe_release_rate", "", _BUDGET_ERROR),
    ],
)
def test_each_rule_kind_and_knob_is_validated_with_a_message_on_its_field(admin_client, field, typed, message):
    response = admin_client.post(EDIT, editor_post(CUSTOMER_SUPPORT, **{field: typed}))

    html = response.content.decode()
    assert response.status_code == 400
    assert message in _error(html, field), _error(html, field)
    assert "Check the fields marked below." in html
    assert ConstitutionVersion.objects.filter(document__name="customer-support").count() == 1


def test_two_rules_with_one_name_are_refused_on_the_second(admin_client):
    response = admin_client.post(EDIT, editor_post(CUSTOMER_SUPPORT, **{"rules-1-name": "word-limit"}))

    assert response.status_code == 400
    assert _error(response.content.decode(), "rules-1-name") == "another rule already has this name"


def test_adding_a_rule_shows_its_empty_fields_without_saving(admin_client):
    response = admin_client.post(EDIT, editor_post(CUSTOMER_SUPPORT, add_rule="judged"))

    html = response.content.decode()
    assert response.status_code == 200
    assert 'name="rules-5-kind" value="judged"' in html and 'id="rules-5-instruction"' in html
    assert "Check the fields" not in html
    assert ConstitutionVersion.objects.filter(document__name="customer-support").count() == 1


def test_saving_a_valid_edit_makes_a_draft_and_leaves_the_version_in_force(admin_client):
    data = editor_post(CUSTOMER_SUPPORT, **{"rules-0-max_words": "40", "rules-1-delete": "1",
                                            "policy-spot_check_share": "0.25", "note": "tighter"})

    response = admin_client.post(EDIT, data)

    draft = ConstitutionVersion.objects.get(document__name="customer-support", number=2)
    assert response.status_code == 302 and response["Location"] == "/policy/constitutions/customer-support/v2/"
    constitution = draft.constitution()
    assert constitution.rules[0].max_words == 40 and "no-guarantees" not in [r.name for r in constitution.rules]
    assert constitution.policy.spot_check_share == 0.25
    assert draft.status == VersionStatus.DRAFT and draft.note == "tighter" and draft.author.username == "paul"
    assert constitution_in_force("customer-support").number == 1


def test_the_unchanged_form_round_trips_to_the_same_content(admin_client):
    admin_client.post(EDIT, editor_post(CUSTOMER_SUPPORT))

    draft = ConstitutionVersion.objects.get(document__name="customer-support", number=2)
    assert draft.sha256 == constitution_in_force("customer-support").sha256


def test_the_editor_page_shows_every_rule_of_the_version(admin_client):
    html = admin_client.get(EDIT).content.decode()

    assert 'value="150"' in html and "no questions asked" in html
    assert 'name="policy-needs_person" value="REVIEW" checked' in html


def test_a_new_constitution_starts_as_an_empty_draft_and_a_bad_name_is_refused(admin_client):
    bad = admin_client.post("/policy/constitutions/new", {"name": "Billing Support"})
    good = admin_client.post("/policy/constitutions/new", {"name": "billing-support"})

    assert bad.status_code == 400 and "name:" in bad.content.decode()
    assert good.status_code == 302 and good["Location"] == "/policy/constitutions/billing-support/v1/edit"
    version = ConstitutionVersion.objects.get(document__name="billing-support")
    assert version.status == VersionStatus.DRAFT and version.content["rules"] == []


def test_the_editor_shows_the_risk_budget_of_the_version(admin_client):
    html = admin_client.get(EDIT).content.decode()

    assert '<input id="policy-max_unsafe_release_rate" name="policy-max_unsafe_release_rate" value="0.05"' in html
    assert "Risk budget: most unsafe releases" in html


def test_setting_the_risk_budget_saves_a_new_version_that_shows_it(admin_client):
    response = admin_client.post(EDIT, editor_post(CUSTOMER_SUPPORT, **{"policy-max_unsafe_release_rate": "0.02"}))

    draft = ConstitutionVersion.objects.get(document__name="customer-support", number=2)
    assert response.status_code == 302 and response["Location"] == "/policy/constitutions/customer-support/v2/"
    assert draft.constitution().policy.max_unsafe_release_rate == 0.02
    assert draft.content["policy"]["max_unsafe_release_rate"] == 0.02
    assert draft.sha256 != constitution_in_force("customer-support").sha256
    assert constitution_in_force("customer-support").number == 1

    new_page = admin_client.get("/policy/constitutions/customer-support/v2/").content.decode()
    old_page = admin_client.get("/policy/constitutions/customer-support/v1/").content.decode()
    assert re.search(r'id="max-unsafe-release-rate">0.02 <span class="muted">\(at most 2% ', new_page)
    assert re.search(r'id="max-unsafe-release-rate">0.05 <span class="muted">\(at most 5% ', old_page)
    assert "the verifier's built-in calibration for this budget" in new_page
    diff = admin_client.get("/policy/constitutions/customer-support/").content.decode()
    assert "Risk budget: most unsafe releases (share, between 0 and 1)" in diff
    assert "policy.max_unsafe_release_rate" not in diff


def _own_calibration(budget: float) -> ReleaseCalibration:
    group = GroupBound(name="acme/reviewer-labels", consistent=300, inconsistent=200, unsafe_released=4,
                       unsafe_release_rate=0.02, unsafe_upper_bound=0.0457, automation=0.61)
    return ReleaseCalibration(threshold=0.8125, max_unsafe_release_rate=budget, confidence=0.95,
                              verifier="offline/test", groups=[group], computed="2026-11-20T10:00:00+00:00")


def test_an_own_calibration_is_kept_while_the_budget_stays_and_dropped_when_it_changes(admin_client, policy_admin):
    policy = CUSTOMER_SUPPORT.policy.model_copy(update={"release_calibration": _own_calibration(0.05)})
    calibrated = services.constitution_draft_save(
        constitution=CUSTOMER_SUPPORT.model_copy(update={"policy": policy}), author=policy_admin, note="recalibrated"
    )
    edit = f"/policy/constitutions/customer-support/v{calibrated.number}/edit"

    page = admin_client.get(f"/policy/constitutions/customer-support/v{calibrated.number}/").content.decode()
    assert "its own: release threshold 0.8125 for at most 5% unsafe releases" in page
    assert "acme/reviewer-labels" in admin_client.get(edit).content.decode()

    admin_client.post(edit, editor_post(CUSTOMER_SUPPORT, **{"rules-0-max_words": "90"}))
    admin_client.post(edit, editor_post(CUSTOMER_SUPPORT, **{"policy-max_unsafe_release_rate": "0.1"}))

    versions = ConstitutionVersion.objects.filter(document__name="customer-support")
    kept, dropped = (versions.get(number=calibrated.number + n) for n in (1, 2))
    assert kept.constitution().policy.release_calibration == _own_calibration(0.05)
    assert kept.constitution().rules[0].max_words == 90
    assert dropped.constitution().policy.release_calibration is None
    assert dropped.constitution().policy.max_unsafe_release_rate == 0.1


def test_a_version_saved_before_the_risk_budget_existed_loads_with_the_default(admin_client, policy_admin):
    content = CUSTOMER_SUPPORT.model_dump(mode="json")
    del content["policy"]["max_unsafe_release_rate"], content["policy"]["release_calibration"]
    old = ConstitutionVersion.objects.create(
        document=constitution_in_force("customer-support").document, number=2, content=content,
        sha256=content_sha256(content), status=VersionStatus.DRAFT, author=policy_admin,
    )

    assert old.constitution().policy.max_unsafe_release_rate == 0.05
    page = admin_client.get("/policy/constitutions/customer-support/v2/")
    assert page.status_code == 200 and 'id="max-unsafe-release-rate">0.05 ' in page.content.decode()
    assert admin_client.get("/policy/constitutions/customer-support/v2/edit").status_code == 200


@pytest.mark.parametrize("typed", ["No Guarantees!", "no guarantees", "-no-guarantees", "Word-Limit"])
def test_a_rule_name_against_the_hint_is_refused_on_its_field(admin_client, typed):
    response = admin_client.post(EDIT, editor_post(CUSTOMER_SUPPORT, **{"rules-1-name": typed}))

    html = response.content.decode()
    assert response.status_code == 400
    assert _error(html, "rules-1-name").startswith("name: use only lower-case letters, digits")
    assert ConstitutionVersion.objects.filter(document__name="customer-support").count() == 1


def test_the_rule_name_hint_says_what_the_editor_accepts(admin_client):
    html = admin_client.get(EDIT).content.decode()

    assert 'Use lower-case letters, digits, &quot;-&quot;, &quot;.&quot; and &quot;_&quot;' in html


def test_a_renamed_rule_shows_as_a_rename_in_the_diff(admin_client):
    admin_client.post(EDIT, editor_post(CUSTOMER_SUPPORT, **{"rules-1-name": "no-promises"}))
    admin_client.post(EDIT, editor_post(CUSTOMER_SUPPORT, **{"rules-1-name": "no-promises", "rules-0-max_words": "90",
                                                              "rules-3-name": "only-sourced-promises",
                                                              "rules-3-description": "Promises need a source."}))

    renamed = admin_client.get("/policy/constitutions/customer-support/?older=1&newer=2",
                               HTTP_HX_REQUEST="true").content.decode()
    assert 'class="change-renamed"' in renamed
    assert "<strong>no-guarantees</strong> → <strong>no-promises</strong>" in renamed
    assert "<del>no-guarantees</del>" in renamed and "<ins>no-promises</ins>" in renamed
    assert "change-removed" not in renamed and "change-added" not in renamed
    assert "· Phrases</td>" not in renamed  # nothing but the name changed
    assert "order of the rules changed" not in renamed

    # Renamed and retouched at once, beside an ordinary change: still one rule renamed, not two rules swapped.
    both = admin_client.get("/policy/constitutions/customer-support/?older=1&newer=3",
                            HTTP_HX_REQUEST="true").content.decode()
    renamed_and_retouched = "<strong>no-promise-outside-sources</strong> → <strong>only-sourced-promises</strong>"
    assert f"{renamed_and_retouched} · What it asks</td>" in both
    assert both.count('class="change-renamed"') == 3  # each new name, and the description changed with one
    assert 'class="change-changed"><td>Rule <strong>word-limit</strong>' in both
    assert "change-removed" not in both and "change-added" not in both


def test_a_rule_replaced_by_a_different_one_is_removed_and_added(admin_client):
    data = editor_post(CUSTOMER_SUPPORT, **{"rules-1-delete": "1"})
    data.update({"rules-TOTAL_FORMS": "6", "rules-5-kind": "word_limit", "rules-5-name": "short-replies",
                 "rules-5-max_words": "60"})
    admin_client.post(EDIT, data)

    diff = admin_client.get("/policy/constitutions/customer-support/?older=1&newer=2",
                            HTTP_HX_REQUEST="true").content.decode()
    assert "change-renamed" not in diff
    assert 'class="change-removed"><td>Rule <strong>no-guarantees</strong>' in diff
    assert 'class="change-added"><td>Rule <strong>short-replies</strong>' in diff


def test_a_terminal_state_the_engine_does_not_know_is_refused_on_its_field(admin_client):
    data = editor_post(CUSTOMER_SUPPORT)
    data["policy-needs_person"] = [*data["policy-needs_person"], "LATER"]

    response = admin_client.post(EDIT, data)

    assert response.status_code == 400
    assert "LATER is not one of the available choices" in _error(response.content.decode(), "policy-needs_person")
    assert ConstitutionVersion.objects.filter(document__name="customer-support").count() == 1


def test_a_note_too_long_for_the_history_is_refused_on_its_field(admin_client):
    response = admin_client.post(EDIT, editor_post(CUSTOMER_SUPPORT, note="x" * 201))

    assert response.status_code == 400
    assert "at most 200 characters" in _error(response.content.decode(), "note")
    assert ConstitutionVersion.objects.filter(document__name="customer-support").count() == 1


def test_a_post_without_the_count_of_rules_saves_nothing_and_names_the_missing_inputs(admin_client):
    data = editor_post(CUSTOMER_SUPPORT)
    del data["rules-TOTAL_FORMS"]

    response = admin_client.post(EDIT, data)

    assert response.status_code == 400 and "Missing fields: rules-TOTAL_FORMS" in response.content.decode()
    assert ConstitutionVersion.objects.filter(document__name="customer-support").count() == 1
