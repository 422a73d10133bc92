"""Comments on one claim, and undoing a label or a decision, from the case page. Thin: validate, call the
service, render.

With htmx a comment swaps the claim's comment block in place; without JavaScript the form posts and the
case page comes back at the claim. A decision's undo is a plain form: the page that follows is the case,
open again.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from reviewconsole.htmx import HtmxHttpRequest
from reviewconsole.intake.models import Claim
from reviewconsole.review import comments, double_review, label_views, labels, services, views
from reviewconsole.review.access import escalation_for_reviewer, reviewer_required
from reviewconsole.review.marking import claim_anchor
from reviewconsole.review.models import Escalation


@require_POST
@reviewer_required
def claim_comment(request: HtmxHttpRequest, case_id: int, claim_pk: int) -> HttpResponse:
    escalation = escalation_for_reviewer(case_id)
    claim = get_object_or_404(Claim.objects.select_related("candidate"), pk=claim_pk)
    text = request.POST.get("comment", "")
    try:
        services.claim_comment_add(escalation=escalation, claim=claim, author=request.user, text=text,
                                   now=timezone.now())
    except services.CommentRefused as refused:
        if not request.htmx:
            return views._render_case(request, escalation, error=f"Your comment was not saved: {refused}",
                                      status=refused.status_code)
        return _comments_response(request, escalation, claim, error=str(refused), text=text,
                                  status=refused.status_code)
    if not request.htmx:
        return redirect(f"{reverse('review:case', args=[case_id])}#{claim_anchor(claim)}")
    return _comments_response(request, escalation, claim)


def _comments_response(request: HtmxHttpRequest, escalation: Escalation, claim: Claim, *, error: str = "",
                       text: str = "", status: int = 200) -> HttpResponse:
    """The claim's comment block, as the case page shows it to this viewer."""
    blind = labels.escalation_blind_remaining(escalation, request.user) > 0
    visible = comments.comments_by_claim_id(
        escalation.case_id, viewer=request.user, others_hidden=blind or double_review.is_independent(escalation),
    )
    context = {
        "case_id": escalation.case_id, "claim": claim, "anchor": claim_anchor(claim),
        "comments": visible.get(claim.claim_id, []), "shown_candidate": claim.candidate,
        "can_comment": labels.may_label(escalation, request.user, timezone.now()),
        "comment_error": error, "comment_text": text, "comment_open": bool(error),
    }
    return HttpResponse(render_to_string("review/_claim_comments.html", context, request=request), status=status)


@require_POST
@reviewer_required
def label_undo(request: HtmxHttpRequest, case_id: int, claim_pk: int) -> HttpResponse:
    escalation = escalation_for_reviewer(case_id)
    claim = get_object_or_404(Claim.objects.select_related("candidate"), pk=claim_pk)
    try:
        services.claim_label_undo(escalation=escalation, claim=claim, reviewer=request.user, now=timezone.now())
    except services.LabelRefused as refused:
        return label_views._refused(request, escalation, claim, refused)
    if not request.htmx:
        return redirect(f"{reverse('review:case', args=[case_id])}#{claim_anchor(claim)}")
    return label_views._cell_response(
        request, escalation, claim, blind_remaining=labels.escalation_blind_remaining(escalation, request.user)
    )


@require_POST
@reviewer_required
def decision_undo(request: HtmxHttpRequest, case_id: int) -> HttpResponse:
    escalation_for_reviewer(case_id)
    try:
        services.decision_undo(case_id=case_id, reviewer=request.user, now=timezone.now())
    except services.UndoRefused as refused:
        messages.error(request, f"Not undone: {refused}")
        return redirect("review:case", case_id=case_id)
    messages.success(request, f"Your decision on case {case_id} is undone: the case is open again, and yours.")
    return redirect("review:case", case_id=case_id)
