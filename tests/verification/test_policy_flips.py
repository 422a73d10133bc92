"""Answers that change one thing a support policy or a short factual source says are never released as
written, whatever changed: a negation, a word's opposite, a quantifier, a condition, a value, a role, a
time, the clause a word belongs to. The same answers said another way that keeps the meaning are
proven and released. Each pair is (source, answer); the engine runs with its defaults.

Some changes are left to the scorer and are not here: a verb put for another that is no opposite of it
("Data is kept" for "Data is deleted", "Late fees are charged" for "waived"), since holding every one-word
swap holds as many faithful paraphrases ("plunged" for "fell"); and a value moved between parallel
clauses whose names are single letters ("Plan A includes 100 GB" for "Plan A includes 10 GB and Plan B
includes 100 GB").
"""

from __future__ import annotations

import pytest

from verification.engine import check_case
from verification.types import Case, Source, State, Terminal

CHANGED = [
    ("Refunds are not available for annual plans after 30 days.",
     "Refunds are available for annual plans after 30 days."),
    ("The Basic plan does not include phone support.", "The Basic plan includes phone support."),
    ("We never share your data with advertisers.", "We share your data with advertisers."),
    ("Customers can no longer downgrade their plan mid-cycle.", "Customers can downgrade their plan mid-cycle."),
    ("The feature is not yet available in Europe.", "The feature is available in Europe."),
    ("Nobody on the free plan gets priority support.", "Everyone on the free plan gets priority support."),
    ("None of the plans include on-site training.", "All of the plans include on-site training."),
    ("You cannot transfer a license to another person.", "You can transfer a license to another person."),
    ("Orders over $50 ship free.", "Orders under $50 ship free."),
    ("The office is closed on Sundays.", "The office is open on Sundays."),
    ("The warranty excludes water damage.", "The warranty includes water damage."),
    ("Premium users may not share accounts.", "Premium users may share accounts."),
    ("The app is no longer supported on Android 9.", "The app is supported on Android 9."),
    ("It isn't possible to pause a subscription.", "It is possible to pause a subscription."),
    ("Support is unavailable on public holidays.", "Support is available on public holidays."),
    ("Trials do not require a credit card.", "Trials require a credit card."),
    ("The product has never been recalled.", "The product has been recalled."),
    ("Gift cards are non-refundable.", "Gift cards are refundable."),
    ("Only administrators can delete projects.", "Any user can delete projects."),
    ("The update is not mandatory.", "The update is mandatory."),
    ("Her application hasn't yet been approved.", "Her application has been approved."),
    ("The museum opens at 9 am and closes at 5 pm.", "The museum opens at 9 am and closes at 7 pm."),
    ("Acme acquired Globex in 2015.", "Globex acquired Acme in 2015."),
    ("Returns are accepted within 14 days of delivery.", "Returns are accepted within 30 days of delivery."),
    ("Students get a 50% discount.", "Students get a 15% discount."),
    ("The free tier allows up to 3 projects.", "The free tier allows unlimited projects."),
    ("Passwords must be at least 12 characters long.", "Passwords must be at most 12 characters long."),
    ("We no longer accept checks.", "We accept checks."),
    ("Phone support hasn't been offered since 2020.", "Phone support has been offered since 2020."),
    ("Some customers are eligible for a refund.", "All customers are eligible for a refund."),
    ("Refunds are issued only to the original card.", "Refunds are issued to any card."),
    ("Employees must complete training before their first shift.",
     "Employees must complete training after their first shift."),
    ("If you cancel within 14 days, you get a full refund.", "You get a full refund."),
    ("Members can bring up to two guests.", "Members can bring up to five guests."),
    ("Orders placed before noon ship the same day.", "Orders placed after noon ship the same day."),
    ("Alice reports to Bob.", "Bob reports to Alice."),
    ("The landlord pays for water and the tenant pays for electricity.", "The tenant pays for water."),
    ("Children under 12 must be accompanied by an adult.", "Children over 12 must be accompanied by an adult."),
    ("The medication should be taken with food.", "The medication should be taken without food."),
    ("Take one tablet twice a day.", "Take two tablets twice a day."),
    ("The maximum dose is 4 grams per day.", "The minimum dose is 4 grams per day."),
    ("Passengers may bring one carry-on bag.", "Passengers must bring one carry-on bag."),
    ("Shipping is free on orders over $50.", "Shipping is free on all orders."),
    ("The company was founded in Berlin and moved to Paris in 2010.", "The company was founded in Paris."),
    ("Users can export data as CSV but not as PDF.", "Users can export data as PDF."),
    ("You can return items within 30 days if they are unused.", "You can return used items within 30 days."),
    ("Smith succeeded Jones as CEO in 2019.", "Jones succeeded Smith as CEO in 2019."),
    ("The study found no link between coffee and cancer.", "The study found a link between coffee and cancer."),
    ("The bridge will reopen next year.", "The bridge reopened last year."),
    ("The fee is $5 for domestic orders and $15 for international orders.", "The fee is $15 for domestic orders."),
    ("Interest is charged at 5% for the first year and 8% thereafter.",
     "Interest is charged at 8% for the first year."),
    ("Take one tablet twice a day.", "Take one tablet once a day."),
    ("Our headquarters are in Denver, and our support center is in Austin.", "Our headquarters are in Austin."),
    ("Alice is the CFO and Bob is the CTO.", "Alice is the CTO."),
    ("The Pro plan costs $20 per month, billed annually.", "The Pro plan costs $20 per month, billed monthly."),
    ("The boxes were not packed.", "The boxes were unpacked."),
    ("Shipping is free on orders over $50.", "Shipping is free."),
    ("Returns are accepted within 30 days of purchase.", "Returns are accepted."),
    ("Admission is free for children under 12.", "Admission is free."),
    ("The store is closed.", "The store is open."),
    ("Refunds are unavailable.", "Refunds are available."),
    ("Refunds are issued only for damaged items.", "Refunds are issued."),
    ("Support is available by email only.", "Support is available."),
    ("The offer is only valid in the UK.", "The offer is valid."),
    ("Discounts apply only to annual plans.", "Discounts apply."),
    ("The store is open on weekdays.", "The store is open."),
    ("Free shipping is available for members.", "Free shipping is available."),
]

