"""Try a draft on a sample: every rule's verdict and the engine's result, live, without publishing."""

from __future__ import annotations

import pytest

from reviewconsole.intake.models import Case, Client
from reviewconsole.intake.services import case_submit, client_create
from reviewconsole.policy import services
from reviewconsole.policy.engine import run_engine
from reviewconsole.policy.models import VersionStatus
from reviewconsole.policy.selectors import constitution_in_force
from reviewconsole.review.reasons import reason_label
from reviewconsole.workbench.tryout import sample_case, sources_from_text
from tests.reviewconsole.review.conftest import GATE_CALIBRATION, gate_record
from verification import Case as Submission
from verification.policy.constitution import CUSTOMER_SUPPORT, ForbiddenPhrases, WordLimit

pytestmark = pytest.mark.django_db

SAMPLE = {
    "question": "How long do refunds take?",
    "sources": "[refund-policy] Approved refunds are returned to the original payment method within 5 to 10 "
               "business days.",
    "answer": "Approved refunds are returned to the original payment method within 5 to 10 business days.",
}


@pytest.fixture
def draft(policy_admin):
    rules = [rule.model_copy(update={"max_words": 8}) if isinstance(rule, WordLimit) else rule
             for rule in CUSTOMER_SUPPORT.rules]
    return services.constitution_draft_save(constitution=CUSTOMER_SUPPORT.model_copy(update={"rules": rules}),
                                            author=policy_admin)


def test_trying_a_draft_by_htmx_shows_each_verdict_beside_the_version_in_force(admin_client, draft):
    response = admin_client.post(f"/policy/constitutions/customer-support/v{draft.number}/try", SAMPLE,
                                 HTTP_HX_REQUEST="true")

    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html and html.lstrip().startswith('<section id="result"')
    assert "HX-Request" in response["Vary"]
    word_limit = html.split('<tr data-rule="word-limit" class="is-changed">')[1].split("</tr>")[0]
    assert '<td class="verdict"><span class="tag fail">fail</span>' in word_limit
    assert '<td class="verdict-in-force"><span class="tag pass">pass</span>' in word_limit
    assert "15 words; the limit is 8" in word_limit
    assert 'data-rule="no-guarantees"' in html and "Engine: <strong class=\"terminal\">" in html
    draft.refresh_from_db()
    assert draft.status == VersionStatus.DRAFT and constitution_in_force("customer-support").number == 1
    assert not Case.objects.exists()


def test_without_htmx_the_whole_page_comes_back_with_the_result(admin_client, draft):
    response = admin_client.post(f"/policy/constitutions/customer-support/v{draft.number}/try", SAMPLE)

    html = response.content.decode()
    assert response.status_code == 200 and "<html" in html and '<section id="result"' in html
    assert "15 words; the limit is 8" in html


def test_a_sample_without_sources_is_refused_naming_the_field(admin_client, draft):
    response = admin_client.post(f"/policy/constitutions/customer-support/v{draft.number}/try",
                                 {**SAMPLE, "sources": "  "}, HTTP_HX_REQUEST="true")

    assert response.status_code == 400
    assert "sources: paste at least one source" in response.content.decode()


def test_a_stored_case_fills_the_sample(admin_client, draft):
    client, _ = client_create(name="support-bot")
    case, _ = case_submit(client=client, submission=Submission.model_validate(
        {"question": "Where is my <b>refund</b>?", "answer": "It is on its way.",
         "sources": [{"id": "policy", "text": "Refunds take 5 days."}]}))

    url = f"/policy/constitutions/customer-support/v{draft.number}/try?case={case.pk}"
    html = admin_client.get(url).content.decode()

    assert 'value="Where is my &lt;b&gt;refund&lt;/b&gt;?"' in html
    assert "[policy] Refunds take 5 days.</textarea>" in html and "It is on its way.</textarea>" in html


def test_pasted_sources_split_on_blank_lines_and_keep_their_ids():
    sources = sources_from_text("[a] First source.\nstill first.\n\nSecond source.")

    assert [(source.id, source.text) for source in sources] == [("a", "First source.\nstill first."),
                                                                ("s2", "Second source.")]


def test_publishing_from_the_version_page_puts_the_draft_in_force(admin_client, draft):
    url = f"/policy/constitutions/customer-support/v{draft.number}/publish"
    response = admin_client.post(url, {"confirm": "yes"})

    assert response.status_code == 302
    assert constitution_in_force("customer-support").pk == draft.pk
    again = admin_client.post(url, {"confirm": "yes"}, follow=True)
    assert "only a draft is published" in again.content.decode()


def test_the_diff_between_two_versions_by_htmx_and_as_a_page(admin_client, draft):
    url = "/policy/constitutions/customer-support/?older=1&newer=2"
    fragment = admin_client.get(url, HTTP_HX_REQUEST="true").content.decode()
    page = admin_client.get(url).content.decode()

    assert fragment.lstrip().startswith('<div id="diff">') and "<html" not in fragment
    assert "word-limit</strong> · Most words</td>" in fragment
    assert "<del>150</del>" in fragment and "<ins>8</ins>" in fragment
    assert "<html" in page and '<div id="diff">' in page


def test_trying_the_version_in_force_shows_its_verdicts_alone(admin_client):
    response = admin_client.post("/policy/constitutions/customer-support/v1/try",
                                 {**SAMPLE, "answer": "Refunds are guaranteed within 60 days."}, HTTP_HX_REQUEST="true")

    html = response.content.decode()
    assert response.status_code == 200 and "(in force)</th>" not in html
    no_guarantees = html.split('<tr data-rule="no-guarantees">')[1].split("</tr>")[0]
    assert '<span class="tag fail">fail</span>' in no_guarantees and "uses &#x27;guaranteed&#x27;" in no_guarantees


