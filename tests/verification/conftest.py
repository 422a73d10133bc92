"""Shared fixtures for the engine's tests: a network guard, a fake model server, sample cases."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from tests.verification.fake_openai import FakeOpenAIServer
from verification.llm.client import OpenAIChatModel
from verification.types import Case, Source

_LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})


class NetworkBlocked(RuntimeError):
    """A test tried to reach a host other than this machine."""


@dataclass
class NetworkGuard:
    """Every connection attempt the guard refused during one test."""

    blocked: list[object] = field(default_factory=list)

    def refuse(self, address: object) -> None:
        self.blocked.append(address)
        raise NetworkBlocked(f"unplanned network call to {address!r}: tests may only reach 127.0.0.1")


@pytest.fixture(autouse=True)
def network_guard(monkeypatch: pytest.MonkeyPatch) -> Iterator[NetworkGuard]:
    """Refuse every connection and name lookup beyond loopback, and fail the test that tried one.

    Refusing is not enough on its own: an HTTP client turns the refusal into a connection error that
    code under test may handle, so the attempt is also recorded and checked after the test.
    """
    guard = NetworkGuard()
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def _allowed(sock: socket.socket, address: object) -> bool:
        if sock.family not in (socket.AF_INET, socket.AF_INET6):
            return True  # Unix sockets never leave the machine
        return isinstance(address, tuple) and str(address[0]) in _LOOPBACK

    def connect(sock: socket.socket, address: object) -> None:
        if not _allowed(sock, address):
            guard.refuse(address)
        return real_connect(sock, address)

    def connect_ex(sock: socket.socket, address: object) -> int:
        if not _allowed(sock, address):
            guard.refuse(address)
        return real_connect_ex(sock, address)

    def getaddrinfo(host: object, *args: object, **kwargs: object) -> object:
        if host is not None and str(host) not in _LOOPBACK:
            guard.refuse(host)
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    for name in ("LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL", "LLM_TIMEOUT_SECONDS", "LLM_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    yield guard
    if guard.blocked:
        pytest.fail(f"test made unplanned network calls: {guard.blocked}")


@pytest.fixture
def fake_server() -> Iterator[FakeOpenAIServer]:
    """A fake OpenAI-compatible server on 127.0.0.1, stopped after the test."""
    server = FakeOpenAIServer().start()
    yield server
    server.stop()


@pytest.fixture
def client_model(fake_server: FakeOpenAIServer) -> OpenAIChatModel:
    """The real client pointed at the fake server; SDK retries off so each request is one call."""
    return OpenAIChatModel(
        base_url=fake_server.base_url, model="asked-model", api_key="test-key", timeout=5.0, max_retries=0
    )


LARKSPUR_SOURCES = [
    Source(
        id="refund-window",
        text=(
            "Larkspur annual plans cancelled within 30 days of purchase get a full refund, provided the "
            "account used less than 100 GB of outbound traffic."
        ),
    ),
    Source(id="refund-timing", text="Refunds reach the original payment method in 5 to 10 business days."),
    Source(
        id="retention",
        text="After a Larkspur plan is cancelled, account data is kept for 30 days and then permanently deleted.",
    ),
]

LARKSPUR_CLAIMS = (
    "You get a full refund if you cancel within 30 days.",
    "The refund appears in 5 to 10 business days.",
    "Your data is kept for 90 days after cancelling.",
)


@pytest.fixture
def larkspur_case() -> Case:
    """A cancellation answer with three claims; the third contradicts the retention source."""
    return Case(
        external_id="larkspur-1",
        question="Can I get a refund if I cancel my Larkspur annual plan?",
        answer="Hello! " + " ".join(LARKSPUR_CLAIMS),
        sources=LARKSPUR_SOURCES,
        metadata={"ticket": 42},
    )
