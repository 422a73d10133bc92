"""Changes the proof probe let through on fresh draws, and a copy it held back.

"cannot" is "can" and "not"; the capital that opens a hyphened name ("Armenian-American") opens a name;
a passive both sides say is no change of voice; a value a sentence says twice states each of the claim's.
"""

from __future__ import annotations

import pytest

from verification.checks.proof.voice import explains_order
from verification.claims.extraction import extract_claims
from verification.claims.tokens import negated_stems, spelled_out, words
from verification.claims.verbs import has_verb
from verification.decision.offline import OfflineVerifier
from verification.engine import check_case
from verification.scorers import make_scorer
from verification.types import Case, Source, State, Terminal

RULES = OfflineVerifier(make_scorer("rules"))
QUESTION = "What do the sources say?"


def _verdicts(answer: str, source: str):
    return RULES.verify(extract_claims(answer), [Source(id="s", text=source)])


def _released_as_written(answer: str, source: str) -> bool:
    record = check_case(Case(question=QUESTION, answer=answer, sources=[Source(id="s", text=source)]))
    return (record.terminal, record.final_answer) == (Terminal.PERMIT, answer)


def test_cannot_is_can_and_not_and_n_t_is_not() -> None:
    assert [word for word, _, _ in spelled_out(words("It cannot be; it can't."))] == [
        "it", "can", "not", "be", "it", "can", "not"]


@pytest.mark.parametrize(("answer", "source"), [
    ("It cannot be a blur.", "It can be a blur."),
    ("It can be a blur.", "It cannot be a blur."),
])
def test_a_short_sentence_with_a_negation_put_in_or_taken_out_is_held_back(answer: str, source: str) -> None:
    source = f"I don't remember a lot of that tour. {source} We played with many bands."

    (verdict,) = _verdicts(answer, source)

    assert (verdict.state, verdict.method) == (State.INSUFFICIENT_EVIDENCE, "offline:altered")
    assert not _released_as_written(answer, source)


def test_a_short_sentence_copied_with_cannot_for_can_t_is_proven() -> None:
    source = "I don't remember a lot of that tour. It can't be a blur. We played with many bands."

    (verdict,) = _verdicts("It cannot be a blur.", source)

    assert (verdict.state, verdict.method) == (State.SUPPORTED, "offline:proof")


@pytest.mark.parametrize(("source", "answer", "instead"), [
    # The capital that opens a line opens a name where a hyphen joins it to another.
    ("Joseph Michael Manganiello (born December 28, 1976) is an American actor. Kerkor Kerkorian was an "
     "Armenian-American businessman.",
     "Armenian-American (born December 28, 1976) is an American actor.", "Joseph Michael Manganiello"),
    # A capital after a bracket opened after a word is a name.
    ("The top team from each group will advance to the Final Phase. The Final Phase will be played in Cordoba "
     "(Argentina), where the winners of the semifinals will square off in the title game. Raptors 905 "
     "(G-League) sent two players.",
     "The Final Phase will be played in Cordoba (G-League), where the winners of the semifinals will square off "
     "in the title game.", "Argentina"),
])
def test_a_name_put_for_another_is_a_change(source: str, answer: str, instead: str) -> None:
    (verdict,) = _verdicts(answer, source)

    assert (verdict.state, verdict.method) == (State.INSUFFICIENT_EVIDENCE, "offline:altered")
    assert f'where it says "{instead}"' in verdict.rationale
    assert not _released_as_written(answer, source)


_RECONSTRUCTIONS = ("The most Neanderthal-like reconstruction was done by Kleinschmidt, and the least "
                    "Neanderthal-like was done by Weidenreich.")


def test_arguments_swapped_around_a_passive_both_sides_say_are_never_supported() -> None:
    answer = "The most Neanderthal-like reconstruction was done by Kleinschmidt, and the least Weidenreich was done " \
             "by Neanderthal-like."

    first, second = _verdicts(answer, _RECONSTRUCTIONS)

    assert (first.state, first.method) == (State.SUPPORTED, "offline:proof")
    assert (second.state, second.method) == (State.INSUFFICIENT_EVIDENCE, "offline:reordered")
    assert not _released_as_written(answer, _RECONSTRUCTIONS)


