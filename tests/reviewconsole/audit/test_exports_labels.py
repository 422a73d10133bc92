"""Regression fixtures teach the truth: a labelled rejection, exported and read back, has its human labels."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Group, User
from django.urls import reverse
from django.utils import timezone

from reviewconsole.accounts.roles import Role
from reviewconsole.audit.models import AuditExport, ExportStatus
from reviewconsole.intake.services import client_create
from reviewconsole.review.models import ClaimLabel
from reviewconsole.review.services import decision_reject
from tests.reviewconsole.audit.conftest import run_case
from tests.reviewconsole.audit.test_pages import signed_in
from tests.reviewconsole.review.conftest import latest, refund_case
from verification import Case as Submission

pytestmark = pytest.mark.django_db


def _read_fixtures(text: str) -> dict[int, dict]:
    """The export as a user reads it: one JSON object per line."""
    return {fixture["provenance"]["case_id"]: fixture for fixture in map(json.loads, text.splitlines())}


@pytest.fixture
def labelled_rejection(client, reviewer):
    """Rita labels the refund answer's claims on the case page, then rejects it; vera labelled one claim too."""
    case = run_case(client_create(name="support-bot")[0], refund_case(external_id="refund-labelled"))
    signed_in(client, reviewer)
    assert client.post("/review/next")["Location"] == f"/review/cases/{case.pk}/"
    current = latest(case)
    claims = list(current.claims.all())
    assert len(claims) >= 2
    first, *rest = claims
    client.post(f"/review/cases/{case.pk}/claims/{first.pk}/label", {"label": "NOT_IN_SOURCES"})
    for claim in rest:
        client.post(f"/review/cases/{case.pk}/claims/{claim.pk}/label", {"label": "SUPPORTED"})
    vera = User.objects.create_user(username="vera", password="x")
    vera.groups.add(Group.objects.get_or_create(name=Role.REVIEWER.value)[0])
    ClaimLabel.objects.create(claim=first, case=case, reviewer=vera, label="REFUTED")
    escalation = case.escalation
    decision_reject(escalation_id=escalation.pk, reviewer=reviewer, candidate_id=current.candidate_id,
                    sha256=current.sha256, reason_code="NOT_IN_SOURCES", note="the 60 days are nowhere",
                    now=timezone.now())
    client.logout()
    return case


def _expect_labels(fixture: dict, case) -> None:
    current = latest(case)
    expected = fixture["expected"]
    assert expected["terminal"] == "REJECT" and expected["answer"] is None and expected["corrected"] is False
    assert expected["rejected_answer"] == current.text
    claims = expected["claims"]
    assert [claim["id"] for claim in claims] == [c.claim_id for c in current.claims.all()]
    # The deciding reviewer's label is the one a test holds the engine to; every label is kept beside it.
    assert [claim["label"] for claim in claims] == ["NOT_IN_SOURCES"] + ["SUPPORTED"] * (len(claims) - 1)
    first = claims[0]
    assert first["state"] == current.claims.first().state  # the engine's state, beside the person's
    assert sorted((label["reviewer"], label["label"], label["blind"]) for label in first["labels"]) == [
        ("rita", "NOT_IN_SOURCES", False), ("vera", "REFUTED", False)
    ]
    assert all(label["labelled_at"].endswith("Z") for label in first["labels"])
    assert current.text[first["start"]:first["end"]] == first["text"]
    Submission.model_validate(fixture["case"])
    assert fixture["provenance"]["candidate"] == current.candidate_id


def test_a_labelled_rejection_downloads_with_its_labels(client, support_lead, labelled_rejection):
    response = signed_in(client, support_lead).post(reverse("audit:export_create"), {"format": "fixtures"})
    assert response.status_code == 200

    fixtures = _read_fixtures(b"".join(response.streaming_content).decode())

    _expect_labels(fixtures[labelled_rejection.pk], labelled_rejection)


def test_a_labelled_rejection_written_to_a_file_reads_back_with_its_labels(
    client, support_lead, labelled_rejection, settings, django_capture_on_commit_callbacks
):
    settings.AUDIT_EXPORT_STREAM_MAX_ROWS = 0  # always a file, written by the export task
    signed_in(client, support_lead)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("audit:export_create"), {"format": "fixtures"})
    export = AuditExport.objects.latest("pk")
    assert export.status == ExportStatus.DONE

    path = settings.AUDIT_EXPORT_DIR / export.file_name
    with path.open(encoding="utf-8") as file:
        fixtures = _read_fixtures(file.read())

    _expect_labels(fixtures[labelled_rejection.pk], labelled_rejection)


OVERRIDE = "The customer was promised this by phone; the manager signed it off."


@pytest.fixture
def approved_over_own_label(client, reviewer):
    """Rita labels a claim of the refund answer refuted, then approves it anyway with a written reason."""
    case = run_case(client_create(name="support-bot")[0], refund_case(external_id="refund-overridden"))
    signed_in(client, reviewer)
    assert client.post("/review/next")["Location"] == f"/review/cases/{case.pk}/"
    current = latest(case)
    first, *rest = current.claims.all()
    client.post(f"/review/cases/{case.pk}/claims/{first.pk}/label", {"label": "REFUTED"})
    for claim in rest:
        client.post(f"/review/cases/{case.pk}/claims/{claim.pk}/label", {"label": "SUPPORTED"})
    version = {"candidate_id": current.candidate_id, "sha256": current.sha256}
    assert client.post(f"/review/cases/{case.pk}/approve", version).status_code == 400  # no reason: refused
    assert client.post(f"/review/cases/{case.pk}/approve", {**version, "override_reason": OVERRIDE}).status_code == 302
    client.logout()
    return case


def test_an_approval_over_the_reviewers_own_refuted_label_exports_as_overridden(
    client, support_lead, approved_over_own_label
):
    response = signed_in(client, support_lead).post(reverse("audit:export_create"), {"format": "fixtures"})

    fixture = _read_fixtures(b"".join(response.streaming_content).decode())[approved_over_own_label.pk]

    expected = fixture["expected"]
    first = latest(approved_over_own_label).claims.first()
    assert expected["terminal"] == "PERMIT" and expected["claims"][0]["label"] == "REFUTED"
    # Not a clean example of an answer that should pass: a person released it over their own label.
    assert (expected["overridden"], expected["overridden_claims"]) == (True, [first.claim_id])
    assert fixture["provenance"]["override_reason"] == OVERRIDE


def test_a_clean_approval_exports_as_not_overridden(client, reviewer, support_lead):
    case = run_case(client_create(name="support-bot")[0], refund_case(external_id="refund-clean"))
    signed_in(client, reviewer)
    client.post("/review/next")
    current = latest(case)
    for claim in current.claims.all():
        client.post(f"/review/cases/{case.pk}/claims/{claim.pk}/label", {"label": "SUPPORTED"})
    version = {"candidate_id": current.candidate_id, "sha256": current.sha256}
    assert client.post(f"/review/cases/{case.pk}/approve", version).status_code == 302
    client.logout()

    response = signed_in(client, support_lead).post(reverse("audit:export_create"), {"format": "fixtures"})

    expected = _read_fixtures(b"".join(response.streaming_content).decode())[case.pk]["expected"]
    assert (expected["terminal"], expected["overridden"], expected["overridden_claims"]) == ("PERMIT", False, [])
