"""Copies the proof probe held back on fresh draws, and the changes it must still hold back.

A list said in another order is the same list; a sentence of function words only ("I had to have them
all.") is stated by the sentence it copies; a sentence that ends "or not" says it; a sentence ends after
"U.S." when "He" follows. But arguments swapped around a verb, lists paired "respectively", and a name put
where a sentence's opening was left out are no proof.
"""

from __future__ import annotations

import pytest

from verification.checks.altered import Altered
from verification.claims.extraction import extract_claims
from verification.claims.polar import polar
from verification.claims.sentences import split_sentences
from verification.claims.view import read_claim
from verification.decision.offline import OfflineVerifier
from verification.engine import check_case
from verification.retrieval.evidence import gather
from verification.retrieval.index import SourceIndex
from verification.scorers import make_scorer
from verification.types import Case, Source, State, Terminal

RULES = OfflineVerifier(make_scorer("rules"))


def _verdicts(answer: str, source: str):
    return RULES.verify(extract_claims(answer), [Source(id="s", text=source)])


def _proven(verdict) -> bool:
    return verdict.state is State.SUPPORTED and verdict.method == "offline:proof" and verdict.release_score == 1.0


@pytest.mark.parametrize(("answer", "source"), [
    ("Titus is a 1999 film directed by Julie Taymor, starring Jessica Lange and Anthony Hopkins.",
     "Titus is a 1999 film directed by Julie Taymor, starring Anthony Hopkins and Jessica Lange."),
    ("The band members were Ann Lee, Tom Price and Joe Moss.",
     "The band members were Tom Price, Ann Lee and Joe Moss."),
    ("The company was founded by Ida Tarbell and Mark Twain in 1901.",
     "The company was founded by Mark Twain and Ida Tarbell in 1901."),
])
def test_a_list_said_in_another_order_is_proven(answer: str, source: str) -> None:
    assert all(_proven(verdict) for verdict in _verdicts(answer, source))


@pytest.mark.parametrize(("answer", "source"), [
    # Arguments around a verb are no list.
    ("Lange directed Hopkins in the film.", "Hopkins directed Lange in the film."),
    # Lists paired member by member: their order is what the sentence says.
    ("Jones and Smith scored 3 and 5 points, respectively.", "Smith and Jones scored 3 and 5 points, respectively."),
    # A sentence's opening left out, and a name of the sentence before put in its place.
    ("Titus and Jessica Lange, it was the first theatrically-released feature film adaptation of the play.",
     'Titus is the original soundtrack to the 1999 motion picture "Titus". Starring Anthony Hopkins and Jessica '
     "Lange, it was the first theatrically-released feature film adaptation of the play."),
])
def test_words_of_a_sentence_in_an_order_that_changes_who_did_what_are_never_proven(answer: str, source: str) -> None:
    (verdict,) = _verdicts(answer, source)

    assert verdict.state is not State.SUPPORTED and verdict.release_score == 0.0


def test_a_sentence_of_function_words_copied_whole_is_proven_and_the_answer_released() -> None:
    source = "My brother made me a copy of the game. I had to have them all. He still has the box."
    answer = "My brother made me a copy of the game. I had to have them all."

    record = check_case(Case(question="What do the sources say?", answer=answer, sources=[Source(id="s", text=source)]))

    assert (record.terminal, record.final_answer) == (Terminal.PERMIT, answer)
    last = record.candidates[0].claims[-1]
    assert (last.text, last.method) == ("I had to have them all.", "offline:proof")
    assert [word.word for word in last.alignment] == ["I", "had", "to", "have", "them", "all"]


def test_each_conjunct_of_function_words_a_sentence_joins_is_proven() -> None:
    source = "I have said it before and I will say it again."

    verdicts = _verdicts(source, source)

    assert len(verdicts) == 2 and all(_proven(verdict) for verdict in verdicts)


def test_function_words_a_sentence_says_only_inside_a_larger_statement_are_not_proven() -> None:
    (verdict,) = _verdicts("We have them all.", "It is not true that we have them all.")

    assert verdict.state is not State.SUPPORTED


@pytest.mark.parametrize(("text", "is_polar"), [
    ("Yes, you can.", True), ("It is not.", True), ("Of course.", True), ("Not at all.", True),
    ("No, they are not.", True), ("I had to have them all.", False), ("I have said it before.", False),
])
def test_only_an_answer_that_leaves_its_verb_to_the_question_is_a_yes_or_no(text: str, is_polar: bool) -> None:
    assert polar(text) is is_polar


