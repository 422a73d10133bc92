"""Publishing a draft, the same for constitutions and rubrics."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.utils import timezone

from reviewconsole.policy import services
from reviewconsole.policy.models import DocumentVersion
from reviewconsole.review.htmx import HtmxHttpRequest


def publish(request: HtmxHttpRequest, version: DocumentVersion, done: HttpResponse) -> HttpResponse:
    try:
        version = services.version_publish(version=version, actor=request.user, now=timezone.now())
    except services.PolicyRefused as refused:
        messages.error(request, str(refused))
        return done
    messages.success(request, f"{version.label} is now in force.")
    return done
