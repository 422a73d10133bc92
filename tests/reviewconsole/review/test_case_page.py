"""The case page explains a case at a glance: header, versions, claims by state, evidence, diff."""

from __future__ import annotations

import re

import pytest
from django.utils.html import escape

from reviewconsole.intake.models import Candidate, Case, CaseStatus, Claim, RepairAttempt
from reviewconsole.review.models import ClaimLabel, Escalation
from reviewconsole.review.tasks import verify_edit
from tests.reviewconsole.review.conftest import TRAVEL_CLAIMS, TRAVEL_EVIDENCE, escalate_case, refund_case
from tests.verification.fake_openai import FakeOpenAIServer
from tests.verification.replies import cove_reply

pytestmark = pytest.mark.django_db


def test_anonymous_and_other_roles_are_refused(client, support_lead, outsider, escalate):
    case = escalate()
    url = f"/review/cases/{case.pk}/"
    assert client.get(url)["Location"] == f"/login/?next={url}"
    for user in (support_lead, outsider):
        client.force_login(user)
        assert client.get(url).status_code == 403


def test_a_case_that_never_reached_the_queue_is_read_only(client, reviewer, escalate):
    case = escalate()
    client.force_login(reviewer)
    Escalation.objects.filter(case=case).delete()

    response = client.get(f"/review/cases/{case.pk}/")

    html = response.content.decode()
    assert response.status_code == 200
    assert "It never reached the review queue, so there is nothing to decide." in html
    assert "Can I get a refund on my annual plan?" in html and "within 60 days of purchase" in html
    # Nothing to decide, and the audit trail stays a support lead's.
    assert "/approve" not in html and 'id="timeline"' not in html
    assert client.post(f"/review/cases/{case.pk}/approve").status_code == 404


def test_wrong_method(client, reviewer, escalate):
    case = escalate()
    client.force_login(reviewer)
    assert client.post(f"/review/cases/{case.pk}/").status_code == 405
    for action in ("approve", "edit", "reject", "notes", "release"):
        assert client.get(f"/review/cases/{case.pk}/{action}").status_code == 405


def test_header_timeline_claims_and_evidence(client, reviewer, escalate):
    case = escalate()
    client.force_login(reviewer)

    html = client.get(f"/review/cases/{case.pk}/").content.decode()

    assert "Can I get a refund on my annual plan?" in html
    assert "support-bot" in html
    assert "<strong>Needs review</strong> · <span id=\"terminal-reason\">Critical claim not supported</span>" in html
    assert "Repairs" in html and "/ 6" in html  # budget usage against the constitution's limit
    # The chain as the engine stored it, each step with its origin and operation in words.
    steps = {
        (candidate.candidate_id, candidate.origin, candidate.operation)
        for candidate in Candidate.objects.filter(case=case)
    }
    assert steps == {("c0", "CLIENT", ""), ("c1", "REPAIR", "REPLACE_WITH_EVIDENCE")}
    assert '<strong>c0</strong></a> · <span class="origin">From the client</span>' in html
    assert (
        '<strong>c1</strong></a> · <span class="origin">Engine repair</span> · Replaced by what the sources say' in html
    )
    for repair in RepairAttempt.objects.filter(case=case).exclude(outcome="ACCEPTED"):
        assert escape(repair.failure) in html
    # The diff from the client's answer to the current version: the refuted claim was removed or replaced.
    assert re.search(r'change-(removed|changed)">.*?k1.*?Refuted', html, re.S)
    assert escape(case.run_record["review_package"]["policy_reason"]) in html


def test_an_older_version_shows_its_refuted_claim_with_evidence_highlighted(client, reviewer, escalate):
    case = escalate()
    client.force_login(reviewer)

    html = client.get(f"/review/cases/{case.pk}/?version=c0").content.decode()

    # The claim is marked in the answer, with its state in words beside the colour.
    assert re.search(r'<mark id="text-claim-0" class="state-refuted"[^>]*>You can request a full refund', html)
    assert '<span class="state state-refuted">Refuted</span>' in html
    # Its evidence span is marked in the source and linked from the claim, and back.
    mark = re.search(r'<a class="mark-link" href="#claim-0"><mark id="(ev-0-\d)" class="state-refuted"', html)
    assert mark and f'href="#{mark.group(1)}"' in html
    assert "Annual plans can be refunded in full within 30 days of purchase.</mark>" in html


