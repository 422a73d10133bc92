"""Readings the proof probe's fresh draws asked for: a pronoun with its verb contracted onto it ("I've
been") has a verb, so its sentence is no bare answer (the parametrized verbs of
`test_negations_voices_and_repeated_values`); and a negating word ("none") is in no source's vocabulary, so
the source never using it says nothing of it: a sentence copied word for word is not contradicted by its
neighbour's "all"; and a name of several words put for a sentence's name in a clause too short to restate it by
its words that carry content ("It was published by Charles Fort") is a change, as is a negation dropped before
words that carry none ("has let them down" for "has not let them down"); and an answer's sentence that runs two
of a source's sentences together past an abbreviation ("George Bush Sr. Nominated ...") is cut where the source
ends one; a function word written with a capital inside a name ("Jokers of the Like") is a word a proof must
find stated; and a line after a colon is a sentence a copy may be of, whole.
"""

from __future__ import annotations

from verification.claims.extraction import extract_claims
from verification.claims.verbs import has_verb
from verification.decision.offline import OfflineVerifier
from verification.engine import check_case
from verification.scorers import make_scorer
from verification.types import Case, Source, State, Terminal

RULES = OfflineVerifier(make_scorer("rules"))
QUESTION = "What do the sources say?"


def _released_as_written(answer: str, source: str) -> bool:
    record = check_case(Case(question=QUESTION, answer=answer, sources=[Source(id="s", text=source)]))
    return (record.terminal, record.final_answer) == (Terminal.PERMIT, answer)


def test_a_noun_with_a_possessive_is_still_a_bare_answer() -> None:
    (claim,) = extract_claims("The company's headquarters", question="Where is the office?")

    assert not has_verb("The company's headquarters")
    assert claim.context == "Where is the office?"


_ACTRESS = ("This came as no surprise to me. I've been a working actress since the age of 12. I've been "
            "accredited by my industry at the highest levels.")


def test_a_contracted_sentence_copied_with_its_number_spelled_out_is_proven_and_released() -> None:
    answer = "I've been a working actress since the age of twelve."

    (verdict,) = RULES.verify(extract_claims(answer, question=QUESTION), [Source(id="s", text=_ACTRESS)])

    assert (verdict.state, verdict.method) == (State.SUPPORTED, "offline:proof")
    assert _released_as_written(answer, _ACTRESS)


_SIGHTINGS = ("They studied the military and civilian sightings. We all agreed that there were some that could not "
              "be explained. However we also agreed that none that were extraterrestrial threats. I assure you "
              "there are no conspiracies.")


def test_a_sentence_copied_with_none_is_not_contradicted_by_its_neighbour_s_all() -> None:
    answer = "However we also agreed that none that were extraterrestrial threats."

    (verdict,) = RULES.verify(extract_claims(answer), [Source(id="s", text=_SIGHTINGS)])

    assert (verdict.state, verdict.method) == (State.SUPPORTED, "offline:proof")
    assert _released_as_written(answer, _SIGHTINGS)


def test_none_put_for_the_all_of_a_matching_sentence_is_still_contradicted() -> None:
    source = "All of the plans include phone support. Refunds take 5 days."

    (verdict,) = RULES.verify(extract_claims("None of the plans include phone support."), [Source(id="s", text=source)])

    assert verdict.state is not State.SUPPORTED
    assert not _released_as_written("None of the plans include phone support.", source)


_BIZARRE = ("Bizarre was a British alternative magazine published from 1997 to 2015. It was published by Dennis "
            "Publishing, and was a sister publication to the \"Fortean Times\". Fortean Times is a British monthly "
            "magazine devoted to the anomalous phenomena popularised by Charles Fort.")


def test_a_name_of_several_words_put_for_another_in_a_short_clause_is_a_change() -> None:
    answer = 'It was published by Charles Fort, and was a sister publication to the "Fortean Times".'

    first, second = RULES.verify(extract_claims(answer), [Source(id="s", text=_BIZARRE)])

    assert (first.state, first.method) == (State.INSUFFICIENT_EVIDENCE, "offline:altered")
    assert '"Charles Fort" where it says "Dennis Publishing"' in first.rationale
    assert second.state is State.SUPPORTED
    assert not _released_as_written(answer, _BIZARRE)


def test_a_name_the_sentence_joins_to_another_is_no_change() -> None:
    source = "The film stars Meg Ryan and Tom Hanks. It was released in 1998."

    (verdict,) = RULES.verify(extract_claims("The film stars Tom Hanks."), [Source(id="s", text=source)])

    assert verdict.state is State.SUPPORTED


_SILENT = ("Playing by the rules always worked well for them. As the Silent have aged, their perfect timing has "
           "not let them down. Many of them locked in fixed mortgages on their first homes.")


