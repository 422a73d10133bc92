"""One POST of a signed body to a client's webhook URL, and what came back."""

from __future__ import annotations

import http.client
import urllib.error
import urllib.request
from dataclasses import dataclass

USER_AGENT = "reviewconsole-webhooks/1"
# Enough of an error response to tell the operator what the client said, not the whole page.
_ERROR_BODY_BYTES = 500


@dataclass(frozen=True)
class AttemptOutcome:
    """What one delivery attempt came back with."""

    status_code: int | None
    """The HTTP status of the response, or None when none arrived (timeout, refused, DNS)."""
    error: str = ""
    """Why the attempt failed; empty when it was delivered."""

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


class _RefuseRedirects(urllib.request.HTTPRedirectHandler):
    # A redirect is answered like any other error status: the client must configure the final URL,
    # and following it would send the signed event to a host nobody configured.
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


_opener = urllib.request.build_opener(_RefuseRedirects)


def post_webhook(*, url: str, headers: dict[str, str], body: str, timeout: float) -> AttemptOutcome:
    """POST `body` to `url`; every failure becomes an outcome, never an exception."""
    try:
        request = urllib.request.Request(
            url, data=body.encode("utf-8"), headers={**headers, "user-agent": USER_AGENT}, method="POST"
        )
        with _opener.open(request, timeout=timeout) as response:
            return AttemptOutcome(status_code=response.status)
    except urllib.error.HTTPError as error:
        return AttemptOutcome(status_code=error.code, error=_http_error_text(error))
    except urllib.error.URLError as error:
        return AttemptOutcome(status_code=None, error=f"{type(error.reason).__name__}: {error.reason}")
    except (OSError, http.client.HTTPException, ValueError) as error:
        # Timeouts while reading, dropped connections, malformed responses and unusable URLs.
        return AttemptOutcome(status_code=None, error=f"{type(error).__name__}: {error}")


def _http_error_text(error: urllib.error.HTTPError) -> str:
    if 300 <= error.code < 400:
        return f"HTTP {error.code}: redirect to {error.headers.get('location', '?')} not followed"
    try:
        snippet = error.read(_ERROR_BODY_BYTES).decode("utf-8", "replace").strip()
    except (OSError, http.client.HTTPException):
        snippet = ""
    finally:
        error.close()
    return f"HTTP {error.code} {error.reason}" + (f": {snippet}" if snippet else "")
