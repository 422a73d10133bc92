"""Conditions and exceptions: "refunds go to the original payment method" where the source adds "if you
have a receipt".

A source that states something only under a condition ("if", "unless", "as long as", "provided") or
with an exception ("except", "other than") does not state it outright. A claim that says every other
word of such a sentence, but not its condition, promises more than the source does. The condition is
unsaid, not contradicted: the claim may still be true for the reader, so a person decides.

A limit is such a condition: "Shipping is free on orders over $50" does not say "Shipping is free",
nor "Returns are accepted within 30 days" that returns are accepted. A value of the restated clause that
bounds it (`commitments.LIMITS`: "over", "under", "within", "up to", "at least") and that the claim
states no value of its sort for is left out, unless it counts a thing the claim names: "People attended"
says less than "More than 500 people attended", not more.

So is a restriction: "Refunds are issued only for damaged items" does not say "Refunds are issued", nor
"Support is available by email only" that support is available. What "only" restricts is the rest of
its clause ("only for damaged items"), or, where it ends the clause, the phrase before it ("by email
only"); the claim keeps the restriction by saying every word of it, and then says less than the source
("Refunds are issued for damaged items"), not more.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import takewhile

from verification.checks.grounding.clauses import (
    any_says,
    by_first_word,
    first_words,
    phrase_at,
    says,
    unsaid_in_every,
)
from verification.checks.grounding.finding import Finding
from verification.claims.clauses import CLAUSE_JOIN, PREPOSITIONS, Token, clause_tokens, covered_keys
from verification.claims.commitments import LIMITS, VALUE_KINDS, Mention, agree, comparable, limit_words
from verification.claims.verbs import later_clause, later_predicate
from verification.claims.view import ClaimView
from verification.retrieval.index import Passage

CONDITION_MARKERS = (
    "if", "unless", "only if", "only when", "as long as", "so long as", "provided", "providing",
    "on condition", "subject to", "except", "excluding", "other than", "apart from",
)
"""Words that open a condition or an exception in a source sentence."""
EXCEPTIONS = ("except", "excluding", "other than", "apart from")
"""The markers that open an exception: it carves out of what its own predicate says of all, so one that
closes a predicate joined after the claim's words is that predicate's (`verbs.later_predicate`): "except
for Albania" of "It was described by Panzer in 1809 and can be found everywhere in Europe except for
Albania" bears on where it is found. A condition ("if", "unless") gates the whole sentence, but for a
clause set against the claim's words with "but" and a verb of its own (`verbs.later_clause`)."""
_MARKER_HINT = first_words(CONDITION_MARKERS)
_CONDITION_KEPT = 0.5
"""Share of a condition's content words the claim must say to have kept the condition."""
NARROWER_IN_SOURCE = ("condition-dropped", "restriction-dropped", "scope-dropped", "limit-dropped")
"""The reasons of this module's findings: each says the source states the claim, but narrower; the source's
sentence is then the claim narrowed to what the evidence says (`loop.repair.NarrowToSupportedScope`)."""
_RULE_WORDS = frozenset({"is", "are", "can", "cannot", "may", "must", "will", "shall"})
_TOLD_WORDS = frozenset({"was", "were", "had", "did", "been"})
_SCOPE_PREPOSITIONS = frozenset({"for", "on", "in", "to", "at", "during", "with", "via", "through", "by", "from"})
RESTRICTING = ("only", "solely", "exclusively")
"""Words that restrict what their clause says to the phrase they mark."""
_RESTRICTING_HINT = first_words(RESTRICTING)
_UNRESTRICTING_BEFORE = frozenset({"not", "if", "the", "a", "an", "my", "your", "his", "her", "its", "our", "their"})
"""Before "only" these make an idiom or an adjective ("not only", "if only", "the only store")."""
_UNRESTRICTING_AFTER = frozenset({"if", "when", "just", "once"})
"""After "only" these open a condition (`CONDITION_MARKERS`) or an idiom ("only just", "only once")."""
_RESTRICTION_REACH = 4
"""Most content words a restriction's phrase is read to: "only for new customers in the UK"."""


