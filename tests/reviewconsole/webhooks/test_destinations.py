"""Where a webhook may point, checked when the URL is saved and again at every send: public addresses only
(or the networks an operator allowed), every address a name resolves to, no credentials, http(s) only. A
send connects to the address that was checked, so a name that answers differently later reaches nothing."""

from __future__ import annotations

import ipaddress
import re

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.models import Case, Client
from reviewconsole.intake.services import client_create, client_webhook_set
from reviewconsole.webhooks.models import DeliveryStatus
from reviewconsole.webhooks.tasks import dispatch_due_webhooks

from .conftest import make_client, make_due

PUBLIC = "93.184.216.34"
"""A public address names resolve to where a test needs one; nothing ever connects to it."""

REFUSED = [
    ("127.0.0.1", "a loopback address"),
    ("127.45.6.7", "a loopback address"),
    ("::1", "a loopback address"),
    ("0.0.0.0", "an unspecified address"),
    ("::", "an unspecified address"),
    ("169.254.169.254", "a link-local address"),
    ("fe80::1", "a link-local address"),
    ("10.1.2.3", "a private address"),
    ("172.16.0.1", "a private address"),
    ("192.168.1.10", "a private address"),
    ("fc00::1", "a private address"),
    ("fd12:3456::1", "a private address"),
    ("100.64.0.1", "a shared (carrier-grade NAT) address"),
    ("224.0.0.251", "a multicast address"),
    ("ff02::1", "a multicast address"),
    ("255.255.255.255", "a broadcast address"),
    ("240.0.0.1", "a reserved address"),
    ("::ffff:127.0.0.1", "a loopback address in IPv6 form"),
    ("::ffff:169.254.169.254", "a link-local address in IPv6 form"),
    ("::ffff:10.0.0.1", "a private address in IPv6 form"),
    ("64:ff9b::a9fe:a9fe", "a link-local address in IPv6 form"),  # 169.254.169.254 through a NAT64 gateway
]
CLASSES = pytest.mark.parametrize(("address", "what"), REFUSED, ids=[address for address, _ in REFUSED])


def _url(host: str, port: int = 80) -> str:
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/hooks"


def _refused_at_save(url: str) -> list[str]:
    before = Client.objects.count()
    with pytest.raises(ValidationError) as raised:
        client_create(name="bot", webhook_url=url)
    assert set(raised.value.message_dict) == {"webhook_url"}
    assert Client.objects.count() == before, "nothing is stored"
    return raised.value.message_dict["webhook_url"]


# --- At save ----------------------------------------------------------------------------------------


@CLASSES
def test_an_address_of_each_refused_class_is_refused_at_save_naming_the_field(db, dns, address, what):
    assert _refused_at_save(_url(address)) == [f"{address} is {what}"]
    assert dns.asked == [], "an address in the URL is not looked up"


@CLASSES
def test_a_name_with_any_address_of_a_refused_class_is_refused_at_save(db, dns, address, what):
    dns.answer("hooks.partner.test", [PUBLIC, address])
    assert _refused_at_save(_url("hooks.partner.test")) == [f"hooks.partner.test resolves to {what} {address}"]


def test_localhost_resolves_to_loopback_through_the_system_resolver_and_is_refused(db):
    [message] = _refused_at_save("http://localhost:6379/")
    assert re.fullmatch(r"localhost resolves to a loopback address (127\.0\.0\.1|::1)", message)

    with pytest.raises(CommandError, match="--webhook-url: localhost resolves to a loopback address"):
        call_command("create_client", "bot", "--webhook-url", "http://localhost:8000/hooks")
    assert not Client.objects.exists()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("https://user:secret@hooks.partner.test/hooks", "must not contain a user name or password"),
        ("https://token@hooks.partner.test/hooks", "must not contain a user name or password"),
        ("ftp://hooks.partner.test/hooks", "must be an http or https URL"),
        ("javascript:alert(1)", "must be an http or https URL"),
        ("http:///hooks", "must name a host"),
        ("http://hooks.partner.test:99999/", "is not a valid URL"),
    ],
)
def test_credentials_and_other_schemes_are_refused_at_save(db, dns, url, message):
    dns.answer("hooks.partner.test", [PUBLIC])
    [refusal] = _refused_at_save(url)
    assert refusal.startswith(message)


