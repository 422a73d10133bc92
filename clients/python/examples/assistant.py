"""An assistant that checks each answer before its user sees it.

It submits the answer with the sources it was built from and waits a few seconds: an answer the console
releases by itself goes straight to the user. Otherwise the user is told a person is checking, and the
decision arrives later by webhook, where this script's small HTTP server verifies it and sends the
approved answer on.

    export REVIEW_CONSOLE_URL=http://127.0.0.1:8000 REVIEW_CONSOLE_TOKEN=rc_... REVIEW_CONSOLE_SECRET=whsec_...
    python examples/assistant.py   # the webhook receiver listens on http://127.0.0.1:8765/hooks/review
"""

from __future__ import annotations

import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from reviewconsole_client import CaseEvent, ReviewConsole, WaitTimeout, WebhookVerificationError, verify_webhook

SECRET = os.environ["REVIEW_CONSOLE_SECRET"]
# Webhooks can come more than once (a retry after a lost answer): remember the ids already handled.
handled: set[str] = set()


def tell_user(ticket: str, text: str) -> None:
    print(f"[{ticket}] {text}")


def answer(console: ReviewConsole, ticket: str, question: str, draft: str, sources: list[dict[str, str]]) -> None:
    case = console.submit(external_id=ticket, question=question, answer=draft, sources=sources)
    try:
        case = console.wait_for_decision(case.id, timeout=5)
    except WaitTimeout as waited:
        case = waited.case
    if case.released_answer is not None:
        tell_user(ticket, case.released_answer)
    elif case.status in ("REJECTED", "FAILED"):
        tell_user(ticket, "Sorry, I cannot answer that reliably. A colleague will get back to you.")
    else:
        tell_user(ticket, "A person is checking this answer; you will hear back shortly.")


class Webhooks(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            event = verify_webhook(body, dict(self.headers), secret=SECRET)
        except WebhookVerificationError:
            self.send_response(400)
            self.end_headers()
            return
        self.send_response(204)  # answer first; the console waits at most a few seconds
        self.end_headers()
        if event.id in handled or not isinstance(event.data, CaseEvent):
            return
        handled.add(event.id)
        ticket = event.data.external_id or str(event.data.case_id)
        if event.type == "case.decided" and event.data.answer is not None:
            tell_user(ticket, event.data.answer)
        elif event.type == "case.decided":
            tell_user(ticket, "A colleague will answer this one personally.")


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 8765), Webhooks)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with ReviewConsole(os.environ["REVIEW_CONSOLE_URL"], os.environ["REVIEW_CONSOLE_TOKEN"]) as console:
        policy = {"id": "refund-policy", "title": "Refund policy",
                  "text": "Annual plans can be refunded in full within 30 days of purchase. "
                          "Approved refunds are returned to the original payment method within 5 to 10 business days."}
        answer(console, "ticket-2002", "How long do refunds take to arrive?",
               "Approved refunds are returned to the original payment method within 5 to 10 business days.", [policy])
        answer(console, "ticket-1001", "Can I get a refund on my annual plan? I bought it 40 days ago.",
               "You can request a full refund within 60 days of purchase.", [policy])
    print("Waiting for decisions by webhook (Ctrl-C stops).")
    threading.Event().wait()


if __name__ == "__main__":
    main()
