"""Writes on people: their accounts, the roles they hold, and whether they may sign in.

Each function validates what it is given and raises `ValidationError` keyed by the field at fault,
so a form and a command can both show the message beside what was wrong. Callers wrap these in the
transaction that also records the change (see `reviewconsole.team.services`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.models import AbstractUser, Group
from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from reviewconsole.accounts.links import links_void
from reviewconsole.accounts.models import Digest, NotificationSetting
from reviewconsole.accounts.roles import Role


@dataclass(frozen=True)
class RoleChange:
    """What a change of roles did: the roles given and the roles taken away."""

    added: tuple[Role, ...]
    removed: tuple[Role, ...]

    def __bool__(self) -> bool:
        return bool(self.added or self.removed)


def person_add(*, username: str, email: str = "", roles: Iterable[Role], password: str | None = None) -> AbstractUser:
    """A new account holding `roles`. Without a password it cannot sign in until its owner sets one
    through `links.set_password_path` (an invitation), or signs in through single sign-on."""
    User = get_user_model()
    username = username.strip()
    email = email.strip()
    errors: dict[str, list[str]] = {}
    if not username:
        errors["username"] = ["a username is required"]
    else:
        try:
            User.username_validator(username)
        except ValidationError as error:
            errors["username"] = error.messages
        if len(username) > 150:
            errors["username"] = ["at most 150 characters"]
        elif User.objects.filter(username__iexact=username).exists():
            errors["username"] = [f"{username!r} is taken"]
    if email:
        try:
            validate_email(email)
        except ValidationError:
            errors["email"] = [f"not an email address: {email!r}"]
    candidate = User(username=username, email=email)
    if password is not None:
        try:
            password_validation.validate_password(password, candidate)
        except ValidationError as error:
            errors["password"] = error.messages
    if errors:
        raise ValidationError(errors)
    if password is None:
        candidate.set_unusable_password()
    else:
        candidate.set_password(password)
    candidate.save()
    person_roles_set(user=candidate, roles=roles)
    return candidate


def person_roles_set(*, user: AbstractUser, roles: Iterable[Role]) -> RoleChange:
    """Give `user` exactly `roles`; returns what changed."""
    wanted = set(roles)
    held = _roles_held(user)
    added = tuple(sorted(wanted - held))
    removed = tuple(sorted(held - wanted))
    for role in added:
        user.groups.add(Group.objects.get_or_create(name=role.value)[0])
    if removed:
        user.groups.remove(*Group.objects.filter(name__in=[role.value for role in removed]))
    user.__dict__.pop("_roles_cache", None)
    if added or removed:
        # A link made for the person as they were must not let anyone in as the person they are now.
        links_void(user=user)
    return RoleChange(added, removed)


def person_active_set(*, user: AbstractUser, active: bool) -> bool:
    """Let `user` sign in, or stop them; whether anything changed.

    A deactivated account's open sessions stop working on their next request: the authentication
    backends accept only active users when they load a session's user.
    """
    if user.is_active == active:
        return False
    user.is_active = active
    user.save(update_fields=["is_active"])
    # A link handed out before a deactivation must not outlive it, even once the account is reactivated.
    links_void(user=user)
    return True


def _roles_held(user: AbstractUser) -> set[Role]:
    names = set(user.groups.values_list("name", flat=True))
    return {role for role in Role if role.value in names}



def digest_set(*, user: AbstractUser, digest: str) -> NotificationSetting:
    """How `user` hears of the cases assigned to them: a daily digest or none. Refused naming the field."""
    if digest not in Digest.values:
        raise ValueError(f"digest: choose one of {', '.join(Digest.values)}")
    setting, _ = NotificationSetting.objects.update_or_create(user_id=user.pk, defaults={"digest": digest})
    return setting


def digest_of(user: AbstractUser) -> str:
    """The person's digest choice; a daily digest until they choose."""
    chosen = NotificationSetting.objects.filter(user_id=user.pk).values_list("digest", flat=True).first()
    return chosen or Digest.DAILY
