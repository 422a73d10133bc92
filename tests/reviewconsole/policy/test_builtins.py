"""The built-ins come from a migration and `manage.py sync_builtins`; reading a page or checking a case never writes."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.models import Case, Source
from reviewconsole.intake.services import client_create
from reviewconsole.policy.builtins import builtins_install
from reviewconsole.policy.models import (
    CalibrationRun,
    ConstitutionVersion,
    NamedConstitution,
    Rubric,
    RubricVersion,
    VersionStatus,
)
from reviewconsole.policy.rubrics import BUILTIN_RUBRIC, BUILTIN_RUBRIC_NAME
from reviewconsole.policy.selectors import constitution_in_force
from reviewconsole.policy.versioning import canonical_content, content_sha256
from tests.reviewconsole.policy.test_access import PAGES
from verification.policy.constitution import CUSTOMER_SUPPORT, WordLimit, builtin, builtin_names

pytestmark = pytest.mark.django_db

WRITES = ("INSERT", "UPDATE", "DELETE")


def _writes(queries: CaptureQueriesContext) -> list[str]:
    return [query["sql"] for query in queries if query["sql"].lstrip().upper().startswith(WRITES)]


def _policy_rows() -> tuple[int, ...]:
    return (NamedConstitution.objects.count(), ConstitutionVersion.objects.count(), Rubric.objects.count(),
            RubricVersion.objects.count(), AuditEvent.objects.count())


def _without_builtins() -> None:
    """The database of a console whose built-ins are gone (what the pages once wrote on the way)."""
    ConstitutionVersion.objects.all().delete()
    NamedConstitution.objects.all().delete()
    RubricVersion.objects.all().delete()
    Rubric.objects.all().delete()


def test_a_new_database_has_every_builtin_published_as_version_one():
    for name in builtin_names():
        version = constitution_in_force(name)
        assert version.number == 1 and version.status == VersionStatus.PUBLISHED and version.author is None
        # The stored hash is the engine's own: a run record's "name@version" names this row.
        assert version.short_sha == builtin(name).version and version.constitution() == builtin(name)
    rubric = RubricVersion.objects.get(document__name=BUILTIN_RUBRIC_NAME)
    assert rubric.number == 1 and rubric.status == VersionStatus.PUBLISHED
    assert rubric.content == canonical_content(BUILTIN_RUBRIC)


@pytest.mark.parametrize("url", [*PAGES, "/policy/constitutions/customer-support/v1/try?case={case}",
                                 "/policy/constitutions/customer-support/?older=1&newer=1"])
def test_no_policy_page_writes_on_get(client, policy_admin, url):
    run = CalibrationRun.objects.create(rubric_version=RubricVersion.objects.get(), fixtures_total=1)
    bot, _ = client_create(name="support-bot")
    case = Case.objects.create(client=bot, question="Can I get a refund?", answer="Yes.",
                               constitution_pin=constitution_in_force("default"))
    Source.objects.create(case=case, position=0, source_id="p", text="Refunds within 30 days.", sha256="0" * 64)
    client.force_login(policy_admin)

    with CaptureQueriesContext(connection) as queries:
        response = client.get(url.format(run=run.pk, case=case.pk))

    assert response.status_code == 200
    assert _writes(queries) == []


@pytest.mark.parametrize("url", ["/policy/", "/policy/rubrics/", "/policy/rule-health/"])
def test_a_list_page_writes_nothing_even_where_the_builtins_are_missing(client, policy_admin, url):
    _without_builtins()
    client.force_login(policy_admin)

    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)

    assert response.status_code == 200 and "customer-support" not in response.content.decode()
    assert _writes(queries) == [] and _policy_rows() == (0, 0, 0, 0, 0)


@pytest.mark.parametrize("url", ["/policy/constitutions/customer-support/",
                                 "/policy/constitutions/medical-information/v1/",
                                 f"/policy/rubrics/{BUILTIN_RUBRIC_NAME}/v1/"])
def test_a_link_to_a_missing_builtin_is_not_found_and_writes_nothing(client, policy_admin, url):
    _without_builtins()
    client.force_login(policy_admin)

    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)

    assert response.status_code == 404
    assert _writes(queries) == [] and _policy_rows() == (0, 0, 0, 0, 0)


@pytest.mark.parametrize("constitution", ["medical-information", "no-such-policy"])
def test_checking_a_submissions_constitution_writes_nothing(client, constitution):
    _without_builtins()
    _, token = client_create(name="support-bot")
    body = {"question": "Can I get a refund?", "answer": "Annual plans can be refunded within 30 days.",
            "constitution": constitution, "sources": [{"id": "p", "text": "Annual plans can be refunded."}]}

    with CaptureQueriesContext(connection) as queries:
        response = client.post("/api/v1/cases", data=json.dumps(body), content_type="application/json",
                               HTTP_AUTHORIZATION=f"Bearer {token}")

    assert response.status_code == 400 and "constitution" in response.content.decode()
    assert _writes(queries) == [] and not Case.objects.exists()
    assert _policy_rows() == (0, 0, 0, 0, 0)


def _sync() -> str:
    out = StringIO()
    call_command("sync_builtins", stdout=out)
    return out.getvalue()


def test_syncing_an_up_to_date_database_changes_nothing():
    before = _policy_rows()

    output = _sync()

    assert _policy_rows() == before
    assert all(f"{name}: up to date (v1 " in output for name in [*builtin_names(), BUILTIN_RUBRIC_NAME])


def test_a_builtin_the_engine_changed_becomes_a_draft_and_the_version_in_force_stays():
    # The database of an older release, whose customer-support allowed longer answers.
    ConstitutionVersion.objects.filter(document__name="customer-support").delete()
    rules = [rule.model_copy(update={"max_words": 300}) if isinstance(rule, WordLimit) else rule
             for rule in CUSTOMER_SUPPORT.rules]
    older = canonical_content(CUSTOMER_SUPPORT.model_copy(update={"rules": rules}))
    ConstitutionVersion.objects.create(
        document=NamedConstitution.objects.get(name="customer-support"), number=1, content=older,
        sha256=content_sha256(older), status=VersionStatus.PUBLISHED, note="built-in", published_at=timezone.now(),
    )

    output = _sync()

    draft = ConstitutionVersion.objects.get(document__name="customer-support", number=2)
    assert "customer-support: the built-in changed, saved as draft v2; publish it to put it in force" in output
    assert draft.status == VersionStatus.DRAFT and draft.constitution() == builtin("customer-support")
    assert constitution_in_force("customer-support").sha256 == content_sha256(older)
    event = AuditEvent.objects.get(action="policy.changed", object_id=str(draft.pk))
    assert event.actor == "system" and event.payload["change"] == "built-in updated"
    assert (event.payload["before"], event.payload["after"]) == (content_sha256(older), draft.sha256)
    # Run again, it finds the draft and adds nothing.
    assert "customer-support: up to date (v2 " in _sync()
    assert ConstitutionVersion.objects.filter(document__name="customer-support").count() == 2


def test_a_builtin_new_in_this_release_is_published_as_version_one_and_audited():
    ConstitutionVersion.objects.filter(document__name="medical-information").delete()
    NamedConstitution.objects.filter(name="medical-information").delete()

    output = _sync()

    version = constitution_in_force("medical-information")
    assert "medical-information: v1 published" in output
    assert version.number == 1 and version.short_sha == builtin("medical-information").version
    event = AuditEvent.objects.get(action="policy.changed", object_id=str(version.pk))
    assert event.payload["change"] == "built-in seeded" and event.payload["before"] is None


def test_installing_the_builtins_again_writes_only_the_missing_ones():
    kept = constitution_in_force("default")
    ConstitutionVersion.objects.filter(document__name="customer-support").delete()

    written = builtins_install(apps, now=timezone.now())

    assert written == ["customer-support"] and constitution_in_force("default") == kept
    assert constitution_in_force("customer-support").short_sha == builtin("customer-support").version
