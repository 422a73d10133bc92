"""How the altered check reads a negation: whether a claim's negation reaches the words the sentence's does,
whether one it drops or matches denies a predicate of its own, and a denial written as a prefix ("non-
refundable") or as "not" with the word ("not refundable"), which are one denial."""

from __future__ import annotations

from collections.abc import Sequence

from verification.checks.altered.tokens import NEGATION, Token
from verification.claims.polar import AUXILIARIES
from verification.claims.tokens import prefix_negated, stem, words
from verification.claims.verbs import later_predicate


def negations_reach_alike(ours: list[Token], blocks: Sequence[tuple[int, int, int]]) -> bool:
    """Whether each negation of the claim that the sentence matches reaches the same words there: a matched
    stretch that ends on a negation the claim goes on from means the sentence negates other words first
    ("there are not real dogs" / "Who doesn't want to see two real dogs")."""
    return not any(ours[a + size - 1].key == NEGATION and a + size < len(ours) for a, _, size in blocks)


def denial_moved(ours: list[Token], theirs: list[Token], blocks: Sequence[tuple[int, int, int]],
                  text: str) -> tuple[str, str] | None:
    """(what the claim denies, what the sentence says there) where the claim's negation matches one that
    denies an earlier predicate of the sentence, and the claim goes on with the words of a later one:
    "it is not a good option" against "Not all daybeds come with trundles, but it is a good option"."""
    for (a, b, size), (a2, b2, _) in zip(blocks, blocks[1:], strict=False):
        negation = theirs[b + size - 1]
        if ours[a + size - 1].key == NEGATION and a2 == a + size and b2 > b + size and later_predicate(
                text, negation.start + len(negation.surface), theirs[b2].start):
            return f"{ours[a + size - 1].surface} {ours[a2].surface}", theirs[b2].surface
    return None


def denial_dropped_at_end(ours: list[Token], theirs: list[Token], blocks: Sequence[tuple[int, int, int]],
                          claim: str, text: str) -> tuple[str, str] | None:
    """(what the claim ends with, what the sentence says) where the claim ends on the auxiliary the
    sentence negates just after the words they share: "they often do" against "they often don't", "and
    this one does" against "and this one doesn't"; or on words that carry no content, the sentence's but
    its negation ("has let them down" against "has not let them down"). What the sentence says past the
    claim's words is the claim's to leave out, but not the negation of its last word."""
    if not blocks:
        return None
    a, b, size = blocks[-1]
    if a + size != len(ours) or b + size >= len(theirs) or theirs[b + size].key != NEGATION:
        return None
    ours_last, theirs_last, negation = ours[-1], theirs[b + size - 1], theirs[b + size]
    tail = words(claim[ours_last.start + len(ours_last.surface):])
    after = theirs_last.start + len(theirs_last.surface)
    before = words(text[after:negation.start])
    said, stated = [word for word, _, _ in tail], [word for word, _, _ in before]
    if tail and said == stated and tail[-1][0] in AUXILIARIES:
        return tail[-1][0], text[after + before[-1][1]:negation.start + len(negation.surface)]
    # The claim goes on past the negation in words that carry none ("their timing has let them down" against
    # "... has not let them down"): it says the sentence's words but the "not".
    end = negation.start + len(negation.surface)
    following = words(text[end:])
    n = len(stated)
    if not n or len(said) <= n or said[:n] != stated or said[n:] != [word for word, _, _ in following[:len(said) - n]]:
        return None
    opens = ours_last.start + len(ours_last.surface)
    return claim[opens + tail[n - 1][1]:opens + tail[n][2]], text[after + before[-1][1]:end + following[0][2]]


def denies_an_earlier_predicate(left_out: list[Token], theirs: list[Token], resumed: int, text: str) -> bool:
    """Whether the negation the claim leaves out denies a predicate of its own, joined before the words the
    claim goes on with (`theirs[resumed]`): "not" of "The plan is not the cheapest, but does include extra
    storage" is not said of what "The plan does include extra storage" states. Not where the words join
    with no verb of their own: "not" of "are not issued or credited" denies "credited" too."""
    if resumed >= len(theirs):
        return False
    negation = [token for token in left_out if token.key == NEGATION][-1]
    return later_predicate(text, negation.start + len(negation.surface), theirs[resumed].start)


def negated_by_prefix(said: list[Token], instead: list[Token], everywhere: set[str]) -> bool:
    """A word put for its negation inside the restated stretch, the claim's word nowhere in the sentence:
    "Support is available on public holidays" for "Support is unavailable on public holidays". Other
    words put for words are paraphrase as often as change ("plunged" for "fell"): the scorer's to weigh."""
    if len(said) != 1 or len(instead) != 1 or said[0].key in everywhere or said[0].named or instead[0].named:
        return False
    return _negates(instead[0], said[0]) or _negates(said[0], instead[0])


def same_denial(said: list[Token], instead: list[Token]) -> bool:
    """A "not" and a word on one side, that word negated by a prefix on the other: "not available" for
    "unavailable", "not refundable" for "non-refundable"."""
    for one, other in ((said, instead), (instead, said)):
        if len(one) == 2 and len(other) == 1 and one[0].key == NEGATION and _negates(other[0], one[1]):
            return True
    return False


def _negates(prefixed: Token, word: Token) -> bool:
    """Whether `prefixed` is `word` negated by a prefix ("unavailable", "non-refundable" / "available")."""
    base = prefix_negated(prefixed.surface.lower().replace("-", ""))
    return base is not None and stem(base) == word.key
