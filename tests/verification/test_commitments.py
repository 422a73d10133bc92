from __future__ import annotations

import pytest

from verification.commitments import agree, comparable, find_commitments, find_mentions


def _only(text: str, kind: str):
    found = [m for m in find_mentions(text) if m.kind == kind]
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("Revenue reached $230M last year.", 230e6, "USD"),
        ("Revenue reached $212.4 million last year.", 212.4e6, "USD"),
        ("Revenue reached 230,000,000 USD last year.", 230e6, "USD"),
        ("The fee is €5.", 5, "EUR"),
        ("It costs $1.5 billion.", 1.5e9, "USD"),
    ],
)
def test_money_is_normalised_to_base_units(text, value, unit):
    money = _only(text, "money")
    assert money.value == pytest.approx(value)
    assert money.unit == unit


@pytest.mark.parametrize(
    ("text", "days"),
    [("within 60 days", 60), ("a 30-day window", 30), ("two weeks later", 14), ("within 5 business days", 5)],
)
def test_durations_are_normalised_to_days(text, days):
    assert _only(text, "duration").value == pytest.approx(days)


def test_dates_keep_year_month_and_day():
    date = _only("It shipped on March 5, 2024.", "date")
    assert date.parts == (2024, 3, 5)
    assert date.value == 2024
    assert _only("Founded in 1987 in Ohio.", "date").parts == (1987, None, None)


def test_percentages_and_units():
    assert _only("Annual billing saves 15%.", "percentage").value == 15
    dose = _only("Take 400 mg twice a day.", "number")
    assert (dose.value, dose.unit) == (400, "mg")


def test_named_entities_skip_the_sentence_initial_function_word():
    mentions = find_mentions("The Bank of America opened an office in New York.")
    entities = [m.text for m in mentions if m.kind == "entity"]
    assert entities == ["Bank of America", "New York"]


@pytest.mark.parametrize("text", ["Acme does not support Linux.", "Acme never shipped it.", "It can't be refunded."])
def test_negation_is_found(text):
    assert any(c.kind == "negation" for c in find_commitments(text))


def test_relations_are_read_in_both_voices():
    active = _only("Facebook acquired Instagram in 2012.", "relation")
    passive = _only("Instagram was acquired by Facebook in 2012.", "relation")
    assert active.parts == passive.parts == ("facebook", "instagram", "pos")
    reversed_ = _only("Instagram acquired Facebook.", "relation")
    assert reversed_.parts[:2] == ("instagram", "facebook")


def test_same_kind_different_value_is_comparable_but_does_not_agree():
    sixty, thirty = _only("within 60 days", "duration"), _only("within 30 days", "duration")
    assert comparable(sixty, thirty) and not agree(sixty, thirty)
    assert agree(_only("two weeks", "duration"), _only("14 days", "duration"))
    assert agree(_only("$212.4 million", "money"), _only("$212,400,000", "money"))
    assert not agree(_only("$230M", "money"), _only("$212.4 million", "money"))


def test_different_kinds_of_thing_are_not_compared():
    assert not comparable(_only("5 seats", "number"), _only("5 users", "number"))
    assert not comparable(_only("every 4 hours", "duration"), _only("aged 12 years", "duration"))
    assert not comparable(_only("$5", "money"), _only("€5", "money"))


def test_commitment_offsets_point_into_the_text():
    text = "The Pro plan costs $20 per month since 2021 and is not refundable."
    for commitment in find_commitments(text):
        assert text[commitment.start : commitment.end] == commitment.text


@pytest.mark.parametrize(
    ("text", "years"),
    [("from 1491–1510", [1491, 1510]), ("the 2018-19 season", [2018, 2019]), ("in 2018 - 2019", [2018, 2019])],
)
def test_a_year_range_is_two_years(text, years):
    dates = [m for m in find_mentions(text) if m.kind == "date"]
    assert [m.parts[0] for m in dates] == years
    assert all(text[m.start : m.end] == m.text for m in dates)


def test_a_range_of_counts_is_not_a_range_of_years():
    assert not [m for m in find_mentions("between 1500-2000 employees") if m.kind == "date"]
