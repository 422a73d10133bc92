"""How the altered check reads a name: a name joined to the sentence's own ("Jane and Elle"), a name the
claim opens with in place of the sentence's first words, a name the sentence writes in initials too
short to be words of their own ("S&P"), and a name put for the sentence's in a stretch the claim otherwise
says word for word ("It was published by Charles Fort" for "... by Dennis Publishing")."""

from __future__ import annotations

import re

from verification.checks.altered.tokens import NEGATION, Opcode, Token, is_name
from verification.claims.clauses import CLAUSE_JOIN
from verification.claims.tokens import STOP_WORDS

_CONJUNCT_GAP = re.compile(r"\s*(?:,\s*)?(?:and|or|&|as well as)?\s*", re.IGNORECASE)
"""What joins a name to the name before it in a coordination: "Jane and Elle", "Jane, Elle", "Jane & Elle"."""


_INITIALS = re.compile(r"\b[A-Z](?:[&.][A-Z])+\b")
"""A name written in capital initials joined by "&" or ".": "S&P", "AT&T" is read as "at" and "t"."""


def without_conjunct(op: Opcode, ours: list[Token], claim_text: str, theirs: list[Token],
                      text: str) -> Opcode:
    """An edit that opens with a name the claim coordinates with the name just before it, the name left out:
    "Jane and Elle are women's magazines" against "Jane is an American women's magazine" adds a conjunct,
    which says nothing in the place of "American"; whether the sources say it of Elle too is what the other
    checks and the scorer read. A name put for a name is a swap still: "Elle is ..." for "Jane is ...", and
    "starring Hope, Russell and Kerr" for "starring Hope, Russell and Rogers", where the sentence
    coordinates a name of its own in that place."""
    kind, i1, i2, j1, j2 = op
    if kind not in ("replace", "insert") or i1 == 0 or not is_name(ours[i1]):
        return op
    if not _conjunct(ours, i1, claim_text) or kind == "replace" and j1 > 0 and _conjunct(theirs, j1, text):
        return op
    end = i1
    while end < i2 and is_name(ours[end]):
        end += 1
    return kind, end, i2, j1, j2


def _conjunct(tokens: list[Token], at: int, text: str) -> bool:
    """Whether the name at `at` is coordinated with a name just before it: "Jane and Elle", "Jane, Elle",
    "Jane & Elle". The name a text opens with is capitalised as any first word is (not `named`); "Jane
    Elle" is one name, and a name said apart from the one before is no conjunct."""
    before = tokens[at - 1]
    if not is_name(tokens[at]) or not (is_name(before) or before.start == 0 and before.surface[:1].isupper()):
        return False
    gap = text[before.start + len(before.surface):tokens[at].start]
    return bool(gap.strip()) and _CONJUNCT_GAP.fullmatch(gap) is not None


def opens_with_another_name(said: list[Token], opening: list[Token], everywhere: set[str],
                            same_words_after: bool = False) -> bool:
    """Whether the claim opens with capitalised words the sentence never says where the sentence opens with
    others: "Get Him (born June 5, 1978) is an American actor" for "Nicholas Kroll (born June 5, 1978) ...",
    "Physics, (born 15 July 1943)" for "Dame Susan Jocelyn Bell Burnell, (born 15 July 1943)". `opening`:
    the sentence's words before those the claim goes on with, read whole (the diff keeps only the last
    few). A first word is capitalised whatever it is, so it is no name to `is_name`; in a name's place it
    is one, at the sentence's opening or where the sentence says a name mid-line. `same_words_after`:
    whether the same words follow the claim's opening and the sentence's name, up to those the claim goes
    on with."""
    if not said or not opening or not _capitalised(said) or any(token.key in everywhere for token in said):
        return False
    # Where the sentence names something just before the words the claim goes on with, a claim that
    # opens there puts its word for that name: "Japan again streamed the series" for "..., and
    # Crunchyroll again streamed the series" (`same_words_after`). A word that only refers ("They")
    # names nothing, nor does one the claim's own words follow ("Instead, it can be
    # accessed" for "Kentucky and can be accessed").
    return _capitalised(opening) or same_words_after and is_name(opening[-1]) and said[0].key not in STOP_WORDS


_ALIAS_REACH = 3
"""Most tokens between a name and another the sentence gives for the same thing ("Aulani, a Disney Resort",
"New York City (NYC)")."""


def name_for_name(said: list[Token], instead: list[Token], ours: list[Token], theirs: list[Token],
                  where: tuple[int, int]) -> bool:
    """Whether the claim puts a name of the sentence in place of another it drops: "served as Disney Resort
    for Hotels" for "served as Vice President for Hotels", where the sentence names "Disney Aulani Resort"
    later. A name the sentence gives beside the one it replaces is another name for the same thing ("New
    York City (NYC)"), and a name the claim says elsewhere has moved, not gone. `where`: the stretch of
    `theirs` the claim replaces."""
    if not said or not instead or not all(map(is_name, said + instead)):
        return False
    kept = {token.key for token in ours}
    if any(token.key in kept for token in instead) or {token.key for token in said} & {t.key for t in instead}:
        return False
    beside = {token.key for token in theirs[max(0, where[0] - _ALIAS_REACH): where[1] + _ALIAS_REACH]}
    return not all(token.key in beside for token in said)