def test_a_changed_url_is_checked_too_and_a_refused_one_changes_nothing(db, dns):
    dns.answer("hooks.partner.test", [PUBLIC])
    dns.answer("hooks.inside.test", ["10.0.0.7"])
    client, _ = client_create(name="bot", webhook_url="https://hooks.partner.test/hooks")

    with pytest.raises(ValidationError) as raised:
        client_webhook_set(client=client, webhook_url="https://hooks.inside.test/hooks", new_secret=True)

    assert raised.value.message_dict == {"webhook_url": ["hooks.inside.test resolves to a private address 10.0.0.7"]}
    stored = Client.objects.get(pk=client.pk)
    assert (stored.webhook_url, stored.webhook_secret) == ("https://hooks.partner.test/hooks", client.webhook_secret)
    assert client_webhook_set(client=client, webhook_url="") is None, "no webhook at all is always allowed"


def test_public_addresses_and_the_allowed_networks_pass_at_save(db, dns, settings):
    dns.answer("hooks.partner.test", [PUBLIC, "2606:2800:220:1:248:1893:25c8:1946"])
    client_create(name="public", webhook_url="https://hooks.partner.test/hooks")

    settings.WEBHOOK_ALLOWED_NETWORKS = [ipaddress.ip_network("10.20.0.0/16"), ipaddress.ip_network("fd00:1::/32")]
    client_create(name="internal", webhook_url="http://10.20.1.2:8080/hooks")
    client_create(name="internal-v6", webhook_url="http://[fd00:1::5]/hooks")
    client_create(name="internal-mapped", webhook_url="http://[::ffff:10.20.1.2]/hooks")
    assert _refused_at_save("http://10.21.0.1/hooks") == ["10.21.0.1 is a private address"]
    assert Client.objects.count() == 4


def test_a_name_that_does_not_resolve_yet_is_saved_since_every_send_checks_it(db, dns):
    client, _ = client_create(name="bot", webhook_url="https://hooks.not-yet.test/hooks")
    assert client.webhook_url == "https://hooks.not-yet.test/hooks" and dns.asked == ["hooks.not-yet.test"]


# --- At send ----------------------------------------------------------------------------------------


def _assert_refused_at_send(delivery, reason: str, receiver, connections) -> None:
    assert delivery.status == DeliveryStatus.FAILED, "refused is permanent: no retry can succeed"
    assert (delivery.attempts, delivery.next_attempt_at, delivery.last_status_code) == (1, None, None)
    assert delivery.last_reason == reason
    assert connections == [] and receiver.connections == 0 and receiver.requests == []
    event = AuditEvent.objects.get(action="webhook.failed", object_id=str(delivery.pk))
    assert event.actor == "worker" and event.case_id == delivery.case_id
    assert event.payload["reason"] == reason and event.payload["message_id"] == delivery.message_id
    make_due(delivery)
    assert dispatch_due_webhooks() == 0 and receiver.requests == []


def _client_saved_before_the_check(url: str, receiver) -> Case:
    """A client whose URL was stored without the check at save (before it existed): only the send stands."""
    return Case.objects.create(
        client=make_client("acme", webhook_url=url, webhook_secret=receiver.secret), question="Q?"
    )


@CLASSES
def test_an_address_of_each_refused_class_is_refused_at_send(
    db, receiver, connections, record_sent, settings, address, what
):
    settings.WEBHOOK_ALLOWED_NETWORKS = []
    delivery = record_sent(_client_saved_before_the_check(_url(address, receiver.port), receiver))
    _assert_refused_at_send(delivery, f"refused: {address} is {what}", receiver, connections)


