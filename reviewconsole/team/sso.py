"""Single sign-on through OpenID Connect: who a provider's user is here, and which roles they hold.

mozilla-django-oidc runs the code flow and checks the ID token; this backend decides the rest. A
person is matched by username (the `preferred_username` claim, else the email address), created on
first sign-in without a usable password, and given the roles that OIDC_ROLE_MAP maps their groups to
(the claim named by OIDC_ROLES_CLAIM). The provider owns those mapped roles: a group taken away there
takes the role away here at the next sign-in; roles the map never grants are left as an admin set them.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ImproperlyConfigured, SuspiciousOperation, ValidationError
from mozilla_django_oidc.auth import OIDCAuthenticationBackend

from reviewconsole.accounts.roles import Role, roles_of
from reviewconsole.team import services

logger = logging.getLogger(__name__)

SSO_ACTOR = "sso"
"""How the audit trail names changes that a sign-in through the identity provider made."""


def role_map(text: str | None = None) -> dict[str, Role]:
    """OIDC_ROLE_MAP read: "console-reviewers=reviewer, console-admins=team-admin" → group → role."""
    text = settings.OIDC_ROLE_MAP if text is None else text
    mapping: dict[str, Role] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        group, sep, role = item.partition("=")
        if not sep or not group.strip():
            raise ImproperlyConfigured(f"OIDC_ROLE_MAP: {item!r} is not GROUP=ROLE")
        try:
            mapping[group.strip()] = Role.named(role)
        except ValueError as error:
            raise ImproperlyConfigured(f"OIDC_ROLE_MAP: {error}") from None
    return mapping


class RoleMappingBackend(OIDCAuthenticationBackend):
    def verify_claims(self, claims: dict) -> bool:
        return bool(claims.get("sub")) and bool(_username(claims))

    def filter_users_by_claims(self, claims: dict):
        return self.UserModel.objects.filter(username__iexact=_username(claims))

    def create_user(self, claims: dict) -> AbstractUser:
        try:
            user, _ = services.person_add(actor=SSO_ACTOR, username=_username(claims), email=_email(claims),
                                          roles=_mapped_roles(claims))
        except ValidationError as error:
            # The library turns this into a refused sign-in, with the reason in the log.
            raise SuspiciousOperation(f"cannot create an account from these claims: {error.messages}") from None
        return user

    def update_user(self, user: AbstractUser, claims: dict) -> AbstractUser:
        if not user.is_active:
            return user  # the callback refuses inactive accounts; nothing of theirs changes
        controlled = set(role_map().values())
        kept = roles_of(user) - controlled
        try:
            services.person_roles_change(actor=SSO_ACTOR, user=user, roles=kept | _mapped_roles(claims))
        except ValidationError as error:
            # The last team admin keeps the role until someone else holds it, whatever the provider says.
            logger.warning("sign-in of %s: roles left unchanged: %s", user.username, error.messages)
        return user

    def get_user(self, user_id: int) -> AbstractUser | None:
        # A session outlives the sign-in; a deactivated account's sessions must stop at once, as they
        # do for password sign-in (ModelBackend's `user_can_authenticate`).
        user = super().get_user(user_id)
        return user if user is not None and self.user_can_authenticate(user) else None


def _username(claims: dict) -> str:
    return str(claims.get("preferred_username") or _email(claims) or "").strip()


def _email(claims: dict) -> str:
    return str(claims.get("email") or "").strip()


def _mapped_roles(claims: dict) -> set[Role]:
    groups = claims.get(settings.OIDC_ROLES_CLAIM) or []
    if isinstance(groups, str):
        groups = [groups]
    mapping = role_map()
    return {mapping[str(group)] for group in groups if str(group) in mapping}
