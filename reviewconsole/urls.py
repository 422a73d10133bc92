"""URL routes of the console; each app adds its own under a prefix."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from reviewconsole.health import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("reviewconsole.intake.urls")),
    path("review/", include("reviewconsole.review.urls")),
    path("policy/", include("reviewconsole.policy.urls")),
    path("audit/", include("reviewconsole.audit.urls")),
    path("", include("reviewconsole.accounts.urls")),
]
