"""What a call can fail with: the API's refusals as typed exceptions carrying its error body."""

from __future__ import annotations

from reviewconsole_client.models import Case, ErrorBody, FieldError


class ReviewConsoleError(Exception):
    """Every error this client raises."""


class ApiError(ReviewConsoleError):
    """The API refused or failed the request; `body` is its error, naming each field at fault."""

    def __init__(self, status: int, body: ErrorBody, *, retry_after: float | None = None):
        super().__init__(f"HTTP {status} {body.error}: {body.message}")
        self.status = status
        self.body = body
        self.retry_after = retry_after
        """Seconds the API asked to wait before trying again (429 and 503), if it said."""

    @property
    def errors(self) -> list[FieldError]:
        return self.body.errors

    @property
    def field(self) -> str:
        """The first field at fault ("sources.0.text"), or "" when no one field is."""
        return self.body.errors[0].field if self.body.errors else ""


class InvalidRequest(ApiError):
    """400, 413 or 415: the request itself is wrong; sending it again cannot help."""


class Unauthorized(ApiError):
    """401: the token is missing, unknown or revoked."""


class NotFound(ApiError):
    """404: no such case for this client."""


class Conflict(ApiError):
    """409: another case was submitted under this external_id."""


class RateLimited(ApiError):
    """429: over one of the client's limits (`field` names it); still refused after the retries allowed."""


class ServerError(ApiError):
    """5xx: the console failed or was unavailable, still after the retries allowed."""


def error_for(status: int, body: ErrorBody, retry_after: float | None) -> ApiError:
    """The exception for a refused request's status."""
    kind: type[ApiError]
    if status == 401:
        kind = Unauthorized
    elif status == 404:
        kind = NotFound
    elif status == 409:
        kind = Conflict
    elif status == 429:
        kind = RateLimited
    elif status >= 500:
        kind = ServerError
    elif status in (400, 413, 415):
        kind = InvalidRequest
    else:
        kind = ApiError
    return kind(status, body, retry_after=retry_after)


class WaitTimeout(ReviewConsoleError, TimeoutError):
    """The deadline passed before the case reached a final status; `case` is how it was last seen."""

    def __init__(self, case: Case, waited: float):
        super().__init__(f"case {case.id} is still {case.status} after {waited:.1f} s")
        self.case = case


class WebhookVerificationError(ReviewConsoleError):
    """A webhook delivery whose signature, timestamp or body does not check out: answer it with 400."""
