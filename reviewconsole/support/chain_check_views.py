"""The audit chain checked from the console: a support lead starts a check (a worker runs it) and reads what
it found. Thin: call the audit app's service, render."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from reviewconsole.audit.chain_checks import chain_check_request
from reviewconsole.audit.models import ChainCheck
from reviewconsole.htmx import HtmxHttpRequest
from reviewconsole.support.views import support_lead_required

CHECKS_SHOWN = 50


@require_GET
@support_lead_required
def chain_checks(request: HtmxHttpRequest) -> HttpResponse:
    recent = ChainCheck.objects.select_related("requested_by")[:CHECKS_SHOWN]
    return render(request, "audit/chain_checks.html", {"checks": recent})


@require_POST
@support_lead_required
def chain_check_start(request: HtmxHttpRequest) -> HttpResponse:
    check = chain_check_request(requested_by=request.user)
    messages.info(request, f"Chain check {check.pk} is queued: a worker checks every event and tree head.")
    return redirect("audit:chain_check", check_id=check.pk)


@require_GET
@support_lead_required
@vary_on_headers("HX-Request")
def chain_check_detail(request: HtmxHttpRequest, check_id: int) -> HttpResponse:
    """The check's result; while a worker runs it, the page polls its result fragment."""
    check = get_object_or_404(ChainCheck.objects.select_related("requested_by"), pk=check_id)
    template = "audit/chain_check.html#result" if request.htmx else "audit/chain_check.html"
    return render(request, template, {"check": check})
