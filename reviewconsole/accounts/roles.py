"""The three roles of the console, each a Django group."""

from __future__ import annotations

from enum import StrEnum

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser


class Role(StrEnum):
    """Who does what: reviewers decide cases, policy admins edit rules, support leads audit, team admins
    run the console for the team (people, API clients, webhook deliveries)."""

    REVIEWER = "reviewer"
    POLICY_ADMIN = "policy admin"
    SUPPORT_LEAD = "support lead"
    TEAM_ADMIN = "team admin"

    @property
    def label(self) -> str:
        return self.value.capitalize()

    @property
    def slug(self) -> str:
        """The role as a command line writes it: "policy-admin"."""
        return self.value.replace(" ", "-")

    @classmethod
    def named(cls, text: str) -> Role:
        """The role `text` names, written either way ("policy admin", "policy-admin"); ValueError if none."""
        wanted = " ".join(text.strip().lower().replace("-", " ").replace("_", " ").split())
        for role in cls:
            if role.value == wanted:
                return role
        raise ValueError(f"no role {text!r}; roles are: {', '.join(role.slug for role in cls)}")


def roles_of(user: AbstractBaseUser | AnonymousUser) -> set[Role]:
    """The roles a user holds; none for anonymous or inactive users."""
    if not user.is_authenticated or not user.is_active:
        return set()
    # The access check, the navigation and the canary banner each ask on every page: one query per
    # user object (a request's user lives for that request) instead of one per question.
    cached: frozenset[Role] | None = getattr(user, "_roles_cache", None)
    if cached is None:
        names = set(user.groups.values_list("name", flat=True))
        cached = frozenset(role for role in Role if role.value in names)
        user._roles_cache = cached
    return set(cached)


def has_role(user: AbstractBaseUser | AnonymousUser, role: Role) -> bool:
    return role in roles_of(user)
