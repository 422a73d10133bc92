"""Who may open the review console: signed-in reviewers. Anonymous users sign in; other roles get 403."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404

from reviewconsole.accounts.roles import Role, has_role
from reviewconsole.review.models import Escalation


def reviewer_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Send anonymous users to sign in and refuse signed-in users without the reviewer role."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not has_role(request.user, Role.REVIEWER):
            raise PermissionDenied("the review console is for reviewers")
        return view(request, *args, **kwargs)

    return wrapped


def escalation_for_reviewer(case_id: int) -> Escalation:
    """The escalation of a case a reviewer may see: any case that was sent to the review queue.

    A case that never needed a person (released or rejected by the engine without a spot check) is
    not part of the console, so it answers 404 rather than leaking that it exists.
    """
    queryset = Escalation.objects.select_related("case__client", "assignee")
    return get_object_or_404(queryset, case_id=case_id)
