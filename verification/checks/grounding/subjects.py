"""Who the claim says it of: "Maria Lopez became CEO in 2021" where the source says "Maria Lopez was
appointed CFO in 2020; John Park became CEO in 2021".

A sentence can have every word of a claim and still say its predicate of someone else: the claim's
name is there, but in another clause, and the clause that says the predicate names another doer. Such
a sentence does not state the claim. Another name there does not contradict it either (both may be
true), so the claim is left to a person.
"""

from __future__ import annotations

from verification.checks.grounding.clauses import in_every
from verification.checks.grounding.finding import Finding
from verification.claims.clauses import Token, clause_tokens, covered_keys
from verification.claims.view import ClaimView
from verification.retrieval.index import Passage
from verification.types import State

_PREDICATE_SAID = 0.5
"""Share of the predicate's words a clause must say to be the clause that says it."""
_MIN_PREDICATE_WORDS = 2
"""A predicate needs this many content words before the clause saying it can be told."""


def may_apply(claim: ClaimView) -> bool:
    """Whether the claim opens with a name, the only claims this check reads."""
    return bool(_leading_name(claim.clause_tokens))


def check_subject(claim_view: ClaimView, restating: list[Passage]) -> Finding | None:
    """INSUFFICIENT_EVIDENCE when every sentence the claim restates (`clauses.restated`) says its predicate
    of another name."""
    claim, claim_text = claim_view.clause_tokens, claim_view.text
    subject = _leading_name(claim) if restating else []
    if not subject:
        return None
    subject_keys = [claim[i].key for i in subject]
    predicate = [t.key for i, t in enumerate(claim) if t.content and i not in subject]
    if len(predicate) < _MIN_PREDICATE_WORDS:
        return None
    other = in_every(restating, lambda passage: _other_doer(passage.text, clause_tokens(passage.text),
                                                            subject_keys, predicate))
    if other is None:
        return None
    passage, doer = other
    name = claim_text[claim[subject[0]].start : claim[subject[-1]].end]
    said = claim_text[claim[subject[-1]].end :].strip(" ,;:.")
    return Finding(State.INSUFFICIENT_EVIDENCE, (passage,), "subject-unstated",
                   f"The clause of the source that says \"{said}\" names {doer}, not {name}.", name)


def _leading_name(tokens: tuple[Token, ...]) -> list[int]:
    """Positions of the name a claim opens with ("Maria Lopez became ..."); empty when it opens otherwise."""
    positions = []
    for i, token in enumerate(tokens):
        if not (token.content and _named(tokens, i)):
            break
        positions.append(i)
    return positions if len(tokens) > len(positions) else []


def _named(tokens: tuple[Token, ...], i: int) -> bool:
    """Whether the word at `i` is part of a name: capitalised, and not only because it opens the sentence
    ("Children under 5 ride free"); an opening word is a name when the next is one too ("Maria Lopez")."""
    if not (tokens[i].capitalised and tokens[i].word[:1].isalpha()):
        return False
    if i > 0:
        return True
    following = tokens[1] if len(tokens) > 1 else None
    return following is not None and following.capitalised and following.word[:1].isalpha()


def _other_doer(text: str, tokens: tuple[Token, ...], subject: list[str], predicate: list[str]) -> str | None:
    """The other name said to do the predicate, when no clause says it of the subject; else None.

    The clause that says the predicate is the one with most of its words; its doer is a name before
    them in that clause that is neither the subject nor a word of the claim.
    """
    clauses: dict[int, list[int]] = {}
    for i, token in enumerate(tokens):
        clauses.setdefault(token.clause, []).append(i)
    best: list[int] = []
    best_said = 0
    for clause in clauses.values():
        keys = [tokens[i].key for i in clause if tokens[i].content]
        said = len(covered_keys(predicate, keys))
        if covered_keys(subject, keys) == subject and said >= _PREDICATE_SAID * len(predicate):
            return None  # this clause says it of the subject
        if said > best_said:
            best, best_said = clause, said
    if best_said < _PREDICATE_SAID * len(predicate):
        return None
    claim_words = subject + predicate
    first_said = next(k for k, i in enumerate(best) if tokens[i].content and covered_keys([tokens[i].key], predicate))
    doer = [i for i in best[:first_said]
            if tokens[i].content and _named(tokens, i) and not covered_keys([tokens[i].key], claim_words)]
    if not doer:
        return None
    return text[tokens[doer[0]].start : tokens[doer[-1]].end]
