"""One lookup puts every code a page shows into words: the `label` template filter."""

from __future__ import annotations

import pytest
from django.template import Context, Template

from reviewconsole.review.forms import RejectForm
from reviewconsole.review.reasons import CODE_LABELS, RejectReason
from verification import Origin, Reason, Severity, State, Terminal
from verification.loop.contract import Operation


def _label(code: str) -> str:
    return Template("{% load review_extras %}{{ code|label }}").render(Context({"code": code}))


CODES = [
    *(member.value for vocabulary in (Reason, Terminal, Origin, State, Severity, Operation) for member in vocabulary),
    *RejectReason.values, "reviewer_edit", "ACCEPTED", "REJECTED", "unsupported", "wrong_version", "off_question",
]


@pytest.mark.parametrize("code", CODES)
def test_every_code_the_engine_or_the_console_emits_has_a_phrase(code):
    phrase = _label(code)

    assert phrase and phrase != code and "_" not in phrase
    assert code in CODE_LABELS  # chosen, not the fallback that spells out an unknown code


def test_the_phrases_are_the_ones_people_already_read():
    assert _label("CRITICAL_CLAIM") == "Critical claim not supported"
    # The reject form's own labels, so a decision reads as the reviewer chose it.
    assert [(code, _label(code)) for code in RejectReason.values] == list(RejectForm().fields["reason_code"].choices)
    assert _label("REVIEW") == "Needs review" and _label("REVIEWER") == "Reviewer edit"


def test_an_unknown_code_reads_as_its_words_and_is_escaped():
    assert _label("SOMETHING_NEW") == "Something new"
    assert _label("<b>X_Y</b>") == "&lt;b&gt;x y&lt;/b&gt;"
    assert _label("") == "" and _label(None) == ""
