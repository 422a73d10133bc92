"""Page access by role: anonymous users are sent to sign in, signed-in users without the role get 403."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.http.response import HttpResponseBase

from reviewconsole.accounts.roles import Role, has_role

View = Callable[..., HttpResponseBase]


def role_required(*roles: Role, refusal: str) -> Callable[[View], View]:
    """A view decorator admitting only users who hold one of `roles`; `refusal` says why others are turned away."""
    if not roles:
        raise TypeError("role_required needs at least one role")

    def decorator(view: View) -> View:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not any(has_role(request.user, role) for role in roles):
                raise PermissionDenied(refusal)
            return view(request, *args, **kwargs)

        return wrapped

    return decorator
