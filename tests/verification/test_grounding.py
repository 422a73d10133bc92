"""SUPPORTED means proven: the relation and its argument order, negation and its scope, quantifiers and
absolute qualifiers must each be grounded in the evidence a claim cites."""

from __future__ import annotations

import pytest

from verification.checks.grounding import check
from verification.claims.commitments import entity_key, find_relations
from verification.claims.extraction import extract_claims
from verification.claims.view import read_claim
from verification.decision.offline import OfflineVerifier
from verification.engine import check_case
from verification.retrieval.index import SourceIndex
from verification.types import Case, Source, State, Terminal

DEAL = Source(
    id="press-release",
    text=(
        "Corvane, a maker of industrial pumps, completed its acquisition of Tessaly in March 2021. "
        "The deal was worth $40 million."
    ),
)
WARRANTY = Source(
    id="warranty",
    text=(
        "The warranty covers manufacturing defects for two years from the date of purchase. "
        "Damage from misuse or accidents is not covered."
    ),
)
PLANS = Source(
    id="plans",
    text=(
        "The Basic plan costs $10 per month and includes email support. "
        "The Enterprise plan costs $40 per month. "
        "Only the Enterprise plan includes phone support."
    ),
)
BOARD = Source(
    id="board",
    text=(
        "Ana Lima was elected to the board of directors in 2020. "
        "Rui Costa joined the company as an engineer in 2016."
    ),
)


def _verdict(text: str, *sources: Source):
    claims = extract_claims(text)
    assert len(claims) == 1, claims
    (verdict,) = OfflineVerifier().verify(claims, list(sources))
    return verdict


def _cites_exact_spans(verdict, *sources: Source) -> None:
    texts = {source.id: source.text for source in sources}
    assert verdict.evidence
    for span in verdict.evidence:
        assert texts[span.source_id][span.start : span.end] == span.quote


# --- the relation and the order of its arguments -------------------------------------------------


def test_a_reversed_acquisition_is_refuted_by_the_nominal_form():
    verdict = _verdict("Tessaly acquired Corvane in 2021.", DEAL)

    assert verdict.state is State.REFUTED
    assert "completed its acquisition of Tessaly" in verdict.evidence[0].quote
    assert verdict.release_score == 0.0
    _cites_exact_spans(verdict, DEAL)


@pytest.mark.parametrize(
    "statement",
    [
        "Corvane's acquisition of Tessaly closed in March 2021.",
        "The acquisition of Tessaly by Corvane closed in March 2021.",
        "Tessaly's acquisition by Corvane closed in March 2021.",
        "Tessaly was acquired by Corvane in March 2021.",
        "Corvane bought Tessaly in March 2021.",
    ],
)
def test_every_form_of_the_relation_keeps_its_argument_order(statement):
    source = Source(id="news", text=statement)

    assert _verdict("Tessaly acquired Corvane in 2021.", source).state is State.REFUTED
    index = SourceIndex([source])
    claim = "Corvane acquired Tessaly in 2021."
    assert check(read_claim(claim), index.select(claim, 3), index) is None


@pytest.mark.parametrize(
    ("text", "polarity"),
    [
        ("Corvane completed its acquisition of Tessaly by March 2021.", "pos"),
        ("Corvane, a maker of industrial pumps, has completed its $40 million acquisition of Tessaly.", "pos"),
        ("Corvane abandoned its acquisition of Tessaly after the regulator objected.", "neg"),
        ("Corvane announced its planned acquisition of Tessaly.", "open"),
    ],
)
def test_the_nominal_form_names_its_doer_and_whether_it_happened(text, polarity):
    (relation,) = find_relations(text)

    assert relation.unit == find_relations("Corvane acquired Tessaly.")[0].unit
    assert relation.parts == (entity_key("Corvane"), entity_key("Tessaly"), polarity)


def test_a_planned_act_does_not_ground_the_act():
    source = Source(id="news", text="Corvane announced its planned acquisition of Tessaly in March 2021.")

    verdict = _verdict("Corvane acquired Tessaly in March 2021.", source)

    assert verdict.state is not State.SUPPORTED


