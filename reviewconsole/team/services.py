"""Changes a team admin makes, each written with its audit event in one transaction.

The rows belong to other apps (accounts for people and roles); this layer sits above them and the
audit trail, so a change and its record exist together or not at all.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.db import transaction

from reviewconsole.accounts import people
from reviewconsole.accounts.links import set_password_path
from reviewconsole.accounts.roles import Role
from reviewconsole.audit.actions import AuditAction
from reviewconsole.audit.services import audit_record
from reviewconsole.intake import quotas
from reviewconsole.intake import services as intake
from reviewconsole.intake.models import Client
from reviewconsole.intake.quotas import Limit
from reviewconsole.webhooks.models import WebhookDelivery
from reviewconsole.webhooks.services import delivery_retry

Actor = AbstractUser | str


def person_add(
    *, actor: Actor, username: str, email: str = "", roles: Iterable[Role], password: str | None = None
) -> tuple[AbstractUser, str | None]:
    """A new account; with no password, also the one-time link its owner chooses one with."""
    roles = sorted(set(roles))
    with transaction.atomic():
        user = people.person_add(username=username, email=email, roles=roles, password=password)
        audit_record(actor=actor, action=AuditAction.PERSON_ADDED, object_type="user", object_id=user.pk,
                     payload={"username": user.username, "roles": [role.value for role in roles],
                              "invited": password is None})
        return user, (set_password_path(user) if password is None else None)


def person_roles_change(*, actor: Actor, user: AbstractUser, roles: Iterable[Role]) -> people.RoleChange:
    """Give `user` exactly `roles`. An admin cannot take the team admin role from the last active one."""
    roles = set(roles)
    with transaction.atomic():
        if Role.TEAM_ADMIN not in roles:
            _keep_one_admin(user, field="roles")
        change = people.person_roles_set(user=user, roles=roles)
        if change:
            audit_record(actor=actor, action=AuditAction.PERSON_ROLES_CHANGED, object_type="user", object_id=user.pk,
                         payload={"username": user.username, "added": [role.value for role in change.added],
                                  "removed": [role.value for role in change.removed]})
    return change


def person_active_set(*, actor: Actor, user: AbstractUser, active: bool) -> bool:
    """Deactivate (every open session of the account stops working) or reactivate an account."""
    with transaction.atomic():
        if not active:
            if isinstance(actor, AbstractUser) and actor.pk == user.pk:
                raise ValidationError({"active": ["you cannot deactivate your own account"]})
            _keep_one_admin(user, field="active")
        changed = people.person_active_set(user=user, active=active)
        if changed:
            audit_record(actor=actor,
                         action=AuditAction.PERSON_REACTIVATED if active else AuditAction.PERSON_DEACTIVATED,
                         object_type="user", object_id=user.pk, payload={"username": user.username})
    return changed


def invitation_renew(*, actor: Actor, user: AbstractUser) -> str:
    """A fresh one-time link for `user` to set a password, voiding the links made before (the account keeps its
    current password until then)."""
    if not user.is_active:
        raise ValidationError({"active": ["reactivate the account before sending it a link"]})
    with transaction.atomic():
        audit_record(actor=actor, action=AuditAction.PERSON_INVITED, object_type="user", object_id=user.pk,
                     payload={"username": user.username})
        return set_password_path(user)


def client_add(*, actor: Actor, name: str, webhook_url: str = "") -> tuple[Client, str]:
    """A new API client; its token is returned once and only its hash is kept."""
    name = name.strip()
    if Client.objects.filter(name__iexact=name).exists():
        raise ValidationError({"name": [f"a client named {name!r} already exists"]})
    with transaction.atomic():
        client, token = intake.client_create(name=name, webhook_url=webhook_url)
        audit_record(actor=actor, action=AuditAction.CLIENT_CREATED, object_type="client", object_id=client.pk,
                     payload={"name": client.name, "token_prefix": client.token_prefix,
                              "webhook_url": client.webhook_url})
    return client, token


def client_token_rotate(*, actor: Actor, client: Client) -> str:
    """A new token for `client`; the old one stops working at once."""
    with transaction.atomic():
        old_prefix = client.token_prefix
        token = intake.client_token_rotate(client=client)
        audit_record(actor=actor, action=AuditAction.CLIENT_TOKEN_ROTATED, object_type="client", object_id=client.pk,
                     payload={"name": client.name, "old_prefix": old_prefix, "token_prefix": client.token_prefix})
    return token


def client_active_set(*, actor: Actor, client: Client, active: bool) -> bool:
    """Revoke a client's access (its token stops working) or restore it."""
    with transaction.atomic():
        changed = intake.client_active_set(client=client, active=active)
        if changed:
            audit_record(actor=actor, action=AuditAction.CLIENT_REVOKED if not active else AuditAction.CLIENT_RESTORED,
                         object_type="client", object_id=client.pk, payload={"name": client.name})
    return changed


