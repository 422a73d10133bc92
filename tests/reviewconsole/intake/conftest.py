"""Intake's tests submit cases through the API, with its client fixtures and its response check."""

from __future__ import annotations

from tests.reviewconsole.api.conftest import api_client, api_responses, fresh_stamps, other_api_client
from tests.reviewconsole.webhooks.conftest import dns

__all__ = ["api_client", "api_responses", "dns", "fresh_stamps", "other_api_client"]
