from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from reviewconsole.accounts.roles import Role
from tests.personas import _user_with


@pytest.fixture
def team_admin(db) -> User:
    return _user_with("tina", Role.TEAM_ADMIN)


# The webhook receiver and rows to send from, shared with the webhooks app's own tests.
from tests.reviewconsole.webhooks.conftest import case, dns, hooked_client, receiver, record_sent  # noqa: E402,F401
