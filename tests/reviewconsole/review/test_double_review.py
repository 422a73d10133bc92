"""Double review: two independent reviews, a decision when they agree, a review lead when they do not."""

from __future__ import annotations

import re

import pytest
from django.test import Client as HttpClient
from django.utils import timezone

from reviewconsole.accounts.roles import Role
from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.models import Candidate, CaseStatus
from reviewconsole.review import double_review
from reviewconsole.review.models import (
    ClaimLabelKind,
    Decision,
    DecisionKind,
    Escalation,
    EscalationStatus,
    Review,
)
from reviewconsole.review.services import claim_label_set
from reviewconsole.webhooks.models import EventType, WebhookDelivery
from tests.personas import _user_with
from tests.reviewconsole.review.conftest import (
    FIXED_ANSWER,
    default_policy_publish,
    gate_record,
    latest,
    on_version,
    signed_in,
)
from verification import Reason, Terminal

pytestmark = pytest.mark.django_db

OVERRIDE = "Checked the refund policy by hand."
REVIEW_NOTE = "Sixty days is wrong, but the customer was promised it."



@pytest.fixture
def double_case(double_review, escalate):
    """The refund case (a critical claim), under a constitution that asks for two reviews of those."""
    case = escalate()
    assert Escalation.objects.get(case=case).reviews_required == 2
    return case


def _review(http, case, kind: str, **fields: str):
    """Take the case with "Next case" and approve or reject it."""
    assert http.post("/review/next")["Location"] == f"/review/cases/{case.pk}/"
    if kind == "approve":
        data = on_version(latest(case), override_reason=OVERRIDE, **fields)
    else:
        data = on_version(latest(case), reason_code="WRONG_FACTS", note=fields.pop("note", "Wrong."), **fields)
    return http.post(f"/review/cases/{case.pk}/{kind}", data)


# --- Routing --------------------------------------------------------------------------------------------


def test_routing_asks_for_two_reviews_for_the_reasons_or_severities_the_pinned_policy_names(escalate):
    assert Escalation.objects.get(case=escalate()).reviews_required == 1  # the built-in default: one

    default_policy_publish(double_review_severities=["CRITICAL"])
    by_severity = Escalation.objects.get(case=escalate(external_id="ticket-2"))
    default_policy_publish(double_review_reasons=["CONFLICTING_EVIDENCE"], double_review_severities=["MINOR"])
    neither = Escalation.objects.get(case=escalate(external_id="ticket-3"))

    assert (by_severity.reason, by_severity.severity, by_severity.reviews_required) == ("CRITICAL_CLAIM", "CRITICAL", 2)
    assert neither.reviews_required == 1
    opened = AuditEvent.objects.filter(action="escalation.opened", object_id=str(by_severity.pk)).get()
    assert opened.payload["reviews_required"] == 2


def test_spot_checks_are_never_double_reviewed(run_as_engine):
    default_policy_publish(double_review_reasons=["ALL_SUPPORTED"],
                           double_review_severities=["MINOR", "MODERATE", "CRITICAL"], spot_check_share=1.0)
    released = gate_record(support_score=0.93).model_copy(
        update={"terminal": Terminal.PERMIT, "reason": Reason.ALL_SUPPORTED, "review_package": None}
    )

    case = run_as_engine(released)

    escalation = Escalation.objects.get(case=case)
    assert escalation.is_spot_check and escalation.reviews_required == 1


# --- The first review -----------------------------------------------------------------------------------


def test_the_first_review_is_stored_as_a_review_and_the_case_goes_back_to_the_queue(reviewer, double_case):
    http = signed_in(reviewer)

    response = _review(http, double_case, "approve", note=REVIEW_NOTE)

    assert response.status_code == 302 and response["Location"] == "/review/"  # nothing else waits for rita
    review = Review.objects.get()
    assert (review.reviewer, review.kind, review.candidate, review.note, review.override_reason) == (
        reviewer, DecisionKind.APPROVE, latest(double_case), REVIEW_NOTE, OVERRIDE
    )
    assert not Decision.objects.exists()
    escalation = Escalation.objects.get(case=double_case)
    assert escalation.status == EscalationStatus.OPEN and escalation.holder is None
    double_case.refresh_from_db()
    assert double_case.status == CaseStatus.ESCALATED
    assert not WebhookDelivery.objects.filter(event_type=EventType.CASE_DECIDED).exists()
    event = AuditEvent.objects.get(action="escalation.reviewed")
    assert event.actor == "user:rita" and event.payload["kind"] == "APPROVE"
    assert (event.payload["review"], event.payload["of"]) == (1, 2)
    page = http.get("/review/").content.decode()
    assert "Your review of case" in page and "A second reviewer reviews it without seeing yours." in page