def test_the_diff_shows_a_changed_list_as_its_items(admin_client, policy_admin):
    rules = [
        rule.model_copy(update={"phrases": [*rule.phrases, "risk-free"]}) if isinstance(rule, ForbiddenPhrases)
        else rule
        for rule in CUSTOMER_SUPPORT.rules
    ]
    services.constitution_draft_save(constitution=CUSTOMER_SUPPORT.model_copy(update={"rules": rules}),
                                     author=policy_admin)

    fragment = admin_client.get("/policy/constitutions/customer-support/?older=1&newer=2",
                                HTTP_HX_REQUEST="true").content.decode()

    assert "no-guarantees</strong> · Phrases</td>" in fragment
    assert "“risk-free”" in fragment and "&quot;risk-free&quot;" not in fragment
    assert "[&#x27;" not in fragment and "['" not in fragment


def test_a_tried_sample_shows_the_reason_in_words_and_the_release_gate_it_met(admin_client, draft, monkeypatch):
    monkeypatch.setattr("reviewconsole.workbench.tryout.run_engine", lambda case, **options: gate_record())

    html = admin_client.post(f"/policy/constitutions/customer-support/v{draft.number}/try", SAMPLE,
                             HTTP_HX_REQUEST="true").content.decode()

    assert "· Below the release threshold <code" in html
    assert f"Release gate: threshold <strong>0.7100</strong> — {GATE_CALIBRATION}" in html


def _stored(question: str, answer: str) -> Case:
    client = Client.objects.filter(name="support-bot").first() or client_create(name="support-bot")[0]
    case, _ = case_submit(client=client, submission=Submission.model_validate(
        {"question": question, "answer": answer, "sources": [{"id": "refund-policy", "text": SAMPLE["sources"]
                                                              .removeprefix("[refund-policy] ")}]}))
    return case


def _try(version) -> str:
    return f"/policy/constitutions/customer-support/v{version.number}/try"


def _section(html: str, element_id: str) -> str:
    return html.split(f'id="{element_id}"')[1].split("</section>")[0]


def test_loading_a_stored_case_keeps_it_selected_and_shows_both_results_side_by_side(admin_client, draft):
    first = _stored(SAMPLE["question"], SAMPLE["answer"])
    _stored("Another question?", "Another answer.")

    html = admin_client.get(f"{_try(draft)}?case={first.pk}").content.decode()

    assert f'<option value="{first.pk}" selected>' in html and html.count(" selected>") == 1
    tried, in_force = _section(html, "outcome-tried"), _section(html, "outcome-in-force")
    assert "customer-support v2 (tried)" in tried and "customer-support v1 (in force)" in in_force
    # The draft's 8-word limit fails the 15-word answer; the version in force ends the run for another reason.
    assert "Rule failed <code" in tried
    baseline = run_engine(sample_case(question=SAMPLE["question"], sources_text=SAMPLE["sources"],
                                      answer=SAMPLE["answer"]), constitution=CUSTOMER_SUPPORT)
    assert baseline.reason != "RULE_FAILED"
    assert f'<strong class="terminal">{baseline.terminal}</strong> · {reason_label(baseline.reason)} <code' in in_force
    assert html.index('id="outcome-tried"') < html.index('id="outcome-in-force"') < html.index('class="verdicts"')


def test_a_case_older_than_the_list_is_still_offered_and_selected(admin_client, draft, monkeypatch):
    monkeypatch.setattr("reviewconsole.workbench.views.tryout.STORED_CASES_SHOWN", 1)
    old = _stored(SAMPLE["question"], SAMPLE["answer"])
    newer = _stored("Another question?", "Another answer.")

    html = admin_client.get(f"{_try(draft)}?case={old.pk}").content.decode()

    assert f'<option value="{newer.pk}">' in html and f'<option value="{old.pk}" selected>' in html


def test_loading_an_unknown_case_names_the_field(admin_client, draft):
    response = admin_client.get(f"/policy/constitutions/customer-support/v{draft.number}/try?case=999999")

    assert response.status_code == 400
    assert "case: there is no stored case #999999" in response.content.decode()


def test_trying_a_draft_shows_where_the_answer_would_go_and_when_that_changes(admin_client, policy_admin):
    from verification import Reason

    policy = CUSTOMER_SUPPORT.policy.model_copy(update={"double_review_reasons": [Reason.CRITICAL_CLAIM]})
    draft = services.constitution_draft_save(constitution=CUSTOMER_SUPPORT.model_copy(update={"policy": policy}),
                                             author=policy_admin)
    wrong = {**SAMPLE, "answer": "Approved refunds are returned within 30 days."}  # a critical claim, refuted

    html = admin_client.post(f"/policy/constitutions/customer-support/v{draft.number}/try", wrong,
                             HTTP_HX_REQUEST="true").content.decode()
    released = admin_client.post("/policy/constitutions/customer-support/v1/try", SAMPLE,
                                 HTTP_HX_REQUEST="true").content.decode()

    change = html.split('<p class="warn" id="routing-change">')[1].split("</p>")[0]
    assert change == (f"<strong>Routing changes.</strong> Under v{draft.number} this answer is sent to two independent "
                      "reviewers, double review (critical claim not supported, critical); under v1 (in force) it is "
                      "sent to one reviewer (critical claim not supported, critical).")
    tried = html.split('id="outcome-tried"')[1].split("</section>")[0]
    assert "Then: sent to two independent reviewers, double review" in tried
    assert 'id="routing-change"' not in released
    assert "Then: released to the client." in released