def test_another_doer_of_the_same_act_does_not_ground_it():
    verdict = _verdict("Brightline acquired Tessaly in 2021.", DEAL)

    assert verdict.state is not State.SUPPORTED


def test_a_relation_that_did_not_happen_is_refuted():
    source = Source(id="news", text="Corvane abandoned its acquisition of Tessaly in March 2021.")

    verdict = _verdict("Corvane acquired Tessaly in March 2021.", source)

    assert verdict.state is State.REFUTED
    assert verdict.method == "offline:relation-negated"


def test_a_relation_no_sentence_states_is_not_supported():
    source = Source(
        id="news",
        text="In 2020 Tessaly signed a supply contract with Corvane. Tessaly was acquired in 2021.",
    )

    verdict = _verdict("Corvane acquired Tessaly in 2021.", source)

    assert verdict.state is not State.SUPPORTED


# --- negation and its scope ----------------------------------------------------------------------


def test_a_predicate_the_source_denies_of_the_same_thing_is_refuted():
    verdict = _verdict("The warranty also covers accidental drops.", WARRANTY)

    assert verdict.state is State.REFUTED
    assert verdict.method == "offline:negation-scope"
    assert verdict.evidence[0].quote == "Damage from misuse or accidents is not covered."
    assert "not covered" in verdict.rationale
    _cites_exact_spans(verdict, WARRANTY)


def test_neither_and_nor_deny_what_follows_each():
    policy = Source(id="policy", text="We neither sell nor rent your data.")

    rented = _verdict("We rent your data.", policy)
    not_rented = _verdict("We do not rent your data.", policy)

    assert (rented.state, rented.method) == (State.REFUTED, "offline:negation-scope")
    assert "nor rent" in rented.rationale
    assert not_rented.state is State.SUPPORTED


@pytest.mark.parametrize(("claim", "source_says"), [
    ("Refunds are available.", "Refunds are unavailable."),
    ("Refunds are unavailable.", "Refunds are available."),
    ("The tickets are transferable.", "The tickets are non-transferable."),
    ("Support is available on weekends.", "Support is unavailable on weekends."),
    # A participle with no "be", as a sign writes it, is said of the words before it.
    ("Pets allowed.", "Pets are not allowed."),
    ("Pets are allowed.", "Pets not allowed."),
])
def test_a_quality_a_prefix_denies_is_denied_however_short_the_claim(claim: str, source_says: str):
    source = Source(id="policy", text=source_says)

    verdict = _verdict(claim, source)

    assert verdict.state is State.REFUTED
    assert verdict.method == "offline:negation-scope"
    assert verdict.evidence[0].quote == source_says


@pytest.mark.parametrize(("claim", "source_says"), [
    ("The boxes were unpacked.", "The boxes were not packed."),  # "un" undoes here; it does not deny
    ("Gift cards are transferable.", "Gift cards are non-refundable, but they are transferable."),
])
def test_a_prefix_that_undoes_or_a_denial_of_another_quality_refutes_nothing(claim: str, source_says: str):
    verdict = _verdict(claim, Source(id="policy", text=source_says))

    assert verdict.state is not State.REFUTED


def test_a_denial_of_something_else_refutes_nothing():
    verdict = _verdict("The warranty covers manufacturing defects for two years.", WARRANTY)

    assert verdict.state is State.SUPPORTED


def test_the_claim_denying_what_the_source_states_is_refuted_even_when_the_source_denies_elsewhere():
    verdict = _verdict("The warranty does not cover manufacturing defects.", WARRANTY)

    assert verdict.state is State.REFUTED
    assert "covers manufacturing defects" in verdict.evidence[0].quote


def test_a_denial_about_a_different_subject_does_not_refute():
    source = Source(
        id="plans",
        text="The Basic plan does not include phone support. The Premium plan includes phone support.",
    )

    verdict = _verdict("The Premium plan includes phone support.", source)

    assert verdict.state is State.SUPPORTED


