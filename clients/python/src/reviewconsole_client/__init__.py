"""A client of the review console's API: submit an answer, wait for a person's decision, verify webhooks."""

from reviewconsole_client.client import AsyncReviewConsole, ReviewConsole
from reviewconsole_client.errors import (
    ApiError,
    Conflict,
    InvalidRequest,
    NotFound,
    RateLimited,
    ReviewConsoleError,
    ServerError,
    Unauthorized,
    WaitTimeout,
    WebhookVerificationError,
)
from reviewconsole_client.models import (
    Case,
    CaseEvent,
    CasePage,
    CaseSubmission,
    CaseSummary,
    Decision,
    ErrorBody,
    ErrorCode,
    FieldError,
    Source,
    Status,
    Terminal,
    WebhookEvent,
)
from reviewconsole_client.retries import RetryPolicy
from reviewconsole_client.webhooks import verify_webhook

__version__ = "0.1.0"

__all__ = [
    "ApiError", "AsyncReviewConsole", "Case", "CaseEvent", "CasePage", "CaseSubmission", "CaseSummary", "Conflict",
    "Decision", "ErrorBody", "ErrorCode", "FieldError", "InvalidRequest", "NotFound", "RateLimited", "RetryPolicy",
    "ReviewConsole", "ReviewConsoleError", "ServerError", "Source", "Status", "Terminal", "Unauthorized",
    "WaitTimeout", "WebhookEvent", "WebhookVerificationError", "verify_webhook",
]
