"""The page for an error no view handled. A database that does not answer (a restart, a failover) is not
a fault of the console's: it is a 503 the browser may retry, not the 500 page."""

from __future__ import annotations

import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.template import loader
from django.views import defaults
from django.views.decorators.csrf import requires_csrf_token

DATABASE_RETRY_SECONDS = 5
"""Retry-After when the database does not answer: long enough for a restart, short enough to wait out."""


@requires_csrf_token
def server_error(request: HttpRequest, template_name: str = defaults.ERROR_500_TEMPLATE_NAME) -> HttpResponse:
    # Django calls the handler inside its `except`, with the exception still being handled.
    if isinstance(sys.exc_info()[1], (OperationalError, InterfaceError)):
        # Rendered without the request: its context processors would ask the database again.
        response = HttpResponse(loader.get_template("503.html").render(), status=503)
        response["Retry-After"] = str(DATABASE_RETRY_SECONDS)
        return response
    return defaults.server_error(request, template_name)
