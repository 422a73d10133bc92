from __future__ import annotations

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.urls import URLPattern, URLResolver, include, path, reverse_lazy

from reviewconsole.accounts import views
from reviewconsole.accounts.links import set_password_tokens

urlpatterns: list[URLPattern | URLResolver] = [
    path("", views.home, name="home"),
    path("login/", views.SignInView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    # The one-time link an invitation or an admin's reset hands out (`accounts.links.set_password_path`).
    path(
        "set-password/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            template_name="registration/password_set.html", success_url=reverse_lazy("password_set_done"),
            post_reset_login=False, token_generator=set_password_tokens,
        ),
        name="password_set",
    ),
    path(
        "set-password/done/",
        auth_views.PasswordResetCompleteView.as_view(template_name="registration/password_set_done.html"),
        name="password_set_done",
    ),
]
if settings.OIDC_ENABLED:
    urlpatterns.append(path("oidc/", include("mozilla_django_oidc.urls")))
