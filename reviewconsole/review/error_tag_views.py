"""Tagging a kind of error on a claim or the answer, from the case page. Thin: validate, call the service,
render. With htmx the tags swap in place; without JavaScript the case page comes back at the claim."""

from __future__ import annotations

from dataclasses import replace

from django import forms
from django.http import HttpResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from reviewconsole.htmx import HtmxHttpRequest
from reviewconsole.intake.models import Candidate, Claim
from reviewconsole.review import error_tags, labels, services, views
from reviewconsole.review.access import escalation_for_reviewer, reviewer_required
from reviewconsole.review.marking import claim_anchor
from reviewconsole.review.models import Escalation


class ErrorTagForm(forms.Form):
    candidate = forms.IntegerField(min_value=1, error_messages={"required": "candidate: required",
                                                                "invalid": "candidate: a version's number"})
    claim = forms.IntegerField(required=False, min_value=1, error_messages={"invalid": "claim: a claim's number"})
    kind = forms.CharField(max_length=40, error_messages={"required": "kind: choose a kind of error"})


@require_POST
@reviewer_required
def error_tag(request: HtmxHttpRequest, case_id: int) -> HttpResponse:
    escalation = escalation_for_reviewer(case_id)
    form = ErrorTagForm(request.POST)
    if not form.is_valid():
        message = " ".join(str(error) for errors in form.errors.values() for error in errors)
        return _refused(request, escalation, None, None, message, 400)
    data = form.cleaned_data
    candidate = Candidate.objects.filter(pk=data["candidate"], case_id=case_id).first()
    claim = Claim.objects.filter(pk=data["claim"], candidate=candidate).first() if data["claim"] else None
    if candidate is None or (data["claim"] and claim is None):
        return _refused(request, escalation, candidate, None, "candidate or claim: not one of this case's.", 400)
    try:
        services.error_tag_toggle(escalation=escalation, candidate=candidate, claim=claim, kind=data["kind"],
                                  reviewer=request.user, now=timezone.now())
    except services.TagRefused as refused:
        return _refused(request, escalation, candidate, claim, str(refused), refused.status_code)
    if not request.htmx:
        anchor = claim_anchor(claim) if claim is not None else "current"
        return redirect(f"{reverse('review:case', args=[case_id])}#{anchor}")
    return _tags_response(request, escalation, candidate, claim)


def _refused(request: HtmxHttpRequest, escalation: Escalation, candidate: Candidate | None, claim: Claim | None,
             message: str, status: int) -> HttpResponse:
    if not request.htmx or candidate is None:
        return views._render_case(request, escalation, error=f"The error tag was not changed: {message}",
                                  status=status)
    return _tags_response(request, escalation, candidate, claim, error=message, status=status)


def _tags_response(request: HtmxHttpRequest, escalation: Escalation, candidate: Candidate, claim: Claim | None, *,
                   error: str = "", status: int = 200) -> HttpResponse:
    """The tags of the claim (or answer) just tagged, as the case page shows them, the menu left open."""
    claims = [(claim.pk, claim_anchor(claim))] if claim is not None else []
    cells = error_tags.tag_cells(
        escalation=escalation, candidate_pk=candidate.pk, claims=claims, viewer=request.user,
        can_tag=labels.may_label(escalation, request.user, timezone.now()), tags=error_tags.tags_of(escalation.case_id),
        taxonomy=error_tags.case_taxonomy(escalation.case),
    )
    cell = cells[claim.pk if claim is not None else None]
    if error:
        cell = replace(cell, error=error)
    html = render_to_string("review/_error_tags.html", {"tags": cell, "open": True}, request=request)
    return HttpResponse(html, status=status)
