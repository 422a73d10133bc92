"""What a send keeps of an attempt: a short reason of ours, never what the receiver answered; and over
https, the connection goes to the checked address while SNI and the certificate check name the URL's host."""

from __future__ import annotations

import datetime
import http.client
import ipaddress
import json
import socket
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.models import Case
from reviewconsole.webhooks import transport
from reviewconsole.webhooks.models import DeliveryStatus, WebhookDelivery

from .conftest import Receiver, make_client

SECRET_PAGE = "INTERNAL-ONLY-7731 redis_version:7.2.4 aws_secret_access_key=wJalrXUtnFEMI"
"""What an internal service behind the URL answers: it must never reach a row, an event or a page."""


def _stored_anywhere(text: str) -> bool:
    rows = json.dumps(list(WebhookDelivery.objects.values()), default=str)
    events = json.dumps(list(AuditEvent.objects.values("payload")), default=str)
    return text in rows or text in events


def test_a_receivers_error_page_is_not_kept_only_its_status(db, receiver, record_sent, settings):
    settings.WEBHOOK_MAX_ATTEMPTS = 1
    receiver.answer = SECRET_PAGE.encode()
    receiver.respond(500)

    delivery = record_sent(Case.objects.create(client=make_client("acme", webhook_url=receiver.url), question="Q?"))

    assert (delivery.status, delivery.last_status_code) == (DeliveryStatus.FAILED, 500)
    assert delivery.last_reason == "HTTP 500 Internal Server Error"
    assert AuditEvent.objects.get(action="webhook.failed").payload["reason"] == (
        "gave up after 1 attempt(s): HTTP 500 Internal Server Error"
    )
    assert not _stored_anywhere("INTERNAL-ONLY-7731")


class RawServer:
    """A TCP service on 127.0.0.1 that answers every connection with fixed bytes, HTTP or not (as Redis does)."""

    def __init__(self, answer: bytes) -> None:
        self.answer = answer
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.1)
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}/hooks"

    def _serve(self) -> None:
        while not self._stopping.is_set():
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            with connection:
                connection.settimeout(2)
                _read_request(connection)
                connection.sendall(self.answer)

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(timeout=5)
        self._listener.close()


def _read_request(connection: socket.socket) -> None:
    """Read the whole request, body included: closing with bytes unread would reset the connection, not close it."""
    with connection.makefile("rb") as request:
        request.readline()  # the request line
        headers = http.client.parse_headers(request)
        request.read(int(headers.get("Content-Length") or 0))


@pytest.fixture
def raw_server(settings) -> Iterator[RawServer]:
    server = RawServer(b"")
    settings.WEBHOOK_ALLOWED_NETWORKS = [ipaddress.ip_network("127.0.0.1/32")]  # this server's address, nothing else
    yield server
    server.stop()


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (f"-ERR unknown command 'POST' {SECRET_PAGE}\r\n".encode(), "the answer was not HTTP (BadStatusLine)"),
        (f"HTTP/1.1 503 {SECRET_PAGE}\r\nContent-Length: 0\r\n\r\n".encode(), "HTTP 503 Service Unavailable"),
        (
            f"HTTP/1.1 302 Found\r\nLocation: http://10.0.0.5/{SECRET_PAGE}\r\n\r\n".encode(),
            "HTTP 302 Found: redirect not followed",
        ),
        (b"", "the connection closed without an answer"),
    ],
    ids=["not http", "own reason phrase", "redirect to an inside address", "nothing"],
)
def test_whatever_a_service_answers_the_reason_is_ours(db, raw_server, record_sent, answer, reason):
    raw_server.answer = answer

    delivery = record_sent(Case.objects.create(client=make_client("acme", webhook_url=raw_server.url), question="Q?"))

    assert delivery.status == DeliveryStatus.PENDING and delivery.last_reason == reason
    assert not _stored_anywhere("INTERNAL-ONLY-7731")


# --- https ------------------------------------------------------------------------------------------


def _certificates(folder: Path, name: str) -> tuple[Path, Path, Path]:
    """A certificate authority and a certificate for `name` it signed: (CA file, certificate, key)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test suite CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    paths = folder / "ca.pem", folder / "cert.pem", folder / "key.pem"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return paths


@pytest.fixture
def tls_receiver(request, receiver: Receiver, tmp_path, monkeypatch) -> Iterator[tuple[Receiver, list[str]]]:
    """The receiver behind TLS with a certificate for the name the test gives; the console trusts its CA
    (and nothing else) for the test. Yields the receiver and the SNI names its handshakes carried."""
    ca, cert, key = _certificates(tmp_path, request.param)
    monkeypatch.setenv("SSL_CERT_FILE", str(ca))
    monkeypatch.setenv("SSL_CERT_DIR", str(tmp_path))
    transport._tls_context.cache_clear()
    server_names: list[str] = []
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.sni_callback = lambda sock, name, ctx: server_names.append(name)
    receiver._server.socket = context.wrap_socket(receiver._server.socket, server_side=True)
    yield receiver, server_names
    transport._tls_context.cache_clear()


@pytest.mark.parametrize("tls_receiver", ["hooks.partner.test"], indirect=True)
def test_https_goes_to_the_checked_address_with_the_name_in_sni_and_the_certificate(
    db, dns, tls_receiver, connections, record_sent
):
    receiver, server_names = tls_receiver
    dns.answer("hooks.partner.test", ["127.0.0.1"])
    url = f"https://hooks.partner.test:{receiver.port}/hooks"

    delivery = record_sent(
        Case.objects.create(client=make_client("acme", webhook_url=url, webhook_secret=receiver.secret), question="Q?")
    )

    assert delivery.status == DeliveryStatus.DELIVERED, delivery.last_reason
    assert server_names == ["hooks.partner.test"] and connections == [("127.0.0.1", receiver.port)]
    [request] = receiver.requests
    assert request.headers["host"] == f"hooks.partner.test:{receiver.port}" and request.verify_error == ""


@pytest.mark.parametrize("tls_receiver", ["someone-else.test"], indirect=True)
def test_https_refuses_a_certificate_for_another_name(db, dns, tls_receiver, record_sent):
    receiver, _ = tls_receiver
    dns.answer("hooks.partner.test", ["127.0.0.1"])
    url = f"https://hooks.partner.test:{receiver.port}/hooks"

    delivery = record_sent(Case.objects.create(client=make_client("acme", webhook_url=url), question="Q?"))

    assert delivery.status == DeliveryStatus.PENDING and receiver.requests == []
    assert delivery.last_reason.startswith("TLS certificate not accepted: Hostname mismatch")
