"""Voice: a passive said actively keeps who did what only where the doer stays the doer.

"Teeth is a film written and directed by Mitchell Lichtenstein" is said back actively two ways: "Mitchell
Lichtenstein directed Teeth" (its doer before the verb: a paraphrase, left to the score) and "Teeth
directed Mitchell Lichtenstein" (the source's words in the source's order, the "by" that made Lichtenstein
the director left out: roles swapped, never released). A phrase moved whole keeps its preposition: "in
Misrata" may move to the end, not lend "Misrata" to the subject.
"""

from __future__ import annotations

import pytest

from verification.checks.proof.voice import passives
from verification.claims.extraction import extract_claims
from verification.claims.tokens import words
from verification.decision.offline import OfflineVerifier
from verification.engine import check_case
from verification.scorers import make_scorer
from verification.types import Case, Source, State, Terminal

RULES = OfflineVerifier(make_scorer("rules"))
FILM = ("She is best known as Dawn in the comedy-horror film \"Teeth\". Teeth is a 2007 black comedy horror film "
        "written and directed by Mitchell Lichtenstein.")


def _verdict(answer: str, source: str):
    (verdict,) = RULES.verify(extract_claims(answer), [Source(id="s", text=source)])
    return verdict


def _released_as_written(answer: str, source: str) -> bool:
    run = check_case(Case(question="What do the sources say?", answer=answer, sources=[Source(id="s", text=source)]),
                     verifier=RULES)
    return run.terminal is Terminal.PERMIT and run.final_answer == answer


@pytest.mark.parametrize(("text", "count"), [
    ("Teeth was directed by Mitchell Lichtenstein.", 1),
    ("The company was bought in 2010 by Contoso.", 1),
    ("a film written and directed by Mitchell Lichtenstein", 1),
    ("a song sung by the choir", 1),
    ("Mitchell Lichtenstein directed Teeth.", 0),
    ("Prices rose by 5% in May.", 0),
    ("She went by train.", 0),
])
def test_a_passive_is_a_verb_with_its_doer_after_by(text, count):
    assert len(passives(words(text))) == count


@pytest.mark.parametrize(("answer", "source"), [
    ("Teeth directed Mitchell Lichtenstein.", FILM),
    ("Mitchell Lichtenstein was directed by Teeth.", FILM),
    ("The Louvre was painted by the Mona Lisa.", "The Mona Lisa was painted by Leonardo and hangs in the Louvre."),
    ("The Aurora bridge designed Contoso.", "The Aurora bridge, designed by Contoso, opened in 2001."),
])
def test_roles_swapped_by_a_change_of_voice_are_never_supported_or_released(answer, source):
    verdict = _verdict(answer, source)
    assert verdict.state is not State.SUPPORTED or verdict.method != "offline:proof"
    assert not _released_as_written(answer, source)


@pytest.mark.parametrize(("answer", "source"), [
    ("Mitchell Lichtenstein directed Teeth.", FILM),
    ("Contoso designed the Aurora bridge.",
     "Contoso is a firm founded in 1990. The Aurora bridge was designed by Contoso."),
])
def test_the_doer_kept_before_the_verb_is_no_swap(answer, source):
    # Neither proven (the words are in another order) nor held as reordered: a paraphrase, scored.
    assert _verdict(answer, source).method not in ("offline:proof", "offline:reordered")


def test_the_passive_said_back_as_it_is_is_proven():
    assert _verdict("Teeth was directed by Mitchell Lichtenstein.", FILM).method == "offline:proof"


@pytest.mark.parametrize(("answer", "source"), [
    ("Teeth is a 2007 black comedy horror film written and directed by Mitchell Lichtenstein.", FILM),
    ("The Aurora bridge was designed by Contoso.", "The Aurora bridge was designed by Contoso and opened in 2001."),
    ("The bridge opened in 2001.", "The bridge opened in 2001. It was designed by Contoso."),
    ("When the Houses were destroyed by fire, the court moved.",
     "When the Houses were destroyed by fire, the court moved."),
])
def test_copies_and_parts_keep_their_proof(answer, source):
    verdict = _verdict(answer, source)
    assert verdict.state is State.SUPPORTED and verdict.method == "offline:proof"


def test_a_name_moved_into_another_names_place_is_no_phrase_moved():
    # "In 2010, X did Y" may become "X did Y in 2010"; "in Misrata" may not lend "Misrata" to the subject.
    source = ("On April 20, 2011, Chris Hondros and Tim Hetherington were in Misrata, Libya, in the middle of yet "
              "another war.")
    swapped = _verdict("On April 20, 2011, Chris Hondros and Misrata were in Tim Hetherington, Libya, in the "
                       "middle of yet another war.", source)
    moved = _verdict("Chris Hondros and Tim Hetherington were in Misrata, Libya, in the middle of yet another war "
                     "on April 20, 2011.", source)

    assert swapped.method == "offline:reordered" and swapped.state is not State.SUPPORTED
    assert moved.method == "offline:proof"
