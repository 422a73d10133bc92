"""Publishing a draft, the same for constitutions and rubrics: a confirm page first, then the POST that confirms.

The confirm page shows what would change against the version in force, so nobody puts a draft in force
from a button pressed by mistake; a POST without `confirm` only shows that page again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone

from reviewconsole.htmx import HtmxHttpRequest
from reviewconsole.policy import services
from reviewconsole.policy.diff import VersionDiff
from reviewconsole.policy.models import AnyVersion, VersionStatus

CONFIRM = "yes"
ContentDiff = Callable[[dict[str, Any], dict[str, Any]], VersionDiff]


def publish(
    request: HtmxHttpRequest, version: AnyVersion, *, diff: ContentDiff, version_url: str, publish_url: str,
    item_label: str,
) -> HttpResponse:
    done = redirect(version_url, name=version.document.name, number=version.number)
    if request.method == "POST" and request.POST.get("confirm") == CONFIRM:
        try:
            version = services.version_publish(version=version, actor=request.user, now=timezone.now())
        except services.PolicyRefused as refused:
            messages.error(request, str(refused))
            return done
        messages.success(request, f"{version.label} is now in force.")
        return done
    in_force = type(version).objects.filter(document=version.document, status=VersionStatus.PUBLISHED).first()
    return render(request, "policy/publish_confirm.html", {
        "version": version, "in_force": in_force, "confirm": CONFIRM,
        "diff": diff(in_force.content, version.content) if in_force is not None else None,
        "version_url": version_url, "publish_url": publish_url, "item_label": item_label,
    })
