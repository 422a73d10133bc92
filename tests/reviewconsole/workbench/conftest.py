"""The workbench's pages are a policy admin's: the same signed-in admin as the policy tests."""

from __future__ import annotations

from tests.reviewconsole.policy.conftest import admin_client

__all__ = ["admin_client"]