def test_marks_of_a_chinese_answer_land_on_their_characters_past_an_emoji(client, reviewer, travel_case):
    # The emoji before the first claim and the Extension B ideograph before the evidence are one character each.
    client.force_login(reviewer)

    html = client.get(f"/review/cases/{travel_case.pk}/").content.decode()

    assert re.findall(r'<mark id="text-claim-\d" class="state-[a-z_]+" title="[^"]*">([^<]*)</mark>', html) == list(
        TRAVEL_CLAIMS)
    assert "好消息😀<a class=\"mark-link\" href=\"#claim-0\">" in html
    assert re.findall(r'<mark id="ev-0-\d" class="state-refuted" title="[^"]*">([^<]*)</mark>', html) == [
        TRAVEL_EVIDENCE]
    assert "📍𠮷祥路旁：<a class=\"mark-link\" href=\"#claim-1\">" in html


def test_diff_between_any_two_versions_by_htmx(client, reviewer, escalate):
    case = escalate()
    client.force_login(reviewer)
    url = f"/review/cases/{case.pk}/?older=c1&newer=c0"

    fragment = client.get(url, headers={"HX-Request": "true"}).content.decode()
    full = client.get(url).content.decode()

    assert fragment.lstrip().startswith('<div id="diff">') and "<html" not in fragment
    assert "c1 → c0" in fragment
    # Going from c1 back to c0, the refuted claim comes back (added, or changed back to its old text).
    assert re.search(r'change-(added|changed)">.*?k1', fragment, re.S)
    assert "<html" in full and "c1 → c0" in full


def test_client_and_model_text_is_escaped(client, reviewer, escalate):
    body = refund_case(
        question="Refund? <img src=x onerror=alert(1)>",
        answer="You can request a full refund within 60 days <script>alert(1)</script> of purchase. "
        "Approved refunds are returned to the original payment method within 5 to 10 business days.",
    )
    case = escalate(body)
    client.force_login(reviewer)

    html = client.get(f"/review/cases/{case.pk}/?version=c0").content.decode()

    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html


def test_spot_check_of_a_released_case_has_no_review_package(client, reviewer, escalate):
    case = escalate()
    Case.objects.filter(pk=case.pk).update(status=CaseStatus.RELEASED, run_record=None)
    Escalation.objects.filter(case=case).update(is_spot_check=True)
    client.force_login(reviewer)
    # A spot check is reviewed blind: the package shows once the reviewer has labelled every released claim.
    released = Candidate.objects.filter(case=case).order_by("-position").first()
    for claim in released.claims.all():
        ClaimLabel.objects.create(claim=claim, case=case, reviewer=reviewer, label="SUPPORTED", blind=True)

    html = client.get(f"/review/cases/{case.pk}/").content.decode()

    assert "spot check" in html and "left no review package" in html


# --- After a reviewer's edit ---------------------------------------------------------------------------

FIXED_ANSWER = (
    "Annual plans can be refunded in full within 30 days of purchase. "
    "Approved refunds are returned to the original payment method within 5 to 10 business days."
)


def _edit(client, case: Case, text: str) -> Candidate:
    """Post an edit of the current version as the signed-in reviewer and verify it, as a worker would."""
    current = Candidate.objects.filter(case=case).order_by("-position").first()
    response = client.post(
        f"/review/cases/{case.pk}/edit", {"candidate_id": current.candidate_id, "sha256": current.sha256, "text": text}
    )
    assert response.status_code == 302
    edit = Candidate.objects.filter(case=case).order_by("-position").first()
    verify_edit.apply(args=(edit.pk,))
    return edit