def last_name(tokens: list[Token]) -> str:
    """The name the tokens end with, its words joined by spaces alone ("Crunchyroll" of "October-December,
    and Crunchyroll"); "" where they do not end with one or open their text."""
    if not tokens or not tokens[0].start or not is_name(tokens[-1]):
        return ""
    first = len(tokens) - 1
    while first and tokens[first].joined and is_name(tokens[first - 1]):
        first -= 1
    return " ".join(token.surface for token in tokens[first:])


def _capitalised(tokens: list[Token]) -> bool:
    """Whether the tokens open their text and are all capitalised: names, the first word whatever it is."""
    return tokens[0].start == 0 and tokens[0].surface[:1].isupper() and all(map(is_name, tokens[1:]))


def unread_name(theirs: list[Token], at: int, text: str) -> str | None:
    """The name the sentence writes just before `theirs[at]` in letters too short to be tokens of their own
    ("S&P" of "the yield of the S&P 500"), or None: a name the claim puts there is put for that one."""
    if not 0 < at < len(theirs):
        return None
    before = theirs[at - 1]
    found = _INITIALS.search(text, before.start + len(before.surface), theirs[at].start)
    return found.group() if found is not None else None


def skips_into_another_clause(ours: list[Token], at: int, skipped: list[Token], skipped_text: str,
                               skipped_from: int) -> bool:
    """Whether the claim leaves out, inside the restated stretch, the end of one clause and the start of
    the next, and goes on with the next one's words: "The company was founded in Paris" restates "The
    company was founded in Berlin and moved to Paris" without "Berlin and moved to", and "The landlord
    pays for electricity" restates "The landlord pays for water and the tenant pays for electricity"
    without "water and the tenant pays for". What ends at the "and" is a whole conjunct left out ("The
    company moved to Paris", "offices in London, Paris and Berlin" / "offices in Berlin"); words left out
    with no clause joined are a modifier ("the premium for our Standard plan" / "the premium")."""
    breaks = list(CLAUSE_JOIN.finditer(skipped_text))
    if at >= len(ours) or not breaks:
        return False
    cut = skipped_from + breaks[-1].end()
    joined = [token for token in skipped if token.start >= cut and token.key != NEGATION]
    if not joined:
        return False
    # The next clause says again a word the claim takes from the first ("pays"), or the claim puts the next
    # clause's name where the first has one ("in Paris" for "in Berlin"). An adverb alone is no new clause:
    # "born in Warsaw and later worked in Paris" / "worked in Paris".
    said = {token.key for token in ours}
    return any(token.key in said for token in joined) or (
        is_name(ours[at]) and any(is_name(token) for token in skipped if token.start < cut))


_NAME_WORDS = 6
"""Most words of a name put for another name (`name_put`), as the diff allows (`altered._NAME`)."""


def name_put(claim_text: str, ours: list[tuple[str, int, int]], text: str, read: list[tuple[str, int, int]],
             least: int) -> tuple[str, str] | None:
    """A claim that says a sentence's stretch word for word but a name, past its first word, put for the
    sentence's name there: one capitalised word for another ("My name is Money" for "My name is Mike"), or a
    name for a name of other words, whatever their lengths ("It was published by Charles Fort" for "It was
    published by Dennis Publishing"). (claim's name, sentence's name), or None. `ours` and `read`: the words
    of the claim and of the sentence; `least`: fewest words the two must share around a name of several."""
    for at in range(len(read) - len(ours) + 1):
        differ = [k for k in range(len(ours)) if ours[k][0] != read[at + k][0]]
        if len(differ) != 1 or differ[0] == 0:
            continue
        mine, theirs = ours[differ[0]], read[at + differ[0]]
        if claim_text[mine[1]].isupper() and text[theirs[1]].isupper():
            return claim_text[mine[1]:mine[2]], text[theirs[1]:theirs[2]]
    said = {word for word, _, _ in read}
    for i, j in _name_runs(claim_text, ours):
        before, after = [word for word, _, _ in ours[:i]], [word for word, _, _ in ours[j:]]
        named = {word for word, _, _ in ours[i:j]}
        # A name the sentence says elsewhere may be said of the same thing there ("stars Meg Ryan and Tom Hanks").
        if not before or len(before) + len(after) < least or named <= said:
            continue
        for at in range(len(read) - len(before) + 1):
            opens = at + len(before)
            if [word for word, _, _ in read[at:opens]] != before:
                continue
            end = _run_end(text, read, opens)
            if end > opens and [word for word, _, _ in read[end:end + len(after)]] == after and named.isdisjoint(
                    word for word, _, _ in read[opens:end]):
                return claim_text[ours[i][1]:ours[j - 1][2]], text[read[opens][1]:read[end - 1][2]]
    return None


def _name_runs(text: str, read: list[tuple[str, int, int]]) -> list[tuple[int, int]]:
    """(from, to) of each run of capitalised words of `read` past its first word (`_run_end`)."""
    runs: list[tuple[int, int]] = []
    at = 1
    while at < len(read):
        end = _run_end(text, read, at)
        if end > at:
            runs.append((at, end))
        at = max(end, at + 1)
    return runs


def _run_end(text: str, read: list[tuple[str, int, int]], at: int) -> int:
    """Where the run of capitalised words that opens at word `at` ends (`at` where none opens there): no mark
    between its words, and at most `_NAME_WORDS` of them."""
    end = at
    while (end < len(read) and end - at < _NAME_WORDS and text[read[end][1]].isupper()
           and (end == at or not text[read[end - 1][2]:read[end][1]].strip())):
        end += 1
    return end
