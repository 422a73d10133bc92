"""What a client application is given: its API token's form and its webhook signing secret."""

from __future__ import annotations

import base64
import secrets

SECRET_PREFIX = "whsec_"
"""Standard Webhooks (https://www.standardwebhooks.com) secrets start with this."""


def new_webhook_secret() -> str:
    """A fresh signing secret for a client: "whsec_" and the base64 of 32 random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode("ascii")
