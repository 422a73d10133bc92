"""After a reviewer's edit the API's case says what the stored chain says: the version a decision
names is in the run record the API serves, with the claims its re-verification found."""

from __future__ import annotations

from django.utils import timezone

from reviewconsole.intake.models import Candidate, Case, CaseStatus
from reviewconsole.review import services
from reviewconsole.review.services import candidate_edit, decision_approve
from tests.reviewconsole.api.conftest import case_body, post_case
from tests.reviewconsole.review.conftest import FIXED_ANSWER, latest, past_undo_window


def _stored_chain(case: Case) -> list[str]:
    return list(Candidate.objects.filter(case=case).order_by("position").values_list("candidate_id", flat=True))


def test_an_edit_then_its_approval_are_in_the_run_record_the_api_serves(
    client, api_client, reviewer, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        case_url = post_case(client, api_client, case_body()).json()["status_url"]
    case = Case.objects.get()
    assert case.status == CaseStatus.ESCALATED
    engine_chain = case.run_record["candidates"]

    # The reviewer rewrites the engine's repair; its re-verification waits for the commit.
    now = timezone.now()
    escalation = services.escalation_claim_next(reviewer=reviewer, now=now)
    repaired = latest(case)
    with django_capture_on_commit_callbacks() as verification:
        edit = candidate_edit(
            escalation_id=escalation.pk, reviewer=reviewer, candidate_id=repaired.candidate_id,
            sha256=repaired.sha256, text=FIXED_ANSWER, now=now,
        )

    pending = client.get(case_url, **api_client.auth).json()
    assert pending["decision"]["kind"] == "EDIT" and pending["decision"]["candidate"] == edit.candidate_id == "c2"
    served = pending["run_record"]["candidates"]
    assert [candidate["id"] for candidate in served] == _stored_chain(case) == ["c0", "c1", "c2"]
    assert (served[-1]["origin"], served[-1]["parent"], served[-1]["text"]) == ("REVIEWER", "c1", FIXED_ANSWER)
    assert served[-1]["claims"] == []  # not verified yet
    assert pending["released_answer"] is None

    for callback in verification:
        callback()
    decision_approve(
        escalation_id=escalation.pk, reviewer=reviewer, candidate_id=edit.candidate_id, sha256=edit.sha256,
        now=timezone.now(),
    )
    past_undo_window(case)  # the client sees the approval once the reviewer can no longer undo it

    approved = client.get(case_url, **api_client.auth).json()
    assert approved["status"] == CaseStatus.RELEASED and approved["released_answer"] == FIXED_ANSWER
    assert approved["decision"]["kind"] == "APPROVE" and approved["decision"]["candidate"] == "c2"
    served = approved["run_record"]["candidates"]
    assert [candidate["id"] for candidate in served] == _stored_chain(case)
    verified = [(claim["id"], claim["text"], claim["state"]) for claim in served[-1]["claims"]]
    assert verified == list(edit.claims.order_by("position").values_list("claim_id", "text", "state"))
    assert {state for _, _, state in verified} == {"SUPPORTED"}
    assert {verdict["rule"] for verdict in served[-1]["rule_verdicts"]} >= {"word-limit"}
    # The engine's own versions are served as the engine recorded them.
    assert served[:-1] == engine_chain


def test_a_case_no_one_edited_is_served_with_its_run_record_as_stored(
    client, api_client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        case_url = post_case(client, api_client, case_body()).json()["status_url"]

    served = client.get(case_url, **api_client.auth).json()["run_record"]

    case = Case.objects.get()
    assert served == case.run_record
    assert [candidate["id"] for candidate in served["candidates"]] == _stored_chain(case)