def test_not_only_is_no_denial():
    source = Source(id="policy", text="The home plan covers theft and fire damage.")

    verdict = _verdict("The home plan not only covers theft but also fire damage.", source)

    assert verdict.state is not State.REFUTED


def test_an_attempt_in_the_source_is_not_a_statement():
    source = Source(
        id="news",
        text="The man has never been identified. Police issued an e-fit in a bid to help identify the man.",
    )

    verdict = _verdict("The man has never been identified.", source)

    assert verdict.state is State.SUPPORTED


# --- quantifiers and absolute qualifiers ---------------------------------------------------------


def test_both_is_refuted_by_only_one():
    verdict = _verdict("Both plans include phone support.", PLANS)

    assert verdict.state is State.REFUTED
    assert verdict.method == "offline:qualifier-restricted"
    assert verdict.evidence[0].quote == "Only the Enterprise plan includes phone support."
    assert "both" in verdict.rationale.lower()
    _cites_exact_spans(verdict, PLANS)


def test_a_qualifier_the_sources_never_state_is_insufficient_and_named():
    source = Source(id="plans", text="The Team plan includes phone support and priority email.")

    verdict = _verdict("All plans include phone support and priority email.", source)

    assert verdict.state is State.INSUFFICIENT_EVIDENCE
    assert 'nothing the sources say states "all"' in verdict.rationale.lower()
    assert verdict.release_score is not None and verdict.release_score <= 0.5 * OfflineVerifier().scorer.threshold
    _cites_exact_spans(verdict, source)


@pytest.mark.parametrize(
    ("claim", "statement"),
    [
        ("All plans include phone support.", "Every plan includes phone support."),
        ("Each plan includes phone support.", "All plans include phone support."),
        ("Annual plans get a full refund within 30 days.", "Annual plans are refunded in full within 30 days."),
        ("Premium members can cancel at any time.", "Premium members can cancel anytime."),
        ("The Pro plan includes unlimited storage.", "The Pro plan includes unlimited storage."),
    ],
)
def test_an_equivalent_qualifier_in_the_source_grounds_it(claim, statement):
    assert _finding(claim, statement) is None


def test_the_qualifier_must_bear_on_the_same_thing_in_the_same_clause():
    source = Source(
        id="faq",
        text="Phone support is included in the Team plan, and all invoices are sent by email.",
    )

    verdict = _verdict("All plans include phone support.", source)

    assert verdict.state is not State.SUPPORTED


@pytest.mark.parametrize(
    ("claim", "statement"),
    [
        ("The price did not change at all in 2023.", "The price did not change in 2023."),
        ("First of all, the Team plan costs $20 per month.", "The Team plan costs $20 per month."),
        ("The Silver plan only costs $25 a month.", "The Silver plan costs $25 a month."),
        ("Backups run every 6 hours.", "Backups run every 6 hours."),
        ('Dolly Parton wrote "I Will Always Love You" in 1973.', "Dolly Parton wrote I Will Always Love You in 1973."),
    ],
)
def test_idioms_titles_and_counted_words_are_not_qualifiers(claim, statement):
    assert _finding(claim, statement) is None


def _finding(claim: str, statement: str):
    """What the grounding check finds for `claim` against a one-sentence source saying `statement`."""
    index = SourceIndex([Source(id="faq", text=statement)])
    return check(read_claim(claim), index.select(claim, 3), index)


def test_both_names_must_each_be_said_to_do_it():
    verdict = _verdict("Both Ana Lima and Rui Costa were elected to the board of directors in 2020.", BOARD)

    assert verdict.state is not State.SUPPORTED
    index = SourceIndex([BOARD])
    claim = "Both Ana Lima and Rui Costa were elected to the board of directors in 2020."
    finding = check(read_claim(claim), index.select(claim, 3), index)
    assert finding is not None and "rui costa" in finding.rationale.lower()


def test_both_names_grounded_one_by_one_is_supported():
    source = Source(id="board", text=BOARD.text + " Rui Costa was also elected to the board of directors in 2020.")
    claim = "Both Ana Lima and Rui Costa were elected to the board of directors in 2020."
    index = SourceIndex([source])

    assert check(read_claim(claim), index.select(claim, 3), index) is None


