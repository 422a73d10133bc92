"""Commenting on a claim (review/comments.py says who sees which): by whoever may label the case now
(labels.may_label: the holder, or a review lead adjudicating). Audited."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction

from reviewconsole.intake.models import Claim
from reviewconsole.review import audit_events, labels
from reviewconsole.review.models import ClaimComment, Escalation

COMMENT_MAX_CHARS = 1000


class CommentRefused(Exception):
    """A comment that was not stored; `status_code` 400 for what the reviewer typed, 409 for the case's state."""

    def __init__(self, message: str, *, status_code: int = 409):
        super().__init__(message)
        self.status_code = status_code


def comment_text_error(text: str) -> str | None:
    """Why `text` cannot be a comment, naming the field; None when it can."""
    if not text.strip():
        return "comment: write something first."
    if len(text) > COMMENT_MAX_CHARS:
        return f"comment: at most {COMMENT_MAX_CHARS} characters ({len(text)} written)."
    return None


def claim_comment_add(*, escalation: Escalation, claim: Claim, author: User, text: str, now: datetime) -> ClaimComment:
    problem = comment_text_error(text)
    if problem:
        raise CommentRefused(problem, status_code=400)
    with transaction.atomic():
        # The same lock as a label's: a comment is not written on a case someone else has just taken.
        locked = Escalation.objects.select_for_update(of=("self",)).get(pk=escalation.pk)
        if claim.candidate.case_id != locked.case_id:
            raise CommentRefused(f"That claim belongs to case {claim.candidate.case_id}, not to case {locked.case_id}.")
        if not labels.may_label(locked, author, now):
            raise CommentRefused("Claim this case first: comments on its claims are for the reviewer who holds it.")
        comment = ClaimComment.objects.create(claim=claim, case_id=locked.case_id, author=author, text=text.strip())
        audit_events.claim_commented(comment=comment)
        return comment