def _package(html: str) -> dict[str, str]:
    """The review package's rows as a person reads them."""
    section = html[html.index('id="package"'):html.index('id="notes"')]
    return {
        _visible(term): _visible(value)
        for term, value in re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", section, re.S)
    }


def _visible(html: str, *, between_tags: str = "") -> str:
    """The text a person reads: no tags (attributes, links' query strings and all), spaces collapsed."""
    return " ".join(re.sub(r"<[^>]*>", between_tags, html).split())


def test_the_review_package_describes_the_reviewers_edit_on_screen(client, reviewer, escalate):
    case = escalate()
    client.force_login(reviewer)
    client.post("/review/next")
    before = _package(client.get(f"/review/cases/{case.pk}/").content.decode())
    assert before["Original → current"] == "c0 → c1" and before["Rule failures"] == "none"

    # Back to the client's wording: the refuted claim and the rule it breaks return, in version c2.
    _edit(client, case, Candidate.objects.get(case=case, candidate_id="c0").text)
    package = _package(client.get(f"/review/cases/{case.pk}/").content.decode())

    assert package["Original → current"] == "c0 → c2"
    assert package["Failing claims"] == "k1 Refuted"
    assert package["New failures introduced"] == "none"  # it failed in the client's answer too
    assert package["Rule failures"].startswith("no-promise-outside-sources: promises not backed by the sources")
    assert package["Policy reason"] == escape(case.run_record["review_package"]["policy_reason"])


def test_the_review_package_waits_for_the_edit_to_be_verified(client, reviewer, escalate, monkeypatch):
    monkeypatch.setattr("reviewconsole.review.services.decisions.enqueue_on_commit", lambda task, pk: None)
    case = escalate()
    client.force_login(reviewer)
    client.post("/review/next")
    current = Candidate.objects.get(case=case, candidate_id="c1")
    client.post(f"/review/cases/{case.pk}/edit",
                {"candidate_id": "c1", "sha256": current.sha256, "text": FIXED_ANSWER + " Call us."})

    package = _package(client.get(f"/review/cases/{case.pk}/").content.decode())

    assert package["Original → current"] == "c0 → c2"
    assert package["Failing claims"] == package["Rule failures"] == "not known yet: the edit is being verified"


def test_the_diff_pairs_an_edits_claims_with_the_ones_they_rewrite(client, reviewer, escalate):
    case = escalate()
    client.force_login(reviewer)
    client.post("/review/next")
    # One claim put in front: the fresh run numbers the edit's claims k1, k2, k3.
    repaired = Candidate.objects.get(case=case, candidate_id="c1")
    _edit(client, case, "Monthly plans are not refundable. " + repaired.text)
    first, second = repaired.claims.values_list("text", flat=True)

    fragment = client.get(f"/review/cases/{case.pk}/?older=c1&newer=c2", headers={"HX-Request": "true"})

    cells = re.findall(r'<tr class="change-(\w+)">.*?</td>\s*<td>(.*?)</td>', fragment.content.decode(), re.S)
    rows = [(kind, _visible(text)) for kind, text in cells]
    assert rows == [("added", "Monthly plans are not refundable."), ("unchanged", first), ("unchanged", second)]


def test_the_diff_shows_text_an_edit_added_that_is_not_a_claim(client, reviewer, escalate):
    case = escalate()
    client.force_login(reviewer)
    client.post("/review/next")
    repaired = Candidate.objects.get(case=case, candidate_id="c1")
    note = "I could not find anything more on this in our documentation <b>today</b>."
    _edit(client, case, f"{repaired.text} Thanks for asking! {note}")

    html = client.get(f"/review/cases/{case.pk}/?older=c1&newer=c2", headers={"HX-Request": "true"}).content.decode()

    rows = re.findall(r'<tr class="change-(\w+) not-a-claim">.*?</td>\s*<td>(.*?)</td>', html, re.S)
    added = [(kind, _visible(text)) for kind, text in rows]
    # The thanks is no claim, so only this row shows it; the note is a claim and has its own row.
    assert added == [("added", "Thanks for asking!")]
    assert '<tr class="change-added">' in html
    assert "&lt;b&gt;today&lt;/b&gt;" in html and "<b>today</b>" not in html


