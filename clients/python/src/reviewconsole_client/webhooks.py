"""Checking a webhook delivery: the Standard Webhooks signature (https://www.standardwebhooks.com) and its
timestamp, in constant time, then the event parsed into a typed object."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Mapping

from pydantic import ValidationError

from reviewconsole_client.errors import WebhookVerificationError
from reviewconsole_client.models import CaseEvent, WebhookEvent

SECRET_PREFIX = "whsec_"
# A delivery signed longer ago (or further ahead) than this is refused: an old request replayed.
DEFAULT_TOLERANCE_SECONDS = 300


def verify_webhook(
    body: bytes | str, headers: Mapping[str, str], *, secret: str,
    tolerance: float = DEFAULT_TOLERANCE_SECONDS, now: float | None = None,
) -> WebhookEvent:
    """The event of a delivery whose signature and timestamp check out; `WebhookVerificationError` otherwise.

    `body` is the raw body as received (re-serialised JSON does not match its signature); `headers` the
    request's headers, in any case; `secret` the client's signing secret ("whsec_..."); `now` the time
    (seconds since 1970) to check the timestamp against, the clock's unless given.
    """
    named = {name.lower(): value for name, value in headers.items()}
    message_id, stamp, signatures = (named.get(f"webhook-{name}") for name in ("id", "timestamp", "signature"))
    if not message_id or not stamp or not signatures:
        raise WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature header")
    if not stamp.isascii() or not stamp.isdigit():
        raise WebhookVerificationError(f"webhook-timestamp is not whole seconds: {stamp[:40]!r}")
    signed_at = int(stamp)
    skew = (time.time() if now is None else now) - signed_at
    if abs(skew) > tolerance:
        raise WebhookVerificationError(
            f"signed {abs(skew):.0f} s {'ago' if skew > 0 else 'ahead'}: more than the {tolerance:.0f} s allowed"
        )
    payload = body.encode() if isinstance(body, str) else body
    expected = base64.b64encode(
        hmac.new(_key(secret), f"{message_id}.{signed_at}.".encode() + payload, hashlib.sha256).digest()
    )
    # Each of the space-separated signatures is compared in full (compare_digest), whatever the others are.
    matches = [
        hmac.compare_digest(signature.encode(), expected)
        for version, _, signature in (entry.partition(",") for entry in signatures.split())
        if version == "v1"
    ]
    if not any(matches):
        raise WebhookVerificationError("no signature matches the body: a wrong secret, or the body was changed")
    return _event(message_id, payload)


def _key(secret: str) -> bytes:
    try:
        return base64.b64decode(secret.removeprefix(SECRET_PREFIX), validate=True)
    except binascii.Error:
        raise ValueError("secret: not a signing secret (whsec_ and base64)") from None


def _event(message_id: str, payload: bytes) -> WebhookEvent:
    try:
        envelope = json.loads(payload)
        kind = envelope["type"]
        data = envelope["data"]
        parsed = CaseEvent.model_validate(data) if str(kind).startswith("case.") else data
        return WebhookEvent(id=message_id, type=kind, timestamp=envelope["timestamp"], data=parsed)
    except (ValueError, KeyError, TypeError, ValidationError) as error:
        raise WebhookVerificationError(f"a signed body that is not an event: {error}") from None
