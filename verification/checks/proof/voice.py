"""Voice: "B was acquired by A" and "A acquired B" say the same with their arguments in another order.

`Reordered` holds back a claim whose words are all one sentence's in another order, since who did what
to whom may have changed. A change of voice moves the arguments without changing who did what, but only
where the doer stays the doer: the words after the passive's "by" are the words before the active verb.
"Mitchell Lichtenstein directed Teeth" keeps "a film written and directed by Mitchell Lichtenstein";
"Teeth directed Mitchell Lichtenstein" swaps it.
"""

from __future__ import annotations

from collections.abc import Sequence

from verification.claims.tokens import STOP_WORDS, stem, words

_BE = frozenset("is are was were be been being".split())
_BE_REACH = 4
"""Farthest "by" may follow a form of "be" in a passive ("was bought in 2010 by")."""
_ARGUMENT_WORDS = 4
"""Most words read as the doer after "by" or before an active verb."""
_PARTICIPLE_ENDINGS = ("ed", "en")
_IRREGULAR_PARTICIPLES = frozenset(
    "bought sold won lost led left begun written held met paid told made taken given gone got known grown run "
    "seen spent built sent brought thought felt kept chosen risen fallen done said shot hit put set cut read "
    "found drawn sung sworn torn worn born borne struck caught taught fought sought thrown shown flown blown "
    "hung spun bound wound heard understood stood beaten bitten".split()
)
"""Past participles without a regular ending: "a song sung by", "a goal shot by"."""

Read = Sequence[tuple[str, int, int]]


def passives(read: Read) -> list[tuple[int, int]]:
    """Each verb a text puts in the passive with its agent, as (the verb's index, the index of its "by"):
    a form of "be" and a participle a few words before "by" ("was acquired by", "was bought in 2010 by"),
    or a participle just before it ("a film written and directed by")."""
    tokens = [word for word, _, _ in read]
    found = []
    for at, word in enumerate(tokens):
        if word != "by" or at == 0:
            continue
        if _participle(tokens[at - 1]):
            found.append((at - 1, at))
            continue
        be = next((i for i in range(at - 1, max(-1, at - _BE_REACH - 1), -1) if tokens[i] in _BE), None)
        verb = next((i for i in range(be + 1, at) if _participle(tokens[i])), None) if be is not None else None
        if verb is not None:  # not "is a 2010 album by": no verb between
            found.append((verb, at))
    return found


def voice_kept(claim: Read, text: str, start: int, end: int, used: set[int]) -> bool:
    """Whether the claim puts in the passive the verbs the span does over the words it matches, and no other.

    The span is `text[start:end]`; its passives counted are those whose verb and doer the claim says
    (`used`: the offsets in `text` of the span's words the claim matches). "Teeth directed Mitchell
    Lichtenstein" says the words of "Teeth is a film ... directed by Mitchell Lichtenstein" in their order,
    with the "by" that made Lichtenstein the director left out. A passive in words the claim leaves out
    is not its concern.
    """
    read = words(text[start:end])
    spoken = 0
    for verb, by in passives(read):
        # A doer of function words only ("powered by what was, at the time, ...") is said by any claim
        # that says the verb.
        doer = [at for word, at, _ in read[by + 1: by + 1 + _ARGUMENT_WORDS] if word not in STOP_WORDS]
        if start + read[verb][1] in used and (not doer or any(start + at in used for at in doer)):
            spoken += 1
    return spoken == len(passives(claim))


def explains_order(claim: Read, span: Sequence[Read]) -> bool:
    """Whether a change of voice between the claim and its span accounts for the claim's order.

    Only passives whose verb the other side says count: "who is repped by WME" explains nothing of a claim
    that never says "repped". A verb both put in the passive changed no voice, however often the span says
    it: "the least Weidenreich was done by Neanderthal-like" restates one of the two "was done by" of its
    sentence with the arguments swapped. Where one side puts a verb in the passive and the other does not,
    the verb is looked for in the active text: the voice explains the order when the passive's doer (the
    words after "by") stands before that verb, and not when it stands elsewhere. A passive whose verb the
    other text says only in another form tells nothing, and the change of voice is taken to explain the order.
    """
    claim_stems = {stem(word) for word, _, _ in claim}
    span_stems = {stem(word) for read in span for word, _, _ in read}
    claimed = [found for found in passives(claim) if stem(claim[found[0]][0]) in span_stems]
    stated = [(read, found) for read in span for found in passives(read) if stem(read[found[0]][0]) in claim_stems]
    both = {stem(claim[verb][0]) for verb, _ in claimed} & {stem(read[verb][0]) for read, (verb, _) in stated}
    claimed = [found for found in claimed if stem(claim[found[0]][0]) not in both]
    stated = [(read, found) for read, found in stated if stem(read[found[0]][0]) not in both]
    if not claimed and not stated:
        return False
    pairs = [(claim, found, read) for found in claimed for read in span] + [
        (read, found, claim) for read, found in stated]
    told = [_doer_before(passive, found, active) for passive, found, active in pairs]
    known = [answer for answer in told if answer is not None]
    return not known or any(known)


def _doer_before(passive: Read, found: tuple[int, int], active: Read) -> bool | None:
    """Whether the passive's doer stands before the same verb said actively; None where the active text
    does not say the verb (or says it in the passive too)."""
    verb, by = found
    key = stem(passive[verb][0])
    doer = _content(passive[by + 1: by + 1 + _ARGUMENT_WORDS])
    tokens = [word for word, _, _ in active]
    at = next((i for i, word in enumerate(tokens)
               if stem(word) == key and (i + 1 == len(tokens) or tokens[i + 1] != "by")), None)
    if at is None or not doer:
        return None
    return bool(doer & _content(active[max(0, at - _ARGUMENT_WORDS): at]))


def _content(read: Read) -> frozenset[str]:
    return frozenset(stem(word) for word, _, _ in read if word not in STOP_WORDS and word != "by")


def _participle(word: str) -> bool:
    return word in _IRREGULAR_PARTICIPLES or (len(word) > 3 and word.endswith(_PARTICIPLE_ENDINGS))