@pytest.mark.parametrize(
    ("claim", "statement"),
    [
        ("The frame comes with a lifetime warranty.", "The frame comes with a 2-year warranty."),
        ("You can cancel the subscription at any time.", "You can cancel the subscription within 14 days."),
        ("The Pro plan includes unlimited storage.", "The Pro plan includes up to 100 GB of storage."),
    ],
)
def test_an_unbounded_promise_against_a_bounded_source_is_not_supported(claim, statement):
    verdict = _verdict(claim, Source(id="terms", text=statement))

    assert verdict.state is not State.SUPPORTED


@pytest.mark.parametrize(
    ("claim", "statement"),
    [
        ("You must cancel your subscription online.", "You may cancel your subscription online."),
        ("Customers must return the item within 30 days.", "Customers can return the item within 30 days."),
        ("Visitors must book a guided tour in advance.", "Visitors can choose to book a guided tour in advance."),
    ],
)
def test_an_obligation_is_refuted_by_a_permission(claim, statement):
    verdict = _verdict(claim, Source(id="terms", text=statement))

    assert verdict.state is State.REFUTED
    assert verdict.method == "offline:qualifier-restricted"
    assert verdict.evidence[0].quote == statement


@pytest.mark.parametrize(
    ("claim", "statement"),
    [
        ("You must cancel your subscription online.", "You must cancel your subscription online."),
        ("Customers must show a receipt for returns.", "Customers are required to show a receipt for returns."),
        # An instruction is an obligation: the source tells the reader what to do.
        ("You must keep your receipt for returns.", "Please keep your receipt for returns."),
        ("You must not share your password with anyone.", "Do not share your password with anyone."),
        ("A receipt is mandatory for all returns.", "A receipt is required for all returns."),
    ],
)
def test_an_obligation_is_grounded_by_an_obligation_or_an_instruction(claim, statement):
    assert _finding(claim, statement) is None


def test_an_obligation_the_sources_never_state_is_not_supported():
    source = Source(id="faq", text="Annual plans renew automatically on the renewal date.")

    verdict = _verdict("You must renew annual plans on the renewal date.", source)

    assert verdict.state is not State.SUPPORTED


@pytest.mark.parametrize(
    ("claim", "statement", "condition"),
    [
        ("Refunds are issued to the original payment method.",
         "Refunds are issued to the original payment method if you have a receipt.", "if you have a receipt"),
        ("Standard orders ship free within the continental US.",
         "Standard orders ship free within the continental US, except to Alaska and Hawaii.", "except to alaska"),
        ("Trial accounts keep their projects after the trial ends.",
         "Trial accounts keep their projects after the trial ends as long as they upgrade within 7 days.",
         "as long as they upgrade within 7 days"),
    ],
)
def test_a_condition_or_exception_the_claim_leaves_out_is_unsaid(claim, statement, condition):
    source = Source(id="terms", text=statement)

    verdict = _verdict(claim, source)

    assert verdict.state is State.INSUFFICIENT_EVIDENCE
    assert verdict.method == "offline:condition-dropped"
    assert condition in verdict.rationale.lower()
    assert [span.quote for span in verdict.evidence] == [statement]


@pytest.mark.parametrize(
    ("claim", "statement"),
    [
        # The claim keeps the condition.
        ("Refunds are issued to the original payment method if you have a receipt.",
         "Refunds are issued to the original payment method if you have a receipt."),
        # Another sentence says it outright.
        ("Refunds are issued to the original payment method.",
         "Refunds are issued to the original payment method. Store credit is offered if you have no receipt."),
    ],
)
def test_a_condition_kept_or_stated_outright_elsewhere_grounds_the_claim(claim, statement):
    assert _finding(claim, statement) is None


