"""What a version page says: no template source shows through, and the rubric page tells who reads its
instructions as the code decides it."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from reviewconsole.policy.rubrics import BUILTIN_RUBRIC, BUILTIN_RUBRIC_NAME
from reviewconsole.policy.selectors import critic_rubric_for
from reviewconsole.policy.services import rubric_draft_save, version_publish

pytestmark = pytest.mark.django_db

RUBRIC_V1 = f"/policy/rubrics/{BUILTIN_RUBRIC_NAME}/v1/"


def _text(html: str) -> str:
    """The page as a reader sees it: tags dropped, so only text (where template source would show) is left."""
    return re.sub(r"<[^>]*>", " ", html)


@pytest.mark.parametrize("url", ["/policy/constitutions/customer-support/v1/", RUBRIC_V1])
def test_the_version_header_shows_no_template_comment(admin_client, url):
    html = admin_client.get(url).content.decode()

    assert "<h1>" in html
    assert "{#" not in _text(html) and "document_url" not in _text(html)


def test_the_rubric_page_says_the_model_critic_reads_the_published_instructions(admin_client):
    html = admin_client.get(RUBRIC_V1).content.decode()
    reads = html.split('id="critic-reads">')[1].split("</p>")[0]

    assert "built-in prompt" not in html
    assert "The model critic reads these instructions" in reads
    assert "cases judged under <strong>default</strong>" in reads and "this version." in reads
    # What the page says is what the engine gets.
    assert critic_rubric_for("default") == BUILTIN_RUBRIC.instructions
    assert "No model is configured: the offline critic runs" in reads


def test_the_rubric_page_names_the_rubric_cases_read_once_another_is_published(admin_client, policy_admin, settings):
    strict = "Flag every promise of speed."
    draft = rubric_draft_save(name="refund-critic", rubric=BUILTIN_RUBRIC.model_copy(update={"instructions": strict}),
                              author=policy_admin)
    version_publish(version=draft, actor=policy_admin, now=timezone.now())
    settings.LLM_BASE_URL, settings.LLM_MODEL = "http://model.invalid/v1", "critic-model"

    reads = admin_client.get(RUBRIC_V1).content.decode().split('id="critic-reads">')[1].split("</p>")[0]

    assert critic_rubric_for("default") == strict
    assert '<a href="/policy/rubrics/refund-critic/v1/">refund-critic v1</a>.' in reads
    assert "this version." not in reads and "No model is configured" not in reads


def test_the_version_page_shows_who_reviews_twice_and_the_review_deadline(admin_client, policy_admin):
    from reviewconsole.policy.services import constitution_draft_save
    from verification import DEFAULT_CONSTITUTION, Reason, Severity

    policy = DEFAULT_CONSTITUTION.policy.model_copy(update={
        "double_review_reasons": [Reason.CRITICAL_CLAIM], "double_review_severities": [Severity.CRITICAL],
        "review_deadline_hours": 48,
    })
    version = constitution_draft_save(
        constitution=DEFAULT_CONSTITUTION.model_copy(update={"policy": policy}), author=policy_admin, note="knobs"
    )

    page = admin_client.get(f"/policy/constitutions/default/v{version.number}/").content.decode()

    assert ('<dd id="double-review">For a case escalated for <span title="CRITICAL_CLAIM">critical claim not '
            "supported</span>, or whose most severe failing claim is critical.</dd>") in page
    assert "48 hours, then the queue marks a case overdue" in page


def _double_review_version(policy_admin, **knobs):
    from reviewconsole.policy.services import constitution_draft_save
    from verification import DEFAULT_CONSTITUTION

    policy = DEFAULT_CONSTITUTION.policy.model_copy(update=knobs)
    return constitution_draft_save(constitution=DEFAULT_CONSTITUTION.model_copy(update={"policy": policy}),
                                   author=policy_admin, note="double review")


RAW = ("policy.", "double_review_reasons", "BELOW_RELEASE_THRESHOLD", "CRITICAL_CLAIM", "spot_check_share",
       "review_deadline_hours", "<code>")


def test_the_diff_speaks_the_editor_s_words_not_field_names_or_codes(admin_client, policy_admin):
    from verification import Reason

    _double_review_version(policy_admin, double_review_reasons=[Reason.BELOW_RELEASE_THRESHOLD, Reason.CRITICAL_CLAIM],
                           spot_check_share=0.1, review_deadline_hours=24)

    diff = admin_client.get("/policy/constitutions/default/", HTTP_HX_REQUEST="true").content.decode()

    rows = {_text(row).split("  changed")[0].strip(): _text(row)
            for row in re.findall(r"<tr class.*?</tr>", diff, re.S)}
    reviews = rows["Double review: reasons whose cases need two independent reviews"]
    assert "Below the release threshold, Critical claim not supported" in reviews and "none" in reviews
    assert "the deployment&#x27;s default" in rows["Spot-check share (0 to 1)"] and "0.1" in rows[
        "Spot-check share (0 to 1)"]
    assert "no deadline" in rows["Review deadline (hours)"] and "24" in rows["Review deadline (hours)"]
    for raw in RAW:
        assert raw not in diff, raw


def test_a_version_page_says_what_changed_from_the_one_before(admin_client, policy_admin):
    from verification import Reason

    version = _double_review_version(policy_admin, double_review_reasons=[Reason.CONFLICTING_EVIDENCE])

    page = admin_client.get(f"/policy/constitutions/default/v{version.number}/").content.decode()
    first = admin_client.get("/policy/constitutions/default/v1/").content.decode()

    changes = re.search(r'<section class="card" id="changes".*?</section>', page, re.S).group(0)
    assert f"What changed from v{version.number - 1}" in changes
    assert "Double review: reasons whose cases need two independent reviews" in _text(changes)
    assert "Conflicting evidence" in changes and "CONFLICTING_EVIDENCE" not in changes
    assert "The first version of default: nothing before it to compare." in first
