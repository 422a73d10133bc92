"""Where a client's webhook may point: an http(s) URL without credentials whose host resolves to public
addresses only, or to the networks an operator allowed (`WEBHOOK_ALLOWED_NETWORKS`; the demo console also
allows loopback, for a receiver on the same machine).

Anyone who can set a webhook URL chooses where the console connects, so without this check the console
would reach inside its own network (loopback services, the cloud metadata address, private hosts) for
them. The URL is checked when it is saved and again at every send; a send connects to the addresses that
passed (webhooks/transport.py), so a name cannot answer a public address to the check and an internal one
to the connection.
"""

from __future__ import annotations

import ipaddress
import socket
import string
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

# The system resolver; tests put their own in its place to give a name the addresses they need.
getaddrinfo = socket.getaddrinfo

_SHARED = ipaddress.ip_network("100.64.0.0/10")  # carrier-grade NAT (RFC 6598): inside a provider's network
_BROADCAST = ipaddress.ip_address("255.255.255.255")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # IPv6 forms of IPv4 addresses, by translating gateways (RFC 6052)


class DestinationRefused(ValueError):
    """No delivery may go to this URL (its scheme, its credentials, or where its host points)."""


class DestinationUnresolved(OSError):
    """The host did not resolve now; it may later (a send retries, a save lets it pass)."""


@dataclass(frozen=True)
class WebhookDestination:
    """A webhook URL that passed the check, with the addresses it passed for."""

    scheme: str
    """`http` or `https`."""
    host: str
    """The URL's host name (ASCII): sent as the Host header, and for https as SNI and checked on the certificate."""
    port: int
    target: str
    """The path and query, as the request line carries them."""
    addresses: tuple[str, ...]
    """Every address the host resolved to, each of them allowed: the only ones a send may connect to."""


def webhook_destination(url: str) -> WebhookDestination:
    """Check `url` and resolve its host once; every resolved address must be allowed.

    Raises DestinationRefused (permanent, says why) or DestinationUnresolved (the name did not resolve).
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:  # an unclosed [ or a port that is not a number
        raise DestinationRefused(f"is not a valid URL: {error}") from None
    if parts.scheme not in ("http", "https"):
        raise DestinationRefused("must be an http or https URL")
    if parts.username is not None or parts.password is not None:
        raise DestinationRefused("must not contain a user name or password: the signature authenticates deliveries")
    host = parts.hostname or ""
    if not host:
        raise DestinationRefused("must name a host")
    try:
        host = host if host.isascii() else host.encode("idna").decode("ascii")
    except UnicodeError:
        raise DestinationRefused(f"has a host name that is not valid: {host!r}") from None
    if port is None:
        port = 443 if parts.scheme == "https" else 80
    literal = _literal_address(host)
    addresses = (host,) if literal is not None else _resolve(host, port)
    for address in addresses:
        refusal = address_refusal(ipaddress.ip_address(address))
        if refusal is not None and literal is not None:
            raise DestinationRefused(f"{address} is {refusal}")
        if refusal is not None:
            raise DestinationRefused(f"{host} resolves to {refusal} {address}")
    # Spaces, control and non-ASCII characters percent-encoded: the request line is ASCII.
    target = quote((parts.path or "/") + (f"?{parts.query}" if parts.query else ""), safe=string.punctuation)
    return WebhookDestination(parts.scheme, host, port, target, addresses)


def destination_rule() -> str:
    """Where a webhook URL may point on this console, in a sentence or two for the pages where one is set:
    true of the networks this console allows (WEBHOOK_ALLOWED_NETWORKS, and loopback on the demo console)."""
    allowed = settings.WEBHOOK_ALLOWED_NETWORKS
    if not allowed:
        return ("An http(s) URL on a public address, without a user name or password: loopback, private, "
                "link-local and other internal addresses are refused.")
    listed = ", ".join(f"{network} ({_kind(network)})" for network in allowed)
    rule = (f"An http(s) URL without a user name or password, on a public address or in a network this console "
            f"allows: {listed}. Every other address that is not public (loopback, private, link-local...) is refused.")
    if settings.DEMO:
        rule += " On the demo console loopback is allowed, so a receiver running on this machine gets deliveries."
    return rule


def _kind(network: Network) -> str:
    """What a network holds, in a word ("loopback", "private"), as a refusal would name its first address."""
    refusal = address_refusal(network.network_address, allowed=())
    if refusal is None:
        return "public"
    return refusal.removeprefix("a ").removeprefix("an ").removesuffix(" address").removesuffix(" in IPv6 form")


def webhook_url_check(url: str) -> None:
    """At save: refuse, naming the field, a URL no delivery may go to. A host that does not resolve yet is
    accepted, since every send checks it again before connecting."""
    if not url:
        return
    try:
        webhook_destination(url)
    except DestinationRefused as refused:
        raise ValidationError({"webhook_url": [str(refused)]}) from None
    except DestinationUnresolved:
        pass


def address_refusal(address: Address, *, allowed: Sequence[Network] | None = None) -> str | None:
    """Why a delivery may not connect to `address` ("a loopback address"), or None when it may: it is public,
    or in one of the `allowed` networks (by default WEBHOOK_ALLOWED_NETWORKS)."""
    allowed = settings.WEBHOOK_ALLOWED_NETWORKS if allowed is None else allowed
    if any(address in network for network in allowed):
        return None
    embedded = _embedded_ipv4(address)
    if embedded is not None:
        inner = address_refusal(embedded, allowed=allowed)
        return f"{inner} in IPv6 form" if inner else None
    if address.is_unspecified:
        return "an unspecified address"
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_multicast:
        return "a multicast address"
    if address == _BROADCAST:
        return "a broadcast address"
    if address.is_reserved:
        return "a reserved address"
    if address in _SHARED:
        return "a shared (carrier-grade NAT) address"
    if address.is_private:
        return "a private address"
    if not address.is_global:
        return "an address that is not public"
    return None


def _embedded_ipv4(address: Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one stands for (mapped, 6to4, NAT64): where a connection to it ends up."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address.ipv4_mapped or address.sixtofour


def _literal_address(host: str) -> Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _resolve(host: str, port: int) -> tuple[str, ...]:
    try:
        found = getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise DestinationUnresolved(f"{host} does not resolve ({error})") from None
    # sockaddr[0] is the address, for IPv4 and IPv6 alike; the order is the resolver's preference.
    addresses = tuple(dict.fromkeys(str(sockaddr[0]) for *_, sockaddr in found))
    if not addresses:
        raise DestinationUnresolved(f"{host} does not resolve (no address)")
    return addresses
