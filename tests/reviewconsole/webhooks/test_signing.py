"""Signing: what a client checks with the Standard Webhooks library, and the scheme underneath it."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from datetime import UTC, datetime

import pytest
from django.utils import timezone
from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

from reviewconsole.intake.credentials import new_webhook_secret
from reviewconsole.webhooks.signing import signed_headers

BODY = json.dumps({"type": "case.released", "timestamp": "2026-01-02T03:04:05+00:00", "data": {"case_id": 1}})


def test_a_new_secret_is_whsec_and_32_random_bytes():
    first, second = new_webhook_secret(), new_webhook_secret()
    assert first.startswith("whsec_")
    assert len(base64.b64decode(first.removeprefix("whsec_"), validate=True)) == 32
    assert first != second


def test_headers_verify_with_the_standard_webhooks_library():
    secret = new_webhook_secret()
    now = timezone.now()
    headers = signed_headers(secret=secret, message_id="msg_abc", timestamp=now, body=BODY)

    assert headers["content-type"] == "application/json"
    assert headers["webhook-id"] == "msg_abc"
    assert headers["webhook-timestamp"] == str(int(now.timestamp()))
    assert Webhook(secret).verify(BODY, headers) == json.loads(BODY)


def test_signature_is_hmac_sha256_over_id_timestamp_and_body():
    secret = new_webhook_secret()
    timestamp = datetime(2026, 1, 2, 3, 4, 5, 900_000, tzinfo=UTC)
    headers = signed_headers(secret=secret, message_id="msg_abc", timestamp=timestamp, body=BODY)

    key = base64.b64decode(secret.removeprefix("whsec_"))
    digest = hmac.new(key, f"msg_abc.{int(timestamp.timestamp())}.{BODY}".encode(), hashlib.sha256).digest()
    assert headers["webhook-signature"] == "v1," + base64.b64encode(digest).decode()


@pytest.mark.parametrize(
    ("secret", "body", "message_id"),
    [
        pytest.param("other", BODY, "msg_abc", id="another client's secret"),
        pytest.param("same", BODY.replace('"case_id": 1', '"case_id": 2'), "msg_abc", id="tampered body"),
        pytest.param("same", BODY, "msg_replayed", id="another message id"),
    ],
)
def test_anything_but_the_signed_message_fails_verification(secret: str, body: str, message_id: str):
    signing_secret = new_webhook_secret()
    headers = signed_headers(secret=signing_secret, message_id="msg_abc", timestamp=timezone.now(), body=BODY)
    headers["webhook-id"] = message_id
    checking_secret = signing_secret if secret == "same" else new_webhook_secret()

    with pytest.raises(WebhookVerificationError):
        Webhook(checking_secret).verify(body, headers)
