"""Signing deliveries with the Standard Webhooks scheme (https://www.standardwebhooks.com)."""

from __future__ import annotations

from datetime import UTC, datetime

from standardwebhooks import Webhook


def signed_headers(*, secret: str, message_id: str, timestamp: datetime, body: str) -> dict[str, str]:
    """The headers that let a client check `body` came from us, for this message, at this time."""
    # The header carries whole seconds; signing the same truncated instant keeps the two in step.
    seconds = int(timestamp.timestamp())
    signature = Webhook(secret).sign(msg_id=message_id, timestamp=datetime.fromtimestamp(seconds, UTC), data=body)
    return {
        "content-type": "application/json",
        "webhook-id": message_id,
        "webhook-timestamp": str(seconds),
        "webhook-signature": signature,
    }