def test_a_negation_dropped_before_words_that_carry_no_content_is_a_change() -> None:
    answer = "As the Silent have aged, their perfect timing has let them down."

    (verdict,) = RULES.verify(extract_claims(answer), [Source(id="s", text=_SILENT)])

    assert (verdict.state, verdict.method) == (State.INSUFFICIENT_EVIDENCE, "offline:altered")
    assert 'says "has let" where it says "has not let"' in verdict.rationale
    assert not _released_as_written(answer, _SILENT)


def test_the_same_sentence_with_its_negation_is_released() -> None:
    answer = "As the Silent have aged, their perfect timing has not let them down."

    assert _released_as_written(answer, _SILENT)


_BENOIT = ("## David Benoit\nDavid Benoit is a jazz pianist and has performed at the White House for three U.S. "
           "presidents: Bill Clinton, Ronald Reagan and George Bush Sr.\nNominated for five Grammy awards, he has "
           "released more than 25 solo recordings.\nHe is the principal conductor of an orchestra.")
_RUN_ON = ("David Benoit has performed at the White House for three U.S. presidents: Bill Clinton, Ronald Reagan and "
           "George Bush Sr. Nominated for five Grammy awards, he has released more than {} solo recordings.")


def test_an_answer_sentence_is_cut_where_the_source_it_copies_ends_a_sentence() -> None:
    answer = _RUN_ON.format(26)

    claims = extract_claims(answer, QUESTION, [_BENOIT])

    assert [claim.statement for claim in claims] == [
        answer[:answer.index(" Nominated")], "Nominated for five Grammy awards, he has released more than 26 solo "
        "recordings."]
    verdicts = RULES.verify(claims, [Source(id="s", text=_BENOIT)])
    assert verdicts[1].state is State.REFUTED
    assert not _released_as_written(answer, _BENOIT)
    assert _released_as_written(_RUN_ON.format(25), _BENOIT)


def test_an_abbreviation_the_source_runs_on_from_cuts_nothing() -> None:
    source = _BENOIT.replace("Bush Sr.\n", "Bush Sr. ")

    (claim,) = extract_claims(_RUN_ON.format(25), QUESTION, [source])

    assert claim.statement == _RUN_ON.format(25)


_CONCERT = ("I was really disappointed because the event was supposed to end at midnight. Musicians and DJs such as "
            "Felix Cartal, Jokers of the Scene and DJ Philly performed at the concert at Town Square. Food trucks "
            "were open throughout the night.")


def test_a_function_word_written_as_a_name_s_word_must_be_stated_for_a_proof() -> None:
    answer = _CONCERT.split(". ")[1].replace("the Scene", "the Like") + "."

    (verdict,) = RULES.verify(extract_claims(answer), [Source(id="s", text=_CONCERT)])

    assert (verdict.state, verdict.method) == (State.INSUFFICIENT_EVIDENCE, "offline:altered")
    assert 'says "Like" where it says "Scene"' in verdict.rationale
    assert not _released_as_written(answer, _CONCERT)
    assert _released_as_written(_CONCERT.split(". ")[1] + ".", _CONCERT)


_LETTERING = ("The result, in my opinion?\nA coolness that causes disengagement with the story:\nBy googling around to "
              "see who else might be lamenting the new changes, I discovered this discussion on the web site "
              "Tintinologist, and learned that the original lettering was done by a man named Hyslop.\nSome people "
              "claim that the font is fine.")


def test_a_line_after_a_colon_copied_with_its_first_letter_lowered_stays_one_claim_and_is_released() -> None:
    line = _LETTERING.split("\n")[2]
    answer = line[0].lower() + line[1:]

    assert [claim.statement for claim in extract_claims(answer, QUESTION, [_LETTERING])] == [answer]
    assert _released_as_written(answer, _LETTERING)


def test_a_name_that_opens_the_sentence_on_one_side_and_not_the_other_is_still_read_alike() -> None:
    # "New" of "New Paltz" opens the source's sentence and not the claim: neither side counts it, so the
    # claim that swaps the two places still aligns to the sentence and is held as reordered.
    source = ("All tracks were recorded in New Paltz. New Paltz is a village in Ulster County located in the state "
              "of New York.")
    answer = "Ulster County is a village in New Paltz located in the state of New York."

    (verdict,) = RULES.verify(extract_claims(answer), [Source(id="s", text=source)])

    assert (verdict.state, verdict.method) == (State.INSUFFICIENT_EVIDENCE, "offline:reordered")
    assert not _released_as_written(answer, source)


def test_a_sentence_copied_whole_leaves_none_of_its_qualifiers_unsaid() -> None:
    source = ("A senior official said both sides knew about it. During this time both FUNCINPEC and the CPP began to "
              "move forces into and around Phnom Penh in anticipation of armed conflict. Both were also attempting "
              "to strike a deal.")
    answer = ("During this time both FUNCINPEC and the CPP began to move forces into and around Phnom Penh in "
              "anticipation of armed conflict.")

    assert [claim.statement for claim in extract_claims(answer, QUESTION, [source])] == [answer]
    assert _released_as_written(answer, source)
