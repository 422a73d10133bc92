"""A page for something that is not there says so in the console's words, never a model's class name."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from reviewconsole.accounts.roles import Role
from reviewconsole.audit.models import AuditExport, ExportStatus
from tests.personas import _user_with

pytestmark = pytest.mark.django_db

# Each page that looks a row up by its address, with the row missing: (method, address, what the page says).
MISSING = [
    ("get", "/review/cases/999999/", "there is no case at this address."),
    ("post", "/review/cases/999999/claims/1/label", "there is no case in review at this address."),
    ("get", "/team/people/999999/", "there is no person at this address."),
    ("post", "/team/people/999999/active", "there is no person at this address."),
    ("get", "/team/clients/999999/", "there is no API client at this address."),
    ("post", "/team/clients/999999/rotate", "there is no API client at this address."),
    ("post", "/team/webhooks/999999/resend", "there is no webhook delivery at this address."),
    ("get", "/policy/constitutions/no-such-one/", "there is no constitution at this address."),
    ("get", "/policy/constitutions/default/v999/", "there is no version of this constitution at this address."),
    ("get", "/policy/constitutions/no-such-one/release-gate/", "there is no constitution at this address."),
    ("get", "/policy/rubrics/no-such-one/", "there is no critic rubric at this address."),
    ("get", "/policy/rubrics/no-such-one/v1/", "there is no version of this rubric at this address."),
    ("get", "/policy/calibration/999999/", "there is no calibration run at this address."),
    ("get", "/audit/exports/999999/", "there is no export at this address."),
    ("get", "/audit/exports/999999/download", "there is no export at this address."),
]


@pytest.fixture
def everyone(client):
    """Signed in with every role, so each page's own lookup is what answers."""
    client.force_login(_user_with("ada", *Role))
    return client


@pytest.mark.parametrize(("method", "address", "reason"), MISSING)
def test_a_missing_row_is_a_404_in_the_consoles_words(everyone, method, address, reason):
    response = getattr(everyone, method)(address)

    html = response.content.decode()
    assert response.status_code == 404
    assert f'<p class="error-reason">Why: {reason}</p>' in html
    assert "matches the given query" not in html


def test_an_export_still_being_written_has_no_download_yet(everyone):
    export = AuditExport.objects.create(requested_by=_user_with("sam", Role.SUPPORT_LEAD), format="csv",
                                        filters={}, status=ExportStatus.RUNNING)

    response = everyone.get(f"/audit/exports/{export.pk}/download")

    assert response.status_code == 404
    assert "Why: this export has no file yet: its page shows how far it is." in response.content.decode()


@pytest.mark.parametrize("address", ["/admin/", "/admin/login/", "/admin/auth/user/", "/admin/auth/group/add/"])
def test_there_is_no_django_admin_not_even_for_a_superuser(client, address):
    # A second way in would pass by the last-team-admin guard and the audit trail: people, roles and
    # deliveries are changed on the console's own pages only.
    client.force_login(User.objects.create_superuser("root", "root@example.com", "root-password"))

    assert client.get(address).status_code == 404
    assert client.post(address, {"username": "root", "password": "root-password"}).status_code == 404