def may_apply(claim: ClaimView, near: list[Passage]) -> bool:
    """Whether the claim states a rule, or any sentence near the evidence has a condition, an exception, a
    restriction or a limit at all: a cheap look first."""
    return (_states_a_rule(claim) or any_says(near, _MARKER_HINT) or any_says(near, _RESTRICTING_HINT)
            or any(value.role in LIMITS for passage in near for value in passage.values))


def _states_a_rule(claim: ClaimView) -> bool:
    """Whether the claim says what holds as a rule ("is", "can", "must"), not what happened ("was", "had")."""
    words = {token.word for token in claim.clause_tokens}
    return not words.isdisjoint(_RULE_WORDS) and words.isdisjoint(_TOLD_WORDS)


def check_conditions(claim_view: ClaimView, restating: list[Passage]) -> Finding | None:
    """INSUFFICIENT_EVIDENCE when every sentence the claim restates (`clauses.restated`) adds a condition
    the claim leaves out."""
    claim = claim_view.clause_tokens
    if not restating or _conditions(claim) or _restrictions(claim):
        return None  # the claim states a condition of its own; relations and coverage judge it
    claim_keys = claim_view.content_keys

    def unmet(passage: Passage) -> str | None:
        if not says(passage.text, _MARKER_HINT):
            return None  # the sentence says it with no condition at all
        tokens = clause_tokens(passage.text)
        restated_end = _restated_span(tokens, claim_keys)[3]
        dropped = [
            words for words, keys, at in _conditions(tokens)
            if len(covered_keys(keys, claim_keys)) < _CONDITION_KEPT * len(keys)
            and not (words.startswith(EXCEPTIONS) and later_predicate(passage.text, restated_end, at))
            and not later_clause(passage.text, restated_end, at)
        ]
        return dropped[0] if dropped else None

    return unsaid_in_every(restating, unmet, "condition-dropped",
                           lambda condition: f"The source says this only with \"{condition}\", which the claim "
                           "leaves out.")


def check_restrictions(claim_view: ClaimView, restating: list[Passage]) -> Finding | None:
    """INSUFFICIENT_EVIDENCE when every sentence the claim restates restricts, in the clause the claim's words
    are from, what the claim says without the restriction: "only for damaged items" of "Refunds are issued
    only for damaged items" against "Refunds are issued"."""
    if not restating or _restrictions(claim_view.clause_tokens):
        return None  # the claim restricts what it says itself: the qualifiers check reads it
    claim_keys = claim_view.content_keys

    def dropped(passage: Passage) -> str | None:
        if not says(passage.text, _RESTRICTING_HINT):
            return None
        tokens = clause_tokens(passage.text)
        start, end, first, last = _restated_span(tokens, claim_keys)
        return next((words for words, keys, at in _restrictions(tokens)
                     if start <= at < end and _attached(passage.text, at, at, first, last)
                     and len(covered_keys(keys, claim_keys)) < len(keys)), None)

    return unsaid_in_every(restating, dropped, "restriction-dropped",
                           lambda restriction: f"The source says this only with \"{restriction}\", which the "
                           "claim leaves out.")


