"""The three roles of the console, each a Django group."""

from __future__ import annotations

from enum import StrEnum

from django.contrib.auth.models import AbstractUser, AnonymousUser


class Role(StrEnum):
    """Who does what: reviewers decide cases, review leads assign them and settle reviewers' disagreements,
    policy admins edit rules, support leads audit, team admins run the console for the team (people, API
    clients, webhook deliveries)."""

    REVIEWER = "reviewer"
    REVIEW_LEAD = "review lead"
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


_ROLES_CACHE = "_roles_cache"


def roles_of(user: AbstractUser | AnonymousUser) -> set[Role]:
    """The roles a user holds; none for anonymous or inactive users."""
    if not user.is_authenticated or not user.is_active:
        return set()
    # The access check, the navigation and the canary banner each ask on every page: one query per
    # user object (a request's user lives for that request) instead of one per question. Kept on the
    # object by name, as Django's ModelBackend keeps its permission cache.
    cached: frozenset[Role] | None = getattr(user, _ROLES_CACHE, None)
    if cached is None:
        names = set(user.groups.values_list("name", flat=True))
        cached = frozenset(role for role in Role if role.value in names)
        setattr(user, _ROLES_CACHE, cached)
    return set(cached)


def has_role(user: AbstractUser | AnonymousUser, role: Role) -> bool:
    return role in roles_of(user)


def role_emails(role: Role) -> list[str]:
    """The addresses of the active people who hold `role` (those with one), for notices to that role."""
    from django.contrib.auth import get_user_model

    people = get_user_model().objects.filter(groups__name=role.value, is_active=True).exclude(email="")
    return sorted(set(people.values_list("email", flat=True)))
