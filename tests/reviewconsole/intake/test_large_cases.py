"""A case of a megabyte goes the whole way: accepted by the API, run by a worker, shown to a reviewer."""

from __future__ import annotations

import json
import time
import urllib.request

import pytest
from django.conf import settings
from django.db import connection

from reviewconsole.intake.models import Case, CaseStatus
from reviewconsole.review.models import Escalation
from tests.reviewconsole.api.conftest import case_body, post_case

SOURCES, SOURCE_CHARS = 5, 200_000  # the API's default limit per source: 1 MB in all
REFUND_FACT = "Refunds for the annual plan are paid within 14 days of the request."
PRICE_FACT = "The annual plan costs $240 per year for each seat."


def _handbook(part: int) -> str:
    """One source of SOURCE_CHARS characters: varied sentences about other things, and (in the last source,
    near its end) the two facts the answer's claims are about."""
    sentences, length, number = [], 0, 0
    while length <= SOURCE_CHARS:
        sentence = (f"Section {part}.{number} describes how the {('north', 'south', 'east', 'west')[number % 4]} "
                    f"depot {number % 97} stores {number % 13 + 2} pallets of spare parts for model "
                    f"K{number % 53}.")
        sentences.append(sentence)
        length += len(sentence) + 1
        number += 1
    if part == SOURCES - 1:
        sentences[-5:-5] = [REFUND_FACT, PRICE_FACT]
    return " ".join(sentences)[:SOURCE_CHARS]


def one_megabyte_case() -> dict:
    """A case whose sources fill the API's limits: 5 sources of 200,000 characters, a claim that is
    supported deep in the last one and a claim it contradicts."""
    return case_body(
        external_id="one-megabyte",
        question="How fast are refunds on the annual plan, and what does it cost?",
        answer="Refunds for the annual plan are paid within 14 days of the request. "
               "The annual plan costs $120 per year for each seat.",
        sources=[{"id": f"handbook-{part}", "title": f"Handbook, part {part + 1}", "text": _handbook(part)}
                 for part in range(SOURCES)],
    )


@pytest.mark.django_db
def test_a_body_over_the_limit_is_refused_with_a_json_error_naming_the_limit(client, api_client):
    body = json.dumps(one_megabyte_case() | {"metadata": {"padding": "p" * settings.API_MAX_BODY_BYTES}})

    response = post_case(client, api_client, body)

    assert response.status_code == 413
    assert response["Content-Type"] == "application/json"
    assert response.json()["errors"] == [
        {"field": "body", "message": f"the body must be at most {settings.API_MAX_BODY_BYTES} bytes"}
    ]
    assert not Case.objects.exists()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_one_megabyte_case_is_accepted_run_by_a_worker_and_shown_with_its_evidence(
    live_server, live_broker, start_worker, api_client, client, reviewer
):
    if connection.vendor != "postgresql":
        pytest.skip("a worker process can only share the test database on PostgreSQL")
    worker = start_worker()
    body = json.dumps(one_megabyte_case()).encode()
    assert 1_000_000 <= len(body) <= settings.API_MAX_BODY_BYTES
    request = urllib.request.Request(
        f"{live_server.url}/api/v1/cases", data=body, method="POST",
        headers={"Authorization": f"Bearer {api_client.token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.status == 202
        case_id = json.loads(response.read())["id"]

    deadline = time.monotonic() + 120
    while Case.objects.get(pk=case_id).status in (CaseStatus.QUEUED, CaseStatus.RUNNING):
        assert time.monotonic() < deadline, worker.log()[-3000:]
        time.sleep(0.5)

    case = Case.objects.get(pk=case_id)
    assert case.sources.count() == SOURCES
    assert all(len(source.text) == SOURCE_CHARS for source in case.sources.all())
    # A wrong price is a critical claim: a person looks, whatever the repair made of it. The run ended on
    # its own verdicts, not on its time budget.
    assert (case.status, case.terminal) == (CaseStatus.ESCALATED, "REVIEW"), (case.reason, case.error)
    assert case.reason != "TIME_BUDGET_EXHAUSTED"
    assert Escalation.objects.filter(case=case).exists()

    client.force_login(reviewer)
    page = client.get(f"/review/cases/{case_id}/")

    assert page.status_code == 200
    html = page.content.decode()
    # Each fact is marked where it stands in the last source, as the evidence of its claim.
    for fact in (REFUND_FACT, PRICE_FACT):
        assert f"{fact}</mark>" in html, fact
    assert html.count('<mark id="ev-4-') >= 2
    # The wrong price was repaired from the evidence; a person still sees the client's $120 it replaced.
    assert f'title="Evidence for: {PRICE_FACT}">{PRICE_FACT}</mark>' in html
    assert "The annual plan costs <del>$120</del> <ins>$240</ins> per year for each seat." in html
    # The whole of every source is on the page, its last words included.
    last_source = case.sources.get(source_id="handbook-4").text
    assert last_source[-60:] in html
