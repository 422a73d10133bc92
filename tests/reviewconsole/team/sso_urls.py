"""The console's routes with single sign-on's, as a deployment with OIDC_CLIENT_ID set has them."""

from __future__ import annotations

from django.urls import include, path

from reviewconsole.urls import urlpatterns as console

urlpatterns = [path("oidc/", include("mozilla_django_oidc.urls")), *console]