def client_webhook_set(*, actor: Actor, client: Client, webhook_url: str, new_secret: bool = False) -> str | None:
    """Change where a client's events go; returns a new signing secret when one was made."""
    with transaction.atomic():
        old_url = client.webhook_url
        secret = intake.client_webhook_set(client=client, webhook_url=webhook_url, new_secret=new_secret)
        if old_url != webhook_url or secret:
            audit_record(actor=actor, action=AuditAction.CLIENT_WEBHOOK_CHANGED, object_type="client",
                         object_id=client.pk, payload={"name": client.name, "from": old_url, "to": webhook_url,
                                                       "new_secret": secret is not None})
    return secret


def client_limits_set(*, actor: Actor, client: Client, limits: dict[Limit, int | None]) -> bool:
    """Give a client its own limits (None: the default again); False when nothing changed."""
    with transaction.atomic():
        changes = quotas.client_limits_set(client=client, limits=limits)
        if changes:
            audit_record(actor=actor, action=AuditAction.CLIENT_LIMITS_CHANGED, object_type="client",
                         object_id=client.pk,
                         payload={"name": client.name, "changes": {limit.value: {"from": old, "to": new}
                                                                   for limit, (old, new) in changes.items()}})
    return bool(changes)


def client_labels_shared_set(*, actor: Actor, client: Client, shared: bool) -> bool:
    """Let reviewers' labels of the client's cases train scorer models used for other clients' cases (or stop
    it: models trained before keep what they learnt, but are not promoted for another client's constitution)."""
    with transaction.atomic():
        changed = intake.client_labels_shared_set(client=client, shared=shared)
        if changed:
            audit_record(actor=actor, action=AuditAction.CLIENT_LABEL_SHARING_CHANGED, object_type="client",
                         object_id=client.pk, payload={"name": client.name, "labels_shared": shared})
    return changed


def webhook_resend(*, actor: Actor, delivery: WebhookDelivery) -> bool:
    """Send a FAILED delivery again with a fresh run of attempts, or a PENDING one without waiting for its
    next attempt (same message id, so a client that got it after all can tell); False, changing nothing,
    for a delivery that is sending or delivered."""
    with transaction.atomic():
        was = delivery.status
        reopened = delivery_retry(delivery=delivery)
        if reopened:
            audit_record(actor=actor, action=AuditAction.WEBHOOK_RESENT, object_type="webhook_delivery",
                         object_id=delivery.pk, case=delivery.case_id,
                         payload={"client": delivery.client.name, "message_id": delivery.message_id,
                                  "event": delivery.event_type, "was": was, "last_reason": delivery.last_reason})
    return reopened


def _keep_one_admin(user: AbstractUser, *, field: str) -> None:
    """Refuse a change that would leave no active team admin: nobody could then manage the team."""
    admins = get_user_model().objects.filter(is_active=True, groups__name=Role.TEAM_ADMIN.value)
    # Locked, so two admins demoting each other at once cannot both succeed.
    held = list(admins.select_for_update(of=("self",)).values_list("pk", flat=True))
    if held == [user.pk]:
        raise ValidationError({field: ["this is the last active team admin; make someone else one first"]})
