"""A Chinese case in a real browser: found by Chinese words, its marks on the characters they name past an
emoji and an Extension B ideograph, and its text drawn in glyphs rather than empty boxes."""

from __future__ import annotations

import pytest

from reviewconsole.accounts.roles import Role
from reviewconsole.intake.models import Case
from reviewconsole.intake.services import case_submit, client_create
from reviewconsole.intake.tasks import verify_case
from tests.browser.session import sign_in
from tests.personas import _user_with
from tests.reviewconsole.review.conftest import (
    TRAVEL_CASE,
    TRAVEL_CLAIMS,
    TRAVEL_EVIDENCE,
    escalate_case,
    refund_case,
    travel_record,
)
from verification import Case as Submission

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

@pytest.fixture
def travel(db, monkeypatch) -> Case:
    """The Chinese travel answer, escalated with the claims and evidence spans travel_record() stores,
    beside the English refund case."""
    client = client_create(name="travel-assistant")[0]
    escalate_case(client, refund_case())
    monkeypatch.setattr("reviewconsole.intake.services.run_engine", lambda case, **options: travel_record())
    case, _ = case_submit(client=client, submission=Submission.model_validate(TRAVEL_CASE))
    verify_case.apply(args=(case.pk,))
    return case


def _glyphs(page, container: str, characters: str) -> list[tuple[bytes, float]]:
    """A screenshot of each character drawn on its own inside `container`, in the font the page gives it,
    and its width in ems."""
    page.locator(container).evaluate(
        """(container, characters) => {
            const probe = document.createElement("span");
            probe.id = "glyph-probe";
            for (const character of characters) {
                const one = document.createElement("span");
                one.textContent = character;
                probe.append(one);
            }
            container.append(probe);
        }""",
        list(characters),
    )
    em = float(page.locator(container).evaluate("container => parseFloat(getComputedStyle(container).fontSize)"))
    return [(one.screenshot(), one.bounding_box()["width"] / em) for one in page.locator("#glyph-probe > span").all()]


def test_a_chinese_case_is_found_by_chinese_words_and_marked_on_its_characters(page, travel, tmp_path):
    _user_with("rita", Role.REVIEWER)
    sign_in(page, "rita")
    page.goto("/review/")

    # Two words typed together, as Chinese is written; the answer holds them apart ("西湖会放晴").
    search = page.get_by_label("Search")
    search.fill("西湖放晴")
    search.press("Enter")
    page.wait_for_url("**/review/?*q=*")
    page.locator("#queue-results").get_by_text("1 of 1 open case").wait_for()
    assert page.locator("[data-queue-row] a.open-case").all_inner_texts() == [f"#{travel.pk}"]
    assert "明天下午去西湖" in page.locator("[data-queue-row]").inner_text()

    page.locator("[data-queue-row] a.open-case").click()
    page.wait_for_url(f"**/review/cases/{travel.pk}/")

    # Each claim's mark holds exactly its words: the emoji before the first stays outside it.
    assert [page.locator(f"#text-claim-{n}").inner_text() for n in range(2)] == list(TRAVEL_CLAIMS)
    before_first = page.locator("#text-claim-0").evaluate("mark => mark.closest('a').previousSibling.textContent")
    assert before_first == "好消息😀"
    # The evidence mark holds the museum's hours, past the emoji and the Extension B ideograph before it.
    evidence = page.locator("p.source-text mark")
    assert evidence.all_inner_texts() == [TRAVEL_EVIDENCE]
    assert evidence.evaluate("mark => mark.closest('a').previousSibling.textContent") == "📍𠮷祥路旁："

    # The Chinese is drawn in glyphs, each a square a full em wide; with no CJK font every character would
    # be the same narrow missing-glyph box.
    page.locator("p.answer").screenshot(path=str(tmp_path / "chinese-answer.png"))
    glyphs = _glyphs(page, "p.answer", "西湖放晴博物馆")
    distinct = len({picture for picture, _width in glyphs})
    assert distinct == len(glyphs), "characters drawn alike: missing-glyph boxes"
    assert all(width > 0.9 for _picture, width in glyphs), [width for _picture, width in glyphs]
