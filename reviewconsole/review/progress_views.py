"""A review lead's view of the team's day: per person, the cases decided today, those held now, and the
median time a case took; and a reviewer's own day (progress and the undo bar), fetched by the queue and
case pages."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from reviewconsole.htmx import HtmxHttpRequest
from reviewconsole.review.access import lead_required, reviewer_required
from reviewconsole.review.progress import team_progress


@require_GET
@lead_required
def team(request: HtmxHttpRequest) -> HttpResponse:
    now = timezone.now()
    return render(request, "review/team.html", {"team": team_progress(now=now), "now": now})


@require_GET
@reviewer_required
@vary_on_headers("HX-Request")
def my_day(request: HtmxHttpRequest) -> HttpResponse:
    """The undo bar of the reviewer's last decision and (unless `?undo=1`) their progress today, fetched by
    the queue and case pages after they load, so that those pages keep to their own few queries."""
    if not request.htmx:
        return redirect("review:my_decisions")
    return render(request, "review/_my_day.html", {"undo_only": request.GET.get("undo") == "1"})
