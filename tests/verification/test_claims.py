from __future__ import annotations

import pytest

from verification.claims.extraction import extract, extract_claims
from verification.types import Severity


def test_conjoined_assertions_become_separate_claims_with_exact_spans():
    text = "The plan costs $20 and it includes 5 seats."
    claims = extract_claims(text)
    assert [c.text for c in claims] == ["The plan costs $20", "it includes 5 seats."]
    for claim in claims:
        assert text[claim.start : claim.end] == claim.text


def test_coordinated_predicates_become_claims_that_keep_their_span_and_read_with_their_subject():
    text = "The museum opens at 9 and closes at 5."
    claims = extract_claims(text)

    assert [(c.text, c.start, c.end) for c in claims] == [("The museum opens at 9", 0, 21), ("closes at 5.", 26, 38)]
    assert [c.statement for c in claims] == ["The museum opens at 9", "The museum closes at 5."]
    for claim in claims:
        assert text[claim.start : claim.end] == claim.text


@pytest.mark.parametrize(
    "sentence",
    [
        "Her application hasn't been approved, but she says it will be.",
        "The courier can't deliver today, but he will tomorrow.",
        "The fee was not waived last year, but it will be.",
    ],
)
def test_a_clause_that_leaves_its_verb_to_the_clause_before_stays_with_it(sentence: str):
    [claim] = extract_claims(sentence)
    assert claim.text == sentence


def test_a_clause_with_its_own_verb_after_an_auxiliary_is_a_claim_of_its_own():
    claims = extract_claims("The store is closed on Sundays, but it will be open on Monday.")
    assert [c.text for c in claims] == ["The store is closed on Sundays", "it will be open on Monday."]


def test_a_list_of_predicates_is_one_claim_per_predicate_all_sharing_the_subject():
    claims = extract_claims("The museum opens at 9, closes at 5 and is free on Sundays.")

    assert [c.statement for c in claims] == [
        "The museum opens at 9", "The museum closes at 5", "The museum is free on Sundays."
    ]


@pytest.mark.parametrize(("sentence", "second"), [
    ("After the meeting, the board approved the budget and hired a new director.",
     "After the meeting, the board hired a new director."),
    # An opening phrase with a verb of its own: the subject is the one after its comma, not the phrase.
    ("By looking around to see who else might be upset, I found this forum and learned that the font was new.",
     "I learned that the font was new."),
])
def test_a_predicate_after_an_opening_phrase_is_read_with_the_subject_after_its_comma(sentence: str,
                                                                                      second: str) -> None:
    claims = extract_claims(sentence)

    assert [claim.statement for claim in claims][1:] == [second]


@pytest.mark.parametrize(
    "sentence",
    [
        "Add salt and pepper to taste.",
        "The museum is open between 9 and 5.",
        "The shop sells apples and pears from Kent.",
        "The kit includes a tent and poles for camping.",
        # What follows the "and" shows no verb before its first preposition, or only a noun in -is:
        "The company had a decrease in net income on a non-GAAP and GAAP basis in Q2 compared to last year.",
        "The bank offers savings accounts, a quick application process and a 15% discount for new customers.",
        "The firm changed its name and its tax status in 2019.",
        # What brackets hold is an aside, not a verb: "drums" names an instrument.
        "The band consists of Ann Lee (vocals, piano), Bo Ray (bass), and Cy Dunn (drums).",
    ],
)
def test_nouns_joined_by_and_are_one_fact_and_stay_one_claim(sentence: str):
    [claim] = extract_claims(sentence)
    assert (claim.text, claim.subject) == (sentence, "")


def test_greetings_questions_and_sign_offs_are_not_claims():
    text = (
        "Hi Sam, thanks for getting in touch! Refunds are issued within 30 days of purchase. "
        "Would you like me to start one? Let me know if you need anything else. Hope this helps!"
    )
    assert [c.text for c in extract_claims(text)] == ["Refunds are issued within 30 days of purchase."]


