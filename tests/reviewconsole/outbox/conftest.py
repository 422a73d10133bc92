"""The outbox's tests submit cases through the API."""

from __future__ import annotations

from tests.reviewconsole.api.conftest import api_client, api_responses

__all__ = ["api_client", "api_responses"]
