"""URL routes of the console; each app adds its own under a prefix."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path

from reviewconsole.health import healthz


def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico whatever a page links to; point them at the static icon."""
    return redirect(static("favicon.ico"))


urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("favicon.ico", favicon, name="favicon"),
    path("api/", include("reviewconsole.api.urls")),
    path("review/", include("reviewconsole.review.urls")),
    path("policy/", include("reviewconsole.policy.urls")),
    path("policy/", include("reviewconsole.workbench.urls")),
    path("audit/", include("reviewconsole.support.urls")),
    path("team/", include("reviewconsole.team.urls")),
    path("", include("reviewconsole.accounts.urls")),
]

handler404 = "reviewconsole.server_errors.page_not_found"
handler500 = "reviewconsole.server_errors.server_error"
