"""Comments on claims: a reviewer's note attached to one claim, shown beside that claim to the reviewers
who open the case later (on every version where the claim keeps its id) and in the case's audit trail.

Written by whoever may label the case now (labels.may_label: the holder, or a review lead adjudicating).
While two reviews are independent, each viewer sees only their own comments, as with case notes (also
those of someone who held the case and handed it back without a review); on a blind spot check, other
people's comments stay hidden until the claims are labelled.

This module reads them; adding one is services/comments.py.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import User

from reviewconsole.review.models import ClaimComment


def comments_by_claim_id(
    case_id: int, *, viewer: User | None, others_hidden: bool = False
) -> dict[str, list[ClaimComment]]:
    """The case's comments the viewer may see (with `others_hidden`, only their own), by the claim's stable id
    (so a comment follows its claim into later versions), oldest first."""
    comments: Iterable[ClaimComment] = (
        ClaimComment.objects.filter(case_id=case_id).select_related("author", "claim__candidate")
        .order_by("created_at", "id")
    )
    mine = viewer.pk if viewer is not None else None
    by_claim: dict[str, list[ClaimComment]] = {}
    for comment in comments:
        if others_hidden and comment.author_id != mine:
            continue
        by_claim.setdefault(comment.claim.claim_id, []).append(comment)
    return by_claim
