"""What a copy of a source depends on being read as the source reads, and the changes a copy can hide.

Each case here was a copy held back, or a change released, in the proof probe on fresh draws of the tune
splits' sources: a contraction, a date in another order, two figures within 1% of each other, an exception
of another predicate, a name with "and" inside it; a negation of another predicate, a name in initials, a
name put for the one a sentence opens with, and claims that join what two sentences say of two subjects;
a value said twice for two, a quoted title, a name in capitals, names in another order, a quotation cut.
"""

from __future__ import annotations

import pytest

from verification.claims.commitments import agree, find_values
from verification.claims.coordination import split_parts
from verification.claims.extraction import extract_claims
from verification.decision.offline import OfflineVerifier
from verification.engine import check_case
from verification.scorers import make_scorer
from verification.types import Case, Source, State, Terminal

RULES = OfflineVerifier(make_scorer("rules"))


def _verdicts(answer: str, source: str):
    return RULES.verify(extract_claims(answer), [Source(id="s", text=source)])


def _verdict(answer: str, source: str):
    (verdict,) = _verdicts(answer, source)
    return verdict


def _proven(verdict) -> bool:
    return verdict.state is State.SUPPORTED and verdict.method == "offline:proof" and verdict.release_score == 1.0


@pytest.mark.parametrize(("answer", "source"), [
    # A contraction is the auxiliary it contracts, hedge or promise alike.
    ("Your email address won't be published.", "Your email address will not be published. Required fields are marked."),
    ("A second coroner in 2012 couldn't explain how he died.",
     "A second coroner in 2012 could not explain how he died."),
    # The same date, day first or month first.
    ("Vengalil Krishnan Krishna Menon (May 3, 1896 – 6 October 1974) was an Indian diplomat.",
     "Vengalil Krishnan Krishna Menon (3 May 1896 – 6 October 1974) was an Indian diplomat."),
    # "8 passes" is stated by the sentence's "8 passes", not by the "eight games" before it.
    ("He played in eight games as a freshman and connected on 4-of-8 passes for 75 yards.",
     "Blanchard began his career in 2008. He played in eight games as a freshman and connected on 4-of-8 passes "
     "for 75 yards."),
    # Two figures to the hundredth, and two years, within 1% of each other are two figures, each stated.
    ("Literacy rate of Gagsina village was 75.87 % compared to 75.55 % of Haryana in 2011.",
     "In 2011, literacy rate of Gagsina village was 75.87 % compared to 75.55 % of Haryana."),
    ("King Aha took to the throne between 3111 and 3045 BC, and died between 3073 and 3036 BC.",
     "King Aha took to the throne between 3111 and 3045 BC, and died between 3073 and 3036 BC."),
    # An exception that closes the predicate after the claim's is that predicate's.
    ("It was described by Panzer in 1809.",
     "It was described by Panzer in 1809 and can be found everywhere in Europe except for Albania and Monaco."),
    # A limit the claim states too, on a number whose unit is not read.
    ("Antechinus are small, measuring nose-to-tail from twelve to 20cm and weighing no more than 180g.",
     "Antechinus are small, measuring nose-to-tail from 12 to 20cm and weighing no more than 180g."),
    # A name the claim opens with, as the sentence does.
    ("Kroll (born June 5, 1978) is an American actor.", "Nicholas Kroll (born June 5, 1978) is an American actor."),
    # A claim whose negation belongs to a predicate it leaves out, joined with a verb of its own.
    ("It does not include storage.", "The plan is not cheap, but it does not include storage."),
])
def test_a_copy_read_as_its_source_reads_is_proven(answer: str, source: str) -> None:
    verdicts = _verdicts(answer, source)

    assert all(_proven(verdict) for verdict in verdicts), [(v.method, v.rationale) for v in verdicts]