@pytest.mark.parametrize(("claim", "span", "explained"), [
    # The same passive on both sides, the sentence saying it twice: no voice changed.
    ("the least Weidenreich was done by Neanderthal-like", _RECONSTRUCTIONS, False),
    # Said actively with the doer before the verb: the voice explains the order.
    ("Weidenreich did the least Neanderthal-like reconstruction",
     "The least Neanderthal-like reconstruction was done by Weidenreich.", True),
    # Said actively with the doer after the verb: it does not.
    ("The least Neanderthal-like reconstruction did Weidenreich", "The least Neanderthal-like reconstruction was done "
     "by Weidenreich.", False),
])
def test_only_a_change_of_voice_that_keeps_the_doer_explains_another_order(claim: str, span: str,
                                                                            explained: bool) -> None:
    assert explains_order(words(claim), [words(span)]) is explained


def test_a_sentence_copied_with_a_number_spelled_out_is_proven_though_it_says_a_value_twice() -> None:
    source = ("In 2012, he collected 24 tackles, 12 passes defensed, one fumble recovery and two defensive "
              "touchdowns (one fumble return, one interception return) in 15 games.")
    answer = source.replace("12 passes", "twelve passes")

    (verdict,) = _verdicts(answer, source)

    assert (verdict.state, verdict.method, verdict.release_score) == (State.SUPPORTED, "offline:proof", 1.0)
    assert _released_as_written(answer, source)


def test_a_value_said_twice_where_the_sentence_says_another_the_second_time_is_not_proven() -> None:
    source = ("In 2012, he collected 24 tackles, one fumble recovery and two defensive touchdowns (two fumble "
              "returns, one interception return) in 15 games.")
    answer = source.replace("two fumble returns", "one fumble returns")

    (verdict,) = _verdicts(answer, source)

    assert verdict.method != "offline:proof"
    assert not _released_as_written(answer, source)


@pytest.mark.parametrize(("text", "negated"), [
    ("No, worse - it is the punchline.", []),
    ("Client: No, I have not paid.", ["pay"]),
    ("No refunds are given.", ["refund"]),
    ("There is no, or little, fee.", ["littl"]),
])
def test_an_answering_no_denies_nothing_after_it(text: str, negated: list[str]) -> None:
    assert sorted(negated_stems(text)) == negated


def test_a_sentence_that_opens_with_an_answering_no_is_proven_without_it() -> None:
    source = ("Is that line cut? No, worse - it's the punchline they use in the trailer, which means they think it's "
              "one of the best lines in the show.")
    answer = "No, worse - it's the punchline they use in the trailer, which means they think it's one of the best " \
             "lines in the show."

    verdicts = _verdicts(answer, source)

    assert [(verdict.state, verdict.method) for verdict in verdicts] == [(State.SUPPORTED, "offline:proof")]
    assert _released_as_written(answer, source)


def test_a_sentence_copied_whole_with_its_first_letter_lowered_stays_one_claim_and_is_released() -> None:
    source = ("For a limited period of only two weeks, we are providing our cutting-edge EHR platform and Telehealth "
              "services, packed with features tailored to a clinic like yours, for just $480/month! Call us today.")
    answer = "for" + source.split("!")[0].removeprefix("For") + "!"

    claims = extract_claims(answer, sources=[source])

    assert [claim.statement for claim in claims] == [answer]
    assert _released_as_written(answer, source)


