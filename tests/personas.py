"""The personas every console test signs in as: one per role, and one with no role."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User

from reviewconsole.accounts.roles import Role

PASSWORD_SUFFIX = "-password"


def _user_with(username: str, *roles: Role) -> User:
    user = User.objects.create_user(username=username, password=f"{username}{PASSWORD_SUFFIX}")
    for role in roles:
        user.groups.add(Group.objects.get_or_create(name=role.value)[0])
    return user


@pytest.fixture
def reviewer(db) -> User:
    return _user_with("rita", Role.REVIEWER)


@pytest.fixture
def policy_admin(db) -> User:
    return _user_with("paul", Role.POLICY_ADMIN)


@pytest.fixture
def support_lead(db) -> User:
    return _user_with("sam", Role.SUPPORT_LEAD)


@pytest.fixture
def outsider(db) -> User:
    """Signed in, but holds no role."""
    return _user_with("oscar")
