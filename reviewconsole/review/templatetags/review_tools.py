"""Template tags for the reviewer's tools that several pages show: their progress today, the undo bar of
their last decision, comments beside a claim, and times spent as words."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django import template
from django.conf import settings
from django.utils import timezone

from reviewconsole.review.progress import reviewer_progress
from reviewconsole.review.undo import undo_offer

register = template.Library()


@register.inclusion_tag("review/_progress.html", takes_context=True)
def progress_strip(context: dict[str, Any]) -> dict[str, Any]:
    """The signed-in reviewer's day: decided today, left in their queue, median time per case."""
    user = context["request"].user
    return {"progress": reviewer_progress(reviewer=user, now=timezone.now()), "is_lead": "review lead" in
            context.get("user_roles", ())}


@register.inclusion_tag("review/_undo_bar.html", takes_context=True)
def undo_bar(context: dict[str, Any]) -> dict[str, Any]:
    """The signed-in reviewer's last decision, with its undo button, while its window is open."""
    request = context["request"]
    return {"offer": undo_offer(reviewer=request.user, now=timezone.now()), "csrf_token": context.get("csrf_token")}


@register.simple_tag
def undo_seconds() -> int:
    """The undo window, for the keys dialog."""
    return settings.REVIEW_UNDO_SECONDS


@register.filter
def seconds_left(until: datetime) -> str:
    """Seconds from now until `until` (0 once past): how long the page keeps an undo offer on screen. A
    duration rather than a time, so a browser whose clock is off still takes it away when the server would."""
    return f"{max(0.0, (until - timezone.now()).total_seconds()):.1f}"  # a dot whatever the locale


@register.filter
def comments_for(comments: dict[str, list[Any]], claim: Any) -> list[Any]:
    """The comments on `claim` (by its stable id) out of a case's comments by claim id."""
    return comments.get(claim.claim_id, [])


@register.filter
def duration(seconds: int | None) -> str:
    """Seconds as a reviewer reads a time: "45 s", "3 min 05 s", "1 h 02 min"; "—" when unknown."""
    if seconds is None:
        return "—"
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s"
    return f"{secs} s"
