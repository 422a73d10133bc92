"""How the altered check reads the values of its diff: a value the claim says twice where the sentence says
two, which the diff reads as one left out and one added rather than one put for the other."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from verification.checks.altered.tokens import Opcode, Token, digits, is_value, sort_of
from verification.claims.commitments.value_patterns import WORD_NUMBERS


def _figure(surface: str) -> str:
    """The number a value or a number word says, as digits: "20 mi" and "twenty mi" both say "20"."""
    found = digits(surface)
    if found:
        return found
    number = WORD_NUMBERS.get(surface.lower().split()[0]) if surface.split() else None
    return str(number) if number is not None else surface.lower()


def value_put_for_another(ours: list[Token], theirs: list[Token], opcodes: Sequence[Opcode],
                           said_times: Counter[str]) -> tuple[str, str] | None:
    """A value the claim says more often than the sentence while it drops another of the same sort that the
    sentence says there: "in 1992 – 1992" for "in 1991 – 1992", which the diff reads as a 1991 left out
    and a 1992 added, not as one put for the other."""
    stated_times = Counter(token.key for token in theirs)
    extra = [ours[i] for op in opcodes for i in range(op[1], op[2])
             if is_value(ours[i]) and said_times[ours[i].key] > stated_times[ours[i].key]]
    gone = [theirs[j] for op in opcodes for j in range(op[3], op[4])
            if sort_of(theirs[j]) == "number" and not said_times[theirs[j].key]]
    # The same figure said twice ("20 mi ... twenty mi"; "August 22, 2017" and "AmeriCup 2017", both keyed
    # by the sentence's first) is no swap.
    keyed = {token.key: token for token in theirs}
    found = next(((mine, other) for mine in extra for other in gone if sort_of(mine) == sort_of(other)
                  and _figure(other.surface) not in (_figure(mine.surface), _figure(keyed[mine.key].surface)
                                                     if mine.key in keyed else None)), None)
    return None if found is None else (found[0].surface, found[1].surface)
