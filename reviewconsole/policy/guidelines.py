"""Reviewer guidelines of a constitution: what to check and examples, written by a policy admin and shown
to reviewers on the case page of every case that pinned a version of it.

The guidelines are for people, not the engine: a run never reads them, so they are one text per
constitution, outside its immutable versions and their content hash. Each save is a "policy.changed"
audit event that holds the whole new text, so the log is its history.

They are written in Markdown (CommonMark, with tables and strikethrough) and shown as HTML: markdown-it-py
renders them with raw HTML turned off, and nh3 (the Rust ammonia sanitiser) keeps only the tags and link
schemes listed here, so a policy admin's text can format a page but never run script in a reviewer's.
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache

import nh3
from django.contrib.auth.models import User
from django.db import transaction
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

from reviewconsole.audit.actions import AuditAction
from reviewconsole.audit.services import audit_record
from reviewconsole.policy.models import NamedConstitution
from reviewconsole.policy.versioning import content_sha256

GUIDELINES_MAX_CHARS = 10_000

_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
# What Markdown writes, less images: an image from elsewhere is refused by the Content-Security-Policy.
_ALLOWED_TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "del", "s", "code", "pre",
    "blockquote", "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td",
}


@lru_cache(maxsize=64)
def guidelines_html(text: str) -> SafeString:
    """The guidelines' Markdown as sanitised HTML (cached: the same text is shown on every case it pins)."""
    html = _MARKDOWN.render(text)
    # markdown-it aligns table columns with a style attribute, which the CSP would refuse: dropped.
    html = nh3.clean(
        html, tags=_ALLOWED_TAGS, attributes={"a": {"href", "title"}, "ol": {"start"}},
        url_schemes={"http", "https", "mailto"}, link_rel="noopener noreferrer",
    )
    return mark_safe(html)  # sanitised by nh3 just above


class GuidelinesRefused(Exception):
    """Guidelines text that was not saved; the message names the field."""


def guidelines_error(text: str) -> str | None:
    """Why `text` cannot be saved as guidelines; None when it can (empty clears them)."""
    if len(text) > GUIDELINES_MAX_CHARS:
        return f"guidelines: at most {GUIDELINES_MAX_CHARS:,} characters ({len(text):,} written)."
    return None


def constitution_guidelines_set(
    *, document: NamedConstitution, text: str, actor: User, now: datetime
) -> NamedConstitution:
    """Replace the constitution's guidelines (an empty text removes them); unchanged text writes nothing."""
    # Line endings as the browser sends them (CRLF) would make the same text differ from itself.
    text = text.replace("\r\n", "\n").strip()
    problem = guidelines_error(text)
    if problem:
        raise GuidelinesRefused(problem)
    with transaction.atomic():
        document = NamedConstitution.objects.select_for_update().get(pk=document.pk)
        if document.guidelines == text:
            return document
        before = document.guidelines
        document.guidelines, document.guidelines_updated_at, document.guidelines_updated_by = text, now, actor
        document.save(update_fields=["guidelines", "guidelines_updated_at", "guidelines_updated_by"])
        audit_record(
            actor=actor, action=AuditAction.POLICY_CHANGED, object_type="NamedConstitution", object_id=document.pk,
            payload={"change": "guidelines saved", "name": document.name,
                     "before": content_sha256({"guidelines": before}), "after": content_sha256({"guidelines": text}),
                     "guidelines": text},
        )
        return document
