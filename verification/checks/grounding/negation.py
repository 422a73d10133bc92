"""Negation and its scope: "covers accidental drops" where accidents "are not covered"."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from verification.checks.grounding.clauses import phrase_at, wide_passages
from verification.checks.grounding.finding import Finding
from verification.claims.clauses import (
    BE,
    CONDITIONS,
    NEGATORS,
    PREPOSITIONS,
    Token,
    clause_tokens,
    covered_keys,
    same_key,
    word_key,
)
from verification.claims.tokens import TEXT_CACHE_SIZE, completes_negation, denied_quality
from verification.claims.view import ClaimView
from verification.retrieval.index import Passage, SourceIndex
from verification.types import State

_NOT_NEGATING = frozenset({"only", "just", "merely", "always", "necessarily", "all", "every", "least"})
"""After "not" these make an idiom or a narrower claim, not a denial ("not only", "not always")."""
_HEDGES = frozenset({"may", "might", "could", "would", "should"})
_UNASSERTED = frozenset({"to", "could", "may", "might", "would", "should"})
# Asked of every sentence cited for a claim: a look at the first letter (every form starts with "n", "c" or
# "u") lets the search pass over most positions at once.
_NEGATOR_HINT = re.compile(
    r"(?=[ncu])(?:\b(?:not|never|cannot|unable|neither|nor|no\s+longer)\b|n[’']t\b|\bnon-|"
    r"\b(?:un|non)[a-z]+[ai]ble\b)",
    re.IGNORECASE,
)
_ALSO_NEGATING = frozenset({"non", "unable", "neither", "nor"})
"""Negators beside `NEGATORS`: the "non" of "non-refundable", "unable" ("unable to accept"), and "neither" and
"nor", each of which denies what follows it ("We neither sell nor rent your data")."""
_NEGATION_REACH = 3
"""How many words after a negation the word it negates may be."""


@dataclass(frozen=True)
class _Predication:
    """A predicate said of something, positively or not: "covers accidental drops", "is not covered"."""

    key: str
    negated: bool
    core: tuple[str, ...]
    """What it is said of: the object of an active verb, the subject of a passive or "to be"."""
    rest: frozenset[str]
    """The other words of its clause: who does it, when, where."""
    start: int
    end: int


def check_polarity(claim: ClaimView, near: list[Passage], index: SourceIndex) -> Finding | None:
    """A predicate the claim asserts of something that a source denies of the same thing, or the reverse.

    Polarity is compared for the predicate applied to the shared argument, not by whether a sentence
    has a "not" somewhere: "damage from misuse or accidents is not covered" denies what "also covers
    accidental drops" asserts; "the warranty does not cover accidents" says nothing against "the
    warranty covers manufacturing defects". A source that says it both ways refutes nothing here.
    """
    claim_text = claim.text
    claim_negates = _has_negator(claim_text)
    # Most sentences deny nothing: a cheap look for a negation comes before any parsing.
    near = [passage for passage in near if claim_negates or _has_negator(passage.text)]
    if not near:
        return None
    claim_keys = {token.key for token in claim.clause_tokens if token.content}
    claim_keys |= {word_key(quality) for token in claim.clause_tokens if (quality := _quality(token))}
    claim_denials = [p for p in _denials_in(claim.clause_tokens) if p.key in claim_keys] if claim_negates else []
    prefixes = {key[:4] for key in claim_keys}
    for passage in near:
        # What a prefix denies ("unavailable") is no word a negation reaches: its denials are read too.
        qualities = _denied_qualities(passage.text)
        if not claim_denials and not ({word[:4] for word in passage.negated_stems} | qualities) & prefixes:
            continue
        pairs = [
            (asserted, denied)
            for denied in (_denials(passage.text) if passage.negated_stems or qualities else ())
            for asserted in _predications_in(claim.clause_tokens, denied.key, negated=False)
        ] + [
            (claimed, stated)
            for claimed in claim_denials
            for stated in _predications_of(passage.text, claimed.key, negated=False)
        ]
        for claimed, found in pairs:
            if (
                _contradicts(claimed, found) and not excepted(passage.text, claim)
                and not _said_both_ways(claimed, wide_passages(claim, near, index))
            ):
                return _polarity_finding(claim_text, claimed, passage, found)
    return None


def contrasted_names(text: str, claim: ClaimView) -> bool:
    """Whether a sentence denies in one clause what another clause says of the claim's name: "The Basic
    plan does not include phone support, but the Pro plan does" says nothing against the Pro plan.

    The denial's clause names something the claim does not (Basic), and only another clause names what
    the claim does (Pro).
    """
    tokens = clause_tokens(text)
    claim_names = {t.key for t in claim.clause_tokens[1:] if _names_something(t)}
    denied = {t.clause for t in tokens if t.word in NEGATORS}
    if not claim_names or not denied:
        return False
    named = [(t.clause, t.key) for t in tokens[1:] if _names_something(t)]
    other_in_denial = any(clause in denied and key not in claim_names for clause, key in named)
    claims_elsewhere = any(key in claim_names for clause, key in named if clause not in denied)
    claims_in_denial = any(key in claim_names for clause, key in named if clause in denied)
    return other_in_denial and claims_elsewhere and not claims_in_denial


_EXCEPTIONS = ("except", "other than", "apart from", "excluding")
"""Words that set part of a denial apart: "dogs are not allowed, except service dogs"."""


def excepted(text: str, claim: ClaimView) -> bool:
    """Whether the claim restates what a sentence sets apart from its denial: "Service dogs are allowed"
    against "Dogs are not allowed on the beach except for service dogs", "Store credit is available"
    against "Refunds are not available, but store credit is".

    The part after "but" or "except" (with no denial of its own) has a word of the claim that the
    denied part does not.
    """
    tokens = clause_tokens(text)
    start = next((i for i, t in enumerate(tokens) if t.word == "but" or any(
        phrase_at(tokens, i, phrase) for phrase in _EXCEPTIONS)), None)
    if start is None or not any(t.word in NEGATORS for t in tokens[:start]):
        return False
    apart = tokens[start:]
    if any(t.word in NEGATORS for t in apart):
        return False
    claim_keys = [t.key for t in claim.clause_tokens if t.content]
    denied_keys = [t.key for t in tokens[:start] if t.content]
    apart_keys = [t.key for t in apart if t.content]
    return any(covered_keys([key], apart_keys) and not covered_keys([key], denied_keys) for key in claim_keys)


def _names_something(token: Token) -> bool:
    """A capitalised word past the first: part of a name ("the Pro plan")."""
    return token.content and token.capitalised and token.word[:1].isalpha()


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _denied_qualities(text: str) -> frozenset[str]:
    """The first four letters of each quality an "un" or "non" denies in `text` ("avai" of "unavailable");
    asked of a cited sentence for every claim."""
    if not _has_negator(text):
        return frozenset()
    return frozenset(word_key(quality)[:4] for token in clause_tokens(text) if (quality := _quality(token)))


def _quality(token: Token) -> str | None:
    """The quality an "un" or "non" denies in the word (`tokens.denied_quality`); "unable" is a negator
    of what follows it instead (`_ALSO_NEGATING`)."""
    return None if token.word in _ALSO_NEGATING else denied_quality(token.word)


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _has_negator(text: str) -> bool:
    """Whether `text` has a "not", "never", "cannot" or "n't"; asked of a cited sentence for every claim."""
    return _NEGATOR_HINT.search(text) is not None


def _polarity_finding(claim_text: str, claimed: _Predication, passage: Passage, found: _Predication) -> Finding:
    said = claim_text[claimed.start : claimed.end]
    rationale = f"The claim says \"{said}\"; the source says \"{passage.text[found.start : found.end]}\"."
    return Finding(State.REFUTED, (passage,), "negation-scope", rationale, said)


def _contradicts(a: _Predication, b: _Predication) -> bool:
    """Opposite polarity of one predicate said of the same thing, with nothing else telling them apart."""
    if a.negated == b.negated or not same_key(a.key, b.key):
        return False
    shared = covered_keys(a.core, b.core)
    if not shared:
        return False
    only_a = [key for key in a.core if key not in shared]
    only_b = [key for key in b.core if key not in covered_keys(b.core, a.core)]
    # "the Basic model" and "the Pro model": the same head with different modifiers, two things.
    if only_a and only_b and same_key(a.core[-1], b.core[-1]):
        return False
    # Who, when and where must agree as far as both say: one side's words all said by the other.
    return not a.rest or not b.rest or len(covered_keys(a.rest, b.rest)) == len(a.rest) or \
        len(covered_keys(b.rest, a.rest)) == len(b.rest)


def _said_both_ways(claimed: _Predication, near: list[Passage]) -> bool:
    """Whether some cited sentence also states the predicate with the claim's polarity of the same thing."""
    for passage in near:
        if claimed.negated:
            same = [p for p in _denials(passage.text) if same_key(p.key, claimed.key)]
        else:
            same = _predications_of(passage.text, claimed.key, negated=False)
        if any(covered_keys(claimed.core, p.core) for p in same):
            return True
    return False