@pytest.mark.parametrize(
    ("claim", "statement", "method", "left_out"),
    [
        ("Shipping is free.", "Shipping is free on orders over $50.", "limit-dropped", "over $50"),
        ("Returns are accepted.", "Returns are accepted within 30 days of purchase.", "limit-dropped",
         "within 30 days"),
        ("The museum is free.", "The museum is free for children under 12.", "limit-dropped", "under 12"),
        ("Refunds are issued.", "Refunds are issued only for damaged items.", "restriction-dropped",
         "only for damaged items"),
        ("Support is available.", "Support is available by email only.", "restriction-dropped", "by email only"),
        ("The offer is valid.", "The offer is only valid in the UK.", "restriction-dropped", "only valid in the uk"),
        ("Projects can be deleted.", "Only administrators can delete projects.", "restriction-dropped",
         "only administrators"),
        # A rule said within a scope the claim leaves out.
        ("The store is open.", "The store is open on weekdays.", "scope-dropped", "on weekdays"),
        ("Free shipping is available.", "Free shipping is available for members.", "scope-dropped", "for members"),
        ("Refunds can be requested.", "Refunds can be requested by phone, and store credit by email.",
         "scope-dropped", "by phone"),
    ],
)
def test_a_limit_restriction_or_scope_the_claim_leaves_out_is_unsaid(claim, statement, method, left_out):
    verdict = _verdict(claim, Source(id="terms", text=statement))

    assert verdict.state is State.INSUFFICIENT_EVIDENCE
    assert verdict.method == f"offline:{method}"
    assert f'"{left_out}' in verdict.rationale
    assert [span.quote for span in verdict.evidence] == [statement]


@pytest.mark.parametrize(
    ("claim", "statement"),
    [
        ("Shipping is free on orders over $50.", "Shipping is free on orders over $50."),  # kept
        ("Shipping is free.", "Shipping is free, and orders over $50 ship the next day."),  # another clause's
        ("People attended the launch in Paris.", "More than 500 people attended the launch in Paris."),  # how many
        ("The Team plan includes seats.", "The Team plan includes up to 10 seats."),
        ("The Team plan costs $20 per user per month.",  # another predicate's, left out whole
         "The Team plan costs $20 per user per month and includes up to 10 seats."),
    ],
)
def test_a_limit_kept_of_another_clause_or_counting_what_the_claim_names_is_not_left_out(claim, statement):
    verdict = _verdict(claim, Source(id="terms", text=statement))

    assert verdict.method != "offline:limit-dropped"
    assert verdict.state is State.SUPPORTED


@pytest.mark.parametrize(
    ("claim", "statement"),
    [
        ("Refunds are issued for damaged items.", "Refunds are issued only for damaged items."),  # kept: it says less
        ("Support is available by email.", "Support is available by email only."),
        ("Refunds are issued within 30 days.",  # another clause's
         "Refunds are issued within 30 days, but only store credit is given for sale items."),
        ("The store opens on Sundays.", "The store is the only one in town that opens on Sundays."),  # an adjective
        ("Acme sells anvils.", "Acme not only sells anvils but also repairs them."),  # an idiom
        ("The store is open on weekdays.", "The store is open on weekdays."),  # the scope kept
        # What happened, told without where or when, is what the source tells.
        ("The company opened a warehouse in Leeds.", "The company opened a warehouse in Leeds in 2019."),
        ("Support is available by email.", "Support is available by email and phone."),  # more, not narrower
    ],
)
def test_a_restriction_or_scope_kept_or_of_another_clause_or_none_is_not_left_out(claim, statement):
    verdict = _verdict(claim, Source(id="terms", text=statement))

    assert verdict.method not in ("offline:restriction-dropped", "offline:scope-dropped")


@pytest.mark.parametrize(
    ("claim", "statement", "hedge"),
    [
        ("The update rolled out in May.", "The update is expected to roll out in May.", "expected to roll"),
        ("Dr. Lee retired in 2025.", "Dr. Lee will retire in 2025, the hospital said.", "will retire"),
        ("The city opened a second ferry terminal in 2023.",
         "The city plans to open a second ferry terminal in 2023.", "plans to open"),
    ],
)
def test_what_a_source_only_expects_or_plans_is_not_stated_as_done(claim, statement, hedge):
    source = Source(id="news", text=statement)

    verdict = _verdict(claim, source)

    assert verdict.state is State.INSUFFICIENT_EVIDENCE
    assert verdict.method == "offline:unasserted"
    assert f'"{hedge}"' in verdict.rationale.lower()


