"""Claim diffs by claim id, and highlights that escape every piece of text."""

from __future__ import annotations

from reviewconsole.intake.models import Claim
from reviewconsole.review.diff import ChangeKind, claim_diff
from reviewconsole.review.highlight import Span, highlight


def _claim(claim_id: str, text: str, state: str) -> Claim:
    return Claim(claim_id=claim_id, text=text, state=state, start=0, end=len(text))


def test_diff_matches_claims_by_id_and_reports_state_transitions():
    old = [_claim("k1", "Refunds within 60 days.", "REFUTED"), _claim("k2", "Paid in 5 days.", "SUPPORTED"),
           _claim("k3", "Ships free.", "INSUFFICIENT_EVIDENCE")]
    new = [_claim("k1", "Refunds within 30 days.", "SUPPORTED"), _claim("k2", "Paid in 5 days.", "SUPPORTED"),
           _claim("k4", "Call us.", "NOT_VERIFIABLE")]

    changes = {change.claim_id: change for change in claim_diff(old, new)}

    assert changes["k1"].kind is ChangeKind.CHANGED and changes["k1"].state_transition == ("REFUTED", "SUPPORTED")
    assert changes["k2"].kind is ChangeKind.UNCHANGED and changes["k2"].state_transition is None
    assert changes["k3"].kind is ChangeKind.REMOVED and changes["k3"].new is None
    assert changes["k4"].kind is ChangeKind.ADDED and changes["k4"].old is None
    assert [change.claim_id for change in claim_diff(old, new)] == ["k1", "k2", "k4", "k3"]


def test_highlight_escapes_text_and_labels():
    text = "a <b>bold</b> & <script>x()</script> end"
    html = highlight(text, [Span(2, 13, "ev-0-0", "REFUTED", 'say "<hi>"', href="#claim-0", badge=True)])

    assert str(html) == (
        'a <a class="mark-link" href="#claim-0"><mark id="ev-0-0" class="state-refuted" '
        'title="say &quot;&lt;hi&gt;&quot;">&lt;b&gt;bold&lt;/b&gt;</mark>'
        '<span class="state state-refuted">say &quot;&lt;hi&gt;&quot;</span></a>'
        " &amp; &lt;script&gt;x()&lt;/script&gt; end"
    )


def test_overlapping_and_stale_spans_never_nest_or_overflow():
    text = "0123456789"
    html = str(highlight(text, [Span(2, 6, "a", "SUPPORTED", "s"), Span(4, 8, "b", "REFUTED", "r"),
                                Span(3, 5, "c", "REFUTED", "r"), Span(8, 99, "d", "SUPPORTED", "s"),
                                Span(50, 60, "e", "SUPPORTED", "s")]))

    assert html == (
        '01<mark id="a" class="state-supported" title="s">2345</mark>'
        '<mark id="b" class="state-refuted" title="r">67</mark>'
        '<mark id="d" class="state-supported" title="s">89</mark>'
    )
