"""The client application's webhook endpoint: counts what arrives, checks each signature, and can hold a
request open (so a worker is provably mid-delivery when it is killed)."""

from __future__ import annotations

import json
import threading
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

HOST = "127.0.0.1"
"""Where the endpoint listens: the console's WEBHOOK_ALLOWED_NETWORKS lets deliveries reach this one address."""


@dataclass(frozen=True)
class Delivery:
    """One POST that reached the endpoint."""

    message_id: str
    event_type: str
    case_id: int | None
    signed: bool
    """Whether the Standard Webhooks signature verified with the client's secret."""
    held: bool
    """Whether the endpoint held this request open until told to answer."""


class Receiver:
    """A threaded HTTP server on `host` (HOST unless told); `url` is where the client's webhook points."""

    def __init__(self, host: str = HOST) -> None:
        self.secret = ""
        self._lock = threading.Lock()
        self._deliveries: list[Delivery] = []
        self._holds_wanted = 0
        self._release = threading.Event()
        self._held_ids: list[str] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver._arrived(dict(self.headers.items()), body)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass  # the drills count deliveries; the access log would only be noise

        self._server = ThreadingHTTPServer((host, 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="webhook-receiver", daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/hooks"

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()

    def hold_next(self, count: int = 1) -> None:
        """Hold the next `count` new messages open (no answer) until `release()`."""
        with self._lock:
            self._holds_wanted = count
            self._release.clear()
            self._held_ids = []

    def held(self) -> list[str]:
        with self._lock:
            return list(self._held_ids)

    def release(self) -> None:
        with self._lock:
            self._holds_wanted = 0
        self._release.set()

    def _arrived(self, headers: dict[str, str], body: bytes) -> None:
        lowered = {key.lower(): value for key, value in headers.items()}
        message_id = lowered.get("webhook-id", "")
        try:
            Webhook(self.secret).verify(body, lowered)
            signed = True
        except (WebhookVerificationError, ValueError):
            signed = False
        try:
            envelope = json.loads(body)
            event_type = str(envelope.get("type", ""))
            case_id = envelope.get("data", {}).get("case_id")
        except (ValueError, AttributeError):
            event_type, case_id = "", None
        with self._lock:
            seen = any(delivery.message_id == message_id for delivery in self._deliveries)
            hold = self._holds_wanted > 0 and not seen
            if hold:
                self._holds_wanted -= 1
                self._held_ids.append(message_id)
            self._deliveries.append(Delivery(message_id, event_type, case_id, signed, hold))
        if hold:
            # A worker that is killed now dies mid-delivery; the answer below then goes to nobody.
            self._release.wait(timeout=120)

    def deliveries(self) -> list[Delivery]:
        with self._lock:
            return list(self._deliveries)

    def received(self, message_id: str) -> int:
        """How many times a message arrived (a retry after a lost answer sends the same id again)."""
        return Counter(delivery.message_id for delivery in self.deliveries())[message_id]

    def unsigned(self) -> list[Delivery]:
        return [delivery for delivery in self.deliveries() if not delivery.signed]