def test_next_case_never_serves_a_reviewer_a_case_they_reviewed(reviewer, double_case):
    http = signed_in(reviewer)
    _review(http, double_case, "reject")

    assert http.post("/review/next")["Location"] == "/review/"
    # Nor may they take it by hand, or review it again.
    assert http.post(f"/review/cases/{double_case.pk}/lease", {"take": "1"}).status_code == 302
    assert Escalation.objects.get(case=double_case).holder is None
    again = http.post(f"/review/cases/{double_case.pk}/approve", on_version(latest(double_case),
                                                                          override_reason=OVERRIDE))
    assert again.status_code == 409 and "You reviewed this case already" in again.content.decode()
    assert Review.objects.count() == 1
    page = http.get(f"/review/cases/{double_case.pk}/").content.decode()
    assert 'id="own-review-note"' in page and "<strong>reject</strong>" in page
    assert f'action="/review/cases/{double_case.pk}/approve"' not in page


def test_the_second_reviewer_sees_neither_the_first_review_nor_its_note_nor_labels(
    reviewer, second_reviewer, double_case
):
    first = signed_in(reviewer)
    first.post("/review/next")
    escalation = Escalation.objects.get(case=double_case)
    refuted = latest(double_case).claims.order_by("position").first()
    claim_label_set(escalation=escalation, claim=refuted, reviewer=reviewer, label=ClaimLabelKind.REFUTED,
                    blind=False, now=timezone.now())
    first.post(f"/review/cases/{double_case.pk}/notes", {"text": "Customer is angry, reject."})
    first.post(f"/review/cases/{double_case.pk}/reject",
               on_version(latest(double_case), reason_code="WRONG_FACTS", note=REVIEW_NOTE))

    second = signed_in(second_reviewer)
    assert second.post("/review/next")["Location"] == f"/review/cases/{double_case.pk}/"
    page = second.get(f"/review/cases/{double_case.pk}/").content.decode()

    assert REVIEW_NOTE not in page and "Customer is angry" not in page
    assert "rita" not in page and 'data-label="REFUTED"' not in page
    assert "This case needs two independent reviews." in page
    # No edit while the reviews are independent, and the page says why.
    assert 'id="decide-edit"' not in page and f'action="/review/cases/{double_case.pk}/edit"' not in page
    assert "an edit would show the other reviewer your judgement" in page


def test_an_edit_posted_during_independent_reviews_is_refused(reviewer, double_case):
    http = signed_in(reviewer)
    http.post("/review/next")

    response = http.post(f"/review/cases/{double_case.pk}/edit", on_version(latest(double_case), text=FIXED_ANSWER))

    assert response.status_code == 409 and "Edits are not offered" in response.content.decode()
    assert Candidate.objects.filter(case=double_case).count() == 2 and not Decision.objects.exists()


