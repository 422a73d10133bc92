"""Only policy admins reach the policy pages: anonymous users sign in, every other role gets 403."""

from __future__ import annotations

import pytest

from reviewconsole.policy.models import CalibrationRun, RubricVersion
from reviewconsole.policy.rubrics import BUILTIN_RUBRIC_NAME

pytestmark = pytest.mark.django_db

PAGES = [
    "/policy/",
    "/policy/constitutions/customer-support/",
    "/policy/constitutions/customer-support/v1/",
    "/policy/constitutions/customer-support/v1/edit",
    "/policy/constitutions/customer-support/v1/try",
    "/policy/rubrics/",
    f"/policy/rubrics/{BUILTIN_RUBRIC_NAME}/",
    f"/policy/rubrics/{BUILTIN_RUBRIC_NAME}/v1/",
    f"/policy/rubrics/{BUILTIN_RUBRIC_NAME}/v1/edit",
    "/policy/calibration/{run}/",
    "/policy/rule-health/",
    "/policy/constitutions/customer-support/v1/publish",
    f"/policy/rubrics/{BUILTIN_RUBRIC_NAME}/v1/publish",
]
ACTIONS = [
    "/policy/constitutions/new",
    "/policy/constitutions/customer-support/v1/edit",
    "/policy/constitutions/customer-support/v1/publish",
    "/policy/constitutions/customer-support/v1/try",
    f"/policy/rubrics/{BUILTIN_RUBRIC_NAME}/threshold",
    f"/policy/rubrics/{BUILTIN_RUBRIC_NAME}/v1/publish",
    f"/policy/rubrics/{BUILTIN_RUBRIC_NAME}/v1/calibrate",
]


@pytest.fixture
def run(db) -> CalibrationRun:
    version = RubricVersion.objects.get(document__name=BUILTIN_RUBRIC_NAME)
    return CalibrationRun.objects.create(rubric_version=version, fixtures_total=1)


@pytest.mark.parametrize("url", PAGES)
def test_anonymous_users_are_sent_to_sign_in(client, run, url):
    response = client.get(url.format(run=run.pk))

    assert response.status_code == 302 and response["Location"].startswith("/login/?next=/policy/")


@pytest.mark.parametrize("persona", ["reviewer", "support_lead", "outsider"])
@pytest.mark.parametrize("url", PAGES)
def test_other_roles_are_refused(client, run, request, persona, url):
    client.force_login(request.getfixturevalue(persona))

    assert client.get(url.format(run=run.pk)).status_code == 403


@pytest.mark.parametrize("persona", ["reviewer", "support_lead", "outsider"])
@pytest.mark.parametrize("url", ACTIONS)
def test_other_roles_cannot_change_policy(client, run, request, persona, url):
    client.force_login(request.getfixturevalue(persona))

    assert client.post(url, {"name": "x", "canary_threshold": "0.1"}).status_code == 403
    assert not CalibrationRun.objects.exclude(pk=run.pk).exists()
    assert RubricVersion.objects.count() == 1


@pytest.mark.parametrize("url", PAGES)
def test_policy_admins_open_every_page(admin_client, run, url):
    assert admin_client.get(url.format(run=run.pk)).status_code == 200


@pytest.mark.parametrize("url", [f"/policy/rubrics/{BUILTIN_RUBRIC_NAME}/v1/calibrate", "/policy/constitutions/new"])
def test_actions_refuse_get(admin_client, url):
    assert admin_client.get(url).status_code == 405


def test_policy_admins_see_the_policy_link_and_others_do_not(client, policy_admin, reviewer):
    client.force_login(policy_admin)
    assert 'href="/policy/">Policy</a>' in client.get("/", follow=True).content.decode()
    client.force_login(reviewer)
    assert 'href="/policy/"' not in client.get("/", follow=True).content.decode()


@pytest.mark.parametrize("url", ["/policy/constitutions/Not%00Valid/", "/policy/constitutions/nope/v1/",
                                 "/policy/rubrics/nope/", "/policy/calibration/999999/"])
def test_unknown_or_malformed_names_are_not_found(admin_client, url):
    assert admin_client.get(url).status_code == 404


def test_a_refused_page_keeps_the_console_layout_and_says_why(client, reviewer):
    client.force_login(reviewer)

    response = client.get("/policy/constitutions/customer-support/v1/")

    html = response.content.decode()
    assert response.status_code == 403
    assert '<nav aria-label="Main">' in html and 'href="/review/">Queue</a>' in html
    assert "console.css" in html and "<title>Not allowed · Review console</title>" in html
    assert "Why: policy pages are for policy admins." in html
    assert "You are signed in as <strong>rita</strong> (reviewer)." in html


def test_a_missing_version_keeps_the_console_layout_and_says_what_is_missing(admin_client):
    response = admin_client.get("/policy/constitutions/nope/v1/")

    html = response.content.decode()
    assert response.status_code == 404
    assert '<nav aria-label="Main">' in html and 'href="/policy/">Policy</a>' in html
    assert "<title>Not found · Review console</title>" in html
    assert "Why: there is no version of this constitution at this address." in html
    assert "ConstitutionVersion" not in html


def test_an_address_nothing_answers_is_named_on_the_404_page(admin_client):
    html = admin_client.get("/policy/no/such/page").content.decode()

    assert "Why: no page has the address <code>/policy/no/such/page</code>." in html