@lru_cache(maxsize=8192)
def _denials(text: str) -> tuple[_Predication, ...]:
    """Every predicate a "not", "n't", "never" or "cannot" in `text` denies, outside conditions and hedges."""
    return _denials_in(clause_tokens(text))


def _denials_in(tokens: tuple[Token, ...]) -> tuple[_Predication, ...]:
    """Every predicate a negation among `tokens` denies, outside conditions and hedges: also the quality an
    "un" or "non" denies ("Refunds are unavailable" denies "available" of refunds)."""
    out = []
    for i, token in enumerate(tokens):
        quality = _quality(token)
        if quality is None and not _negates(tokens, i):
            continue
        before = [t.word for t in tokens[:i] if t.clause == token.clause]
        if set(before) & CONDITIONS or set(before[-2:]) & _HEDGES:
            continue
        if quality is not None:
            out.append(replace(_predication(tokens, i, negation=i), key=word_key(quality)))
            continue
        for j in range(i + 1, min(len(tokens), i + 1 + _NEGATION_REACH)):
            if tokens[j].clause != token.clause:
                break
            if j == i + 1 and completes_negation(token.word, tokens[j].word):
                continue  # "has not yet been approved" denies "approved", not "yet"
            if tokens[j].content:
                out.append(_predication(tokens, j, negation=i))
                # It denies each predicate "or" joins to the one it denies: "do not sell or rent".
                while j + 2 < len(tokens) and tokens[j + 1].word in ("or", "nor") and tokens[j + 2].content \
                        and tokens[j + 2].clause == token.clause:
                    j += 2
                    out.append(_predication(tokens, j, negation=i))
                break
    return tuple(out)


