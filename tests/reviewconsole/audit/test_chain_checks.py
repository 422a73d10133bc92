"""The audit chain checked from the console: a support lead asks, a worker runs the check as claimed work,
and the page shows what it found (events, tree heads, the first altered event named); audited."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from reviewconsole.audit.chain_checks import chain_check_run, chain_checks_sweep
from reviewconsole.audit.models import AuditEvent, ChainCheck, ChainCheckStatus
from tests.reviewconsole.audit.test_pages import signed_in
from tests.reviewconsole.audit.test_tamper import EVENTS, _as_owner, _log

pytestmark = pytest.mark.django_db


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_a_support_lead_checks_an_intact_chain(client, support_lead, django_capture_on_commit_callbacks):
    _log([3, 2])
    signed_in(client, support_lead)

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/audit/chain-checks/new")

    check = ChainCheck.objects.get()  # without a broker the worker's task ran on commit, in-process
    assert response["Location"] == f"/audit/chain-checks/{check.pk}/"
    assert check.status == ChainCheckStatus.DONE and check.intact and check.requested_by == support_lead
    page = _text(client.get(response["Location"]).content.decode())
    assert "Intact: every event matches its leaf hash and every tree head its events." in page
    assert "Events checked 5" in page and "Signed tree heads checked 2" in page
    actions = list(AuditEvent.objects.filter(object_type="chain_check").order_by("id").values_list("action", "payload"))
    assert [action for action, _ in actions] == ["chain_check.requested", "chain_check.finished"]
    assert actions[1][1]["intact"] is True and actions[1][1]["events"] == 5 and actions[1][1]["first_break"] is None
    listing = _text(client.get("/audit/chain-checks/").content.decode())
    assert f"#{check.pk}" in listing and "intact : 5 events, 2 tree heads" in listing


def test_the_first_altered_event_is_named(client, support_lead, django_capture_on_commit_callbacks):
    events = _log([4])
    target = events[2]
    _as_owner((f"UPDATE {EVENTS} SET payload = %s WHERE id = %s", ['{"n": 99}', target.pk]))
    signed_in(client, support_lead)

    with django_capture_on_commit_callbacks(execute=True):
        location = client.post("/audit/chain-checks/new")["Location"]

    check = ChainCheck.objects.get()
    assert check.intact is False and check.first_break["event_id"] == target.pk
    html = client.get(location).content.decode()
    verdict = _text(html[html.index('id="chain-verdict">') + len('id="chain-verdict">'):])
    assert verdict.startswith(f"Broken: {check.first_break['message']}")
    assert check.first_break["message"].startswith(f"event id={target.pk} (seq {target.seq}) was altered")
    first = _text(html[html.index('id="first-break"'):html.index("</tr>", html.index('id="first-break"'))])
    assert f"event {target.pk} (position {target.seq})" in first and "first" in first
    finished = AuditEvent.objects.filter(action="chain_check.finished").last()
    assert finished.payload["intact"] is False and finished.payload["first_break"]["event_id"] == target.pk


def test_the_page_polls_until_the_worker_is_done(client, support_lead):
    check = ChainCheck.objects.create(requested_by=support_lead)  # queued, no worker yet
    signed_in(client, support_lead)

    html = client.get(f"/audit/chain-checks/{check.pk}/").content.decode()
    assert 'hx-trigger="every 1s"' in html and "Queued: a worker checks every event" in html
    fragment = client.get(f"/audit/chain-checks/{check.pk}/", headers={"HX-Request": "true"}).content.decode()
    assert "<html" not in fragment and fragment.lstrip().startswith('<div id="chain-check-result"')

    assert chain_check_run(check_id=check.pk) is not None
    assert chain_check_run(check_id=check.pk) is None  # done: not run twice
    assert 'hx-trigger' not in client.get(f"/audit/chain-checks/{check.pk}/").content.decode()


def test_a_check_a_worker_lost_is_run_again(support_lead, django_capture_on_commit_callbacks):
    check = ChainCheck.objects.create(requested_by=support_lead, status=ChainCheckStatus.RUNNING, attempts=1,
                                      run_deadline=timezone.now() - timedelta(seconds=1),
                                      claim_token="00000000-0000-0000-0000-000000000001")

    with django_capture_on_commit_callbacks(execute=True):
        assert chain_checks_sweep(now=timezone.now()) == [check.pk]

    check.refresh_from_db()
    assert check.status == ChainCheckStatus.DONE and check.intact  # sent again, and run in-process


def test_only_support_leads_check_the_chain(client, reviewer, policy_admin, support_lead):
    assert client.get("/audit/chain-checks/")["Location"].startswith("/login/")
    for user in (reviewer, policy_admin):
        signed_in(client, user)
        assert client.get("/audit/chain-checks/").status_code == 403
        assert client.post("/audit/chain-checks/new").status_code == 403
    assert not ChainCheck.objects.exists()
    signed_in(client, support_lead)
    assert client.get("/audit/chain-checks/new").status_code == 405
    response = client.get("/audit/chain-checks/999999/")
    assert response.status_code == 404 and "there is no chain check at this address." in response.content.decode()
