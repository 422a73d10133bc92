"""What a span says beyond the claim's words: the conjuncts it leaves out, the negations of the clause
that holds the matched words, and the text around them whose qualifiers the claim must keep."""

from __future__ import annotations

import re
from collections.abc import Sequence

from verification.checks.proof.alternatives import ALTERNATIVE
from verification.checks.proof.order import CONJUNCTION, PHRASE_MARK
from verification.checks.proof.words import Word, qualifiers
from verification.claims.commitments import Mention, grounds
from verification.claims.tokens import answering, in_the_past, words
from verification.retrieval.index import Passage
from verification.retrieval.values import ValueCheck

_AUXILIARY_NEXT = re.compile(r"\s+(?:is|are|was|were|has|have|had|will|would|can|could|may|might|must|shall|should|"
                             r"does|do|did)\b", re.IGNORECASE)
_JOINED = re.compile(r",?\s+(?:and|or|nor)\s+", re.IGNORECASE)
_WORD_AT = re.compile(r"\w+")
_NO = re.compile(r"\b[Nn]o,")


def denied_in_clause(text: str, span: tuple[Passage, ...], first: int, last: int,
                      conjuncts: list[tuple[int, int]]) -> int:
    """How many negations the clause of the matched words has, from the mark before the first to the mark
    after the last, those of a conjunct left out with its own verb aside: a negation reaches past "or"
    and "and" to every verb it is joined to ("do not sell or rent"), however far from the claim's words."""
    opening = next(passage for passage in span if passage.start <= first < passage.end)
    closing = next(passage for passage in span if passage.start <= last < passage.end)
    start = max([opening.start, *(mark.end() for mark in PHRASE_MARK.finditer(text, opening.start, first))])
    stop = PHRASE_MARK.search(text, last, closing.end)
    clause = qualifiers(words(text[start:stop.start() if stop else closing.end])).count("not")
    return clause - sum(qualifiers(words(text[low:high])).count("not") for low, high in conjuncts)


def conjuncts_left_out(text: str, region: list[Word], omitted: list[bool],
                        span: tuple[Passage, ...]) -> list[tuple[int, int]] | None:
    """The runs of the span the claim leaves out whose next conjunct has a verb of its own ("[would become a
    gunman and] was a later suspect"), as (start, end) in the source's text; None unless every run left out
    is a whole conjunct, ended by "and" or "or" before the claim's next word, or opened by one after the
    word it is joined to: "The museum [opens at 9 and] closes at 5" states the second predicate of its
    subject, "acquired [and sold] Contoso" the first; "vice president" is not "president", nor "in rare
    cases, causes" "causes". Whether an alternative left out ("or") leaves the rest stated is
    `alternatives.hedged`'s to say. A conjunct is in one sentence with the word it is joined to: words left out
    across a sentence's end ("Project Lead: [Yeah . Finance Officer:] and I think ...") are the rest of one
    line and the speaker of the next, not a conjunct; nor is a sentence's opening, left out after a word of the
    sentence before."""
    runs: list[tuple[int, int]] = []
    opened = 0  # where the run being read began
    for i, left_out in enumerate(omitted):
        if left_out and (i == 0 or not omitted[i - 1]):
            opened = i
        if left_out and (i + 1 == len(region) or not omitted[i + 1]):
            gap = text[region[i].end:region[i + 1].start] if i + 1 < len(region) else ""
            joint = CONJUNCTION.search(gap)
            if i + 1 == len(region) or _sentence(region[opened], span) is not _sentence(region[i + 1], span) \
                    or opened and _sentence(region[opened - 1], span) is not _sentence(region[opened], span):
                # Nor is a sentence's opening left out after the claim's word of the sentence before:
                # '"Titus". [Starring Anthony Hopkins] and Jessica Lange' joins no conjuncts.
                return None
            if not joint and opened and _JOINED.fullmatch(text, region[opened - 1].end, region[opened].start):
                if any(word.key[:1].isdigit() for word in region[opened:i + 1]) or PHRASE_MARK.search(
                        text, region[opened].start, region[i + 1].start):
                    # "at 9 or 10 am" is no conjunct left out of "at 9 am", nor "and designed by Karel Krnka,"
                    # one of "the firm Steyr Mannlicher [...] based on the mechanism".
                    return None
                continue  # "do not sell [or rent] your data", "acquired [and sold] Contoso"
            if not joint:
                return None
            # The next conjunct has a verb of its own where an auxiliary opens it, or where both it and the run
            # open on a verb in the past ("[opened her career with ... a victory over Tate, and] captured").
            if _AUXILIARY_NEXT.match(gap, joint.end()) or _in_the_past(text, region[opened].start) \
                    and _in_the_past(text, region[i].end + joint.end()):
                runs.append((region[opened - 1].end if opened else region[opened].start, region[i].end + joint.start()))
    return runs


