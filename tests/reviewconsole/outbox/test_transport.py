"""The broker transport: a channel sends every message through one held client, and keeps sending after
the broker dropped its connections."""

from __future__ import annotations

import json

import redis

from reviewconsole.celery import app
from reviewconsole.intake.tasks import verify_case
from reviewconsole.outbox.transport import Channel, broker_transport


def _taken(redis_url: str, queue: str) -> list[dict]:
    """The messages on `queue`, oldest first, removed from it."""
    client = redis.Redis.from_url(redis_url)
    try:
        raw = client.lrange(queue, 0, -1)
        client.delete(queue)
    finally:
        client.close()
    return [json.loads(message) for message in reversed(raw)]


def test_redis_brokers_use_the_transport_and_others_keep_kombus():
    assert broker_transport("redis://127.0.0.1:6379/0") == "reviewconsole.outbox.transport:Transport"
    assert broker_transport("rediss://cache.example:6380/0") == "reviewconsole.outbox.transport:Transport"
    assert broker_transport("memory://") is None
    assert broker_transport(None) is None


def test_a_channel_sends_every_message_through_one_client_and_survives_a_dropped_connection(live_broker):
    with app.connection_for_write() as connection:
        channel = connection.default_channel
        assert isinstance(channel, Channel)
        with channel.conn_or_acquire() as first, channel.conn_or_acquire() as second:
            assert first is second

    verify_case.apply_async(args=[1], retry=False)
    # The broker drops every client connection (as a restart or a failover does): the held client's pool
    # connects again for the next message.
    admin = redis.Redis.from_url(live_broker)
    killed = admin.client_kill_filter(_type="normal", skipme=True)
    admin.close()
    verify_case.apply_async(args=[2], retry=False)

    assert killed >= 1
    messages = _taken(live_broker, "verify")
    assert [(message["headers"]["task"], message["headers"]["argsrepr"]) for message in messages] == [
        ("intake.verify_case", "[1]"), ("intake.verify_case", "[2]"),
    ]
