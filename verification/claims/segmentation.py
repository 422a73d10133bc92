"""Sentences and words of text in languages other than English.

Sentences: ICU's UAX #29 rules for scripts written without spaces (Chinese, Japanese, Thai: "。" ends a
sentence), sentencex for the others, whose abbreviation lists keep "z. B.", "Nr. 42" and "am 3. Mai"
whole where ICU splits them (`benchmarks/segmentation.py` measures both: F1 1.00 against 0.44 on German,
0.79 against 0.67 for ICU on Japanese, equal on Chinese). Words: ICU's dictionaries for Chinese and
Japanese, its rules elsewhere. English keeps its own splitter (`sentences.py`): the English checks were
tuned on it.

Every offset is a code-point offset into the original text, as Python indexes strings: ICU returns the
segments, and their lengths are summed here, so characters outside the Basic Multilingual Plane (emoji,
CJK Extension B) count once. Keys are NFKC-folded and lower-cased ("９" is "9", "Ｐｒｏ" is "pro"), and
German words are stemmed by Snowball, so "Tage" and "Tagen" meet.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Iterator
from functools import lru_cache

import snowballstemmer
from icu4py.breakers import SentenceBreaker, WordBreaker
from icu4py.locale import Locale
from sentencex import segment

# Function words that carry no content of their own: retrieval and coverage leave them out. Particles
# and auxiliaries of Japanese, structural particles of Chinese, articles and auxiliaries of German.
STOP_WORDS = {
    "zh": frozenset("的 了 是 在 会 和 与 及 也 都 就 把 被 着 过 吗 呢 吧 啊 这 那 个 之 而 或 并 很 将 能 "
                    "可以 有".split()),
    "ja": frozenset("は が を に で と の も へ や か な です ます でし まし た て だ し いる ある れる られる する "
                    "さ い その この あの ため こと もの よう".split()),
    "de": frozenset("der die das den dem des ein eine einen einem einer eines und oder ist sind war waren wird "
                    "werden wurde wurden hat haben hatte sein zu im in am an auf aus bei mit von vom zum zur "
                    "für es sie er wir ihr ich du man sich dass als auch so wie".split()),
}
_STEMMERS = {"de": "german"}
_WITHOUT_SPACES = frozenset({"zh", "ja", "th", "km", "lo", "my"})


def sentence_spans(text: str, language: str) -> list[tuple[int, int]]:
    """(start, end) of every sentence of `text` in `language`, whitespace left out; a line break ends one."""
    spans: list[tuple[int, int]] = []
    line_start = 0
    for line in text.split("\n"):
        offset = line_start
        for sentence in _sentences(line, language) if line.strip() else ():
            spans.extend(_stripped(text, offset, offset + len(sentence)))
            offset += len(sentence)
        line_start += len(line) + 1
    return spans


def _sentences(line: str, language: str) -> Iterable[str]:
    """The sentences of one line, consecutive, whitespace kept: sentencex for languages written with spaces
    (its abbreviations: "z. B.", "Nr.", "am 3. Mai"), ICU's rules for those written without."""
    if language in _WITHOUT_SPACES:
        return SentenceBreaker(line, _locale(language))
    return segment(language, line)


def words(text: str, language: str) -> Iterator[tuple[str, int, int]]:
    """Each word (letters or digits, no punctuation or space) with its offsets, NFKC-folded and lower-cased."""
    offset = 0
    for piece in WordBreaker(text, _locale(language)):
        start, offset = offset, offset + len(piece)
        if any(char.isalnum() for char in piece):
            yield fold(piece), start, offset


def keys(text: str, language: str) -> list[str]:
    """The content words of `text` as matching keys, in order: stop words left out, German ones stemmed."""
    stop = STOP_WORDS.get(language, frozenset())
    return [stem_of(word, language) for word, _, _ in words(text, language) if word not in stop]


def fold(text: str) -> str:
    """`text` as keys compare it: NFKC (full-width digits and letters to their usual forms), lower case."""
    return unicodedata.normalize("NFKC", text).lower()


@lru_cache(maxsize=65536)
def stem_of(word: str, language: str) -> str:
    """The Snowball stem of a folded word where the language has a stemmer; the word itself elsewhere."""
    algorithm = _STEMMERS.get(language)
    return _stemmer(algorithm).stemWord(word) if algorithm else word


@lru_cache(maxsize=8)
def _stemmer(algorithm: str) -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer(algorithm)


@lru_cache(maxsize=64)
def _locale(language: str) -> Locale:
    return Locale(language)


def _stripped(text: str, start: int, end: int) -> list[tuple[int, int]]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return [(start, end)] if end > start else []
