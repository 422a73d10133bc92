"""The guidelines' Markdown as sanitised HTML, for the policy editor's preview and the case page's panel."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from reviewconsole.policy.guidelines import guidelines_html

register = template.Library()


@register.filter
def guidelines_markdown(text: str) -> SafeString:
    return guidelines_html(text or "")