def test_a_policy_that_says_you_may_grants_what_a_claim_says_you_can_do():
    verdict = _verdict("You can cancel at any time.",
                       Source(id="terms", text="You may cancel your subscription at any time."))

    assert verdict.state is State.SUPPORTED


def test_a_source_that_says_something_may_happen_does_not_ground_it_as_plain_fact():
    verdict = _verdict("The refund takes 30 days.", Source(id="faq", text="The refund may take 30 days."))

    assert verdict.state is State.INSUFFICIENT_EVIDENCE
    assert verdict.method == "offline:unasserted"


@pytest.mark.parametrize(
    ("claim", "statement"),
    [
        ("The update is expected to roll out in May.", "The update is expected to roll out in May."),
        # A promise in the source is a promise in the claim: neither says it happened.
        ("Your refund will be issued within 5 business days.", "Refunds will be issued within 5 business days."),
        ("The update rolled out in May.",
         "The update was expected to roll out in April. The update rolled out in May."),
    ],
)
def test_a_hedge_kept_or_a_plan_carried_out_grounds_the_claim(claim, statement):
    assert _finding(claim, statement) is None


@pytest.mark.parametrize(
    ("claim", "statement", "state", "method", "said"),
    [
        # The clause that says the predicate names another doer.
        ("Maria Lopez became CEO in 2021.", "Maria Lopez was appointed CFO in 2020; John Park became CEO in 2021.",
         State.INSUFFICIENT_EVIDENCE, "offline:subject-unstated",
         'says "became ceo in 2021" names john park, not maria lopez'),
        # The two ends of "from A to B" the other way round.
        ("The flight from Denver to Boston departs at 8am.", "The flight from Boston to Denver departs at 8am.",
         State.REFUTED, "offline:direction-reversed", 'the source says "from boston to denver"'),
    ],
)
def test_a_predicate_said_of_another_or_the_other_way_round_is_not_the_claims(claim, statement, state, method, said):
    verdict = _verdict(claim, Source(id="news", text=statement))

    assert verdict.state is state
    assert verdict.method == method
    assert said in verdict.rationale.lower()


@pytest.mark.parametrize(
    "statement",
    [
        "John Park was appointed CFO in 2020; Maria Lopez became CEO in 2021.",
        "Maria Lopez, who joined from Northwind, became CEO in 2021.",
        "Maria Lopez succeeded John Park and became CEO in 2021.",
    ],
)
def test_a_predicate_said_of_the_claims_own_name_grounds_it(statement):
    assert _finding("Maria Lopez became CEO in 2021.", statement) is None


def test_a_capital_that_only_opens_the_sentence_is_no_name():
    # "Children" and "Kids" are capitalised because they open their sentences, not because they name anyone.
    assert _finding("Children under 5 ride free on city buses.", "Kids under 5 ride free on all city buses.") is None


@pytest.mark.parametrize(
    "statement",
    [
        "The Pro plan is faster than the Basic plan.",
        # The opposite comparison with the sides in the claim's order says the same.
        "The Basic plan is slower than the Pro plan.",
        "The Basic plan is less fast than the Pro plan.",
    ],
)
def test_a_comparison_the_source_makes_the_other_way_round_is_refuted(statement):
    source = Source(id="plans", text=statement)

    verdict = _verdict("The Basic plan is faster than the Pro plan.", source)
    finding = _finding("The Basic plan is faster than the Pro plan.", statement)

    assert verdict.state is State.REFUTED
    assert verdict.evidence[0].quote == statement
    assert finding is not None and finding.reason == "comparison-reversed"


