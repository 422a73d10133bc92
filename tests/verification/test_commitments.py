from __future__ import annotations

import pytest

from verification.claims.commitments import (
    VALUE_KINDS,
    agree,
    comparable,
    contradicts,
    find_commitments,
    find_mentions,
    find_values,
    grounds,
)


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


@pytest.mark.parametrize("text", ["The conference starts on 20 July.", "The conference starts on July 20."])
def test_a_day_and_month_without_a_year_is_a_date_not_a_number(text):
    date = _only(text, "date")
    assert date.parts == (None, 7, 20)
    assert date.text in ("20 July", "July 20")  # the sentence's period is not part of it
    assert not [m for m in find_mentions(text) if m.kind == "number"]


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


def _values(text: str):
    return [m for m in find_mentions(text) if m.kind in VALUE_KINDS]


def test_a_time_passed_and_a_window_are_different_quantities():
    (passed,) = _values("A plan bought 40 days ago is no longer refundable.")
    (window, _) = _values("After 30 days, annual plans are not refundable, but you can turn off renewal at any time.")
    (within,) = _values("Annual plans can be refunded in full within 30 days of purchase.")
    assert (passed.role, window.role, within.role) == ("elapsed", "lower", "upper")
    assert not comparable(passed, window) and not contradicts(passed, window)
    # The window decides by arithmetic: 40 days is past "after 30 days", not within "within 30 days".
    assert grounds(passed, window) and not grounds(passed, within)
    (recent,) = _values("A plan bought 10 days ago can still be refunded.")
    assert grounds(recent, within) and not grounds(recent, window)


def test_both_ends_of_a_range_take_its_unit_and_a_value_inside_it_is_not_another_value():
    low, high = _values("Refunds arrive within 5 to 10 business days.")
    assert (low.kind, low.value, low.bounds) == ("duration", 5, (5, 10))
    assert (high.kind, high.value, high.bounds) == ("duration", 10, (5, 10))
    (week,) = _values("Refunds arrive within 7 business days.")
    assert not contradicts(week, low) and not contradicts(week, high)
    (month,) = _values("Refunds arrive within 30 business days.")
    assert contradicts(month, high)
    count_low, count_high, dose_low, dose_high, _ = _values("take 1 or 2 tablets (200 mg to 400 mg) every 6 hours")
    assert (count_low.unit, count_low.bounds, dose_low.unit, dose_high.bounds) == ("tablet", (1, 2), "mg", (200, 400))


@pytest.mark.parametrize(
    "text", ["Northwind earned $3.1 billion or $6.78 per share.", "Bring 5 apples and 10 pears."]
)
def test_two_values_side_by_side_are_not_a_range(text):
    assert all(m.bounds is None for m in _values(text))


def test_a_monthly_price_grounds_its_yearly_total_but_does_not_contradict_another():
    # "billed monthly" after the rate is how often it is billed, a value of its own beside the price.
    monthly, billed = _values("Team plan: $20 per user per month, billed monthly.")
    assert (billed.kind, billed.value) == ("duration", 30)
    (yearly,) = _values("The Team plan costs $240 per user per year.")
    (discounted,) = _values("The Team plan costs $204 per user per year.")
    assert (monthly.per, yearly.per) == (12, 1)
    assert grounds(yearly, monthly)
    assert not grounds(discounted, monthly) and not contradicts(discounted, monthly)


@pytest.mark.parametrize(
    ("text", "kind", "unit"),
    [
        ("The frame has a lifetime warranty.", "duration", "day"),
        ("You can cancel at any time.", "duration", "day"),
        ("The Team plan has unlimited seats.", "number", "seat"),
    ],
)
def test_values_with_no_end_are_commitments(text, kind, unit):
    (value,) = _values(text)
    assert (value.kind, value.unit, value.unbounded) == (kind, unit, True)
    assert value.to_commitment().value is None  # JSON has no infinity


def test_a_value_with_no_end_contradicts_a_finite_one_and_grounds_only_its_like():
    (lifetime,) = _values("The frame has a lifetime warranty.")
    (two_years,) = _values("The frame has a 2-year warranty.")
    (unlimited,) = _values("The Team plan has unlimited seats.")
    (ten,) = _values("The Team plan has up to 10 seats.")
    assert contradicts(lifetime, two_years) and not grounds(lifetime, two_years)
    assert contradicts(unlimited, ten) and grounds(unlimited, _values("Unlimited seats on every plan.")[0])


def test_a_date_grounds_a_claim_only_as_precisely_as_it_states_it():
    (claimed,) = _values("It shipped on March 5, 2024.")
    (year,) = _values("It shipped in 2024.")
    (full,) = _values("Shipped: 5 March 2024")
    assert agree(claimed, year) and not grounds(claimed, year)
    assert grounds(claimed, full)
    assert grounds(year, full)


def test_a_label_value_line_keeps_its_label():
    (weight,) = _values("Weight: 1.2 kg")
    assert (weight.value, weight.unit, weight.label) == (1.2, "kg", "Weight")
    assert _values("The laptop weighs 1.2 kg.")[0].label is None


@pytest.mark.parametrize(
    "text",
    [
        "Refunds take thirty days and cost Five percent of the price.",
        "Open 9am to 5 pm, 24/7, from March 2019; the Team plan costs $20 per user per month.",
        "Corvane acquired Tessaly in 2018–19 and does not offer a lifetime warranty.",
        "Usage analytics is available on the Team plan and above.",
    ],
)
def test_a_sentences_values_are_its_value_mentions_whichever_patterns_are_skipped(text):
    # Patterns are skipped when what they need (a digit, a number word, "%", a unit) is absent, and
    # most sentences are read for their values alone: neither may change what is found.
    assert find_values(text) == [m for m in find_mentions(text) if m.kind in VALUE_KINDS]


def test_values_written_in_words_are_found_in_a_sentence_without_a_digit():
    assert [(m.kind, m.value) for m in find_values("Refunds take thirty days and cost Five percent.")] == [
        ("duration", 30.0), ("percentage", 5.0)
    ]


def test_what_a_text_mentions_is_read_once_and_never_changed_by_a_caller():
    text = "Corvane acquired Tessaly in 2019 for $20 million."
    first = find_mentions(text)
    first.clear()
    assert find_mentions(text) and find_mentions(text) == find_mentions(text)