def test_the_second_reviewer_does_not_see_the_first_reviewers_claim_comments(
    reviewer, second_reviewer, lead, double_case
):
    claim = latest(double_case).claims.order_by("position").first()
    comments_url = f"/review/cases/{double_case.pk}/claims/{claim.pk}/comments"
    first = signed_in(reviewer)
    first.post("/review/next")
    assert first.post(comments_url, {"comment": "Sixty days contradicts the policy."}).status_code == 302
    first.post(f"/review/cases/{double_case.pk}/reject",
               on_version(latest(double_case), reason_code="WRONG_FACTS", note="Wrong."))
    assert "Sixty days contradicts the policy." in first.get(f"/review/cases/{double_case.pk}/").content.decode()

    second = signed_in(second_reviewer)
    assert second.post("/review/next")["Location"] == f"/review/cases/{double_case.pk}/"
    page = second.get(f"/review/cases/{double_case.pk}/").content.decode()
    # Their own comment comes back in the claim's block, still without the first reviewer's.
    block = second.post(comments_url, {"comment": "Reads fine to me."}, HTTP_HX_REQUEST="true").content.decode()

    assert "Sixty days contradicts the policy." not in page
    assert "Reads fine to me." in block and "Sixty days contradicts the policy." not in block
    # Once the reviews are in and disagree, the lead settling them reads both comments.
    second.post(f"/review/cases/{double_case.pk}/approve", on_version(latest(double_case), override_reason=OVERRIDE))
    assert Escalation.objects.get(case=double_case).status == EscalationStatus.ADJUDICATION
    lead_page = signed_in(lead).get(f"/review/cases/{double_case.pk}/").content.decode()
    assert "Sixty days contradicts the policy." in lead_page and "Reads fine to me." in lead_page


def test_notes_and_comments_of_someone_who_handed_the_case_back_stay_hidden_from_the_reviewers(
    reviewer, second_reviewer, double_case
):
    claim = latest(double_case).claims.order_by("position").first()
    first = signed_in(reviewer)
    first.post("/review/next")
    first.post(f"/review/cases/{double_case.pk}/claims/{claim.pk}/comments", {"comment": "Sixty days is wrong."})
    first.post(f"/review/cases/{double_case.pk}/notes", {"text": "Looks like a reject to me."})
    assert first.post(f"/review/cases/{double_case.pk}/release").status_code == 302  # handed back, no review

    second = signed_in(second_reviewer)
    assert second.post("/review/next")["Location"] == f"/review/cases/{double_case.pk}/"
    page = second.get(f"/review/cases/{double_case.pk}/").content.decode()

    assert "Sixty days is wrong." not in page and "Looks like a reject to me." not in page
    assert Escalation.objects.get(case=double_case).holder == second_reviewer


# --- Agreement ----------------------------------------------------------------------------------------------


def test_two_reviews_that_agree_take_the_decision(reviewer, second_reviewer, double_case):
    _review(signed_in(reviewer), double_case, "approve")

    response = _review(signed_in(second_reviewer), double_case, "approve", note="Fine as repaired.")

    assert response.status_code == 302
    decision = Decision.objects.get()
    assert (decision.kind, decision.reviewer, decision.candidate, decision.note) == (
        DecisionKind.APPROVE, second_reviewer, latest(double_case), "Fine as repaired."
    )
    escalation = Escalation.objects.get(case=double_case)
    assert escalation.status == EscalationStatus.DECIDED
    double_case.refresh_from_db()
    assert double_case.status == CaseStatus.RELEASED and double_case.final_answer == latest(double_case).text
    webhook = WebhookDelivery.objects.get(event_type=EventType.CASE_DECIDED)
    assert webhook.payload["decision"]["kind"] == "APPROVE"
    event = AuditEvent.objects.get(action="decision.approved")
    reviews = list(Review.objects.order_by("created_at"))
    assert [link["id"] for link in event.payload["reviews"]] == [review.pk for review in reviews]
    assert [link["reviewer"] for link in event.payload["reviews"]] == ["rita", "ravi"]
    assert event.payload["adjudicated"] is False


# --- Disagreement and adjudication --------------------------------------------------------------------------


@pytest.fixture
def disputed(reviewer, second_reviewer, double_case):
    """Rita approved the refund case, Ravi rejected it: it waits for a review lead."""
    _review(signed_in(reviewer), double_case, "approve", note="Promised by phone.")
    _review(signed_in(second_reviewer), double_case, "reject", note=REVIEW_NOTE)
    return double_case