def check_scope(claim_view: ClaimView, restating: list[Passage]) -> Finding | None:
    """INSUFFICIENT_EVIDENCE when the claim states as a standing rule what every sentence it restates says
    within a scope the claim leaves out: "on weekdays" of "The store is open on weekdays" against "The
    store is open". A rule ("is", "are", "can", "may", "must", "will") said of a narrower scope is not
    said outright; an event told in the past is: "opened a warehouse in Leeds" is what "opened a
    warehouse in Leeds in 2019" says."""
    if not restating or not _states_a_rule(claim_view):
        return None
    claim_keys = claim_view.content_keys

    def dropped(passage: Passage) -> str | None:
        tokens = clause_tokens(passage.text)
        start, end, first, last = _restated_span(tokens, claim_keys)
        after = [token for token in tokens if last <= token.start < end] if first >= 0 else []
        if not after or after[0].word not in _SCOPE_PREPOSITIONS or passage.text[last : after[0].start].strip():
            return None
        phrase = list(takewhile(lambda token: token.clause == after[0].clause, after))
        joined = CLAUSE_JOIN.search(passage.text, phrase[0].end, phrase[-1].end)
        phrase = [token for token in phrase if joined is None or token.start < joined.start()]
        keys = [token.key for token in phrase if token.content]
        if not keys or covered_keys(keys, claim_keys):
            return None
        return passage.text[phrase[0].start : phrase[-1].end]

    return unsaid_in_every(restating, dropped, "scope-dropped",
                           lambda scope: f"The source says this \"{scope}\", which the claim leaves out.")


def check_limits(claim_view: ClaimView, restating: list[Passage]) -> Finding | None:
    """INSUFFICIENT_EVIDENCE when every sentence the claim restates bounds, in the clause the claim's words
    are from, what the claim says without a bound: "over $50" of "Shipping is free on orders over $50"."""
    claim_values = [mention for mention in claim_view.mentions if mention.kind in VALUE_KINDS]
    claim_keys = claim_view.content_keys

    def dropped(passage: Passage) -> str | None:
        # A limit the claim states too is kept: of its sort, or the same bound of a number with no unit
        # read ("no more than 180g" of both).
        limits = [value for value in passage.values if value.role in LIMITS
                  and not any(comparable(value, said) or said.role == value.role and said.kind == value.kind
                              and agree(value, said) for said in claim_values)]
        if not limits:
            return None
        tokens = clause_tokens(passage.text)
        # The sentence's words the claim says, matched once (`covered_keys`) for every question below.
        shared = set(covered_keys([token.key for token in tokens if token.content], claim_keys))
        start, end, first, last = _restated_span(tokens, claim_keys, shared)
        limit = next((value for value in limits if start <= value.start < end
                      and _attached(passage.text, value.start, value.end, first, last)
                      and not _counts_what_the_claim_names(tokens, value, shared)), None)
        return None if limit is None else limit_words(passage.text, limit)

    return unsaid_in_every(restating, dropped, "limit-dropped",
                           lambda limit: f"The source says this only for \"{limit}\", which the claim leaves out.")


def _restated_span(tokens: tuple[Token, ...], claim_keys: Sequence[str],
                   shared: set[str] | None = None) -> tuple[int, int, int, int]:
    """Where the clause the claim restates starts and ends (`_restated_clause`), and where the claim's words
    in it start and end; the last two are -1 where it has none of them. `shared`: the sentence's keys the
    claim says, where the caller has matched them already."""
    if shared is None:
        shared = set(covered_keys([token.key for token in tokens if token.content], claim_keys))
    said = [token for token in tokens if token.content and token.key in shared]
    start, end = _restated_clause(tokens, said)
    said = [token for token in said if start <= token.start < end]
    return (start, end, said[0].start, said[-1].end) if said else (start, end, -1, -1)


def _attached(text: str, start: int, end: int, first: int, last: int) -> bool:
    """Whether a limit or a restriction (at offsets `start` to `end`) bears on the words the claim restates
    (from offset `first` to `last`): inside them, or beside them with no "and", "or" or "but" between.
    "includes up to 10 seats" is another predicate of "The Team plan costs $20 per user per month and
    includes up to 10 seats", which the claim leaves out whole."""
    if first < 0:
        return False
    if start >= last:
        return CLAUSE_JOIN.search(text, last, start) is None
    if end <= first:
        return CLAUSE_JOIN.search(text, end, first) is None
    return True


