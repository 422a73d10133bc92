"""What a client application is given (its API token, its webhook signing secret), and how a request's
token is checked.

Checking a token is a read on every API request, so each web process keeps the clients it found by
token hash, under the configuration stamp (`reviewconsole.stamps`): every change to a client's
credentials renews the stamp once the change commits (`credentials_changed`), so a rotated token, a
revoked or deactivated client, is refused by every process from its next request on. Without Redis
(the embedded default), or while it does not answer, tokens are checked in the database on every
request.
"""

from __future__ import annotations

import base64
import hashlib
import secrets

from reviewconsole import stamps
from reviewconsole.intake.models import Client

TOKEN_PREFIX = "rc_"
SECRET_PREFIX = "whsec_"
"""Standard Webhooks (https://www.standardwebhooks.com) secrets start with this."""

# A backstop only: a change made past intake's services (a shell, SQL), or made while Redis could not be
# told, is seen within this long.
CACHE_SECONDS = 30.0
# Far more than there are clients: the cache keeps valid tokens only, so guessed tokens never fill it.
MAX_CACHED = 1024
_clients: stamps.StampCache[Client] = stamps.StampCache(
    stamps.CONFIGURATION, seconds=CACHE_SECONDS, max_entries=MAX_CACHED
)


def token_hash(token: str) -> str:
    """What is stored of an API token: its sha256, so a database leak does not leak tokens."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def new_webhook_secret() -> str:
    """A fresh signing secret for a client: "whsec_" and the base64 of 32 random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


# --- Checking a token ------------------------------------------------------------------------------


def client_for_token(token: str) -> Client | None:
    """The active client whose token this is; None for an unknown, rotated or revoked token."""
    if not token:
        return None
    digest = token_hash(token)
    return _clients.get(digest, lambda: Client.objects.filter(token_hash=digest, is_active=True).first())


def client_known(token: str) -> Client | None:
    """The client this process found for the token before, whether or not it is still what the database
    holds (client_for_token says): a guess, to read and not to change."""
    return _clients.peek(token_hash(token)) if token else None


def credentials_changed() -> None:
    """Void every process's cached tokens once the current transaction commits.

    Every service that changes what a token may do (rotation, revocation, restoring) calls it inside
    its transaction; after the commit, the next request in any process reads the client again.
    """
    stamps.CONFIGURATION.renew_on_commit()