def test_reviews_that_disagree_send_the_case_to_adjudication_out_of_the_queue(reviewer, lead, disputed):
    escalation = Escalation.objects.get(case=disputed)
    assert escalation.status == EscalationStatus.ADJUDICATION and escalation.holder is None
    assert not Decision.objects.exists()
    assert AuditEvent.objects.get(action="escalation.adjudication_opened").payload["reviews"][1]["kind"] == "REJECT"
    queue = signed_in(reviewer).get("/review/").content.decode()
    assert f"/review/cases/{disputed.pk}/" not in queue
    assert "Adjudication" not in queue  # only leads see the way there

    lead_queue = signed_in(lead).get("/review/").content.decode()
    assert re.search(r'<a href="/review/adjudication/">Adjudication</a>: 1 case where two reviews disagree', lead_queue)
    listing = signed_in(lead).get("/review/adjudication/").content.decode()
    assert f'href="/review/cases/{disputed.pk}/"' in listing and "rita: approve · ravi: reject" in listing


def test_only_review_leads_open_the_adjudication_queue(client, reviewer, lead, disputed):
    assert client.get("/review/adjudication/").status_code == 302  # sign in first
    client.force_login(reviewer)
    assert client.get("/review/adjudication/").status_code == 403
    client.force_login(lead)
    assert client.get("/review/adjudication/").status_code == 200
    assert client.post("/review/adjudication/").status_code == 405


@pytest.fixture
def third_reviewer_client(db) -> HttpClient:
    return signed_in(_user_with("tess", Role.REVIEWER))


def test_a_plain_reviewer_may_read_but_not_decide_a_disputed_case(third_reviewer_client, disputed):
    page = third_reviewer_client.get(f"/review/cases/{disputed.pk}/").content.decode()
    assert "a review lead decides it" in page and "Promised by phone." not in page

    response = third_reviewer_client.post(f"/review/cases/{disputed.pk}/approve",
                                          on_version(latest(disputed), override_reason=OVERRIDE))

    assert response.status_code == 403 and "a review lead decides it" in response.content.decode()
    assert not Decision.objects.exists()


def test_the_lead_sees_both_reviews_side_by_side_and_decides(lead, disputed):
    http = signed_in(lead)

    page = http.get(f"/review/cases/{disputed.pk}/").content.decode()

    compared = re.search(r'<section class="card" id="reviews-compared".*?</section>', page, re.S).group(0)
    assert "<h3>rita: Approve</h3>" in compared and "<h3>ravi: Reject</h3>" in compared
    assert "Promised by phone." in compared and REVIEW_NOTE in compared
    assert "Facts contradict the sources" in compared and OVERRIDE in compared
    assert "Adjudicate: decide on version" in page and 'id="decide-edit"' in page  # a lead may edit

    response = http.post(f"/review/cases/{disputed.pk}/reject",
                         on_version(latest(disputed), reason_code="WRONG_FACTS", note="60 days is wrong."))

    assert response.status_code == 302 and response["Location"] == "/review/adjudication/"
    decision = Decision.objects.get()
    assert (decision.kind, decision.reviewer, decision.note) == (DecisionKind.REJECT, lead, "60 days is wrong.")
    assert Escalation.objects.get(case=disputed).status == EscalationStatus.DECIDED
    disputed.refresh_from_db()
    assert disputed.status == CaseStatus.REJECTED
    event = AuditEvent.objects.get(action="decision.rejected")
    assert event.payload["adjudicated"] is True and len(event.payload["reviews"]) == 2
    assert WebhookDelivery.objects.get(event_type=EventType.CASE_DECIDED).payload["decision"]["kind"] == "REJECT"


def test_the_lead_sees_both_reviewers_labels(reviewer, second_reviewer, lead, double_case):
    claim = latest(double_case).claims.order_by("position").first()
    for person, label, kind in ((reviewer, ClaimLabelKind.SUPPORTED, "approve"),
                                (second_reviewer, ClaimLabelKind.REFUTED, "reject")):
        http = signed_in(person)
        http.post("/review/next")
        escalation = Escalation.objects.get(case=double_case)
        claim_label_set(escalation=escalation, claim=claim, reviewer=person, label=label, blind=False,
                        now=timezone.now())
        data = on_version(latest(double_case), override_reason=OVERRIDE) if kind == "approve" else \
            on_version(latest(double_case), reason_code="WRONG_FACTS", note="No.")
        http.post(f"/review/cases/{double_case.pk}/{kind}", data)

    page = signed_in(lead).get(f"/review/cases/{double_case.pk}/").content.decode()

    cell = re.search(rf'<td class="claim-label" id="label-claim-{claim.position}">(.*?)</td>', page, re.S).group(1)
    assert "<strong>rita</strong>: Supported" in cell and "<strong>ravi</strong>: Refuted" in cell


