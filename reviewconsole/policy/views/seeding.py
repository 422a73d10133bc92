"""Built-in constitutions and the built-in rubric exist from the first page that names one."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.http import HttpResponse
from django.utils import timezone

from reviewconsole.policy import services


def builtins_seeded(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Seed the built-ins before a view that takes a document `name` looks it up.

    The built-ins are written on first use rather than by a migration (seeding writes audit events,
    which only the running app can chain), so a bookmarked link to one must seed it too.
    """

    @wraps(view)
    def seeded(request, *args, name: str, **kwargs) -> HttpResponse:
        services.builtin_seed(name, now=timezone.now())
        return view(request, *args, name=name, **kwargs)

    return seeded