@pytest.mark.parametrize(("answer", "source", "method"), [
    ("Vengalil Krishnan Krishna Menon (4 May 1896 – 6 October 1974) was an Indian diplomat.",
     "Vengalil Krishnan Krishna Menon (3 May 1896 – 6 October 1974) was an Indian diplomat.", "offline:typed-mismatch"),
    ("In 2011, literacy rate of Gagsina village was 75.55 % compared to 75.55 % of Haryana.",
     "In 2011, literacy rate of Gagsina village was 75.87 % compared to 75.55 % of Haryana.", "offline:altered"),
    # The exception bears on the predicate the claim states: it is still left out.
    ("It can be found everywhere in Europe.",
     "It was described by Panzer in 1809 and can be found everywhere in Europe except for Albania and Monaco.",
     "offline:condition-dropped"),
    # A condition is kept by the words it adds to the sentence, not by the subject it repeats.
    ("Annual plans are refundable.", "Annual plans are refundable unless the plan was used.",
     "offline:condition-dropped"),
    ("All plans are refundable.", "All plans and add-ons are refundable except the Starter plan.",
     "offline:condition-dropped"),
    # A condition gates the whole sentence, whichever predicate it closes.
    ("Refunds go to the original card.",
     "Refunds go to the original card and are processed within 5 days if you have a receipt.",
     "offline:condition-dropped"),
    # The claim's negation is matched to one that denies an earlier predicate.
    ("It is not a good option to explore because you get two beds in the space of one.",
     "Not all daybeds come with trundles, but it is a good option to explore because you get two beds in the "
     "space of one.", "offline:altered"),
    # A name put for one written in initials, which are no words of their own.
    ("The increase in the dividend to $0.13 per share is consistent with our intention to increase the dividend "
     "to a level that approximates the yield of the Vicki 500.",
     "The increase in the dividend to $0.13 per share is consistent with our intention to increase the dividend "
     "to a level that approximates the yield of the S&P 500. As Vicki mentioned, the debt comes first.",
     "offline:altered"),
    # The claim opens with words the sentence never says where it opens with a name; a first word is
    # capitalised whatever it is.
    ("Get Him (born June 5, 1978) is an American actor, comedian, writer, and producer.",
     "Nicholas Kroll (born June 5, 1978) is an American actor, comedian, writer, and producer.Get Him to the "
     "Greek is a 2010 American comedy film starring Russell Brand and Jonah Hill.", "offline:altered"),
    ("Eddie is a 2016 American action thriller film directed by Babak Najafi.",
     "London Has Fallen is a 2016 American action thriller film directed by Babak Najafi. Eddie Redmayne was "
     "not in it.", "offline:altered"),
    # ... however many words the sentence's opening name has.
    ("Physics, (born 15 July 1943) is a Northern Irish astrophysicist.",
     "Dame Susan Jocelyn Bell Burnell, (born 15 July 1943) is a Northern Irish astrophysicist. Her supervisor "
     "shared the Nobel Prize in Physics.", "offline:altered"),
    # A value said twice where the sentence says another beside it: the diff reads one left out, one added.
    ("The station started to produce electricity in 1992 – 1992.",
     "The station started to produce electricity in 1991 – 1992.", "offline:altered"),
    # A title in quotes is a name, though a quote opens a line of dialogue.
    ('Titus is the original soundtrack to the 1999 motion picture "Jessica Lange".',
     'Titus is the original soundtrack to the 1999 motion picture "Titus". Starring Anthony Hopkins and Jessica '
     "Lange, it was the first feature film adaptation of the play.", "offline:altered"),
    # A name in capitals is a name, whatever the letters are in lower case ("us").
    ("US is the Universal Music Classics home for European imprints Decca and ECM.",
     "Universal Music Classics is the US home for European imprints Decca and ECM.", "offline:reordered"),
    # Names in another order, where the sentence says more between the claim's words than a proof allows.
    ("Castro is an alum of Broad City series Comedy Central.",
     "Castro, who is repped by WME and Avalon, is an alum of Comedy Central series Broad City and is working "
     "with the network on a sketch series.", "offline:reordered"),
    # ... a name the sentence says twice being the one nearest the claim's other words.
    ("On Tuesday night, Heimbach had confronted Parrott over the affair.",
     'On Tuesday night, Parrott had confronted Heimbach over the affair and poked him in the chest, whereupon '
     'Heimbach "grabbed my hand," Parrott said in a statement to police.', "offline:reordered"),
    # A name of the sentence put for another it drops, though the sentence names it further on.
    ("He previously served as Disney Resort for Hotels and Business Solutions at Disneyland Paris after having "
     "been General Manager of the Disney Aulani Resort & Spa in Hawaii.",
     "He previously served as Vice President for Hotels and Business Solutions at Disneyland Paris after having "
     "been General Manager of the Disney Aulani Resort & Spa in Hawaii.", "offline:altered"),
])
def test_a_change_a_copy_hides_is_never_supported(answer: str, source: str, method: str) -> None:
    verdict = _verdict(answer, source)

    assert verdict.state is not State.SUPPORTED
    assert verdict.method == method


