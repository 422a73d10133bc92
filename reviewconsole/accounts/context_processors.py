from __future__ import annotations

from django.http import HttpRequest

from reviewconsole.accounts.roles import roles_of


def roles(request: HttpRequest) -> dict[str, object]:
    """`user_roles` in every template, for navigation that shows only what the user may open."""
    user = getattr(request, "user", None)
    return {"user_roles": sorted(role.value for role in roles_of(user))} if user else {"user_roles": []}