def test_a_bare_answer_carries_the_question_and_a_sentence_does_not():
    question = "The Oberoi family's hotel company has its head office in what city?"
    [bare] = extract_claims("Delhi", question)
    yes, sentence = extract_claims("Yes. Its head office is in Delhi.", question)

    assert (bare.text, bare.context) == ("Delhi", question)
    assert yes.context == question
    assert sentence.context == ""
    assert extract_claims("Delhi")[0].context == ""
    # A past tense that no -ed shows is a verb still: the sentence states something of its own.
    assert extract_claims("Its founder ran for the Senate in 2016.", question)[0].context == ""


@pytest.mark.parametrize(
    "answer",
    ["dairy products", "flowering plants", "ten weeks", "3000 metres steeplechase", "beverage for athletes.",
     "groups of rebellious musicians.", "tennis", "The band that released their first album in 2000",
     "May 30, 1943", "I Will Always Love You", "The Deaflympics' first event in 2017.", "Around 400 miles in length."],
)
def test_a_noun_phrase_in_s_or_ed_is_a_bare_answer_read_with_its_question(answer):
    question = "What did they make?"
    assert {claim.context for claim in extract_claims(answer, question)} == {question}


def test_a_source_sentence_copied_whole_is_a_claim_of_its_own_though_it_has_no_verb():
    source = "Revenue rose. And the EPS, $3.50, a substantial rise versus both 2020 and 2019. Dairy products sell."
    question = "How did the EPS do?"

    [copied] = extract_claims("And the EPS, $3.50, a substantial rise versus both 2020 and 2019.", question, [source])
    [part] = extract_claims("a substantial rise versus both 2020", question, [source])

    assert copied.context == ""
    assert part.context == question  # a stretch of a sentence is no sentence of the source


@pytest.mark.parametrize(
    "answer",
    ["Refunds reach the card in 5 days.", "Prices vary.", "Mary sings.", "You get a full refund.",
     "In 2015, she came in 2nd place.", "They include Erik Hersman and David Kobia.",
     "Snap-on reported a gain.", "The writer born in 1872 used their poetry for recordings.",
     "They express their jealousy over the weather.", "The Elm 12 weighs 2.0 kg."],
)
def test_a_sentence_states_its_claim_itself_whatever_its_verb(answer):
    assert [claim.context for claim in extract_claims(answer, "What happened?")] == [""]


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        ("No. Refunds are not given after 30 days.", ["No.", "Refunds are not given after 30 days."]),
        ("The answer is no. Refunds are given.", ["The answer is no.", "Refunds are given."]),
        ("We sat in the sun. It was hot.", ["We sat in the sun.", "It was hot."]),
        ("Ticket No. 5 is open. See Fig. 2 for it.", ["Ticket No. 5 is open.", "See Fig. 2 for it."]),
    ],
)
def test_a_word_that_abbreviates_only_before_a_number_ends_its_sentence_elsewhere(answer, claims):
    assert [claim.text for claim in extract_claims(answer)] == claims


def test_a_no_before_a_sentence_is_a_bare_answer_to_the_question_and_the_sentence_a_claim_of_its_own():
    question = "Can I get a refund after 30 days?"
    no, sentence = extract_claims("No. Refunds are not given after 30 days.", question)

    assert (no.text, no.asserts) == ("No.", "you cannot get a refund after 30 days")
    assert (sentence.text, sentence.context) == ("Refunds are not given after 30 days.", "")


def test_ids_follow_text_order():
    claims = extract_claims("Acme was founded in 1987. It has 200 employees. Its office is in Boston.")
    assert [c.id for c in claims] == ["k1", "k2", "k3"]
    assert [c.start for c in claims] == sorted(c.start for c in claims)


@pytest.mark.parametrize(
    "sentence",
    [
        "Contact support to get a full refund at any time.",  # an imperative that promises a refund
        "Please contact support within 14 days to cancel.",
        "I think the annual plan is still the best value.",  # a hedge is still the same claim
        "It may be possible to get your money back after 60 days.",
        "Your order has probably been refunded already.",
        "If you cancel within 30 days, you get a full refund.",
        "Always read the leaflet before use.",  # advice: checked, never released unchecked
        "You should register your headphones to speed up claims.",
        "Feel free to return the headphones within 90 days for a full refund.",  # reads like an offer of help
        "Let me know if you want a full refund.",
        "Thank you for your patience while we process your full refund.",
        "I hope your refund arrives within 5 days.",
    ],
)
def test_imperatives_hedges_conditionals_and_advice_are_checkable_claims(sentence: str):
    extraction = extract(sentence)
    assert [(c.text, c.checkable) for c in extraction.claims] == [(sentence, True)]
    assert extraction.left_out == ()