@pytest.fixture
def disputed_by_the_lead(reviewer, lead, double_case):
    """Rita approved the refund case, Lena (a review lead who reviews too) rejected it."""
    _review(signed_in(reviewer), double_case, "approve", note="Promised by phone.")
    _review(signed_in(lead), double_case, "reject", note=REVIEW_NOTE)
    assert Escalation.objects.get(case=double_case).status == EscalationStatus.ADJUDICATION
    return double_case


def test_a_lead_who_gave_one_of_the_reviews_may_not_adjudicate_them(lead, disputed_by_the_lead):
    case, http = disputed_by_the_lead, signed_in(lead)

    page = http.get(f"/review/cases/{case.pk}/").content.decode()

    # The page says why and offers nothing to decide with: no approve, edit, reject or label buttons.
    assert 'id="reviews-compared"' in page and 'id="own-disagreement"' in page
    note = re.search(r'<p class="muted" id="adjudication-note">(.*?)</p>', page, re.S).group(1)
    assert note == double_review.OWN_DISAGREEMENT
    for control in ('id="decide-approve"', 'id="decide-reject"', 'id="decide-edit"', "data-label-form"):
        assert control not in page, control

    # Posted anyway, every adjudication is refused with the same reason, and nothing is written.
    current = latest(case)
    for action, data in (("approve", on_version(current, override_reason=OVERRIDE)),
                         ("reject", on_version(current, reason_code="WRONG_FACTS", note="No.")),
                         ("edit", on_version(current, text=FIXED_ANSWER))):
        response = http.post(f"/review/cases/{case.pk}/{action}", data)
        assert response.status_code == 403, action
        assert "another review lead adjudicates this case" in response.content.decode(), action
    claim = current.claims.first()
    refused = http.post(f"/review/cases/{case.pk}/claims/{claim.pk}/label", {"label": "SUPPORTED"})
    assert refused.status_code == 409 and "another review lead adjudicates" in refused.content.decode()
    assert not Decision.objects.exists() and latest(case) == current
    assert Escalation.objects.get(case=case).status == EscalationStatus.ADJUDICATION

    # The adjudication list says which disagreements are the lead's own.
    listed = http.get("/review/adjudication/").content.decode()
    assert "yours: another lead decides" in listed


def test_another_lead_adjudicates_a_disagreement_a_lead_took_part_in(disputed_by_the_lead):
    other_lead = signed_in(_user_with("lou", Role.REVIEW_LEAD))
    page = other_lead.get(f"/review/cases/{disputed_by_the_lead.pk}/").content.decode()
    assert "Adjudicate: decide on version" in page and 'id="own-disagreement"' not in page

    response = other_lead.post(f"/review/cases/{disputed_by_the_lead.pk}/approve",
                               on_version(latest(disputed_by_the_lead), override_reason=OVERRIDE))

    assert response.status_code == 302 and Decision.objects.get().reviewer.username == "lou"


def test_the_lead_may_edit_when_adjudicating(lead, disputed, django_capture_on_commit_callbacks):
    http = signed_in(lead)

    with django_capture_on_commit_callbacks():
        response = http.post(f"/review/cases/{disputed.pk}/edit", on_version(latest(disputed), text=FIXED_ANSWER))

    assert response.status_code == 302
    edit = latest(disputed)
    assert (edit.origin, edit.text) == ("REVIEWER", FIXED_ANSWER)
    assert Decision.objects.get().kind == DecisionKind.EDIT
    assert Escalation.objects.get(case=disputed).status == EscalationStatus.ADJUDICATION


