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
from verification.claims.clauses import Token, clause_tokens, content_keys, covered_keys
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
    read = _subject_and_predicate(claim_view) if restating else None
    if read is None:
        return None
    subject_keys, predicate = read
    other = in_every(restating, lambda passage: _other_doer(passage.text, clause_tokens(passage.text),
                                                            subject_keys, predicate))
    return None if other is None else _said_of_another(claim_view, *other, "clause")


def check_subject_nearby(claim_view: ClaimView, near: list[Passage]) -> Finding | None:
    """INSUFFICIENT_EVIDENCE when the sentences near the evidence say the claim's predicate only of another
    name: "Hot Rod was founded in 1987" where one sentence says "Cooking Light is a magazine founded in
    1987" and the next "Hot Rod is a car magazine". No one sentence restates such a claim, so
    `check_subject` never reads it; its words are all there, in two sentences about two subjects."""
    read = _subject_and_predicate(claim_view)
    if read is None:
        return None
    subject_keys, predicate = read
    found: tuple[Passage, str] | None = None
    for passage in near:
        keys = [token.key for token in clause_tokens(passage.text) if token.content]
        if len(covered_keys(predicate, keys)) < _PREDICATE_SAID * len(predicate):
            continue  # the sentence does not say the predicate: it is no evidence either way
        doer = _other_doer(passage.text, clause_tokens(passage.text), subject_keys, predicate)
        if doer is None:
            return None  # said of the subject, or of no other name ("It was founded in 1949")
        found = found or (passage, doer)
    return None if found is None else _said_of_another(claim_view, *found, "sentence")


def _subject_and_predicate(claim_view: ClaimView) -> tuple[list[str], list[str]] | None:
    """The keys of the name a claim opens with and of its other content words; None when it opens with no
    name or says too little after it to tell which clause says it."""
    claim = claim_view.clause_tokens
    subject = _leading_name(claim)
    predicate = [t.key for i, t in enumerate(claim) if t.content and i not in subject]
    if not subject or len(predicate) < _MIN_PREDICATE_WORDS:
        return None
    return [claim[i].key for i in subject], predicate


def _said_of_another(claim_view: ClaimView, passage: Passage, doer: str, where: str) -> Finding:
    """The finding that the `where` ("clause", "sentence") saying the claim's predicate names `doer`."""
    claim = claim_view.clause_tokens
    subject = _leading_name(claim)
    name = claim_view.text[claim[subject[0]].start : claim[subject[-1]].end]
    said = claim_view.text[claim[subject[-1]].end :].strip(" ,;:.")
    return Finding(State.INSUFFICIENT_EVIDENCE, (passage,), "subject-unstated",
                   f"The {where} of the source that says \"{said}\" names {doer}, not {name}.", name)


_MAX_JOINING_WORDS = 3
"""Most content words between the two names of a claim read as "name, verb, name" ("directed", "was
named after")."""


def check_names_apart(claim_view: ClaimView, passages: list[Passage]) -> Finding | None:
    """INSUFFICIENT_EVIDENCE when a claim of the shape "name, verb, name" joins two names no sentence of the
    sources says together: "Mitchell Lichtenstein directed Jordan" where one sentence says Jordan is a
    role in one film and the next that Mitchell Lichtenstein directed another. Each name is stated, and
    the verb, but of other things; nothing relates the two. `passages`: every sentence of the sources."""
    claim = claim_view.clause_tokens
    subject = _leading_name(claim)
    if not subject:
        return None
    obj = _trailing_name(claim, subject[-1] + 1)
    joining = [t.key for t in claim[subject[-1] + 1 : obj[0]] if t.content] if obj else []
    if not obj or not 0 < len(joining) <= _MAX_JOINING_WORDS:
        return None
    subject_keys, object_keys = [claim[i].key for i in subject], [claim[i].key for i in obj]
    said = [frozenset(content_keys(passage.text)) for passage in passages]
    naming_subject = [keys for keys in said if len(covered_keys(subject_keys, keys)) == len(subject_keys)]
    naming_object = [keys for keys in said if len(covered_keys(object_keys, keys)) == len(object_keys)]
    if not naming_subject or not naming_object or any(keys in naming_object for keys in naming_subject):
        return None  # a name the sources never say is other checks' to read; said together, they may relate
    first, second = (claim_view.text[claim[run[0]].start : claim[run[-1]].end] for run in (subject, obj))
    cited = next(passage for passage, keys in zip(passages, said, strict=True) if keys in naming_object)
    return Finding(State.INSUFFICIENT_EVIDENCE, (cited,), "relation-unstated",
                   f"No source sentence says {first} and {second} together: the claim relates what different "
                   f"sentences say of each.", first)


def _trailing_name(tokens: tuple[Token, ...], start: int) -> list[int]:
    """Positions of the name a claim ends with, after `start` ("... directed Jordan"); empty otherwise."""
    positions: list[int] = []
    for i in range(len(tokens) - 1, start, -1):
        if not (tokens[i].content and _named(tokens, i)):
            break
        positions.insert(0, i)
    return positions


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
    run = [doer[0]]  # the first name: "Cooking Light", not "Cooking Light is an American"
    for i in doer[1:]:
        if i != run[-1] + 1:
            break
        run.append(i)
    return text[tokens[run[0]].start : tokens[run[-1]].end]
