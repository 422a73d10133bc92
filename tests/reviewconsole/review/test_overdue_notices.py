"""Cases past their time to decision, per severity: a `case.overdue` webhook and the review leads emailed once
per case; an assigned case goes into its reviewer's daily digest instead, unless they chose none."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, User
from django.core import mail
from django.utils import timezone

from reviewconsole.accounts.roles import Role
from reviewconsole.intake.models import Case
from reviewconsole.review.models import Escalation
from reviewconsole.review.overdue import digests_send, overdue_notify
from reviewconsole.review.tasks import notify_overdue
from reviewconsole.webhooks.models import WebhookDelivery
from tests.reviewconsole.review.conftest import default_policy_publish

pytestmark = pytest.mark.django_db(transaction=True)


def _age(case: Case, hours: float, *, severity: str | None = None) -> Escalation:
    changes = {"created_at": timezone.now() - timedelta(hours=hours)}
    if severity:
        changes["severity"] = severity
    Escalation.objects.filter(case=case).update(**changes)
    return Escalation.objects.get(case=case)


@pytest.fixture
def lead(db) -> User:
    person = User.objects.create_user("lola", email="lola@example.com")
    person.groups.add(Group.objects.get_or_create(name=Role.REVIEW_LEAD.value)[0])
    return person


@pytest.fixture
def cases(escalate, lead):
    """A 48-hour deadline, 2 hours for critical cases: a critical case 3 hours old (overdue), a moderate one
    3 hours old (not yet), a moderate one 50 hours old (overdue)."""
    default_policy_publish(review_deadline_hours=48, review_deadline_hours_critical=2)
    critical, moderate, old = escalate(), escalate(external_id="t2"), escalate(external_id="t3")
    _age(critical, 3, severity="CRITICAL"), _age(moderate, 3, severity="MODERATE"), _age(old, 50, severity="MODERATE")
    return critical, moderate, old


def test_each_severity_has_its_time_to_decision_and_the_queue_marks_it(client, reviewer, cases):
    critical, moderate, old = cases
    client.force_login(reviewer)
    html = client.get("/review/?overdue=1").content.decode()
    assert f'href="/review/cases/{critical.pk}/"' in html and f'href="/review/cases/{old.pk}/"' in html
    assert f'href="/review/cases/{moderate.pk}/"' not in html


def test_an_overdue_case_is_told_once_to_its_client_and_the_review_leads(cases, lead):
    critical, moderate, old = cases
    mail.outbox.clear()

    assert sorted(overdue_notify(now=timezone.now())) == sorted([critical.pk, old.pk])

    overdue = WebhookDelivery.objects.filter(event_type="case.overdue")
    assert sorted(overdue.values_list("case_id", flat=True)) == sorted([critical.pk, old.pk])
    assert overdue.get(case=critical).payload["severity"] == "CRITICAL"
    assert [message.to for message in mail.outbox] == [["lola@example.com"]]
    assert mail.outbox[0].subject == "2 cases past the time to decision, assigned to nobody"
    assert f"/review/cases/{critical.pk}/" in mail.outbox[0].body
    # A second round tells nobody again; the periodic task is the same round.
    assert notify_overdue.apply().get() == 0
    assert len(mail.outbox) == 1 and overdue.count() == 2


def test_an_assigned_case_goes_into_its_reviewers_daily_digest_unless_they_chose_none(client, cases, lead, reviewer):
    critical, moderate, old = cases
    reviewer.email = "rita@example.com"
    reviewer.save(update_fields=["email"])
    Escalation.objects.filter(case__in=[critical, moderate]).update(assigned_to=reviewer)
    mail.outbox.clear()

    overdue_notify(now=timezone.now())
    assert [message.subject for message in mail.outbox] == ["1 case past the time to decision, assigned to nobody"]
    assert f"#{old.pk}" in mail.outbox[0].body and f"#{critical.pk}" not in mail.outbox[0].body

    mail.outbox.clear()
    assert digests_send(now=timezone.now()) == 1
    digest = mail.outbox[0]
    assert digest.to == ["rita@example.com"] and digest.subject == "Your cases today: 2 assigned, 1 overdue"
    assert digest.body.index(f"#{critical.pk} OVERDUE") < digest.body.index(f"#{moderate.pk} (")

    # On their own page the reviewer chooses no digest.
    client.force_login(reviewer)
    page = client.get("/review/decisions/").content.decode()
    assert 'name="digest" value="DAILY" checked' in page
    assert client.post("/review/decisions/digest", {"digest": "NONE"}).status_code == 302
    assert 'name="digest" value="NONE" checked' in client.get("/review/decisions/").content.decode()
    mail.outbox.clear()
    assert digests_send(now=timezone.now()) == 0 and mail.outbox == []


def test_a_digest_choice_outside_the_two_is_refused_naming_the_field(client, reviewer):
    client.force_login(reviewer)
    response = client.post("/review/decisions/digest", {"digest": "HOURLY"})
    assert response.status_code == 400 and response.content.decode().startswith("digest: choose one of")
    assert client.get("/review/decisions/digest").status_code == 405
