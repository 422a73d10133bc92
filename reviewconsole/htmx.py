"""The request type of htmx-aware views, so `request.htmx` type-checks (django-htmx's recommendation)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails
    user: User
