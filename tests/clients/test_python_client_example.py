"""The client's example assistant (clients/python/examples/assistant.py) against the suite's live console:
what its user is told for an answer released at once and for one a person must check, and the decision it
passes on when the signed webhook arrives (a forged one is refused)."""

from __future__ import annotations

import importlib.util
import json
import threading
from http.server import ThreadingHTTPServer
from types import ModuleType

import httpx
import pytest
from django.utils import timezone
from reviewconsole_client import ReviewConsole

from reviewconsole.intake.credentials import new_webhook_secret
from reviewconsole.webhooks.signing import signed_headers
from tests.clients.conftest import CLIENT_SOURCE

EXAMPLE = CLIENT_SOURCE.parent / "examples" / "assistant.py"
SECRET = new_webhook_secret()


@pytest.fixture
def assistant(monkeypatch) -> ModuleType:
    monkeypatch.setenv("REVIEW_CONSOLE_SECRET", SECRET)
    spec = importlib.util.spec_from_file_location("assistant_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


POLICY = {"id": "refund-policy", "title": "Refund policy",
          "text": "Annual plans can be refunded in full within 30 days of purchase. Approved refunds are returned "
                  "to the original payment method within 5 to 10 business days."}


@pytest.mark.django_db(transaction=True)
def test_the_example_answers_at_once_or_says_a_person_is_checking(live_server, assistant, capsys):
    from reviewconsole.intake.services import client_create

    token = client_create(name="assistant")[1]
    with ReviewConsole(live_server.url, token) as console:
        assistant.answer(console, "ticket-2002", "How long do refunds take to arrive?",
                         "Approved refunds are returned to the original payment method within 5 to 10 business days.",
                         [POLICY])
        assistant.answer(console, "ticket-1001", "Can I get a refund on my annual plan? I bought it 40 days ago.",
                         "You can request a full refund within 60 days of purchase.", [POLICY])

    assert capsys.readouterr().out.splitlines() == [
        "[ticket-2002] Approved refunds are returned to the original payment method within 5 to 10 business days.",
        "[ticket-1001] A person is checking this answer; you will hear back shortly.",
    ]


def test_the_example_passes_on_a_decision_from_a_signed_webhook_once(assistant, capsys):
    server = ThreadingHTTPServer(("127.0.0.1", 0), assistant.Webhooks)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/hooks/review"
    decided = {"type": "case.decided", "timestamp": timezone.now().isoformat(), "data": {
        "case_id": 2, "external_id": "ticket-1001", "status": "RELEASED", "terminal": "REVIEW",
        "reason": "CRITICAL_CLAIM", "answer": "You can request a full refund within 30 days of purchase.",
        "decision": {"kind": "APPROVE", "candidate": "c1", "reason_code": None, "note": None, "override": False,
                     "adjudicated": False, "decided_at": timezone.now().isoformat()}}}
    body = json.dumps(decided)
    headers = signed_headers(secret=SECRET, message_id="msg_" + "0" * 32, timestamp=timezone.now(), body=body)
    try:
        answers = [httpx.post(url, content=body, headers=headers).status_code for _ in range(2)]
        forged = httpx.post(url, content=body.replace("30 days", "90 days"), headers=headers).status_code
    finally:
        server.shutdown()
        server.server_close()

    assert (answers, forged) == ([204, 204], 400)
    # The repeat (same webhook-id) is answered but not passed on twice.
    assert capsys.readouterr().out.splitlines() == [
        "[ticket-1001] You can request a full refund within 30 days of purchase."
    ]