@CLASSES
def test_a_name_with_any_address_of_a_refused_class_is_refused_at_send(
    db, dns, receiver, connections, record_sent, settings, address, what
):
    settings.WEBHOOK_ALLOWED_NETWORKS = []
    dns.answer("hooks.partner.test", [PUBLIC, address])
    delivery = record_sent(_client_saved_before_the_check(_url("hooks.partner.test", receiver.port), receiver))
    _assert_refused_at_send(
        delivery, f"refused: hooks.partner.test resolves to {what} {address}", receiver, connections
    )


def test_localhost_at_send_reaches_nothing(db, receiver, connections, record_sent, settings):
    settings.WEBHOOK_ALLOWED_NETWORKS = []
    delivery = record_sent(_client_saved_before_the_check(f"http://localhost:{receiver.port}/hooks", receiver))
    assert re.fullmatch(r"refused: localhost resolves to a loopback address (127\.0\.0\.1|::1)", delivery.last_reason)
    _assert_refused_at_send(delivery, delivery.last_reason, receiver, connections)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://acme:secret@127.0.0.1:{port}/hooks", "refused: must not contain a user name or password"),
        ("ftp://127.0.0.1:{port}/hooks", "refused: must be an http or https URL"),
    ],
)
def test_credentials_and_other_schemes_are_refused_at_send(db, receiver, connections, record_sent, url, reason):
    delivery = record_sent(_client_saved_before_the_check(url.format(port=receiver.port), receiver))
    assert delivery.last_reason.startswith(reason)
    _assert_refused_at_send(delivery, delivery.last_reason, receiver, connections)


def test_a_name_that_turns_to_loopback_after_the_save_reaches_nothing(
    db, dns, receiver, connections, record_sent, settings
):
    settings.WEBHOOK_ALLOWED_NETWORKS = []
    dns.answer("hooks.rebinding.test", [PUBLIC], ["127.0.0.1"])
    client, _ = client_create(name="acme", webhook_url=f"http://hooks.rebinding.test:{receiver.port}/hooks")
    assert dns.asked == ["hooks.rebinding.test"], "checked at save, when it answered a public address"

    delivery = record_sent(Case.objects.create(client=client, question="Q?"))

    _assert_refused_at_send(
        delivery, "refused: hooks.rebinding.test resolves to a loopback address 127.0.0.1", receiver, connections
    )


def test_a_send_connects_to_the_address_it_checked_with_the_name_in_the_host_header(
    db, dns, receiver, connections, record_sent
):
    # Asked again, the name would answer a private address: the connection must not ask again.
    dns.answer("hooks.partner.test", ["127.0.0.1"], ["10.0.0.9"])
    delivery = record_sent(
        _client_saved_before_the_check(f"http://hooks.partner.test:{receiver.port}/hooks?x=1", receiver)
    )

    assert delivery.status == DeliveryStatus.DELIVERED, delivery.last_reason
    assert dns.asked == ["hooks.partner.test"], "resolved once, for the check and the connection"
    assert connections == [("127.0.0.1", receiver.port)]
    [request] = receiver.requests
    assert request.headers["host"] == f"hooks.partner.test:{receiver.port}"
    assert request.path == "/hooks?x=1" and request.verify_error == ""


def test_the_allow_list_lets_a_delivery_reach_an_internal_receiver_and_only_that(
    db, receiver, connections, record_sent, settings
):
    assert [str(network) for network in settings.WEBHOOK_ALLOWED_NETWORKS] == ["127.0.0.1/32"]  # the receiver's alone
    delivered = record_sent(_client_saved_before_the_check(receiver.url, receiver))
    assert delivered.status == DeliveryStatus.DELIVERED and len(receiver.requests) == 1

    other = make_client("other", webhook_url=f"http://127.0.0.2:{receiver.port}/hooks")
    refused = record_sent(Case.objects.create(client=other, question="Q?"))
    assert refused.status == DeliveryStatus.FAILED
    assert refused.last_reason == "refused: 127.0.0.2 is a loopback address"
    assert connections == [("127.0.0.1", receiver.port)] and len(receiver.requests) == 1
