"""The metrics page's model path: what a model endpoint was asked per constitution, and what each path
released, from cases the real engine ran against a fake OpenAI-compatible server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.urls import reverse
from django.utils import timezone

from reviewconsole.intake.models import Case, CaseStatus
from reviewconsole.intake.services import case_submit, client_create
from reviewconsole.intake.tasks import verify_case
from tests.reviewconsole.audit.test_metrics_labels import _table
from tests.reviewconsole.audit.test_pages import signed_in
from tests.verification.fake_openai import FakeOpenAIServer
from tests.verification.replies import cove_reply
from verification import Case as Submission

pytestmark = pytest.mark.django_db

SOURCES = [
    {"id": "retention", "text": "After cancellation, account data is kept for 30 days."},
    {"id": "refund-timing", "text": "Refunds reach the original payment method in 5 to 10 business days."},
]


@pytest.fixture
def model_endpoint(settings) -> Iterator[FakeOpenAIServer]:
    server = FakeOpenAIServer(responder=cove_reply).start()
    settings.LLM_BASE_URL, settings.LLM_MODEL, settings.LLM_API_KEY = server.base_url, "fake-llm-7b", "k"
    yield server
    server.stop()


def _run(client, answer: str) -> Case:
    case, _ = case_submit(client=client, submission=Submission.model_validate(
        {"question": "What happens after I cancel?", "answer": answer, "sources": SOURCES}))
    verify_case.apply(args=(case.pk,))
    case.refresh_from_db()
    return case


def test_the_page_shows_the_claims_sent_the_calls_per_case_and_what_each_path_released(
    client, support_lead, model_endpoint
):
    bot, _ = client_create(name="support-bot", webhook_url="https://client.example/hooks")
    # Word for word a source: settled by the offline verifier, released with no verification call.
    settled = _run(bot, "Refunds reach the original payment method in 5 to 10 business days.")
    # A paraphrase below the offline safe band: the model decides it, and without a calibration of the
    # model's own scores a person does.
    escalated = _run(bot, "We hold on to your data for 30 days once you cancel.")
    assert (settled.status, escalated.status) == (CaseStatus.RELEASED, CaseStatus.ESCALATED)
    assert escalated.reason == "NOT_CALIBRATED"
    calls = [case.run_record["metrics"]["model_calls"] for case in (settled, escalated)]
    assert calls == [1, 3]  # the critic; the question, the verification and the critic
    # The fake server reports 2 tokens a call.
    assert [case.run_record["metrics"]["model_tokens"] for case in (settled, escalated)] == [2, 6]

    today = timezone.now().date().isoformat()
    html = signed_in(client, support_lead).get(reverse("audit:metrics"), {"since": today, "until": today})

    row = _table(html.content.decode(), "model-path-table")
    assert row == ("Constitution Cases Claims sent to the model Model calls per case Tokens per case Released, "
                   "model path Released, offline path default 2 1 of 2 (50.0%) 2.0 4 0 of 1 (0.0%) 1 of 1 (100.0%)")


def test_a_deployment_without_a_model_endpoint_has_no_rows(client, support_lead):
    bot, _ = client_create(name="support-bot", webhook_url="https://client.example/hooks")
    _run(bot, "Refunds reach the original payment method in 5 to 10 business days.")
    today = timezone.now().date().isoformat()

    html = signed_in(client, support_lead).get(reverse("audit:metrics"), {"since": today, "until": today})

    assert "No case finished in this period ran with a model endpoint." in _table(html.content.decode(),
                                                                                   "model-path-table")
