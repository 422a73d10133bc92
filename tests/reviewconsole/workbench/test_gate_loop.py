"""The gate runs itself, on the real stack (HTTP, PostgreSQL, Redis, real workers): a new constitution starts in
shadow mode; 200 labelled cases arrive through the API and the reviewer pages; the release gate page shows the
labels needed falling to zero; publishing the threshold releases the next clean cases on their own; spot checks
with a high unsafe share open the breaker, and the next clean case goes to a person, with the webhook, the
audit event and the email seen; a person closes the breaker after recalibrating."""

from __future__ import annotations

import json
import re
import time
import urllib.request

import pytest
from django.test import Client as Browser
from django.utils import timezone

from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.models import Case, CaseStatus, Claim
from reviewconsole.intake.services import client_create
from reviewconsole.mail.models import EmailStatus, OutgoingEmail
from reviewconsole.policy.models import ReleaseBreaker
from reviewconsole.policy.selectors import constitution_in_force
from reviewconsole.policy.services import constitution_draft_save, version_publish
from reviewconsole.review.models import Escalation
from tests.reviewconsole.webhooks.conftest import receiver
from verification import Constitution, Policy

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

__all__ = ["receiver"]

NAME = "shop"
QUESTION = "What should I know about the Arden 14?"
SOURCE = ("The Arden 14 weighs 1.2 kg. The Arden 14's battery lasts up to 9 hours. The Arden 14 ships with a "
          "65 W charger. Birchwood Laptops makes the Arden 14.")
# Each states a source sentence word for word: the engine proves it (score 1) and would release it.
CLEAN = ("The Arden 14 weighs 1.2 kg.", "The Arden 14's battery lasts up to 9 hours.",
         "Birchwood Laptops makes the Arden 14.")


def _unsafe(i: int) -> str:
    """A price the sources never state: a critical claim the engine sends to a person (score 0)."""
    return f"The Arden 14 costs {900 + i} euros."


@pytest.fixture(autouse=True)
def _needs_postgresql():
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("a worker process can only share the test database on PostgreSQL")