@pytest.mark.parametrize("statement", [
    # An irregular past is a verb.
    "The slide came amid a market-wide sell-off, with the NASDAQ sliding 3 percent.",
    "The team fought for every point.",
    "She stood by the decision.",
    # So is the verb a pronoun has contracted onto it ("I've been" is "I have been").
    "I've been a working actress since the age of 12.",
    "She's a doctor in Leeds.",
    "They're in Paris this week.",
    "It'll rain on Monday.",
    "We’d gone home by then.",
])
def test_an_irregular_past_or_a_contracted_verb_is_a_verb_so_the_claim_is_no_bare_answer(statement: str) -> None:
    (claim,) = extract_claims(statement, question=QUESTION)

    assert has_verb(statement)
    assert claim.context == ""


def test_a_sentence_with_an_irregular_past_copied_with_a_value_rewritten_is_proven() -> None:
    source = "The slide came amid a market-wide sell-off, with the NASDAQ sliding 3%, and the Dow dropping 623 points."
    answer = source.replace("3%", "3 percent")

    assert _released_as_written(answer, source)


@pytest.mark.parametrize(("sentence", "parts"), [
    # A noun in -s after an article is no verb: "the listeners" and "the Saints" are joined to what precedes.
    ("It's better for me, and the listeners, if they just chat away and I sit there listening.", 1),
    ("The podcast discusses the games between the Patriots and the Chiefs, and the Rams and the Saints.", 1),
    # A verb after the noun still opens a clause of its own.
    ("The museum opens at 9 and the shop closes at 5.", 2),
    ("The plan costs $20 and it includes 5 seats.", 2),
])
def test_an_and_opens_a_clause_only_where_a_verb_follows_its_noun(sentence: str, parts: int) -> None:
    assert len(extract_claims(sentence)) == parts


def test_a_short_claim_that_drops_the_negation_of_its_last_auxiliary_is_held_back() -> None:
    source = "Of course, this can work really well, if the team gets on. But it can be a nightmare if they don't."

    (verdict,) = _verdicts("But it can be a nightmare if they do.", source)

    assert (verdict.state, verdict.method) == (State.INSUFFICIENT_EVIDENCE, "offline:altered")
    assert 'where it says "n\'t"' in verdict.rationale


_RICH = ("'It was about the crumbling of the East End.' And Get Back, like Sitting Pretty, is about people who were "
         "rich in the Eighties, and aren't rich now. You only have a handful of characters.")


def test_a_sentence_copied_with_a_contraction_written_out_stays_one_claim_and_is_released() -> None:
    answer = "And Get Back, like Sitting Pretty, is about people who were rich in the Eighties, and are not rich now."

    assert [claim.statement for claim in extract_claims(answer, sources=[_RICH])] == [answer]
    assert _released_as_written(answer, _RICH)


def test_a_word_the_sentence_both_states_and_denies_is_no_negation_mismatch() -> None:
    # The claim's "rich" is the sentence's first, which no negation reaches.
    (verdict,) = _verdicts("And Get Back is about people who were rich in the Eighties.", _RICH)

    assert verdict.method != "offline:negation-mismatch"
    assert verdict.state is not State.REFUTED


_YOUNG = ("Young opened her career with four knockout wins, including a victory over Miesha Tate, and captured the "
          "HOOKnSHOOT title on November 24, 2007.")


def test_a_predicate_split_from_its_sentence_is_proven_past_the_qualifiers_of_the_predicate_left_out() -> None:
    # The "over" of "a victory over Miesha Tate" is the first predicate's, not the second's.
    answer = _YOUNG.replace("November 24, 2007", "24 November 2007")

    claims = extract_claims(answer)
    verdicts = RULES.verify(claims, [Source(id="s", text=_YOUNG)])

    assert [claim.statement for claim in claims][1] == "Young captured the HOOKnSHOOT title on 24 November 2007."
    assert [(verdict.method, verdict.release_score) for verdict in verdicts] == [("offline:proof", 1.0)] * 2


def test_a_predicate_whose_own_qualifier_the_claim_leaves_out_is_not_proven() -> None:
    source = "The museum opened in 1990 and closed only on Mondays."

    claims = extract_claims("The museum opened in 1990 and closed on Mondays.")
    verdicts = RULES.verify(claims, [Source(id="s", text=source)])

    assert verdicts[-1].method != "offline:proof"
