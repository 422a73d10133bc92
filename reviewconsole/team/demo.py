"""The demo's accounts and API client, written only into a database that is the demo's (`manage.py demo`).

A database is the demo's when an earlier run marked it (its `demo.installed` audit event), or when it is new:
no person and no API client in it yet. Any other database is refused, and so is one that holds a person who
is not a demo account, deactivated or not, before anything is written: the demo prints passwords, so it must
never reach people of a real team. What it writes is audited as a team admin's changes are: each account
(`person.added`), the demo client (`client.created`) and the mark; the demo cases as any client's submissions.

An account that exists is left as it is: its password is not reset, and a deactivated one stays deactivated.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import check_password
from django.db import transaction

from reviewconsole.accounts.roles import Role
from reviewconsole.audit.actions import SYSTEM, AuditAction
from reviewconsole.audit.models import AuditEvent
from reviewconsole.audit.services import audit_record
from reviewconsole.intake.demo import DEMO_CLIENT
from reviewconsole.intake.models import Client
from reviewconsole.team import selectors, services

DEMO_ACTOR = f"{SYSTEM}:demo"
"""How the audit trail names what `manage.py demo` wrote."""

# One account per role; the review lead reviews too, as leads do (and two reviewers make double review
# and adjudication something to try on the demo).
DEMO_USERS: dict[str, tuple[Role, ...]] = {
    "reviewer": (Role.REVIEWER,),
    "lead": (Role.REVIEWER, Role.REVIEW_LEAD),
    "policy": (Role.POLICY_ADMIN,),
    "support": (Role.SUPPORT_LEAD,),
    "admin": (Role.TEAM_ADMIN,),
}
_NAMES_SHOWN = 5


class DemoRefused(Exception):
    """This database is not the demo's to write; the message says why."""


@dataclass(frozen=True)
class DemoAccount:
    username: str
    password: str | None
    """None for an account that existed whose password the credentials file does not hold (or no longer)."""
    roles: tuple[Role, ...]
    active: bool

    @property
    def roles_label(self) -> str:
        """"Reviewer, review lead": the roles as the demo prints them."""
        return ", ".join(role.value for role in self.roles).capitalize() or "No role"


def demo_refusal() -> str | None:
    """Why `manage.py demo` may not write to this database, naming what is in it; None when it may."""
    people = get_user_model().objects.order_by("username")
    reasons = []
    others = people.exclude(username__in=DEMO_USERS)
    count = others.count()
    if count:
        names = [person.username + ("" if person.is_active else " (deactivated)") for person in others[:_NAMES_SHOWN]]
        more = f" and {count - _NAMES_SHOWN} more" if count > _NAMES_SHOWN else ""
        reasons.append(f"it holds {_counted(count, 'person', 'people')} who {'is' if count == 1 else 'are'} not "
                       f"a demo account: {', '.join(names)}{more}")
    if not _marked() and (people.exists() or Client.objects.exists()):
        reasons.append(f"no earlier `manage.py demo` made it (it has no {AuditAction.DEMO_INSTALLED} event), and it "
                       f"is not new: it holds {_counted(people.count(), 'person', 'people')} and "
                       f"{_counted(Client.objects.count(), 'API client', 'API clients')}")
    return "; ".join(reasons) or None


def demo_install(*, credentials_path: Path) -> list[DemoAccount]:
    """Make the demo accounts and client that are missing, audited; DemoRefused (nothing written) when the
    database is not the demo's.

    A new account's password is random, or the one `credentials_path` kept from an earlier run, so a second
    run prints the same ones; the file is written for the next run.
    """
    saved = _read_credentials(credentials_path)
    with transaction.atomic():
        refusal = demo_refusal()
        if refusal:
            raise DemoRefused(refusal)
        first_run = not _marked()
        accounts = [_account(username, roles, saved.get(username)) for username, roles in DEMO_USERS.items()]
        if not Client.objects.filter(name=DEMO_CLIENT).exists():
            services.client_add(actor=DEMO_ACTOR, name=DEMO_CLIENT)
        if first_run:
            audit_record(actor=DEMO_ACTOR, action=AuditAction.DEMO_INSTALLED, object_type="database", object_id="demo",
                         payload={"accounts": list(DEMO_USERS), "client": DEMO_CLIENT})
    kept = {account.username: account.password for account in accounts if account.password}
    credentials_path.parent.mkdir(parents=True, exist_ok=True)
    # Owner-only before the passwords go in, whatever the umask.
    credentials_path.touch(mode=0o600)
    credentials_path.chmod(0o600)
    credentials_path.write_text(json.dumps(kept, indent=2))
    return accounts


def _account(username: str, roles: tuple[Role, ...], saved_password: str | None) -> DemoAccount:
    existing = get_user_model().objects.filter(username=username).first()
    if existing is None:
        password = saved_password or secrets.token_urlsafe(9)
        services.person_add(actor=DEMO_ACTOR, username=username, roles=roles, password=password)
        return DemoAccount(username, password, roles, active=True)
    # Printed only while it still signs in: someone may have chosen another through a set-password link.
    # Checked without the hasher's upgrade of the stored hash, which would write to the account.
    known = saved_password if saved_password and check_password(saved_password, existing.password) else None
    held = selectors.roles_held(existing)
    return DemoAccount(username, known, tuple(role for role in Role if role in held), existing.is_active)


def _marked() -> bool:
    return AuditEvent.objects.filter(action=AuditAction.DEMO_INSTALLED).exists()


def _counted(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _read_credentials(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str) and v}