@pytest.mark.parametrize(("answer", "source"), [
    # Another name the sentence gives for the same thing, beside it.
    ("Disney Resort & Spa is a beachside hotel, resort and vacation destination.",
     "Aulani, a Disney Resort & Spa is a beachside hotel, resort and vacation destination."),
    ("NYC is the most populous city in the United States.",
     "New York City (NYC) is the most populous city in the United States."),
    # The same value keyed twice is no value put for another.
    ("On August 22, 2017, Canada named the team for the AmeriCup 2017 in Argentina.",
     "On August 22, 2017, Canada named the team for the AmeriCup 2017 in Argentina."),
    ("The station started to produce electricity in 1991 – 1992.",
     "The station started to produce electricity in 1991 – 1992."),
    ("Universal Music Classics is the US home for European imprints Decca and ECM.",
     "Universal Music Classics is the US home for European imprints Decca and ECM."),
    # The opening name said in part.
    ("Bell Burnell, (born 15 July 1943) is a Northern Irish astrophysicist.",
     "Dame Susan Jocelyn Bell Burnell, (born 15 July 1943) is a Northern Irish astrophysicist."),
])
def test_a_name_the_sentence_gives_for_the_same_thing_is_no_change(answer: str, source: str) -> None:
    assert _proven(_verdict(answer, source))


def test_a_negation_of_a_predicate_joined_without_a_verb_of_its_own_still_reaches_the_claim() -> None:
    verdict = _verdict("Refunds are credited to the card.", "Refunds are not issued or credited to the card.")

    assert verdict.state is State.REFUTED


@pytest.mark.parametrize(("first", "second", "same"), [
    ("$212.4 million", "$212 million", True),     # the finer figure rounds to the coarser
    ("$212.6 million", "$212 million", False),    # it does not
    ("75.87 %", "75.55 %", False),                # both to the hundredth
    ("3073 BC", "3045 BC", False),
    ("1,000 people", "1,004 people", True),       # "1,000" may be rounded to the thousand
    ("$20 per month", "$240 per year", True),
])
def test_two_figures_agree_only_where_one_is_the_other_rounded(first: str, second: str, same: bool) -> None:
    (a,), (b,) = find_values(first), find_values(second)

    assert agree(a, b) is same


def test_a_sentence_copied_from_a_source_that_runs_into_the_next_is_one_claim_and_released() -> None:
    source = ("Jan Forman, known as Milos Forman, is a Czech film director, screenwriter, actor, and professor, who "
              "until 1968 lived and worked primarily in Czechoslovakia.Alexander Cox is a British film director.")
    answer = ("Jan Forman, known as Milos Forman, is a Czech film director, screenwriter, actor, and professor, who "
              "until 1968 lived and worked primarily in Czechoslovakia.")
    record = check_case(Case(question="Who is he?", answer=answer, sources=[Source(id="s", text=source)]))

    assert [claim.text for claim in record.candidates[0].claims] == [answer]
    assert (record.terminal, record.final_answer) == (Terminal.PERMIT, answer)


def test_an_and_inside_a_name_joins_no_clauses() -> None:
    sentence = ("If the deal is not completed by Sept. 15, the New Jersey Sports and Exposition Authority would "
                "reactivate its request.")

    joined = "The plan costs $20 and it includes 5 seats."

    assert [(part.start, part.end) for part in split_parts(sentence)] == [(0, len(sentence))]
    assert [joined[part.start:part.end] for part in split_parts(joined)] == [
        "The plan costs $20", "it includes 5 seats."]


EARNINGS = Source(id="call", text=(
    "Net of this adjusting item, earnings per share in the quarter were $6.86. In the third quarter, Capital One "
    "earned $3.1 billion or $6.78 per diluted common share."))