SAID_ANOTHER_WAY = [
    ("Members can bring up to two guests.", "Members may bring up to 2 guests."),
    ("The library is open Monday through Friday.", "The library is open from Monday to Friday."),
    ("Refunds are issued only to the original card.", "Refunds are only issued to the original card."),
    ("The event was postponed to March 3.", "The event has been postponed to March 3."),
    ("Smith succeeded Jones as CEO in 2019.", "In 2019, Smith succeeded Jones as CEO."),
    ("Gift cards are non-refundable.", "Gift cards are non-refundable."),
    ("Alice is the CFO and Bob is the CTO.", "Bob is the CTO."),
    ("Support is not available on weekends.", "Support is unavailable on weekends."),
    ("Gift cards are non-refundable.", "Gift cards are not refundable."),
    ("The courier cannot deliver on Sundays.", "The courier can't deliver on Sundays."),
    ("Her application has not been approved yet, but she says it will be.",
     "Her application hasn't been approved yet, but she says it will be."),
]


def _run(source: str, answer: str):
    return check_case(Case(question="What does the policy say?", answer=answer,
                           sources=[Source(id="policy", text=source)]))


@pytest.mark.parametrize(("source", "answer"), CHANGED)
def test_an_answer_that_changes_what_the_source_says_is_never_released_as_written(source, answer) -> None:
    record = _run(source, answer)

    assert (record.terminal, record.final_answer) != (Terminal.PERMIT, answer)


@pytest.mark.parametrize(("source", "answer"), SAID_ANOTHER_WAY)
def test_the_same_said_another_way_is_proven_and_released(source, answer) -> None:
    record = _run(source, answer)

    assert (record.terminal, record.final_answer) == (Terminal.PERMIT, answer)
    assert [claim.state for claim in record.candidates[0].claims] == [State.SUPPORTED]
    assert record.candidates[0].claims[0].method == "offline:proof"
