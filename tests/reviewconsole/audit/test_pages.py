"""The support lead's pages: who may open them, htmx fragments vs full pages, what the filters find."""

from __future__ import annotations

import pytest
from django.urls import reverse

from reviewconsole.accounts.roles import Role
from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.services import client_create
from reviewconsole.support import selectors
from tests.personas import _user_with
from tests.reviewconsole.audit.conftest import run_case
from tests.reviewconsole.review.conftest import PLANS_CASE, gate_record

PAGES = ["audit:events", "audit:cases", "audit:exports", "audit:metrics"]
HTMX = {"HTTP_HX_REQUEST": "true"}


def signed_in(client, user):
    client.force_login(user)
    return client


@pytest.mark.django_db
@pytest.mark.parametrize("name", PAGES)
def test_anonymous_users_are_sent_to_sign_in(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


@pytest.mark.django_db
@pytest.mark.parametrize("name", PAGES)
@pytest.mark.parametrize("persona", ["reviewer", "policy_admin", "outsider"])
def test_other_roles_are_refused(client, request, name, persona):
    if (persona, name) == ("policy_admin", "audit:metrics"):
        pytest.skip("policy admins read the metrics: test_policy_admins_read_the_metrics_and_change_nothing")
    signed_in(client, request.getfixturevalue(persona))
    assert client.get(reverse(name)).status_code == 403


@pytest.mark.django_db
def test_policy_admins_read_the_metrics_and_change_nothing(client, policy_admin):
    signed_in(client, policy_admin)
    response = client.get(reverse("audit:metrics"))
    html = response.content.decode()
    assert response.status_code == 200 and "Unsafe release rate, from blind spot checks" in html
    assert f'href="{reverse("audit:metrics")}"' in html and f'href="{reverse("audit:events")}"' not in html
    # Read-only: no form on the page posts, and the audit trail stays a support lead's.
    assert 'method="post"' not in html.split('<main id="main">')[1]
    for name in ("audit:events", "audit:cases", "audit:exports"):
        assert client.get(reverse(name)).status_code == 403, name
    assert client.post(reverse("audit:metrics")).status_code == 405


@pytest.mark.django_db
def test_review_leads_read_the_metrics_and_no_other_audit_page(client):
    signed_in(client, _user_with("lou", Role.REVIEW_LEAD))
    response = client.get(reverse("audit:metrics"))
    html = response.content.decode()
    assert response.status_code == 200 and "Agreement between reviewers (Cohen's κ)" in html
    assert f'href="{reverse("audit:metrics")}"' in html and f'href="{reverse("audit:events")}"' not in html
    for name in ("audit:events", "audit:cases", "audit:exports"):
        assert client.get(reverse(name)).status_code == 403, name


@pytest.mark.django_db
def test_other_roles_cannot_export(client, reviewer):
    signed_in(client, reviewer)
    assert client.post(reverse("audit:export_create"), {"format": "csv"}).status_code == 403


@pytest.mark.django_db
@pytest.mark.parametrize("name", PAGES)
def test_support_leads_open_every_page_and_see_the_nav(client, support_lead, name):
    response = signed_in(client, support_lead).get(reverse(name))
    assert response.status_code == 200
    assert reverse("audit:metrics").encode() in response.content


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["audit:events", "audit:cases", "audit:exports", "audit:metrics"])
def test_search_pages_refuse_post(client, support_lead, name):
    assert signed_in(client, support_lead).post(reverse(name)).status_code == 405


@pytest.mark.django_db
def test_events_htmx_gets_the_results_fragment_and_a_plain_request_the_page(client, support_lead, history):
    signed_in(client, support_lead)
    url = reverse("audit:events") + f"?case={history.rejected.pk}"
    full = client.get(url)
    fragment = client.get(url, **HTMX)
    assert b"<html" in full.content and b'id="audit-filters"' in full.content
    assert b"<html" not in fragment.content and fragment.content.lstrip().startswith(b'<div id="audit-results"')
    assert b"decision.rejected" in fragment.content
    assert f"#{history.approved.pk}<".encode() not in fragment.content
    assert "HX-Request" in full["Vary"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "expect"),
    [
        ("client=sales-bot", {"rejected"}),
        ("decision=APPROVE", {"approved"}),
        ("decision=REJECT", {"rejected"}),
        ("reason=ALL_SUPPORTED", {"released"}),
        ("actor=user:rita", {"approved", "rejected"}),
    ],
)
def test_case_search_filters(client, support_lead, history, query, expect):
    response = signed_in(client, support_lead).get(reverse("audit:cases") + "?" + query, **HTMX)
    shown = {name for name in ("released", "approved", "rejected")
             if f'?case={getattr(history, name).pk}"'.encode() in response.content}
    assert shown == expect


@pytest.mark.django_db
def test_event_search_by_action_family_and_time(client, support_lead, history):
    signed_in(client, support_lead)
    decisions = client.get(reverse("audit:events") + "?action=decision.", **HTMX).content
    assert decisions.count(b"<code>decision.") == 2
    future = client.get(reverse("audit:events") + "?since=2999-01-01T00:00", **HTMX).content
    assert b"No event matches" in future


@pytest.mark.django_db
def test_events_are_paginated(client, support_lead, history, monkeypatch):
    monkeypatch.setattr(selectors, "PAGE_SIZE", 10)
    total = AuditEvent.objects.count()
    signed_in(client, support_lead)
    second = client.get(reverse("audit:events") + "?page=2", **HTMX).content
    assert f"Page 2 of {-(-total // 10)}".encode() in second
    # Newest first: the second page starts ten events below the head.
    assert b'rel="prev"' in second
    assert f"<td>{total - 10}</td>".encode() in second and f"<td>{total - 9}</td>".encode() not in second


@pytest.mark.django_db
def test_case_search_names_reasons_in_words_and_filters_by_the_release_gate(client, support_lead, monkeypatch):
    monkeypatch.setattr("reviewconsole.intake.services.run_engine", lambda case, **options: gate_record())
    held = run_case(client_create(name="support-bot")[0], PLANS_CASE)
    signed_in(client, support_lead)

    page = client.get(reverse("audit:cases")).content.decode()
    filtered = client.get(reverse("audit:cases") + "?reason=BELOW_RELEASE_THRESHOLD", **HTMX).content.decode()
    other = client.get(reverse("audit:cases") + "?reason=UNSUPPORTED_CLAIM", **HTMX).content.decode()

    assert '<option value="BELOW_RELEASE_THRESHOLD">Below the release threshold</option>' in page
    assert f'?case={held.pk}"' in filtered and f'?case={held.pk}"' not in other
    assert '<span class="muted" title="BELOW_RELEASE_THRESHOLD">Below the release threshold</span>' in filtered


@pytest.mark.django_db
def test_case_search_names_reject_reasons_and_terminals_in_words(client, support_lead, history):
    html = signed_in(client, support_lead).get(reverse("audit:cases"), {"decision": "REJECT"}, **HTMX).content.decode()

    assert 'Reject by rita (<span title="WRONG_FACTS">Facts contradict the sources</span>)' in html
    assert "(WRONG_FACTS)" not in html
    assert f'<span title="{history.rejected.terminal}">' in html and f"<td>{history.rejected.terminal} " not in html
