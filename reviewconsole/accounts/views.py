"""Sign-in, sign-out and the console's home page."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from reviewconsole.accounts.roles import Role, roles_of


@require_GET
@login_required
def home(request: HttpRequest) -> HttpResponse:
    """Where a signed-in user lands: their roles and the parts of the console open to them."""
    roles = sorted(roles_of(request.user), key=lambda role: role.value)
    if Role.REVIEWER in roles:
        # A reviewer's day starts at the queue.
        return redirect("review:queue")
    if len(roles) == 1:
        return redirect(_START_PAGE[roles[0]])
    return render(request, "accounts/home.html", {"roles": roles})


_START_PAGE = {
    Role.REVIEWER: "review:queue",
    Role.REVIEW_LEAD: "review:queue",
    Role.POLICY_ADMIN: "policy:constitutions",
    Role.SUPPORT_LEAD: "audit:events",
    Role.TEAM_ADMIN: "team:people",
}


class SignInView(LoginView):
    """Password sign-in, with a link to single sign-on when it is configured."""

    def get_context_data(self, **kwargs: object) -> dict[str, object]:
        context = super().get_context_data(**kwargs)
        context["sso_name"] = settings.OIDC_PROVIDER_NAME if settings.OIDC_ENABLED else None
        return context