def _in_the_past(text: str, at: int) -> bool:
    """Whether the first word at or after offset `at` is a verb in the past (`tokens.in_the_past`)."""
    found = _WORD_AT.search(text, at)
    return found is not None and in_the_past(found.group().lower())


def _sentence(word: Word, span: tuple[Passage, ...]) -> Passage:
    """The sentence of the span a word of it is in."""
    return next(passage for passage in span if passage.start <= word.start < passage.end)


def inside_value(word: Word, values: Sequence[ValueCheck], span: tuple[Passage, ...]) -> bool:
    """Whether a word of the span is part of a value the claim states ("dollars" of "20 dollars")."""
    for check in values:
        for passage, mention in check.grounding:
            if passage in span and passage.start + mention.start <= word.start < passage.start + mention.end:
                return True
    return False


def next_stating(value: Mention, passage: Passage, cited: Mention, anchored: set[int]) -> Mention:
    """The sentence's mention that states a value of the claim: the one its value check cites (the first),
    or, where an earlier value of the claim took that one, the next that states it too ("one fumble
    recovery and ... one fumble return" says each "one fumble" of a claim that copies it once)."""
    if passage.start + cited.start not in anchored:
        return cited
    return next((other for other in passage.values if passage.start + other.start not in anchored
                 and other.start > cited.start and grounds(value, other)), cited)


def widened(text: str, span: tuple[Passage, ...], source_words: list[Word], first: int, last: int,
             tail: Sequence[str] = ()) -> str:
    """The span's text from the first to the last matched word, widened to the content words on either
    side: the "No" of "No refunds are given" belongs to what the claim's words say. `tail`: the claim's
    words after its last content word."""
    # Widened within the sentences that hold the matched words: a negation in the next sentence is not
    # this one's ("there are real dogs. Who doesn't want ...").
    opening = next(passage for passage in span if passage.start <= first < passage.end)
    closing = next(passage for passage in span if passage.start <= last < passage.end)
    start = max((word.end for word in source_words if opening.start <= word.start < first), default=opening.start)
    answer = _NO.search(text, start, first)
    if answer and answering(text, answer.start()):
        start = answer.end()  # "No, worse - it's the punchline": the answer denies nothing the claim says
    if ALTERNATIVE.fullmatch(text, start, first):
        # The claim's first word is an alternative of the word before it ("do not sell or rent your data"):
        # the negation or modal before that word reaches this one, and the clause's opening is read too.
        start = max([opening.start, *(mark.end() for mark in PHRASE_MARK.finditer(text, opening.start, first))])
    end = min((word.start for word in source_words if last < word.start < closing.end), default=closing.end)
    # Nor past a conjunction: "and will be one of the tallest" after "up to its roof" is the next
    # conjunct's, and its "will" qualifies that one.
    joint = CONJUNCTION.search(text, end_of(text, last), end)
    if joint and [word for word, _, _ in words(text[joint.start():end])] == list(tail):
        joint = None  # the claim says it too: "whether he's competing or not" ends as the sentence does
    return text[start:joint.start() if joint else end]


def end_of(text: str, start: int) -> int:
    """Where the word that starts at `start` ends."""
    found = _WORD_AT.match(text, start)
    return found.end() if found else start
