"""A real HTTP receiver on 127.0.0.1 that checks signatures as a client would, and rows to send from."""

from __future__ import annotations

import ipaddress
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.utils import timezone
from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

from reviewconsole.intake import webhook_destinations
from reviewconsole.intake.credentials import new_webhook_secret
from reviewconsole.intake.models import Case, Client
from reviewconsole.webhooks.models import WebhookDelivery
from reviewconsole.webhooks.services import CASE_RELEASED, webhook_event_record

PAYLOAD = {"case_id": 7, "external_id": "ticket-42", "status": "RELEASED", "answer": "Refunds take 14 days."}


@dataclass(frozen=True)
class ReceivedRequest:
    """One request as the receiver saw it, and whether its signature checked out."""

    path: str
    headers: dict[str, str]
    body: str
    verified: Any
    """The parsed body when the signature verified, else None."""
    verify_error: str


class _CountingServer(ThreadingHTTPServer):
    receiver: Receiver

    def verify_request(self, request, client_address) -> bool:
        self.receiver.connections += 1
        return True


class Receiver:
    """A client's webhook endpoint: answers with the queued statuses (then 200) and records every request."""

    def __init__(self, secret: str) -> None:
        self.secret = secret
        self.requests: list[ReceivedRequest] = []
        self.responses: deque[tuple[int, dict[str, str]]] = deque()
        self.delay_seconds = 0.0
        self.answer: bytes | None = None
        """What every response carries, when not the default JSON (a page a console must never show)."""
        self.connections = 0
        """TCP connections accepted, whether or not a request followed."""
        self.holding = threading.Event()
        """Set while a request is held open (see `hold`)."""
        self._let_go = threading.Event()
        self._let_go.set()
        self._server = _CountingServer(("127.0.0.1", 0), self._handler())
        self._server.receiver = self
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/hooks"

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def network(self) -> ipaddress.IPv4Network:
        """This receiver's one address, as WEBHOOK_ALLOWED_NETWORKS lists it."""
        return ipaddress.ip_network(f"{self._server.server_address[0]}/32")

    def respond(self, *statuses: int, headers: dict[str, str] | None = None) -> None:
        self.responses.extend((status, headers or {}) for status in statuses)

    def hold(self) -> None:
        """Keep every request from now on open, unanswered, until `let_go()`: a receiver that hangs."""
        self._let_go.clear()

    def let_go(self) -> None:
        self._let_go.set()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.let_go()
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"])).decode("utf-8")
                headers = {name.lower(): value for name, value in self.headers.items()}
                try:
                    verified, verify_error = Webhook(receiver.secret).verify(body, headers), ""
                except WebhookVerificationError as error:
                    verified, verify_error = None, str(error)
                receiver.requests.append(ReceivedRequest(self.path, headers, body, verified, verify_error))
                if receiver.delay_seconds:
                    time.sleep(receiver.delay_seconds)
                if not receiver._let_go.is_set():
                    receiver.holding.set()
                    receiver._let_go.wait(timeout=120)
                status, extra = receiver.responses.popleft() if receiver.responses else (200, {})
                reply = receiver.answer or json.dumps({"received": status < 300}).encode()
                self.send_response(status)
                for name, value in {**extra, "Content-Type": "application/json"}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                pass  # keep the test output to what the tests say

        return Handler


@pytest.fixture
def receiver(settings) -> Iterator[Receiver]:
    receiver = Receiver(new_webhook_secret())
    receiver.start()
    # Loopback is refused to deliveries: the test allows this receiver's one address, nothing else.
    settings.WEBHOOK_ALLOWED_NETWORKS = [receiver.network]
    yield receiver
    receiver.stop()


class Resolver:
    """The resolver the destination check asks, answering only for the names a test gives: the addresses
    of each answer in turn (the last one repeats). Any other name does not resolve, and no query leaves."""

    def __init__(self) -> None:
        self.answers: dict[str, list[list[str]]] = {}
        self.asked: list[str] = []

    def answer(self, name: str, *answers: list[str]) -> None:
        self.answers[name] = [list(addresses) for addresses in answers]

    def __call__(self, host: str, port: int, family: int = 0, type: int = 0, proto: int = 0, flags: int = 0):
        self.asked.append(host)
        answers = self.answers.get(host)
        if not answers:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        addresses = answers.pop(0) if len(answers) > 1 else answers[0]
        return [
            (socket.AF_INET6, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, port, 0, 0)) if ":" in address
            else (socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, port))
            for address in addresses
        ]


@pytest.fixture
def dns(monkeypatch) -> Resolver:
    """Names resolve to what the test says, in place of the system resolver (the one outside dependency)."""
    resolver = Resolver()
    monkeypatch.setattr(webhook_destinations, "getaddrinfo", resolver)
    return resolver


def make_client(name: str, *, webhook_url: str = "", webhook_secret: str = "") -> Client:
    return Client.objects.create(
        name=name,
        token_hash=f"{name:0<64}"[:64],
        token_prefix=name[:12],
        webhook_url=webhook_url,
        webhook_secret=webhook_secret or new_webhook_secret(),
    )


@pytest.fixture
def hooked_client(db, receiver: Receiver) -> Client:
    """A client whose webhook URL is the receiver, signing with the secret the receiver checks."""
    return make_client("acme", webhook_url=receiver.url, webhook_secret=receiver.secret)


@pytest.fixture
def case(hooked_client: Client) -> Case:
    return Case.objects.create(client=hooked_client, question="How long do refunds take?")


@pytest.fixture
def record_sent(django_capture_on_commit_callbacks) -> Callable[..., WebhookDelivery]:
    """Record an event as a committed caller would: its first attempt runs when the transaction commits."""

    def record(case: Case, event_type: str = CASE_RELEASED, payload: dict | None = None) -> WebhookDelivery:
        with django_capture_on_commit_callbacks(execute=True):
            delivery = webhook_event_record(case=case, event_type=event_type, payload=payload or PAYLOAD)
        assert delivery is not None
        delivery.refresh_from_db()
        return delivery

    return record


def make_due(delivery: WebhookDelivery) -> None:
    """Move the clock past the delivery's backoff, without sleeping through it."""
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now() - timedelta(seconds=1))


@pytest.fixture
def connections(monkeypatch, receiver: Receiver) -> list[tuple[str, int]]:
    """Every address a send opened a connection to. Only the receiver is reached: any other connection is
    refused here before it leaves (and recorded), so a check that let one through fails without traffic."""
    opened: list[tuple[str, int]] = []
    real = socket.create_connection

    def guarded(address, *args, **kwargs):
        opened.append((address[0], address[1]))
        if (address[0], address[1]) != ("127.0.0.1", receiver.port):
            raise ConnectionRefusedError(f"not the test's receiver: {address}")
        return real(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", guarded)
    return opened
