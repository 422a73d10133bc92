from __future__ import annotations

from django.http import HttpRequest

from reviewconsole.accounts.roles import Role, has_role
from reviewconsole.policy.selectors import canary_alerts


def canary(request: HttpRequest) -> dict[str, object]:
    """`canary_alerts` for policy admins on every page: a critic that stopped catching is everyone's
    problem, but only its admins can act on it, so only they see the banner (and pay its query)."""
    user = getattr(request, "user", None)
    if user is None or not has_role(user, Role.POLICY_ADMIN):
        return {"canary_alerts": []}
    return {"canary_alerts": canary_alerts()}
