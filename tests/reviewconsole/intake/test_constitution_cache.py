"""The constitution version in force is looked up once per web process and then answered from its cache,
and a version published anywhere (this process or another) is pinned by the very next submission."""

from __future__ import annotations

import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from reviewconsole import stamps
from reviewconsole.intake import constitutions
from reviewconsole.intake.models import Case
from reviewconsole.policy import services
from reviewconsole.policy.models import ConstitutionVersion, VersionStatus
from tests.reviewconsole.api.conftest import case_body, post_case
from tests.reviewconsole.conftest import _test_database_url
from tests.reviewconsole.subprocesses import run_manage
from verification.policy.constitution import CUSTOMER_SUPPORT, WordLimit

# Publishing commits for real, as in production: the stamp is renewed when the publish commits.
pytestmark = pytest.mark.django_db(transaction=True)

VERSIONS_TABLE = ConstitutionVersion._meta.db_table


@pytest.fixture
def shared_cache(settings, live_broker, fresh_stamps) -> str:
    """Web processes share a Redis, as in a deployment; this process starts with an empty cache."""
    settings.REDIS_URL = live_broker
    return live_broker


@pytest.fixture
def draft(policy_admin) -> ConstitutionVersion:
    """customer-support v2, saved but not published (v1, the built-in, is in force)."""
    rules = [rule.model_copy(update={"max_words": 40}) if isinstance(rule, WordLimit) else rule
             for rule in CUSTOMER_SUPPORT.rules]
    return services.constitution_draft_save(constitution=CUSTOMER_SUPPORT.model_copy(update={"rules": rules}),
                                            author=policy_admin)


def _submit(client, api_client, external_id: str) -> Case:
    """Submit a customer-support case; the case as stored, with the version it pinned."""
    response = post_case(client, api_client, case_body(external_id=external_id, constitution="customer-support"))
    assert response.status_code == 202, response.content
    case = Case.objects.select_related("constitution_pin").get(pk=response.json()["id"])
    assert response.json()["constitution_version"] == case.constitution_pin.short_sha == case.constitution_version
    return case


def test_the_version_in_force_is_read_once_then_answered_from_the_cache(shared_cache, client, api_client):
    first = _submit(client, api_client, "first")

    with CaptureQueriesContext(connection) as queries:
        second = _submit(client, api_client, "second")

    assert [query["sql"] for query in queries if f'FROM "{VERSIONS_TABLE}"' in query["sql"]] == []
    assert first.constitution_pin.number == second.constitution_pin.number == 1


def test_the_submission_after_a_publish_pins_the_new_version(shared_cache, client, api_client, draft, policy_admin):
    assert _submit(client, api_client, "before").constitution_pin.number == 1  # v1 is now in the cache

    services.version_publish(version=draft, actor=policy_admin, now=timezone.now())

    after = _submit(client, api_client, "after")
    assert after.constitution_pin == draft and after.constitution_pin.sha256 == draft.sha256
    # The earlier case keeps the version it pinned.
    assert Case.objects.get(external_id="before").constitution_pin.number == 1


def test_saving_a_draft_leaves_the_version_in_force_pinned(shared_cache, client, api_client, policy_admin):
    before = stamps.CONFIGURATION.current()
    assert _submit(client, api_client, "before").constitution_pin.number == 1

    rules = [rule.model_copy(update={"max_words": 30}) if isinstance(rule, WordLimit) else rule
             for rule in CUSTOMER_SUPPORT.rules]
    services.constitution_draft_save(constitution=CUSTOMER_SUPPORT.model_copy(update={"rules": rules}),
                                     author=policy_admin)

    assert stamps.CONFIGURATION.current() == before
    assert _submit(client, api_client, "after").constitution_pin.number == 1


def test_a_version_published_by_another_process_is_pinned_here_at_once(shared_cache, client, api_client, draft,
                                                                        tmp_path):
    database_url = _test_database_url()
    if database_url is None:
        pytest.skip("another process reaches the test database only on PostgreSQL")
    assert _submit(client, api_client, "before").constitution_pin.number == 1  # v1 is now in this process's cache

    publish = (
        "from django.utils import timezone\n"
        "from reviewconsole.policy.models import ConstitutionVersion\n"
        "from reviewconsole.policy.services import version_publish\n"
        f"draft = ConstitutionVersion.objects.get(pk={draft.pk})\n"
        "version_publish(version=draft, actor='console', now=timezone.now())\n"
    )
    published = run_manage(["shell", "-c", publish], {"DJANGO_SETTINGS_MODULE": "tests.settings",
                                                       "DATABASE_URL": database_url, "REDIS_URL": shared_cache},
                           tmp_path)

    assert published.returncode == 0, published.stderr
    draft.refresh_from_db()
    assert draft.status == VersionStatus.PUBLISHED
    assert _submit(client, api_client, "after").constitution_pin == draft


def test_a_submission_reads_the_stamp_once(shared_cache, client, api_client, monkeypatch):
    _submit(client, api_client, "warm-up")
    reads = []
    read = stamps.Stamp._read

    def counted(stamp: stamps.Stamp) -> str | None:
        reads.append(stamp.key)
        return read(stamp)

    monkeypatch.setattr(stamps.Stamp, "_read", counted)

    _submit(client, api_client, "counted")

    # The token and the constitution are both checked under that one read.
    assert reads == [stamps.CONFIGURATION.key]


def test_while_redis_does_not_answer_each_submission_reads_the_version_in_force(settings, client, api_client, draft,
                                                                               fresh_stamps):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    assert _submit(client, api_client, "before").constitution_pin.number == 1

    # Even a version put in force past policy's services, which renews no stamp, is pinned at once.
    ConstitutionVersion.objects.filter(document__name="customer-support", number=1).update(
        status=VersionStatus.SUPERSEDED
    )
    ConstitutionVersion.objects.filter(pk=draft.pk).update(status=VersionStatus.PUBLISHED)

    assert _submit(client, api_client, "after").constitution_pin == draft


def test_a_version_put_in_force_past_the_services_is_pinned_once_the_cached_entry_expires(
    shared_cache, client, api_client, draft, monkeypatch
):
    monkeypatch.setattr(constitutions._pins, "seconds", 0.5)
    assert _submit(client, api_client, "before").constitution_pin.number == 1
    ConstitutionVersion.objects.filter(document__name="customer-support", number=1).update(
        status=VersionStatus.SUPERSEDED
    )
    ConstitutionVersion.objects.filter(pk=draft.pk).update(status=VersionStatus.PUBLISHED)

    assert _submit(client, api_client, "cached").constitution_pin.number == 1  # within the backstop's time
    time.sleep(0.6)

    assert _submit(client, api_client, "after").constitution_pin == draft
