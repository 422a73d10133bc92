"""Reviewer guidelines are Markdown: rendered and sanitised for the case page, previewed in the editor."""

from __future__ import annotations

import pytest

from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.services import client_create
from reviewconsole.policy.guidelines import guidelines_html
from reviewconsole.policy.models import NamedConstitution
from tests.reviewconsole.review.conftest import escalate_case, refund_case

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
URL = "/policy/constitutions/default/guidelines"
GUIDELINES = """## Refunds

Check **every** refund period against *the plan's terms*:

1. annual plans: 30 days
2. monthly plans: 14 days

See [the policy](https://example.com/refunds) and `REFUND-30`.
"""


def test_markdown_becomes_html_a_reviewer_reads():
    html = guidelines_html(GUIDELINES)

    assert "<h2>Refunds</h2>" in html and "<strong>every</strong>" in html and "<em>the plan's terms</em>" in html
    assert "<ol>\n<li>annual plans: 30 days</li>" in html and "<code>REFUND-30</code>" in html
    assert '<a href="https://example.com/refunds" rel="noopener noreferrer">the policy</a>' in html
    assert "**" not in html and "##" not in html


@pytest.mark.parametrize("markdown, kept, dropped", [
    ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;", "<script"),
    ('<img src=x onerror="alert(1)">', "&lt;img src=x", "<img"),
    ("[click](javascript:alert(1))", "[click](javascript:alert(1))", 'href="javascript'),
    ("![logo](https://example.com/logo.png)", "", "<img"),  # the CSP would refuse an image from elsewhere
    ("| a | b |\n|--:|---|\n| 1 | 2 |", "<td>1</td>", "style="),  # aligned columns carry an inline style
])
def test_markup_that_could_run_or_break_the_policy_is_shown_as_text_or_left_out(markdown, kept, dropped):
    html = guidelines_html(markdown)

    assert kept in html and dropped not in html


def test_the_case_page_shows_the_guidelines_rendered(client, reviewer):
    case = escalate_case(client_create(name="support-bot")[0], refund_case())
    NamedConstitution.objects.filter(pk=case.constitution_pin.document_id).update(guidelines=GUIDELINES)
    client.force_login(reviewer)

    html = client.get(f"/review/cases/{case.pk}/").content.decode()

    assert '<div class="guidelines-text" id="guidelines-text"><h2>Refunds</h2>' in html
    assert "<li>annual plans: 30 days</li>" in html and "**every**" not in html


def test_the_editor_previews_without_saving(client, reviewer, policy_admin):
    client.force_login(reviewer)
    assert client.post(URL, {"guidelines": "# x", "preview": "1"}, **HTMX).status_code == 403
    client.force_login(policy_admin)

    fragment = client.post(URL, {"guidelines": GUIDELINES, "preview": "1"}, **HTMX)
    page = client.post(URL, {"guidelines": GUIDELINES, "preview": "1"})  # the Preview button, without script

    body = fragment.content.decode()
    assert fragment.status_code == 200 and body.startswith('<div class="guidelines-text guidelines-preview"')
    assert "<h2>Refunds</h2>" in body and "<html" not in body
    html = page.content.decode()
    assert page.status_code == 200 and 'id="guidelines-preview"' in html and "<h2>Refunds</h2>" in html
    assert "## Refunds" in html  # the text stays in the editor, unsaved
    assert not AuditEvent.objects.filter(action="policy.changed").exists()
    assert NamedConstitution.objects.filter(guidelines__contains="Refunds").count() == 0

    assert client.post(URL, {"guidelines": GUIDELINES}).status_code == 302
    editor = client.get("/policy/constitutions/default/").content.decode()
    assert '<div class="guidelines-text guidelines-preview" id="guidelines-preview"' in editor
    assert "<h2>Refunds</h2>" in editor