def _predications_of(text: str, key: str, *, negated: bool) -> list[_Predication]:
    """Each occurrence of the predicate `key` in `text` with the given polarity."""
    return _predications_in(clause_tokens(text), key, negated=negated)


def _predications_in(tokens: tuple[Token, ...], key: str, *, negated: bool) -> list[_Predication]:
    """Each occurrence of the predicate `key` among `tokens` with the given polarity."""
    out = []
    for i, token in enumerate(tokens):
        if not token.content or not same_key(token.key, key):
            continue
        negation = next(
            (j for j in range(i - 1, max(-1, i - 1 - _NEGATION_REACH), -1)
             if tokens[j].clause == token.clause and _negates(tokens, j)),
            None,
        )
        if (negation is not None) != negated:
            continue
        # "a bid to help identify a man", "it may cover": the source does not assert it.
        if not negated and any(t.word in _UNASSERTED for t in tokens[max(0, i - 2) : i]):
            continue
        out.append(_predication(tokens, i, negation=negation))
    return out


def _negates(tokens: tuple[Token, ...], i: int) -> bool:
    """Whether the word at `i` opens a denial: a negator not followed by a word that makes it an idiom ("not
    only"), or the "no" of "no longer"."""
    word = tokens[i].word
    following = tokens[i + 1].word if i + 1 < len(tokens) else ""
    if word in NEGATORS or word in _ALSO_NEGATING:
        # "non-Muslim nations" names a group; it denies nothing about Muslims.
        return following not in _NOT_NEGATING and not (word == "non" and (not following or tokens[i + 1].capitalised))
    return word == "no" and completes_negation(word, following)


def _predication(tokens: tuple[Token, ...], i: int, negation: int | None) -> _Predication:
    """The predicate at `i` with what it is said of (`core`) and the rest of its clause."""
    clause = tokens[i].clause
    first = negation if negation is not None else i
    lookback = range(max(0, first - 2), i)
    be = next((j for j in lookback if tokens[j].word in BE and tokens[j].clause == clause), None)
    in_clause = [j for j, t in enumerate(tokens) if t.clause == clause and t.content and j != i]
    if be is not None:  # passive or "to be": it is said of the subject
        core = [j for j in in_clause if j < be]
        start = tokens[core[0]].start if core else tokens[be].start
        end = tokens[i].end
    else:  # active: it is said of the object, up to the first preposition
        core = []
        for j in range(i + 1, len(tokens)):
            if tokens[j].clause != clause or tokens[j].word in PREPOSITIONS and core:
                break
            if tokens[j].content:
                core.append(j)
        start = tokens[first].start
        end = tokens[core[-1]].end if core else tokens[i].end
        if not core and tokens[i].word.endswith("ed"):
            # A participle with nothing after it and no "be" is a passive in short: "Pets (not) allowed" is
            # said of pets, as "Pets are (not) allowed" is.
            core = [j for j in in_clause if j < first]
            start = tokens[core[0]].start if core else start
    rest = frozenset(tokens[j].key for j in in_clause if j not in core)
    return _Predication(tokens[i].key, negation is not None, tuple(tokens[j].key for j in core), rest, start, end)
