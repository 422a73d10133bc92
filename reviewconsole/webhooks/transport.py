"""One POST of a signed body to a client's webhook URL, and a short reason for how it went.

The host is resolved once, every address it resolves to is checked (intake/webhook_destinations.py), and
the socket is opened to a checked address, while the Host header, SNI and the certificate check name the
URL's host. Resolving again to connect would let a name answer a public address to the check and an
internal one to the connection (DNS rebinding). Redirects are not followed: the client configures the
final URL. What the receiver answers beyond its status is never read: the console must not become a way
to read internal services, so the reason says only what happened ("HTTP 500", "timed out after 10 s").
"""

from __future__ import annotations

import functools
import http.client
import socket
import ssl
from dataclasses import dataclass
from http import HTTPStatus

from reviewconsole.intake.webhook_destinations import (
    DestinationRefused,
    DestinationUnresolved,
    WebhookDestination,
    webhook_destination,
)

USER_AGENT = "reviewconsole-webhooks/1"


@dataclass(frozen=True)
class AttemptOutcome:
    """What one delivery attempt came back with."""

    status_code: int | None
    """The HTTP status of the response, or None when none arrived (timeout, refused, DNS)."""
    reason: str = ""
    """How it went, in a few words of ours (never the receiver's): "HTTP 500", "timed out after 10 s"."""
    refused: bool = False
    """The destination check refused the URL: no attempt can succeed until it changes."""

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def post_webhook(*, url: str, headers: dict[str, str], body: str, timeout: float) -> AttemptOutcome:
    """POST `body` to `url`, connecting only to addresses the destination check passed; every failure
    becomes an outcome, never an exception."""
    try:
        destination = webhook_destination(url)
    except DestinationRefused as refused:
        return AttemptOutcome(status_code=None, reason=f"refused: {refused}", refused=True)
    except DestinationUnresolved as unresolved:
        return AttemptOutcome(status_code=None, reason=str(unresolved))
    connection_class = _PinnedTLSConnection if destination.scheme == "https" else _PinnedConnection
    connection = connection_class(destination, timeout=timeout)
    try:
        connection.request(
            "POST", destination.target, body=body.encode("utf-8"), headers={**headers, "user-agent": USER_AGENT}
        )
        status = connection.getresponse().status
    except TimeoutError:
        return AttemptOutcome(status_code=None, reason=f"timed out after {timeout:g} s")
    except ssl.SSLCertVerificationError as error:
        return AttemptOutcome(status_code=None, reason=f"TLS certificate not accepted: {error.verify_message}")
    except ssl.SSLError as error:
        return AttemptOutcome(status_code=None, reason=f"TLS failed: {error.reason or type(error).__name__}")
    except ConnectionRefusedError:
        return AttemptOutcome(status_code=None, reason="connection refused")
    except http.client.RemoteDisconnected:
        return AttemptOutcome(status_code=None, reason="the connection closed without an answer")
    except http.client.HTTPException as error:
        # Its text may quote what the receiver sent (a status line that is not HTTP): only its kind is kept.
        return AttemptOutcome(status_code=None, reason=f"the answer was not HTTP ({type(error).__name__})")
    except OSError as error:
        return AttemptOutcome(status_code=None, reason=f"connection failed: {error.strerror or type(error).__name__}")
    finally:
        connection.close()
    return AttemptOutcome(status_code=status, reason=_status_reason(status))


def _status_reason(status: int) -> str:
    # Our phrase for the code, not the receiver's: the reason phrase on its status line is its own text.
    try:
        reason = f"HTTP {status} {HTTPStatus(status).phrase}"
    except ValueError:
        reason = f"HTTP {status}"
    return f"{reason}: redirect not followed" if 300 <= status < 400 else reason


class _PinnedConnection(http.client.HTTPConnection):
    """An HTTP connection to the destination's checked addresses, whatever its host resolves to by now."""

    def __init__(self, destination: WebhookDestination, *, timeout: float) -> None:
        super().__init__(destination.host, destination.port, timeout=timeout)
        self._addresses = destination.addresses

    def connect(self) -> None:
        self.sock = self._open_socket()

    def _open_socket(self) -> socket.socket:
        error: OSError | None = None
        for address in self._addresses:  # in the resolver's order, as socket.create_connection tries them
            try:
                sock = socket.create_connection((address, self.port), self.timeout)
            except OSError as failed:
                error = failed
                continue
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return sock
        assert error is not None, "a destination has at least one address"
        raise error


class _PinnedTLSConnection(_PinnedConnection):
    """HTTPS to a checked address: SNI and the certificate check name the URL's host, not the address."""

    default_port = 443

    def connect(self) -> None:
        sock = self._open_socket()
        try:
            self.sock = _tls_context().wrap_socket(sock, server_hostname=self.host)
        except BaseException:
            sock.close()
            raise


@functools.cache
def _tls_context() -> ssl.SSLContext:
    # The system's trusted certificates, hostname checks on: what urllib's default HTTPS handler used.
    return ssl.create_default_context()
