"""Constitutions as versioned data: immutable versions, explicit publishing, pinned cases."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.db import IntegrityError, transaction
from django.utils import timezone

from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.constitutions import case_constitution, constitution_pin
from reviewconsole.intake.models import Case
from reviewconsole.intake.services import case_submit, client_create
from reviewconsole.intake.tasks import verify_case
from reviewconsole.policy import services
from reviewconsole.policy.models import ConstitutionVersion, NamedConstitution, VersionStatus
from reviewconsole.policy.selectors import constitution_in_force
from tests.reviewconsole.review.conftest import escalate_case, refund_case
from verification import Case as Submission
from verification.policy.constitution import CUSTOMER_SUPPORT, WordLimit, builtin

pytestmark = pytest.mark.django_db


def _with_word_limit(max_words: int):
    rules = [rule.model_copy(update={"max_words": max_words}) if isinstance(rule, WordLimit) else rule
             for rule in CUSTOMER_SUPPORT.rules]
    return CUSTOMER_SUPPORT.model_copy(update={"rules": rules})


def test_saving_makes_a_new_draft_and_the_published_version_never_changes(policy_admin):
    published = constitution_in_force("customer-support")
    before = (published.content, published.sha256, published.status)

    draft = services.constitution_draft_save(constitution=_with_word_limit(12), author=policy_admin,
                                             note="shorter", based_on=published)

    published.refresh_from_db()
    assert (published.content, published.sha256, published.status) == before
    assert draft.number == 2 and draft.status == VersionStatus.DRAFT and draft.sha256 != published.sha256
    assert constitution_in_force("customer-support").pk == published.pk
    published.content = {"name": "customer-support"}
    with pytest.raises(TypeError, match="immutable"):
        published.save()
    with pytest.raises(TypeError, match="immutable"):
        ConstitutionVersion.objects.filter(pk=published.pk).update(content={})


def test_publishing_supersedes_the_version_in_force_and_is_audited_with_both_hashes(policy_admin):
    old = constitution_in_force("customer-support")
    draft = services.constitution_draft_save(constitution=_with_word_limit(12), author=policy_admin)

    services.version_publish(version=draft, actor=policy_admin, now=timezone.now())

    old.refresh_from_db()
    draft.refresh_from_db()
    assert old.status == VersionStatus.SUPERSEDED and draft.status == VersionStatus.PUBLISHED
    assert draft.published_at is not None
    assert ConstitutionVersion.objects.filter(document__name="customer-support", status="PUBLISHED").count() == 1
    events = list(AuditEvent.objects.filter(action="policy.changed", actor="user:paul").order_by("id"))
    assert [event.payload["change"] for event in events] == ["draft saved", "published"]
    assert events[0].payload["before"] == old.sha256 and events[0].payload["after"] == draft.sha256
    assert events[1].payload["before"] == old.sha256 and events[1].payload["after"] == draft.sha256
    with pytest.raises(services.PolicyRefused, match="only a draft"):
        services.version_publish(version=old, actor=policy_admin, now=timezone.now())


def test_the_database_allows_one_published_version_per_name(policy_admin):
    draft = services.constitution_draft_save(constitution=_with_word_limit(12), author=policy_admin)
    with pytest.raises(IntegrityError), transaction.atomic():
        ConstitutionVersion.objects.filter(pk=draft.pk).update(status=VersionStatus.PUBLISHED)


def test_a_case_pins_the_version_in_force_and_runs_under_it_after_a_new_one_is_published(policy_admin):
    client, _ = client_create(name="support-bot")
    body = {"question": "Can I get a refund?", "constitution": "customer-support",
            "answer": "Annual plans can be refunded in full within 30 days of purchase.",
            "sources": [{"id": "p", "text": "Annual plans can be refunded in full within 30 days of purchase."}]}
    first, _ = case_submit(client=client, submission=Submission.model_validate(body))
    draft = services.constitution_draft_save(constitution=_with_word_limit(5), author=policy_admin)
    services.version_publish(version=draft, actor=policy_admin, now=timezone.now())
    second, _ = case_submit(client=client, submission=Submission.model_validate(body))

    verify_case.apply(args=(first.pk,))
    verify_case.apply(args=(second.pk,))

    first, second = Case.objects.get(pk=first.pk), Case.objects.get(pk=second.pk)
    assert first.constitution_pin.number == 1 and second.constitution_pin == draft
    assert first.run_record["constitution"] == f"customer-support@{first.constitution_version}"
    assert second.run_record["constitution"] == f"customer-support@{draft.short_sha}"
    verdicts = {case.pk: {v.rule: v.passed for v in case.candidates.get(position=0).rule_verdicts.all()}
                for case in (first, second)}
    assert verdicts[first.pk]["word-limit"] is True and verdicts[second.pk]["word-limit"] is False
    assert case_constitution(first) == builtin("customer-support")


def test_an_unnamed_case_pins_the_default_and_an_unknown_name_is_refused(db):
    client, _ = client_create(name="support-bot")
    case, _ = case_submit(client=client, submission=Submission(question="q", answer="a", sources=[{"id": "s",
                                                                                                    "text": "t"}]))
    assert case.constitution_pin.document.name == "default" and case.constitution_name == ""
    assert constitution_pin("no-such-thing") is None


def test_the_case_page_links_to_the_pinned_version_for_policy_admins(client, reviewer):
    case = escalate_case(client_create(name="support-bot")[0], refund_case(constitution="customer-support"))
    pinned = f'href="/policy/constitutions/customer-support/v1/">customer-support v1 <code>@{case.constitution_version}'

    client.force_login(reviewer)
    assert pinned not in client.get(f"/review/cases/{case.pk}/").content.decode()
    reviewer.groups.add(Group.objects.get_or_create(name="policy admin")[0])
    assert pinned in client.get(f"/review/cases/{case.pk}/").content.decode()


def test_a_link_to_an_unknown_name_is_not_found(client, policy_admin):
    client.force_login(policy_admin)

    assert client.get("/policy/constitutions/no-such-policy/v1/").status_code == 404
    assert not NamedConstitution.objects.filter(name="no-such-policy").exists()
