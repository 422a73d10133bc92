"""The release gate on the console: scores beside states, held-back claims, what evidence covers, the gate line."""

from __future__ import annotations

import re

import pytest

from reviewconsole.intake.models import Claim
from tests.reviewconsole.review.conftest import GATE_CALIBRATION, PLANS_SOURCE, gate_record
from verification import types as contract

pytestmark = pytest.mark.django_db


def _row(html: str, anchor: str) -> str:
    found = re.search(rf'<tr id="{anchor}"[^>]*>(.*?)</tr>', html, re.S)
    assert found, anchor
    return found.group(1)


def _text(html: str) -> str:
    """What a reader sees: tags dropped, whitespace collapsed."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_claim_rows_store_the_release_score(run_as_engine):
    case = run_as_engine(gate_record(support_score=None))

    scores = dict(Claim.objects.filter(candidate__case=case).values_list("claim_id", "release_score"))
    assert scores == {"k1": 0.93, "k2": None}
    evidence = Claim.objects.get(candidate__case=case, claim_id="k1").evidence
    assert evidence[0]["covers"] == ["$20", "Team plan"]


def test_each_claim_shows_its_score_and_a_supported_claim_below_the_threshold_is_held_back(
    client, reviewer, run_as_engine
):
    case = run_as_engine(gate_record())
    client.force_login(reviewer)

    response = client.get(f"/review/cases/{case.pk}/")

    html = response.content.decode()
    assert response.status_code == 200
    price, support = _text(_row(html, "claim-0")), _text(_row(html, "claim-1"))
    assert "Supported 0.93" in price and "held back" not in price
    assert "Supported 0.42 held back" in support
    # In the answer too, the held-back claim says so in words, not only by colour.
    assert '<span class="state state-supported">Supported, held back</span>' in html


def test_each_evidence_link_says_what_it_covers_and_only_cited_sentences_are_marked(client, reviewer, run_as_engine):
    case = run_as_engine(gate_record())
    client.force_login(reviewer)

    html = client.get(f"/review/cases/{case.pk}/").content.decode()

    assert "covers $20, Team plan" in _text(_row(html, "claim-0"))
    assert "covers phone support" in _text(_row(html, "claim-1"))
    source = re.search(r'<p class="source-text">(.*?)</p>', html, re.S).group(1)
    marked = re.findall(r"<mark [^>]*>(.*?)</mark>", source)
    assert marked == ["The Team plan costs $20 per user per month.", "Phone support is included with the Team plan."]
    # The sentence no claim cites stays plain text.
    assert "Prices are shown without sales tax." in _text(source) and "sales tax.</mark>" not in source
    assert _text(source) == PLANS_SOURCE


def _gate(html: str) -> str:
    return _text(re.search(r'<div class="release-gate">(.*?)</div>', html, re.S).group(1))


def test_a_reviewer_reads_one_plain_sentence_on_what_the_gate_held_back(client, reviewer, run_as_engine):
    case = run_as_engine(gate_record())
    client.force_login(reviewer)

    html = client.get(f"/review/cases/{case.pk}/").content.decode()

    assert "Below the release threshold" in _text(html) and "BELOW_RELEASE_THRESHOLD" not in _text(html)
    assert _gate(html) == ("1 supported claim scored below the release bar, so it was held back for a person to "
                           "decide (marked “held back” below).")
    # The calibration's figures are for those who set the bar, not for the reviewer.
    for internal in ("upper bound", "wice/tune", "labelled answers", "0.7100", "Threshold"):
        assert internal not in html, internal


def test_a_lead_finds_how_the_bar_was_set_one_click_away(client, lead, run_as_engine):
    case = run_as_engine(gate_record(support_score=0.3, price_score=0.5))
    client.force_login(lead)

    html = client.get(f"/review/cases/{case.pk}/").content.decode()

    assert _gate(html).startswith("2 supported claims scored below the release bar, so they were held back")
    provenance = re.search(r'<details id="gate-provenance".*?</details>', html, re.S).group(0)
    assert _text(provenance).startswith("How the release bar was set Threshold 0.71")
    assert GATE_CALIBRATION in _text(provenance)


def test_scores_next_to_the_threshold_get_the_digits_that_tell_them_apart(client, reviewer, run_as_engine):
    case = run_as_engine(gate_record(threshold=0.7134, support_score=0.7120, price_score=0.9))
    client.force_login(reviewer)

    html = client.get(f"/review/cases/{case.pk}/").content.decode()

    assert "Supported 0.7120 held back" in _text(_row(html, "claim-1"))
    assert "Supported 0.9000" in _text(_row(html, "claim-0"))


def test_a_run_without_a_calibrated_threshold_says_so_and_holds_nothing_back(client, reviewer, run_as_engine):
    case = run_as_engine(gate_record(threshold=None, calibration=None))
    client.force_login(reviewer)

    html = client.get(f"/review/cases/{case.pk}/").content.decode()

    assert _gate(html) == "No calibrated release bar for this verifier: each claim went out or not on its check alone."
    assert "held back" not in html
    assert "Supported 0.42" in _text(_row(html, "claim-1"))


def test_a_run_recorded_before_the_gate_shows_no_gate_line(client, reviewer, run_as_engine):
    case = run_as_engine(gate_record())
    record = dict(case.run_record)
    del record["release_threshold"], record["release_calibration"]
    type(case).objects.filter(pk=case.pk).update(run_record=record)
    client.force_login(reviewer)

    html = client.get(f"/review/cases/{case.pk}/").content.decode()

    assert 'id="release-gate"' not in html and "held back" not in html


def test_covers_and_calibration_text_are_escaped(client, lead, run_as_engine):
    record = gate_record(price_covers=["<img src=x onerror=alert(1)>"], calibration="<script>alert(2)</script>")
    case = run_as_engine(record)
    client.force_login(lead)

    html = client.get(f"/review/cases/{case.pk}/").content.decode()

    assert "<img src=x" not in html and "covers &lt;img src=x onerror=alert(1)&gt;" in html
    assert "<script>alert(2)" not in html and "&lt;script&gt;alert(2)&lt;/script&gt;" in html


def test_the_queue_labels_the_reason_and_filters_by_it(client, reviewer, run_as_engine):
    held = run_as_engine(gate_record())
    other = run_as_engine(gate_record().model_copy(update={"reason": contract.Reason.UNSUPPORTED_CLAIM}),
                          external_id="plans-2")
    client.force_login(reviewer)

    html = client.get("/review/").content.decode()
    nav = re.search(r'<nav class="reason-counts".*?</nav>', html, re.S).group(0)
    assert re.search(r'data-reason="BELOW_RELEASE_THRESHOLD"[^>]*>Below the release threshold <span class="count">1',
                     nav)
    assert "<td>Below the release threshold</td>" in html

    filtered = client.get("/review/?reason=BELOW_RELEASE_THRESHOLD").content.decode()
    assert f"/review/cases/{held.pk}/" in filtered and f"/review/cases/{other.pk}/" not in filtered