def _submit(base_url: str, token: str, external_id: str, answer: str) -> int:
    body = {"external_id": external_id, "question": QUESTION, "answer": answer, "constitution": NAME,
            "sources": [{"id": "spec", "text": SOURCE}]}
    request = urllib.request.Request(f"{base_url}/api/v1/cases", data=json.dumps(body).encode(), method="POST",
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 202
        return json.loads(response.read())["id"]


def _finished(case_ids: list[int], workers, timeout: float = 300) -> list[Case]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        cases = list(Case.objects.filter(pk__in=case_ids).select_related("escalation").order_by("pk"))
        if all(case.terminal for case in cases):
            return cases
        time.sleep(0.3)
    raise AssertionError(f"cases not finished in {timeout} s:\n{workers.log()[-4000:]}")


def _label(browser: Browser, case: Case, label: str) -> None:
    """The reviewer takes the case and labels each claim of the answer it was submitted with."""
    assert browser.post(f"/review/cases/{case.pk}/lease", {"take": "1"}).status_code == 302
    for claim in Claim.objects.filter(candidate__case=case, candidate__position=0):
        response = browser.post(f"/review/cases/{case.pk}/claims/{claim.pk}/label", {"label": label})
        assert response.status_code == 302, response.content.decode()[:300]


def _gate_page(admin: Browser) -> str:
    response = admin.get(f"/policy/constitutions/{NAME}/release-gate/")
    assert response.status_code == 200
    return response.content.decode()


def _labels_needed(html: str) -> int:
    found = re.search(r'id="labels-needed">([^<]*)<', html)
    assert found, "the page shows no labels needed"
    return int(found.group(1))


def _wait(condition, what: str, workers, timeout: float = 60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if found := condition():
            return found
        time.sleep(0.3)
    raise AssertionError(f"{what} not seen in {timeout} s:\n{workers.log()[-4000:]}")


def test_from_shadow_mode_to_releasing_and_a_breaker_that_stops_it(
    live_server, live_broker, start_worker, receiver, reviewer, policy_admin, support_lead
):
    workers = start_worker(WEBHOOK_ALLOWED_NETWORKS=str(receiver.network))
    policy_admin.email = "paul@example.com"
    policy_admin.save(update_fields=["email"])
    created = constitution_draft_save(author=policy_admin, constitution=Constitution(name=NAME, policy=Policy(
        shadow=True, max_unsafe_release_rate=0.1, spot_check_share=1.0)))
    version_publish(version=created, actor=policy_admin, now=timezone.now())
    bot, token = client_create(name="shop-bot")
    type(bot).objects.filter(pk=bot.pk).update(webhook_url=receiver.url, webhook_secret=receiver.secret)
    rita, paul = Browser(), Browser()
    rita.force_login(reviewer)
    paul.force_login(policy_admin)

    # 200 cases, one in four unsafe. In shadow mode nothing is released: what the engine would release waits
    # for a person, who reviews it blind.
    answers = [(_unsafe(i), "NOT_IN_SOURCES") if i % 4 == 3 else (CLEAN[i % 3], "SUPPORTED") for i in range(200)]
    ids = [_submit(live_server.url, token, f"s{i}", answer) for i, (answer, _) in enumerate(answers)]
    cases = _finished(ids, workers)
    clean = [case for case, (_, label) in zip(cases, answers, strict=True) if label == "SUPPORTED"]
    assert {case.status for case in cases} == {CaseStatus.ESCALATED}
    assert all(case.terminal == "PERMIT" and case.release_held == "SHADOW" for case in clean)
    assert all(case.escalation.held_release and not case.escalation.is_spot_check for case in clean)
    assert {case.escalation.reason for case in clean} == {"NOT_CALIBRATED"}  # not "all supported"
    page = rita.get(f"/review/cases/{clean[0].pk}/").content.decode()
    assert "Blind review." in page and "All claims supported" not in page

    first = _gate_page(paul)
    assert "Shadow mode." in first and 'id="auto-threshold">none yet<' in first
    assert 'id="labels-needed">at least 29 inconsistent answers<' in first  # no mix measured yet
    needed = []
    labelled = 0
    for checkpoint in (40, 80, 200):
        for case, (_, label) in list(zip(cases, answers, strict=True))[labelled:checkpoint]:
            _label(rita, case, label)
        labelled = checkpoint
        needed.append(_labels_needed(_gate_page(paul)))
    # 59 labelled answers need 29 inconsistent ones for a 10% budget with none scoring 1: 116 at one in four.
    assert needed == [76, 36, 0]
    page = _gate_page(paul)
    assert 'id="auto-threshold">1.0000<' in page and 'id="publish-threshold"' in page and 'id="bound-chart"' in page

    # The admin publishes the threshold: the next clean cases are released on their own (and, at a spot-check
    # share of 1, each is also checked blind).
    response = paul.post(f"/policy/constitutions/{NAME}/release-gate/publish", {"max_unsafe_release_rate": "0.1"})
    assert response.status_code == 302
    in_force = constitution_in_force(NAME)
    assert in_force is not None and not in_force.constitution().policy.in_shadow
    assert AuditEvent.objects.filter(action="policy.changed", payload__change="published",
                                     payload__version=in_force.number).exists()
    after = _finished([_submit(live_server.url, token, f"r{i}", CLEAN[i % 3]) for i in range(4)], workers)
    assert [(case.status, case.release_held) for case in after] == [(CaseStatus.RELEASED, "")] * 4
    assert all(case.escalation.is_spot_check for case in after)

    # Blind spot checks find three of the four released answers unsafe: the 95% Wilson interval of 2 in 3 lies
    # above the 10% budget, and the breaker opens.
    for case, label in zip(after[:3], ("SUPPORTED", "REFUTED", "REFUTED"), strict=True):
        _label(rita, case, label)
    breaker = _wait(lambda: ReleaseBreaker.objects.filter(constitution__name=NAME).first(), "the breaker", workers)
    assert breaker.is_open and breaker.evidence["spot_checks"] == 3 and breaker.evidence["unsafe"] == 2
    _label(rita, after[3], "REFUTED")  # one more unsafe spot check: the breaker is open already
    assert AuditEvent.objects.filter(action="gate.paused", object_id=NAME).count() == 1
    held = _finished([_submit(live_server.url, token, "b0", CLEAN[0])], workers)[0]
    assert (held.status, held.release_held, held.escalation.held_release) == (CaseStatus.ESCALATED, "BREAKER", True)

    paused = _wait(lambda: [request for request in receiver.requests if '"gate.paused"' in request.body],
                   "the gate.paused webhook", workers)
    data = json.loads(paused[0].body)["data"]
    assert paused[0].verified is not None and data["constitution"] == NAME and data["unsafe"] == 2
    assert {case["case_id"] for case in data["unsafe_cases"]} == {after[1].pk, after[2].pk}
    assert ReleaseBreaker.objects.filter(constitution__name=NAME).count() == 1
    email = _wait(lambda: OutgoingEmail.objects.filter(kind="gate.paused", status=EmailStatus.SENT).first(),
                  "the email to the policy admins", workers)
    assert email.to == ["paul@example.com"]
    assert f"Subject: Releases of {NAME} stopped" in workers.log()  # the console backend of the worker wrote it
    assert "Releases of shop are stopped" in _gate_page(paul)
    sam = Browser()
    sam.force_login(support_lead)
    metrics = sam.get("/audit/metrics/").content.decode()
    assert 'id="breaker-banner"' in metrics and "Releases of shop are stopped" in metrics

    # Only a person closes it, and only after recalibrating: here, back to shadow mode until new labels bound it.
    # The team's own calibration has no strata: the breaker stops the whole constitution's releases.
    assert breaker.stratum == "" and data["stratum"] is None
    refused = paul.post(f"/policy/constitutions/{NAME}/release-gate/breaker/close",
                        {"note": "looked at it"})
    assert refused.status_code == 400 and "recalibrate first" in refused.content.decode()
    back = in_force.constitution().model_copy(update={"policy": in_force.constitution().policy.model_copy(
        update={"release_calibration": None})})
    version_publish(version=constitution_draft_save(constitution=back, author=policy_admin, based_on=in_force),
                    actor=policy_admin, now=timezone.now())
    closed = paul.post(f"/policy/constitutions/{NAME}/release-gate/breaker/close",
                       {"note": "new prices page: back to shadow mode until the labels bound it again"})
    assert closed.status_code == 302
    breaker.refresh_from_db()
    assert not breaker.is_open and breaker.closed_by == policy_admin
    assert 'id="breaker-closed"' in _gate_page(paul)
    assert "new prices page" in sam.get("/audit/metrics/").content.decode()
    assert AuditEvent.objects.filter(action="gate.resumed", object_id=NAME).exists()
    again = _finished([_submit(live_server.url, token, "c0", CLEAN[0])], workers)[0]
    assert again.release_held == "SHADOW"
    assert Escalation.objects.filter(case__in=cases).count() == 200