def test_a_yes_or_no_stays_one_though_a_source_says_the_same_words() -> None:
    (verdict,) = RULES.verify(extract_claims("It is not."), [Source(id="s", text="Is it free? It is not.")])

    assert (verdict.state, verdict.method) == (State.INSUFFICIENT_EVIDENCE, "offline:polar-answer")


def test_a_sentence_that_ends_or_not_is_proven_by_itself() -> None:
    sentence = ("No matter what happens in the near future, Dennis will always be a positive figure that fans can "
                "look up to for inspiration – whether he's competing or not.")

    (verdict,) = _verdicts(sentence, sentence)

    assert _proven(verdict)


@pytest.mark.parametrize(("text", "sentences"), [
    ("He was an editor in the U.S. He created the department.",
     ["He was an editor in the U.S.", "He created the department."]),
    ("It was made by Acme Inc. The firm grew.", ["It was made by Acme Inc.", "The firm grew."]),
    ("Dr. He Jiankui spoke.", ["Dr. He Jiankui spoke."]),
    ("The U.S. Steel plant closed.", ["The U.S. Steel plant closed."]),
])
def test_an_abbreviation_ends_a_sentence_where_a_word_that_opens_one_follows(text: str, sentences: list[str]) -> None:
    assert [text[start:end] for start, end in split_sentences(text)] == sentences


def test_two_sentences_copied_across_an_abbreviation_are_released() -> None:
    source = ("He was the first black managing editor of a major metropolitan newspaper in the U.S.\n"
              "He created the Minority Affairs Department at Knight Ridder and retired in 1994.")
    answer = source.replace("\n", " ")

    record = check_case(Case(question="What do the sources say?", answer=answer, sources=[Source(id="s", text=source)]))

    assert (record.terminal, record.final_answer) == (Terminal.PERMIT, answer)
    assert len(record.candidates[0].claims) >= 2


_STREAMED = ("The anime aired in Japan in 2019. The anime's second 12-episode series aired from October-December, "
             "and Crunchyroll again streamed the series as it aired.")


@pytest.mark.parametrize(("answer", "source", "said", "instead"), [
    # A function word with a capital inside a line is a name's.
    ("Ironically, it is her role as M in the Out films that has won the actress worldwide attention.",
     "Ironically, it is her role as M in the Bond films that has won the actress worldwide attention.", "Out", "Bond"),
    # A claim that opens where the sentence names something mid-line puts its word for that name.
    ("Japan again streamed the series as it aired.", _STREAMED, "Japan", "Crunchyroll"),
])
def test_a_name_put_for_another_is_never_supported(answer: str, source: str, said: str, instead: str) -> None:
    (verdict,) = _verdicts(answer, source)

    assert (verdict.state, verdict.method) == (State.INSUFFICIENT_EVIDENCE, "offline:altered")
    assert f'says "{said}" where it says "{instead}"' in verdict.rationale


def test_a_title_quoted_in_brackets_after_a_name_is_a_name_and_one_put_for_it_is_a_change() -> None:
    sentence = ("Piper plays Mandy, a struggling young writer and mother who comes from a dysfunctional family and "
                'falls upon a troubled man played by Leo Bill ("Peterloo").')
    claim = read_claim(sentence.replace("Peterloo", "Sudanese"), "", "en")

    # The scorer reads the claim as supported where its window is the source's page; the check holds it.
    found = Altered().run(claim, gather(claim, SourceIndex([Source(id="s", text=sentence)])))

    assert found is not None and 'says "Sudanese" where it says "Peterloo"' in found.rationale


def test_a_word_that_opens_a_claim_before_other_words_than_the_sentence_has_is_no_name_put_for_one() -> None:
    source = "The nine mile byway starts south of Morehead, Kentucky and can be accessed by U.S. Highway 60."

    (verdict,) = _verdicts("Instead, it can be accessed by U.S. Highway 60.", source)

    assert verdict.method != "offline:altered"


def test_a_pronoun_where_the_sentence_names_the_doer_is_no_name_put_for_it() -> None:
    (verdict,) = _verdicts("They again streamed the series as it aired.", _STREAMED)

    assert _proven(verdict)


def test_a_line_of_a_transcript_copied_whole_is_proven_though_it_says_no() -> None:
    transcript = "Sales Agent: Have you had insurance before?\nClient: No, I have not.\nSales Agent: I see."

    (verdict,) = _verdicts("Client: No, I have not.", transcript)

    assert _proven(verdict)


