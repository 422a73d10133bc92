"""Publishing asks first: a confirm page shows what changes against the version in force; only the confirmed
POST puts the draft in force."""

from __future__ import annotations

import pytest
from django.utils import timezone

from reviewconsole import stamps
from reviewconsole.audit.models import AuditEvent
from reviewconsole.policy import services
from reviewconsole.policy.models import RubricVersion, VersionStatus
from reviewconsole.policy.rubrics import BUILTIN_RUBRIC, BUILTIN_RUBRIC_NAME
from reviewconsole.policy.selectors import constitution_in_force
from verification.policy.constitution import CUSTOMER_SUPPORT, WordLimit

pytestmark = pytest.mark.django_db

PUBLISH = "/policy/constitutions/customer-support/v2/publish"


@pytest.fixture
def draft(policy_admin):
    rules = [rule.model_copy(update={"max_words": 40}) if isinstance(rule, WordLimit) else rule
             for rule in CUSTOMER_SUPPORT.rules]
    return services.constitution_draft_save(constitution=CUSTOMER_SUPPORT.model_copy(update={"rules": rules}),
                                            author=policy_admin)


def _published_events() -> int:
    return AuditEvent.objects.filter(action="policy.changed", payload__change="published").count()


def test_the_version_page_leads_to_a_confirm_page_that_shows_what_changes(admin_client, draft):
    version_page = admin_client.get("/policy/constitutions/customer-support/v2/").content.decode()
    assert f'<form method="get" action="{PUBLISH}"' in version_page

    response = admin_client.get(PUBLISH)

    html = response.content.decode()
    assert response.status_code == 200 and "<h1>Publish customer-support v2?</h1>" in html
    assert "It replaces" in html and "customer-support v1</a>" in html
    assert "word-limit</strong> · Most words</td>" in html
    assert "<del>150</del>" in html and "<ins>40</ins>" in html
    assert '<input type="hidden" name="confirm" value="yes">' in html
    draft.refresh_from_db()
    assert draft.status == VersionStatus.DRAFT and constitution_in_force("customer-support").number == 1


def test_a_post_without_confirmation_publishes_nothing(admin_client, draft):
    response = admin_client.post(PUBLISH)

    assert response.status_code == 200 and "Publish v2 now" in response.content.decode()
    draft.refresh_from_db()
    assert draft.status == VersionStatus.DRAFT and constitution_in_force("customer-support").number == 1
    assert _published_events() == 0


def test_the_confirmed_post_publishes_and_says_so(admin_client, draft):
    response = admin_client.post(PUBLISH, {"confirm": "yes"}, follow=True)

    assert response.redirect_chain[-1] == ("/policy/constitutions/customer-support/v2/", 302)
    assert "customer-support v2 is now in force." in response.content.decode()
    assert constitution_in_force("customer-support").pk == draft.pk
    assert _published_events() == 1


def test_a_version_that_is_not_a_draft_offers_no_publish_button(admin_client):
    html = admin_client.get("/policy/constitutions/customer-support/v1/publish").content.decode()

    assert "only a draft is published" in html and "Publish v1 now" not in html


def test_a_rubric_draft_is_confirmed_too(admin_client, policy_admin):
    content = BUILTIN_RUBRIC.model_copy(update={"instructions": "Flag every promise of speed."})
    draft = services.rubric_draft_save(name=BUILTIN_RUBRIC_NAME, rubric=content, author=policy_admin)
    url = f"/policy/rubrics/{BUILTIN_RUBRIC_NAME}/v{draft.number}/publish"

    asked = admin_client.post(url).content.decode()
    assert "<td>Instructions to the critic</td>" in asked and "Flag every promise of speed." in asked
    assert RubricVersion.objects.get(pk=draft.pk).status == VersionStatus.DRAFT

    admin_client.post(url, {"confirm": "yes"})
    assert RubricVersion.objects.get(pk=draft.pk).status == VersionStatus.PUBLISHED


@pytest.fixture
def shared_stamp(settings, live_broker, monkeypatch) -> stamps.Stamp:
    """Web processes share a Redis, as in a deployment: the configuration stamp lives there."""
    settings.REDIS_URL = live_broker
    monkeypatch.setattr(stamps, "_quiet_until", 0.0)
    return stamps.CONFIGURATION


def test_publishing_renews_the_configuration_stamp_once_it_commits(
    shared_stamp, draft, policy_admin, django_capture_on_commit_callbacks
):
    before = shared_stamp.current()

    with django_capture_on_commit_callbacks(execute=True):
        services.version_publish(version=draft, actor=policy_admin, now=timezone.now())
        # Not before the commit: a process reading the version in force now must still find the old one.
        assert shared_stamp.current() == before

    # Every web process's next submission reads the version in force again, and finds this one.
    assert shared_stamp.current() not in {None, before}
    assert constitution_in_force("customer-support").pk == draft.pk


def test_a_refused_publish_leaves_the_stamp_as_it_was(shared_stamp, policy_admin, django_capture_on_commit_callbacks):
    before = shared_stamp.current()
    in_force = constitution_in_force("customer-support")

    with django_capture_on_commit_callbacks(execute=True), pytest.raises(services.PolicyRefused):
        services.version_publish(version=in_force, actor=policy_admin, now=timezone.now())

    assert shared_stamp.current() == before