def test_a_changed_claim_shows_the_words_that_changed(client, reviewer, escalate):
    case = escalate()
    client.force_login(reviewer)

    html = client.get(f"/review/cases/{case.pk}/?older=c0&newer=c1").content.decode()

    row = re.search(r'<tr class="change-changed">(.*?)</tr>', html, re.S).group(1)
    # The repair put the policy's 30 days in place of the refuted 60: only that word is marked.
    assert "You can request a full refund within <del>60</del> <ins>30</ins> days of purchase." in row
    assert "Refuted</span> → <span class=\"state state-supported\">Supported" in row


def test_pages_show_codes_in_words(client, reviewer, escalate):
    case = escalate()
    client.force_login(reviewer)

    text = _visible(client.get(f"/review/cases/{case.pk}/?older=c0&newer=c1").content.decode(), between_tags=" ")

    assert not re.findall(r"\b[A-Z]{3,}(?:_[A-Z]+)+\b", text)  # CRITICAL_CLAIM, REPLACE_WITH_EVIDENCE, ...
    assert not re.findall(r"\b(?:CLIENT|REPAIR|REVIEWER|REVIEW|PERMIT|REJECTED|ACCEPTED)\b", text)
    assert "Needs review · Critical claim not supported" in text
    assert "c0 (From the client)" in text and "c1 · Engine repair · Replaced by what the sources say" in text


def test_a_claim_the_edit_breaks_is_a_new_failure_whatever_its_id(client, reviewer, escalate):
    case = escalate()
    client.force_login(reviewer)
    client.post("/review/next")
    # A refuted claim in front: the fresh run calls it k1, the id the client's refuted claim had in c0.
    _edit(client, case, "Gift cards are refunded in cash. " + FIXED_ANSWER)

    package = _package(client.get(f"/review/cases/{case.pk}/").content.decode())

    assert package["Original → current"] == "c0 → c2"
    assert package["Failing claims"] == package["New failures introduced"] == "k1 Refuted"


def test_a_claim_the_offline_verifier_could_not_settle_shows_that_the_model_decided_it(
    client, reviewer, webhook_client, settings
):
    server = FakeOpenAIServer(responder=cove_reply).start()
    settings.LLM_BASE_URL, settings.LLM_MODEL, settings.LLM_API_KEY = server.base_url, "fake-llm-7b", "k"
    try:
        case = escalate_case(webhook_client, {
            "question": "What happens to my data after I cancel?",
            "answer": "We hold on to your data for 30 days once you cancel.",
            "sources": [{"id": "retention", "text": "After cancellation, account data is kept for 30 days."}],
        })
    finally:
        server.stop()
    client.force_login(reviewer)

    html = client.get(f"/review/cases/{case.pk}/").content.decode()

    # The model supported it, but no calibration was made for the model's scores: a person decides.
    assert case.reason == "NOT_CALIBRATED" and case.verifier == "cascade/1"
    [claim] = Claim.objects.filter(candidate__case=case)
    assert claim.method == "model:fake-llm-7b" and claim.decided_by.startswith("cove/1:fake-llm-7b ")
    assert ('<div class="muted small escalation">Sent to the model: offline SUPPORTED at 0.56, below the safe '
            "band (0.65)</div>") in html


def test_a_proven_claim_shows_which_evidence_word_states_each_of_its_words(client, reviewer, escalate):
    # The refund answer's second sentence is the policy's, word for word: proven, with its alignment.
    case = escalate()
    client.force_login(reviewer)
    proven = Claim.objects.get(candidate__case=case, candidate__position=0, method="offline:proof")

    html = client.get(f"/review/cases/{case.pk}/").content.decode()

    assert proven.text == "Approved refunds are returned to the original payment method within 5 to 10 business days."
    proof = html.split("data-proof>")[1].split("</div>")[0]
    assert proof.startswith("Proven word for word: ")
    assert '<span>Approved</span> → <q>Approved</q>' in proof
    assert '<span>business</span> → <q>10 business days</q>' in proof