def _my_decisions(http) -> list[dict[str, str]]:
    """The rows of "My decisions", each by column heading, as text."""
    html = http.get("/review/decisions/").content.decode()
    table = re.search(r'<table class="queue-table" id="my-decisions">(.*?)</table>', html, re.S)
    assert table, "no table of decisions on the page"

    def text(cells: list[str]) -> list[str]:
        return [re.sub(r"<[^>]+>", "", cell).strip() for cell in cells]

    headings = text(re.findall(r"<th[^>]*>(.*?)</th>", table.group(1), re.S))
    body = re.search(r"<tbody>(.*?)</tbody>", table.group(1), re.S).group(1)
    return [dict(zip(headings, text(re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)), strict=True))
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)]


def test_my_decisions_lists_my_independent_reviews(reviewer, double_case):
    http = signed_in(reviewer)
    _review(http, double_case, "reject")

    (row,) = _my_decisions(http)

    assert row["Case"].startswith(f"#{double_case.pk}") and row["Decision"] == "Reject independent review"
    assert (row["Version"], row["Reason"], row["Note"], row["Case now"]) == (
        latest(double_case).candidate_id, "Facts contradict the sources", "Wrong.", "Open"
    )


def test_my_decisions_lists_reviews_that_agreed_once_each_with_the_case_decided(reviewer, second_reviewer, double_case):
    first, second = signed_in(reviewer), signed_in(second_reviewer)
    _review(first, double_case, "approve")
    _review(second, double_case, "approve")

    # Ravi's review decided the case (a Decision in his name): he sees it once, as the review it was.
    for http in (first, second):
        (row,) = _my_decisions(http)
        assert (row["Decision"], row["Case now"]) == ("Approve independent review override", "Decided")


def test_my_decisions_lists_decisions_and_reviews_newest_first(reviewer, double_case, escalate):
    single = escalate(external_id="ticket-single", constitution="customer-support")
    assert Escalation.objects.get(case=single).reviews_required == 1
    http = signed_in(reviewer)
    _review(http, double_case, "reject")
    _review(http, single, "reject")

    rows = _my_decisions(http)

    assert [(row["Case"].split(" ")[0], row["Decision"]) for row in rows] == [
        (f"#{single.pk}", "Reject"), (f"#{double_case.pk}", "Reject independent review"),
    ]


def test_a_review_lead_without_the_reviewer_role_uses_the_console_and_adjudicates(disputed):
    lead_only = signed_in(_user_with("lou", Role.REVIEW_LEAD))

    assert lead_only.get("/review/").status_code == 200
    page = lead_only.get(f"/review/cases/{disputed.pk}/").content.decode()
    assert 'id="reviews-compared"' in page

    response = lead_only.post(f"/review/cases/{disputed.pk}/approve",
                              on_version(latest(disputed), note="Lou settles it."))

    assert response.status_code == 302 and Decision.objects.get().reviewer.username == "lou"


def test_the_lead_labels_the_claims_of_a_disputed_case_and_approves_without_an_override(
    lead, disputed, third_reviewer_client
):
    """Adjudicating, the lead reads the claims against the sources: labels settle what the engine failed."""
    http = signed_in(lead)
    claims = list(latest(disputed).claims.order_by("position"))
    page = http.get(f"/review/cases/{disputed.pk}/").content.decode()
    assert page.count('name="label"') >= len(claims)  # the label buttons are offered to the lead
    refused = third_reviewer_client.post(f"/review/cases/{disputed.pk}/claims/{claims[0].pk}/label",
                                         {"label": ClaimLabelKind.SUPPORTED})
    assert refused.status_code == 409 and "a review lead labels and decides it" in refused.content.decode()

    for claim in claims:
        label = {"label": ClaimLabelKind.SUPPORTED}
        response = http.post(f"/review/cases/{disputed.pk}/claims/{claim.pk}/label", label)
        assert response.status_code in (200, 302)
    response = http.post(f"/review/cases/{disputed.pk}/approve", on_version(latest(disputed)))

    assert response.status_code == 302
    decision = Decision.objects.get(case=disputed)
    assert (decision.kind, decision.reviewer, decision.override_reason) == (DecisionKind.APPROVE, lead, "")
