"""Writes for accounts: the demo accounts a fresh local console starts with."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

from reviewconsole.accounts.roles import Role

# One account per role; the review lead reviews too, as leads do (and two reviewers make double review
# and adjudication something to try on the demo).
DEMO_USERS: dict[str, tuple[Role, ...]] = {
    "reviewer": (Role.REVIEWER,),
    "lead": (Role.REVIEWER, Role.REVIEW_LEAD),
    "policy": (Role.POLICY_ADMIN,),
    "support": (Role.SUPPORT_LEAD,),
    "admin": (Role.TEAM_ADMIN,),
}


@dataclass(frozen=True)
class DemoAccount:
    username: str
    password: str
    roles: tuple[Role, ...]

    @property
    def roles_label(self) -> str:
        """"Reviewer, review lead": the roles as the demo prints them."""
        return ", ".join(role.value for role in self.roles).capitalize()


def demo_accounts_ensure(*, credentials_path: Path) -> list[DemoAccount]:
    """Create (or bring back) one account per role (the lead reviews too); safe to run again.

    Passwords are random on first run and kept in `credentials_path`, so a second run prints the
    same ones and a reviewer's browser session stays valid.
    """
    saved = _read_credentials(credentials_path)
    accounts = [
        DemoAccount(username, saved.get(username) or secrets.token_urlsafe(9), roles)
        for username, roles in DEMO_USERS.items()
    ]
    User = get_user_model()
    with transaction.atomic():
        for account in accounts:
            user, _ = User.objects.get_or_create(username=account.username)
            user.is_active = True
            user.set_password(account.password)
            user.save()
            user.groups.add(*(Group.objects.get_or_create(name=role.value)[0] for role in account.roles))
    credentials_path.parent.mkdir(parents=True, exist_ok=True)
    credentials_path.write_text(json.dumps({a.username: a.password for a in accounts}, indent=2))
    credentials_path.chmod(0o600)
    return accounts


def _read_credentials(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str) and v}