def test_a_wrong_figure_is_told_against_and_repaired_from_the_figure_it_stands_for_not_the_claims_other_one() -> None:
    answer = "Capital One reported earnings per share of $6.90 in the quarter and earned $3.1 billion."
    record = check_case(Case(question="How did the quarter go?", answer=answer, sources=[EARNINGS]))

    (claim,) = record.candidates[0].claims
    assert claim.state is State.REFUTED and claim.rationale == 'The claim says "$6.90"; the source says "$6.78".'
    assert record.candidates[1].text == answer.replace("$6.90", "$6.78")
    assert record.terminal is not Terminal.PERMIT or record.final_answer != answer


MAGAZINES = ("Cooking Light is an American monthly food and lifestyle magazine founded in 1987.Hot Rod is a "
             "monthly American car magazine devoted to hot rodding, drag racing, and muscle cars.")
FILMS = ('She is best known as Dawn O\'Keefe in the comedy-horror film "Teeth" and Jordan in the comedy "The Big '
         'Bad Swim".Teeth is a 2007 black comedy horror film written and directed by Mitchell Lichtenstein.')


@pytest.mark.parametrize(("answer", "source", "rationale"), [
    # A period run into the next sentence's capital after a year ends the sentence; the predicate is the
    # first sentence's, said of its own subject.
    ("Hot Rod was founded in 1987.", MAGAZINES,
     'The sentence of the source that says "was founded in 1987" names Cooking Light, not Hot Rod.'),
    ("Mitchell Lichtenstein directed Jordan.", FILMS,
     "No source sentence says Mitchell Lichtenstein and Jordan together: the claim relates what different "
     "sentences say of each."),
])
def test_a_claim_that_joins_what_two_sentences_say_of_two_subjects_is_never_supported(
        answer: str, source: str, rationale: str) -> None:
    verdict = _verdict(answer, source)

    assert verdict.state is State.INSUFFICIENT_EVIDENCE and verdict.rationale == rationale


@pytest.mark.parametrize(("answer", "source"), [
    ("Hot Rod was founded in 1949.", "Hot Rod is a monthly car magazine. It was founded in 1949."),
    ("Mitchell Lichtenstein directed Teeth.", "Teeth is a 2007 film. Mitchell Lichtenstein directed Teeth."),
])
def test_a_subject_a_pronoun_carries_or_two_names_said_together_are_read_as_said(answer: str, source: str) -> None:
    verdict = _verdict(answer, source)

    assert verdict.method not in ("offline:subject-unstated", "offline:relation-unstated")


def test_a_quotation_is_never_split_into_claims() -> None:
    sentence = ('On Tuesday night, Parrott had confronted Heimbach over the affair and poked him in the chest, '
                'whereupon Heimbach "grabbed and injured my hand … then choked me out with his arm," Parrott said.')
    statements = [claim.statement for claim in extract_claims(sentence)]

    assert not any(statement.endswith('"grabbed') for statement in statements)
    assert any('"grabbed and injured my hand' in statement for statement in statements)


def test_a_claim_whose_names_a_sentence_says_the_other_way_round_is_never_released() -> None:
    source = ("The History of Presque Isle began when Presque Isle was created by the wave action of Lake Erie over "
              "the course of the 11,000 years that have passed since the last ice age. Presque Isle State Park is a "
              "3112 acre Pennsylvania state park on an arching, sandy peninsula that juts into Lake Erie, 4 mi west "
              "of the city of Erie.")
    question = "What is the 3112 acre Pennsylvania state park made by the wave action of Lake Erie called?"
    record = check_case(Case(question=question, answer="Lake Erie State Park.", sources=[Source(id="s", text=source)]),
                        verifier=RULES)

    assert record.candidates[0].claims[0].method == "offline:reordered"
    assert not (record.terminal is Terminal.PERMIT and record.final_answer == "Lake Erie State Park.")


def test_names_said_in_the_sentences_order_are_not_held_as_reordered() -> None:
    source = ('On Tuesday night, Parrott had confronted Heimbach over the affair and poked him in the chest, whereupon '
              'Heimbach "grabbed my hand," Parrott said in a statement to police.')
    verdict = _verdict("On Tuesday night, Parrott had confronted Heimbach over the affair.", source)
    # The claim says Parrott twice, as the sentence does: each where the sentence says it.
    both = _verdict('On Tuesday night, Parrott poked him in the chest, whereupon Heimbach "grabbed my hand," Parrott '
                    "said in a statement to police.", source)

    assert verdict.state is State.SUPPORTED
    assert verdict.method != "offline:reordered"
    assert both.method != "offline:reordered"