@pytest.mark.parametrize(
    ("claim", "statement"),
    [
        ("The Basic plan is faster than the Pro plan.", "The Basic plan is faster than the Pro plan."),
        ("The Basic plan is faster than the Pro plan.", "The Pro plan is slower than the Basic plan."),
        # Said with values only: left to coverage and the value checks, never refuted by this check.
        ("The Basic plan is faster than the Pro plan.",
         "The Basic plan loads pages in 1.2 seconds and the Pro plan in 2.5 seconds."),
        # The opposite comparison with the sides swapped says the same.
        ("The Pro plan is cheaper than the Enterprise plan.",
         "The Enterprise plan is more expensive than the Pro plan."),
        ("The flight from Boston to Denver departs at 8am.", "The flight from Boston to Denver departs at 8am."),
        # Both ways in the sources: the claim's is one of them.
        ("The flight from Boston to Denver departs at 8am.",
         "The flight from Denver to Boston departs at 8am and the flight from Boston to Denver at 6pm."),
    ],
)
def test_a_comparison_or_direction_in_the_claims_order_or_not_made_in_words_is_not_refuted(claim, statement):
    assert _verdict(claim, Source(id="faq", text=statement)).state is not State.REFUTED


def test_a_free_compound_denies_its_first_word():
    # "Risk-Free" says there is no risk: "with no risk" restates it, neither denial nor mismatch.
    source = Source(id="offer", text="Try our 30-Day Risk-Free Trial of the Premium Plan at no cost.")

    verdict = _verdict("They offer a 30-day trial of the Premium Plan with no risk.", source)

    assert verdict.state is State.SUPPORTED


@pytest.mark.parametrize(
    ("statement", "true", "false"),
    [
        ("The Basic plan does not include phone support, but the Pro plan does.",
         "The Pro plan includes phone support.", "The Basic plan includes phone support."),
        ("Refunds are not available after 30 days, but store credit is.",
         "Store credit is available after 30 days.", "Refunds are available after 30 days."),
        ("Dogs are not allowed on the beach except for service dogs.",
         "Service dogs are allowed on the beach.", "Dogs are allowed on the beach."),
    ],
)
def test_a_denial_refutes_nothing_the_sentence_sets_apart_from_it(statement, true, false):
    source = Source(id="terms", text=statement)

    assert _verdict(true, source).state is not State.REFUTED
    assert _verdict(false, source).state is not State.SUPPORTED


MAGAZINES = [Source(id="jane", text="Jane is an American women's magazine."),
             Source(id="elle", text="Elle is a French women's magazine.")]


def test_a_name_the_claim_opens_with_that_no_source_says_is_never_released():
    swapped = check_case(Case(question="Tell me about it.", answer="Vogue is an American women's magazine.",
                              sources=MAGAZINES))
    copied = check_case(Case(question="Tell me about it.", answer="Jane is an American women's magazine.",
                             sources=MAGAZINES))
    bare = check_case(Case(question="Which magazine is French?", answer="Vogue", sources=MAGAZINES))

    # The opening capital alone named nothing, so "Vogue" went unread and the claim was released.
    assert swapped.terminal is not Terminal.PERMIT and bare.terminal is not Terminal.PERMIT
    assert copied.terminal is Terminal.PERMIT


@pytest.mark.parametrize(
    ("claim", "opening"),
    [("Vogue is a magazine.", "vogu"), ("Portugal.", "portugal"), ("Refunds are due.", "refund"),
     ("Later, Mike asks Ann.", None), ("The plan is free.", None), ("it is free.", None)],
)
def test_the_word_a_claim_opens_with_may_name_something_unless_a_comma_sets_it_apart(claim, opening):
    assert read_claim(claim).opening_stem == opening


def test_a_name_coordinated_with_the_sentences_own_is_no_name_put_in_its_place():
    both = _verdict("Jane and Elle are women's magazines.", *MAGAZINES)
    wrong = _verdict("Jane and Elle are American women's magazines.", *MAGAZINES)

    # "Jane and Elle" adds a name beside Jane's: what the sources say of Elle decides, not a swap for "American".
    assert both.state is State.SUPPORTED and both.method != "offline:altered"
    assert {span.source_id for span in both.evidence} == {"jane", "elle"}
    assert (wrong.state, wrong.method) == (State.INSUFFICIENT_EVIDENCE, "offline:altered")
    assert '"American" where it says "French"' in wrong.rationale