@pytest.mark.parametrize(("text", "sentences"), [
    ("Camping opens on May 1st. We will open the north side in June.",
     ["Camping opens on May 1st.", "We will open the north side in June."]),
    ("Its films include Mona Lisa and Withnail and I. The failure of Shanghai Surprise followed.",
     ["Its films include Mona Lisa and Withnail and I.", "The failure of Shanghai Surprise followed."]),
    ("J. R. Smith wrote it.", ["J. R. Smith wrote it."]),
])
def test_an_ordinal_and_an_initial_end_a_sentence_before_a_word_that_opens_one(text: str, sentences: list[str]) -> None:
    assert [text[start:end] for start, end in split_sentences(text)] == sentences


@pytest.mark.parametrize(("claim", "source", "proven"), [
    # A condition in a clause set against the claim's with "but" and a verb of its own is that clause's.
    ("It might be a bit pricey for you.", "It might be a bit pricey for you, but our policies come with excellent "
     "benefits, such as giving your family financial security if the worst were to happen.", True),
    # With no verb after the "but", it is the claim's.
    ("Refunds are issued.", "Refunds are issued, but only if you have a receipt.", False),
    # "And" may join what one condition gates.
    ("You can return items.", "You can return items and exchanges are possible if you have a receipt.", False),
])
def test_a_condition_gates_the_clause_it_is_in(claim: str, source: str, proven: bool) -> None:
    (verdict,) = _verdicts(claim, source)

    assert _proven(verdict) is proven
    assert (verdict.method == "offline:condition-dropped") is not proven


@pytest.mark.parametrize(("answer", "source", "said", "instead"), [
    ("Even if they are counseled to play the great ones they've missed, they often do.",
     "Even if they are counseled to play the great ones they've missed, they often don't.", "do", "don't"),
    ("Project Manager: and this one does .", "Project Manager: and this one does not .", "does", "does not"),
])
def test_a_claim_that_ends_on_the_auxiliary_its_sentence_negates_drops_the_negation(
    answer: str, source: str, said: str, instead: str
) -> None:
    (verdict,) = _verdicts(answer, source)

    assert verdict.state is not State.SUPPORTED and verdict.release_score == 0.0
    assert f'says "{said}" where it says "{instead}"' in verdict.rationale


_MEETING = ("Industrial Designer: And it's easier to use because those remote controls don't offer voice recognition\n"
            "Project Manager: Yeah .\nIndustrial Designer: and this one does .\n"
            "Project Manager: this is the wrong one .\nProject Manager: So it's worth its price .")


def test_a_line_that_says_next_to_nothing_is_found_and_read_with_whom_it_is_said_by() -> None:
    # Retrieval by the label finds the Project Manager's other lines; "this is the wrong one ." restates no
    # "and this one does .", though it says its one content word.
    (moved,) = _verdicts("Project Manager: and this one does .", _MEETING)
    (kept,) = _verdicts("Industrial Designer: and this one does .", _MEETING)

    assert moved.state is not State.SUPPORTED
    assert 'says "Project Manager" where it says "Industrial Designer"' in moved.rationale
    assert _proven(kept)


@pytest.mark.parametrize(("answer", "source"), [
    # A phrase moved whole opens at its first content word, past "the", "same" and "first".
    ("New Order Amish differentiate themselves from Old Order Amish in key ways at the same time.",
     "At the same time, New Order Amish differentiate themselves from Old Order Amish in key ways."),
    ("It appears like there isn't much information online regarding his measurements at first glance.",
     "At first glance, it appears like there isn't much information online regarding his measurements."),
    # But not past a word with a capital: a month, a name.
    ("He purchased teeth (nine of them) from some of his slaves in May 1784.",
     "In May 1784, he purchased teeth (nine of them) from some of his slaves."),
    ("Iraq was Jordan's main trading partner until the US invasion in 2003.",
     "Until the US invasion in 2003, Iraq was Jordan's main trading partner."),
    # A contraction made in a line copied whole.
    ("Client: No, I haven't.", "Sales Agent: Have you had insurance before?\nClient: No, I have not."),
])
def test_harmless_changes_of_a_copy_are_proven(answer: str, source: str) -> None:
    assert all(_proven(verdict) for verdict in _verdicts(answer, source))


def test_a_no_that_answers_before_a_clause_is_no_negation_the_clause_drops() -> None:
    source = "No, they are not getting back together, but they are releasing a new album."

    verdicts = _verdicts("No, they aren't getting back together, but they are releasing a new album.", source)

    assert not any(verdict.method == "offline:altered" for verdict in verdicts)


def test_verbs_that_share_what_follows_the_second_are_one_claim() -> None:
    answer = "Forman is a Czech director, who until 1968 lived and worked primarily in Czechoslovakia."

    (claim,) = extract_claims(answer)

    assert claim.text == answer
