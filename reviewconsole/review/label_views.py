"""Claim labels from the case page: one post per label. Thin: validate, call the service, render.

With htmx the claim's label cell is swapped in place (and, on a blind spot check, the count of claims
still to label); the label that ends a blind review reloads the page, which then shows the engine's
verdicts. Without JavaScript the form posts and the case page comes back at the claim.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRefresh

from reviewconsole.htmx import HtmxHttpRequest
from reviewconsole.intake.models import Claim
from reviewconsole.review import labels, services, views
from reviewconsole.review.access import escalation_for_reviewer, reviewer_required
from reviewconsole.review.marking import claim_anchor
from reviewconsole.review.models import ClaimLabel, Escalation, EscalationStatus


@require_POST
@reviewer_required
def claim_label(request: HtmxHttpRequest, case_id: int, claim_pk: int) -> HttpResponse:
    escalation = escalation_for_reviewer(case_id)
    claim = get_object_or_404(Claim.objects.select_related("candidate"), pk=claim_pk)
    remaining_before = labels.escalation_blind_remaining(escalation, request.user)
    try:
        services.claim_label_set(
            escalation=escalation, claim=claim, reviewer=request.user, label=request.POST.get("label", ""),
            blind=remaining_before > 0, now=timezone.now(),
        )
    except services.LabelRefused as refused:
        return _refused(request, escalation, claim, refused)
    remaining = labels.escalation_blind_remaining(escalation, request.user) if remaining_before else 0
    case_url = reverse("review:case", args=[case_id])
    if remaining_before and not remaining:
        # The last claim of a blind spot check: the whole page changes, the engine's verdicts appear.
        if request.htmx:
            return HttpResponseClientRefresh()
        messages.info(request, "Every claim is labelled: the engine's verdicts are shown below.")
        return redirect(case_url + "#current")
    if not request.htmx:
        return redirect(f"{case_url}#{claim_anchor(claim)}")
    return _cell_response(request, escalation, claim, blind_remaining=remaining)


def _refused(request: HtmxHttpRequest, escalation: Escalation, claim: Claim, refused: services.LabelRefused):
    if request.htmx:
        return _cell_response(request, escalation, claim, error=str(refused), status=refused.status_code)
    # Without JavaScript: the case page again, with why, under the status the refusal carries.
    return views._render_case(
        request, escalation, error=f"Your label was not saved: {refused}", status=refused.status_code
    )


def _cell_response(
    request: HtmxHttpRequest, escalation: Escalation, claim: Claim, *, error: str = "", blind_remaining: int = 0,
    status: int = 200,
) -> HttpResponse:
    """The claim's label cell (the post's target) and, on a blind spot check, the count still to label."""
    own_case = claim.candidate.case_id == escalation.case_id
    claim_labels = list(ClaimLabel.objects.filter(claim=claim).select_related("reviewer")) if own_case else []
    open_case = escalation.status == EscalationStatus.OPEN
    cell = labels.label_cell(
        case_id=escalation.case_id, claim=claim, anchor=claim_anchor(claim), labels=claim_labels,
        viewer=request.user, show_others=not open_case,
        can_label=labels.may_label(escalation, request.user, timezone.now()), error=error,
    )
    html = render_to_string("review/case.html#claim-label", {"cell": cell}, request=request)
    if blind_remaining:
        html += render_to_string(
            "review/case.html#blind-note",
            {"blind_remaining": blind_remaining, "blind_can_label": cell.can_label, "oob": True,
             "escalation": escalation}, request=request,
        )
    return HttpResponse(html, status=status)