def _counts_what_the_claim_names(tokens: tuple[Token, ...], value: Mention, shared: set[str]) -> bool:
    """Whether what a limit counts is a thing the claim names: "more than 500 people" bounds how many people,
    which "People attended" leaves open without claiming more; "within 30 days" bounds when. What it counts
    is the noun of the value ("500 people"), else the word after it."""
    inside = [token for token in tokens if value.start <= token.start < value.end
              and token.content and not token.word[:1].isdigit()]
    counted = inside or [token for token in tokens if token.start >= value.end][:1]
    return any(token.content and token.key in shared for token in counted)


def _restated_clause(tokens: tuple[Token, ...], said: list[Token]) -> tuple[int, int]:
    """Where the clause that has the most of the claim's words (`said`) starts and ends (the first such)."""
    if not tokens:
        return 0, 0
    counts = Counter(token.clause for token in said)
    clause = max(counts, key=lambda number: (counts[number], -number)) if counts else tokens[0].clause
    inside = [token for token in tokens if token.clause == clause]
    return inside[0].start, inside[-1].end


def _conditions(tokens: tuple[Token, ...]) -> list[tuple[str, list[str], int]]:
    """Each condition or exception in `tokens`: its words as written, the keys of its content words the rest
    of the text does not say (all of them where it says each), and where its marker starts.

    A condition runs from its marker to the end of the clause after it; one with no content word
    ("if so", "if any") is no condition.
    """
    found = []
    # Each word is asked only about the markers it can start, in CONDITION_MARKERS order.
    starting = by_first_word(CONDITION_MARKERS)
    i = 0
    while i < len(tokens):
        marker = next((m for m in starting.get(tokens[i].word, ()) if phrase_at(tokens, i, m)), None)
        if marker is None:
            i += 1
            continue
        start = i + len(marker.split())
        clause = tokens[start].clause if start < len(tokens) else -1
        end = start
        while end < len(tokens) and tokens[end].clause == clause:
            end += 1
        keys = [token.key for token in tokens[start:end] if token.content]
        if keys:
            # What the condition says that the rest of the sentence does not is what a claim must say to
            # keep it: "plan" of "unless the plan was used" is the sentence's subject, "used" the condition.
            outside = {token.key for token in (*tokens[:i], *tokens[end:]) if token.content}
            own = [key for key in keys if key not in outside] or keys
            found.append((" ".join(token.word for token in tokens[i:end]), own, tokens[i].start))
        i = max(end, i + 1)
    return found


def _restrictions(tokens: tuple[Token, ...]) -> list[tuple[str, list[str], int]]:
    """Each restriction in `tokens`: its words as written, the keys of the content words it restricts to,
    and where its restricting word starts.

    "only" restricts to what follows it in its clause ("only for damaged items", "only administrators"),
    or, ending its clause, to the phrase before it, back to its preposition ("by email only", "for members
    only"); each to at most `_RESTRICTION_REACH` content words.
    """
    found = []
    for i, token in enumerate(tokens):
        if token.word not in RESTRICTING:
            continue
        clause = [other for other in tokens if other.clause == token.clause]
        at = clause.index(token)
        before, after = clause[:at], clause[at + 1 :]
        if before and before[-1].word in _UNRESTRICTING_BEFORE or after and after[0].word in _UNRESTRICTING_AFTER:
            continue
        if after:
            counted = [k for k, other in enumerate(after) if other.content]
            phrase = after[: counted[_RESTRICTION_REACH - 1] + 1] if len(counted) > _RESTRICTION_REACH else after
        else:
            back = len(before)
            while back and before[back - 1].content and before[back - 1].word not in PREPOSITIONS:
                back -= 1
            phrase = before[max(0, back - 1) if back and before[back - 1].word in PREPOSITIONS else back :]
        keys = [other.key for other in phrase if other.content][-_RESTRICTION_REACH:]
        if keys:
            words = [*phrase, token] if not after else [token, *phrase]
            found.append((" ".join(other.word for other in words), keys, tokens[i].start))
    return found
