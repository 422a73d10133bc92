"""The page for an error no view handled. A database that does not answer (a restart, a failover) is not
a fault of the console's: it is a 503 the browser may retry, not the 500 page. A row that is not there
is a 404 in the console's words, never the name of the model that was looked up."""

from __future__ import annotations

import re
import sys

from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse
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


# Django's get_object_or_404 says "No Escalation matches the given query.": the model's class name, which
# means nothing to a reviewer. Each model a page looks up reads as what its page calls it.
_MODEL_NOT_FOUND = re.compile(r"No (?P<model>\w+) matches the given query\.")
_NOT_FOUND_WORDS: dict[str, str] = {
    "Escalation": "case in review",
    "Claim": "claim",
    "User": "person",
    "Client": "API client",
    "WebhookDelivery": "webhook delivery",
    "NamedConstitution": "constitution",
    "ConstitutionVersion": "version of this constitution",
    "Rubric": "critic rubric",
    "RubricVersion": "version of this rubric",
    "CalibrationRun": "calibration run",
    "AuditExport": "export",
    "ChainCheck": "chain check",
}
"""What a person calls each row a page can look up and not find, by the model's class name."""


def _not_found_reason(message: str) -> str:
    """The reason a 404 page gives: a view's own words as they are, Django's lookup message in the console's."""
    match = _MODEL_NOT_FOUND.fullmatch(message)
    if match is None:
        return message
    words = _NOT_FOUND_WORDS.get(match["model"])
    return f"there is no {words} at this address." if words else "there is nothing at this address."


@requires_csrf_token
def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    message = exception.args[0] if exception.args else None
    if isinstance(message, str):
        exception = Http404(_not_found_reason(message))
    return defaults.page_not_found(request, exception)
