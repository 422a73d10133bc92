"""A case whose answer the model could not draft reaches a person with nothing to verify: the reviewer
sees why, writes the answer, and it is verified before release."""

from __future__ import annotations

import pytest

from reviewconsole.intake.models import Candidate, CaseStatus
from reviewconsole.review.models import Decision
from reviewconsole.review.tasks import verify_edit
from tests.reviewconsole.review.conftest import PLANS_ANSWER
from verification import types as contract

pytestmark = pytest.mark.django_db

DRAFT_FAILED = "the generator's output failed validation 3 times; last: answer: field required"


def _undrafted() -> contract.RunRecord:
    # What the engine returns when the model's drafts all failed validation: no candidate at all.
    return contract.RunRecord(
        terminal=contract.Terminal.REVIEW,
        reason=contract.Reason.MODEL_OUTPUT_INVALID,
        final_answer="",
        candidates=[],
        metrics=contract.Metrics(claims=0, unsupported_before=0, unsupported_after=0, supported_removed=0,
                                 model_calls=3, verifier_calls=0, elapsed_ms=40),
        notes=[DRAFT_FAILED],
        verifier="offline/test",
    )


def test_the_case_page_explains_a_case_with_no_answer_and_takes_the_reviewers(
    client, reviewer, support_lead, run_as_engine
):
    case = run_as_engine(_undrafted())
    assert case.status == CaseStatus.ESCALATED
    assert not Candidate.objects.filter(case=case).exists()
    client.force_login(support_lead)
    assert client.get(f"/audit/cases/{case.pk}/").status_code == 200
    client.force_login(reviewer)
    assert client.post("/review/next")["Location"] == f"/review/cases/{case.pk}/"

    page = client.get(f"/review/cases/{case.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "No answer yet" in html and "failed validation 3 times" in html
    assert 'id="write-answer"' in html
    assert "Approve c" not in html  # nothing to approve yet

    # Approving or rejecting nothing is refused with the reason, not a server error.
    refused = client.post(f"/review/cases/{case.pk}/reject",
                          {"candidate_id": "", "sha256": "", "reason_code": "OTHER", "note": "n"})
    assert refused.status_code in (400, 409)
    assert not Decision.objects.filter(case=case).exists()

    # The reviewer writes the answer: it becomes version c0, verified like any edit, then decided.
    written = client.post(f"/review/cases/{case.pk}/edit", {"candidate_id": "", "sha256": "", "text": PLANS_ANSWER})
    assert written.status_code == 302
    (first,) = Candidate.objects.filter(case=case)
    assert (first.candidate_id, first.parent, first.origin, first.text) == ("c0", None, "REVIEWER", PLANS_ANSWER)
    verify_edit.apply(args=(first.pk,))
    page = client.get(f"/review/cases/{case.pk}/").content.decode()
    assert "Version c0" in page and "No answer yet" not in page
    assert "Re-verification done" in page and "Approve c0" in page

    approved = client.post(f"/review/cases/{case.pk}/approve",
                           {"candidate_id": "c0", "sha256": first.sha256, "override_reason": "checked by hand"})
    assert approved.status_code == 302
    case.refresh_from_db()
    assert (case.status, case.final_answer) == (CaseStatus.RELEASED, PLANS_ANSWER)