def test_a_promise_in_an_imperative_is_a_critical_claim():
    (claim,) = extract_claims("Contact support to get a full refund at any time.")
    assert claim.severity is Severity.CRITICAL


@pytest.mark.parametrize(
    ("text", "claims"),
    [
        ("Thanks for reaching out! You can request a full refund within 60 days",
         ["You can request a full refund within 60 days"]),
        ("Thanks, the refund takes 5 days.", ["the refund takes 5 days."]),
        ("Sure, refunds reach your card in 5 to 10 days.", ["refunds reach your card in 5 to 10 days."]),
        ("Hi Sam, your refund of $40 was approved.", ["your refund of $40 was approved."]),
        ("Happy to help! Of course, the Team plan includes phone support.", ["the Team plan includes phone support."]),
    ],
)
def test_a_courtesy_opening_keeps_the_assertion_after_it_as_a_claim(text: str, claims: list[str]):
    found = extract_claims(text)
    assert [c.text for c in found] == claims
    assert all(text[c.start : c.end] == c.text for c in found)


def test_each_left_out_sentence_names_the_entry_of_the_list_it_matched():
    text = (
        "Good morning! Thank you so much for getting in touch with us today. Refunds take 5 days. "
        "Is there anything else I can do for you? The refund covers:\n- the annual fee\n"
        "If you have any other questions, please don't hesitate to contact us. Hope this helps :)\n"
        "Kind regards,\nAnna from the Larkspur team"
    )
    extraction = extract(text)
    assert [c.text for c in extraction.claims] == ["Refunds take 5 days.", "the annual fee"]
    assert [(s.text, s.kind) for s in extraction.left_out] == [
        ("Good morning!", "greeting"),
        ("Thank you so much for getting in touch with us today.", "thanks"),
        ("Is there anything else I can do for you?", "question"),
        ("The refund covers:", "list heading"),
        ("If you have any other questions, please don't hesitate to contact us.", "offer of help"),
        ("Hope this helps :)", "offer of help"),
        ("Kind regards,", "sign-off"),
        ("Anna from the Larkspur team", "sign-off"),
    ]
    assert all(text[s.start : s.end] == s.text for s in extraction.left_out)


def test_a_bare_yes_or_absolutely_answers_the_question_and_is_a_claim():
    # "Can I get a refund after 60 days?" "Absolutely!": it is checked (and omitted when nothing grounds it),
    # never waved through as a courtesy.
    claims = extract_claims("Absolutely! Yes. Refunds take 5 days. Great question! Sure, happy to help!")
    assert [c.text for c in claims] == ["Absolutely!", "Yes.", "Refunds take 5 days.", "Sure, happy to help!"]


def test_claims_carry_commitments_and_severity():
    (claim,) = extract_claims("Take 400 mg every 6 hours.")
    assert {c.kind for c in claim.commitments} >= {"number", "duration"}
    assert claim.severity is Severity.CRITICAL


def test_bullet_markers_are_left_out_of_the_span():
    text = "Plan details:\n- The Team plan includes 10 seats\n- Annual billing saves 15%"
    claims = extract_claims(text)
    assert [c.text for c in claims] == ["The Team plan includes 10 seats", "Annual billing saves 15%"]
    assert all(text[c.start : c.end] == c.text for c in claims)


def test_empty_answer_has_no_claims():
    assert extract_claims("") == []
    assert extract_claims("Thanks!") == []


def test_an_assertion_after_yes_or_no_is_a_claim_without_the_answer_word():
    text = "Yes, both bands are American rock bands. Happy to help!"
    claims = extract_claims(text)
    assert [claim.text for claim in claims] == ["both bands are American rock bands."]
    assert text[claims[0].start : claims[0].end] == claims[0].text
