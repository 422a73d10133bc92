"""Rubrics and calibration: versioned rubrics, runs with progress and history, the canary and its banner."""

from __future__ import annotations

import json

import pytest

from reviewconsole.audit.models import AuditEvent
from reviewconsole.policy.calibration import calibration_execute, calibration_request
from reviewconsole.policy.models import CalibrationRun, CalibrationStatus, CalibrationTrigger, Rubric, RubricVersion
from reviewconsole.policy.rubrics import BUILTIN_RUBRIC, BUILTIN_RUBRIC_NAME
from reviewconsole.policy.tasks import canary
from reviewconsole.queues import TaskQueue

pytestmark = pytest.mark.django_db

BAD = ["wrong-refund-window", "wrong-retention", "invented-fee"]


@pytest.fixture
def rubric_version(db) -> RubricVersion:
    return RubricVersion.objects.get(document__name=BUILTIN_RUBRIC_NAME, number=1)


def test_a_calibration_run_scores_the_console_critic_fixture_by_fixture(
    admin_client, rubric_version, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(f"/policy/rubrics/{BUILTIN_RUBRIC_NAME}/v1/calibrate")

    run = CalibrationRun.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/policy/calibration/{run.pk}/"
    assert run.status == CalibrationStatus.DONE and run.requested_by.username == "paul"
    assert (run.catch_rate, run.false_alarm_rate) == (1.0, 0.0)
    assert run.fixtures_done == run.fixtures_total == len(BUILTIN_RUBRIC.fixtures)
    assert run.critic == "offline" and run.constitution_pinned.startswith("default@")
    assert all(result["ok"] for result in run.results)
    assert [r["name"] for r in run.results if r["flagged"]] == BAD


def test_calibration_catches_a_deliberately_broken_critic(
    admin_client, rubric_version, settings, django_capture_on_commit_callbacks
):
    settings.POLICY_CALIBRATION_CRITIC = "tests.reviewconsole.policy.critics.lenient_critic"

    with django_capture_on_commit_callbacks(execute=True):
        run = calibration_request(rubric_version=rubric_version)

    run.refresh_from_db()
    assert run.catch_rate == 0.0 and run.false_alarm_rate == 0.0 and run.critic == "lenient"
    assert [r["name"] for r in run.results if not r["ok"]] == BAD
    html = admin_client.get(f"/policy/calibration/{run.pk}/").content.decode()
    assert '<dd class="catch-rate">0%</dd>' in html
    assert html.count('<span class="tag fail">missed</span>') == 3


def test_a_critic_that_crashes_fails_the_run_with_its_error(
    rubric_version, settings, django_capture_on_commit_callbacks
):
    settings.POLICY_CALIBRATION_CRITIC = "tests.reviewconsole.policy.critics.exploding_critic"

    with django_capture_on_commit_callbacks(execute=True):
        run = calibration_request(rubric_version=rubric_version)

    run.refresh_from_db()
    assert run.status == CalibrationStatus.FAILED and "RuntimeError: the critic broke" in run.error


def test_progress_is_polled_by_htmx_until_the_run_is_finished(admin_client, rubric_version):
    run = CalibrationRun.objects.create(rubric_version=rubric_version, fixtures_total=5)
    url = f"/policy/calibration/{run.pk}/"

    waiting = admin_client.get(url, HTTP_HX_REQUEST="true").content.decode()
    page = admin_client.get(url).content.decode()
    assert waiting.lstrip().startswith('<div id="progress"') and "<html" not in waiting
    assert 'hx-trigger="every 1s"' in waiting and "0 of 5 fixtures" in waiting
    assert "<html" in page and 'id="progress"' in page

    calibration_execute(run_id=run.pk)
    done = admin_client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert "hx-trigger" not in done and "5 of 5 fixtures" in done and '<dd class="catch-rate">100%</dd>' in done
    assert calibration_execute(run_id=run.pk) is None  # a finished run is not run again


def test_the_canary_runs_each_published_rubric_and_warns_admins_below_their_threshold(
    client, rubric_version, settings, policy_admin, reviewer, django_capture_on_commit_callbacks
):
    settings.POLICY_CALIBRATION_CRITIC = "tests.reviewconsole.policy.critics.lenient_critic"
    assert settings.CELERY_TASK_ROUTES["policy.*"] == {"queue": TaskQueue.MAINTENANCE.value}
    assert settings.CELERY_BEAT_SCHEDULE["policy-nightly-canary"]["task"] == "policy.canary"

    with django_capture_on_commit_callbacks(execute=True):
        assert canary.apply().get() == 1

    run = CalibrationRun.objects.get()
    assert run.trigger == CalibrationTrigger.CANARY and run.catch_rate == 0.0
    client.force_login(policy_admin)
    assert "Critic canary:" in client.get("/", follow=True).content.decode()
    client.force_login(reviewer)
    assert "Critic canary:" not in client.get("/", follow=True).content.decode()
    # A threshold of zero means the admins accept any catch rate: no banner.
    Rubric.objects.update(canary_threshold=0.0)
    client.force_login(policy_admin)
    assert "Critic canary:" not in client.get("/", follow=True).content.decode()


def test_the_threshold_is_validated_and_its_change_audited(admin_client, rubric_version):
    bad = admin_client.post(f"/policy/rubrics/{BUILTIN_RUBRIC_NAME}/threshold", {"canary_threshold": "90%"})
    good = admin_client.post(f"/policy/rubrics/{BUILTIN_RUBRIC_NAME}/threshold", {"canary_threshold": "0.9"})

    assert bad.status_code == 400 and "canary_threshold: a share between 0 and 1" in bad.content.decode()
    assert good.status_code == 302 and Rubric.objects.get().canary_threshold == 0.9
    event = AuditEvent.objects.filter(action="policy.changed", object_type="Rubric").get()
    assert event.payload["threshold_before"] == "0.8" and event.payload["threshold_after"] == "0.9"
    assert event.payload["before"] != event.payload["after"]


def test_editing_a_rubric_makes_a_new_version_and_fixture_errors_name_the_fixture(admin_client, rubric_version):
    fixtures = json.loads(json.dumps(rubric_version.content["fixtures"]))
    url = f"/policy/rubrics/{BUILTIN_RUBRIC_NAME}/v1/edit"
    base = {"description": "d", "instructions": "Find defects.", "constitution": "default"}

    only_good = [fixture for fixture in fixtures if not fixture["bad"]]
    blank_draft = [{**fixtures[0], "draft": ""}, *fixtures[1:]]
    responses = {
        "json": admin_client.post(url, {**base, "fixtures": "[{"}),
        "no-bad": admin_client.post(url, {**base, "fixtures": json.dumps(only_good)}),
        "blank": admin_client.post(url, {**base, "fixtures": json.dumps(blank_draft)}),
        "no-instructions": admin_client.post(url, {**base, "instructions": "", "fixtures": json.dumps(fixtures)}),
    }
    saved = admin_client.post(url, {**base, "fixtures": json.dumps(fixtures[:4]), "note": "fewer"})

    assert all(response.status_code == 400 for response in responses.values())
    assert "not valid JSON" in responses["json"].content.decode()
    assert "at least one fixture must be known to be bad" in responses["no-bad"].content.decode()
    assert "fixture 1 (wrong-refund-window) · draft: String should have at least 1 character" in \
        responses["blank"].content.decode()
    assert "String should have at least 1 character" in responses["no-instructions"].content.decode()
    assert saved.status_code == 302
    draft = RubricVersion.objects.get(document__name=BUILTIN_RUBRIC_NAME, number=2)
    assert draft.status == "DRAFT" and len(draft.content["fixtures"]) == 4
    rubric_version.refresh_from_db()
    assert rubric_version.status == "PUBLISHED" and len(rubric_version.content["fixtures"]) == 5
    page = admin_client.get(f"/policy/rubrics/{BUILTIN_RUBRIC_NAME}/v2/").content.decode()
    assert "Changes since v1" in page and "faithful-timing" in page


def test_a_canary_whose_critic_crashed_also_raises_the_banner(
    client, rubric_version, settings, policy_admin, django_capture_on_commit_callbacks
):
    settings.POLICY_CALIBRATION_CRITIC = "tests.reviewconsole.policy.critics.exploding_critic"
    with django_capture_on_commit_callbacks(execute=True):
        canary.apply()

    client.force_login(policy_admin)
    assert "could not be calibrated last night" in client.get("/", follow=True).content.decode()


def test_a_rubric_note_too_long_for_the_history_is_refused_on_its_field(admin_client, rubric_version):
    url = f"/policy/rubrics/{BUILTIN_RUBRIC_NAME}/v1/edit"
    data = {**{key: rubric_version.content[key] for key in ("description", "instructions", "constitution")},
            "fixtures": json.dumps(rubric_version.content["fixtures"]), "note": "x" * 201}

    response = admin_client.post(url, data)

    assert response.status_code == 400
    assert '<p id="note-error" class="error field-error">Ensure this value has at most 200 characters' in \
        response.content.decode()
    assert RubricVersion.objects.filter(document__name=BUILTIN_RUBRIC_NAME).count() == 1
