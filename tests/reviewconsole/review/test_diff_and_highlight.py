"""Claim diffs that pair claims by what they say, and highlights that escape every piece of text."""

from __future__ import annotations

from reviewconsole.intake.models import Claim
from reviewconsole.review.diff import ChangeKind, TextChange, claim_diff, text_changes
from reviewconsole.review.highlight import Span, highlight


def _claim(claim_id: str, text: str, state: str) -> Claim:
    return Claim(claim_id=claim_id, text=text, state=state, start=0, end=len(text))


def test_diff_pairs_claims_by_content_and_reports_state_transitions():
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


def test_a_claim_put_in_front_does_not_turn_every_claim_after_it_into_a_change():
    # A reviewer's edit is verified by a fresh run, which numbers its claims from k1 again: the same id
    # names a different claim in each version.
    old = [_claim("k1", "Refunds within 60 days of purchase.", "REFUTED"),
           _claim("k2", "Refunds are paid in 5 to 10 business days.", "SUPPORTED")]
    new = [_claim("k1", "Thank you for buying the annual plan.", "NOT_VERIFIABLE"),
           _claim("k2", "Refunds within 30 days of purchase.", "SUPPORTED"),
           _claim("k3", "Refunds are paid in 5 to 10 business days.", "SUPPORTED")]

    changes = claim_diff(old, new)

    assert [(c.kind, c.old and c.old.text, c.new and c.new.text) for c in changes] == [
        (ChangeKind.ADDED, None, "Thank you for buying the annual plan."),
        (ChangeKind.CHANGED, "Refunds within 60 days of purchase.", "Refunds within 30 days of purchase."),
        (ChangeKind.UNCHANGED, "Refunds are paid in 5 to 10 business days.",
         "Refunds are paid in 5 to 10 business days."),
    ]
    assert (changes[1].claim_id, changes[1].old_claim_id) == ("k2", "k1")
    assert str(changes[1].word_diff) == "Refunds within <del>60</del> <ins>30</ins> days of purchase."


def test_unrelated_claims_at_the_same_place_are_a_removal_and_an_addition():
    old = [_claim("k1", "The Team plan costs $20 per user per month.", "SUPPORTED")]
    new = [_claim("k1", "Phone support is included.", "SUPPORTED")]

    assert [(c.kind, c.claim_id) for c in claim_diff(old, new)] == [
        (ChangeKind.ADDED, "k1"), (ChangeKind.REMOVED, "k1")
    ]


def test_word_diff_escapes_the_words_it_marks():
    old = _claim("k1", "Refunds <b>never</b> & within 60 days.", "REFUTED")
    new = _claim("k1", "Refunds <i>always</i> & within 60 days.", "SUPPORTED")

    (change,) = claim_diff([old], [new])

    assert str(change.word_diff) == (
        "Refunds <del>&lt;b&gt;never&lt;/b&gt;</del> <ins>&lt;i&gt;always&lt;/i&gt;</ins> &amp; within 60 days."
    )


def test_a_rewritten_chinese_claim_is_one_claim_changed_by_the_characters_it_changed():
    # Chinese has no spaces: taken as one word, the rewrite would be a claim removed and another added.
    old = _claim("k2", "茶叶博物馆晚上 9 点关门", "REFUTED")
    new = _claim("k2", "茶叶博物馆下午 5 点关门", "SUPPORTED")
    weather = _claim("k1", "明天下午西湖会放晴", "INSUFFICIENT_EVIDENCE")

    changes = claim_diff([weather, old], [new])

    assert [(change.kind, change.claim.text) for change in changes] == [
        (ChangeKind.CHANGED, new.text), (ChangeKind.REMOVED, weather.text),
    ]
    # The characters stay written together, the spaces the text has stay where it has them.
    assert str(changes[0].word_diff) == "茶叶博物馆<del>晚上 9</del><ins>下午 5</ins> 点关门"


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


def test_text_outside_the_claims_that_a_repair_adds_or_drops_is_a_change():
    old_text = "Hi Sam! Refunds within 60 days."
    new_text = "Hi Sam! Refunds within 30 days. I could not find anything more on this in our documentation."
    old = [Claim(claim_id="k1", text="Refunds within 60 days.", state="REFUTED", start=8, end=31)]
    new = [Claim(claim_id="k1", text="Refunds within 30 days.", state="SUPPORTED", start=8, end=31)]

    assert text_changes(old_text, old, new_text, new) == [
        TextChange(ChangeKind.ADDED, "I could not find anything more on this in our documentation.")
    ]
    assert text_changes(new_text, new, old_text, old) == [
        TextChange(ChangeKind.REMOVED, "I could not find anything more on this in our documentation.")
    ]
    assert text_changes(old_text, old, old_text, old) == []
