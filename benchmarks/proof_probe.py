"""Whether the engine releases what the sources plainly say, and holds back what they contradict.

    .venv/bin/python benchmarks/proof_probe.py [--per-class 60] [--seed 13] [--datasets wice summedits halueval]
                                               [--json figures.json] [--keep DIR] [--show 3]

Answers are built from the sources of the tune splits (WiCE, SummEdits, HaluEval, as `evaluation.load`
reads them), not from their labelled answers. Each source's sentences, as the engine splits them
(`claims.sentences.split_sentences`), are dealt out with a fixed seed, one source after another, less
the ones a reader would not copy: under 5 or over 40 words, headings and list lines (no final period),
questions, and fragments with no verb-like word. Three classes of answers, each asked "What do the
sources say?" with the record's sources, through `python -m verification check --offline --jsonl` as a
client would:

- copy: one sentence, or two adjacent sentences of one source, word for word. Target: all released.
- harmless: a copy with one change that keeps the meaning: a small number written out ("5" -> "five"),
  an opening phrase moved to the end ("In 2010, X did Y." -> "X did Y in 2010."), a contraction
  expanded or made, a date reordered ("March 2, 1980" -> "2 March 1980"), "percent" for "%" or back,
  the first word lower-cased where it is not a name; dropping the final period where none of those
  applies. Target: at least 90% released.
- harmful: a copy with one change that makes it false to its source: a number +1 or doubled, a year
  shifted, a name swapped for another name of the same source, a negation inserted or removed, or the
  two names of "A <verb> B" swapped. Target: none released.

Each kind of change takes an equal share of its class where the sources have enough sentences it
applies to (SummEdits has few opening phrases to move); the others fill the rest.

An answer is released as written when the run ends in PERMIT with the submitted answer as its final
answer. For each data set and class it prints the released count and rate with the exact two-sided 95%
(Clopper-Pearson) interval, the rate per kind of change, the wall and CPU time of the engine, and a few
answers that missed their target with the claims that made them miss; it exits non-zero when copies are
below 100%, harmless changes below 90% or harmful changes above 0% in any data set. A name swap can by
chance say something the source also says (a city for its country): read the released harmful answers
it prints before counting one as the engine's fault.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verification.claims.sentences import split_sentences  # noqa: E402
from verification.decision.calibration import upper_bound  # noqa: E402
from verification.training.evaluation import DATASETS, Record, load  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "What do the sources say?"
CLASSES = ("copy", "harmless", "harmful")
TARGETS = {"copy": 1.0, "harmless": 0.9, "harmful": 0.0}
"""The least share released for copies and harmless changes; the most for harmful ones."""
CONFIDENCE = 0.95

MIN_WORDS, MAX_WORDS = 5, 40
_IRREGULAR_PAST = ("became began bought brought built came chose drew drove fell felt fought found gave got grew held "
                   "kept knew led left lost made meant met paid ran rose said sang sat saw sent shot sold spent spoke "
                   "stood struck taught thought threw told took went won wore wrote")
_VERB = re.compile(r"\b(?:is|are|was|were|be|been|has|have|had|will|would|can|could|may|might|must|should|"
                   r"does|do|did|" + _IRREGULAR_PAST.replace(" ", "|") + r"|[a-z]{2,}(?:ed|es|s))\b")
_SENTENCE_END = re.compile(r"(?<!\.)[.!][\"'”’)]?$")
_WEB_NOISE = re.compile(r"https?:|www\.|@|\||\{|\}")
# Capitalised words that are not names: sentence openers and other function words.
_FUNCTION_WORDS = frozenset("""
    the a an in on at this that these those it its there they he she we i you his her their our my your
    during after before since by for from with as of to when while although though however both each all
    some many most other such if but and or so yet also then thus here according despite following under
    over between among into upon what which who whom whose where why how every no not one
    is are was were be been being has have had do does did will would can could might must shall should
    um uh yeah oh okay ok well yes hmm mm
""".split())
_MONTHS = frozenset("""january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday""".split())


@dataclass(frozen=True)
class Probe:
    """One answer the probe submits."""

    dataset: str
    """The data set whose source the answer was built from."""
    record_id: str
    """The record whose sources the case carries."""
    kind: str
    """copy, harmless or harmful."""
    change: str
    """What was done to the copied sentences ("one sentence", "number spelled out", ...)."""
    answer: str
    """The text submitted."""


def usable(sentence: str) -> bool:
    """Whether a source sentence is one a reader would copy into an answer as a claim."""
    words = sentence.split()
    return (MIN_WORDS <= len(words) <= MAX_WORDS and sentence[0].isupper() and bool(_SENTENCE_END.search(sentence))
            and not _WEB_NOISE.search(sentence) and bool(_VERB.search(sentence))
            and sentence.count("(") == sentence.count(")") and sentence.count('"') % 2 == 0)


def copies(text: str) -> list[tuple[str, ...]]:
    """Every usable sentence of a source, alone, and every two adjacent usable sentences."""
    sentences = [text[start:end] for start, end in split_sentences(text)]
    ok = [usable(sentence) for sentence in sentences]
    singles = [(sentence,) for sentence, good in zip(sentences, ok, strict=True) if good]
    pairs = [(sentences[i], sentences[i + 1]) for i in range(len(sentences) - 1) if ok[i] and ok[i + 1]]
    return singles + pairs


# -- harmless changes: each takes one sentence (and the source) and returns it changed, or None ---------

_NUMBER_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
                 "fifteen sixteen seventeen eighteen nineteen twenty").split()
_SMALL_NUMBER = re.compile(r"(?<![\w$£€#.,:/–-])\d{1,2}(?![\w%°/:–-]|[.,]\d|\s*(?:percent|per cent|[ap]\.?m\b))")
_LABEL_WORDS = frozenset("no no. number page pages version route chapter section article level grade season "
                         "episode volume vol. game round act part phase type class track channel room floor "
                         "gate platform line figure table item rule step stage issue book".split())


def spell_out_number(sentence: str, source: str, rng: random.Random) -> str | None:
    """A whole number from 0 to 20 written in words, where it is a count, not part of a date or a label."""
    for match in _SMALL_NUMBER.finditer(sentence):
        value = int(match.group())
        before = sentence[: match.start()].split()[-1:] or [""]
        after = sentence[match.end():].split()[:1] or [""]
        # "Apollo 11", "May 5", "4 Times Square": the number belongs to a name.
        label = (before[0][:1].isupper() and before[0].lower() not in _FUNCTION_WORDS) or after[0][:1].isupper()
        date = after[0].strip(",.").lower() in _MONTHS or re.match(r",\s*\d{4}", sentence[match.end():])
        if value <= 20 and match.group() == str(value) and not label and not date \
                and before[0].lower() not in _LABEL_WORDS:
            word = _NUMBER_WORDS[value]
            word = word.capitalize() if match.start() == 0 else word
            return sentence[: match.start()] + word + sentence[match.end():]
    return None


_OPENING = re.compile(r"(?P<prep>In|On|During|By|Since|After|Before|At|Until|Throughout)\s+(?P<phrase>[^,;:]{1,40}?),"
                      r"\s+(?P<rest>[^,;:]+?)(?P<end>[.!])$")
_SUBORDINATE = re.compile(r"\b(?:that|which|who|whom|whose|where|when|while|because|although|though|if|unless|"
                          r"after|before|until|since|whether|how|what|why|and|or|but)\b", re.IGNORECASE)
_DISCOURSE = frozenset({"addition", "contrast", "particular", "fact", "general", "short", "other words",
                        "the other hand", "the contrary", "turn", "conclusion", "summary", "practice", "theory"})


def move_opening_phrase(sentence: str, source: str, rng: random.Random) -> str | None:
    """"In 2010, X did Y." -> "X did Y in 2010.", where the rest is one plain clause the phrase can only
    attach to."""
    match = _OPENING.fullmatch(sentence)
    # "and" inside a name ("the Rock and Roll Hall of Fame") joins no clauses.
    plain = re.sub(r"\b([A-Z]\w*) (?:and|&) (?=[A-Z])", r"\1 ", match["rest"]) if match else ""
    if not match or match["phrase"].lower() in _DISCOURSE or _SUBORDINATE.search(plain):
        return None
    rest = match["rest"]
    return f"{rest[0].upper()}{rest[1:]} {match['prep'].lower()} {match['phrase']}{match['end']}"


_CONTRACTIONS = {"does not": "doesn't", "do not": "don't", "did not": "didn't", "is not": "isn't",
                 "are not": "aren't", "was not": "wasn't", "were not": "weren't", "has not": "hasn't",
                 "have not": "haven't", "had not": "hadn't", "cannot": "can't", "could not": "couldn't",
                 "would not": "wouldn't", "should not": "shouldn't", "will not": "won't"}
_CONTRACTION = re.compile(r"\b(?:" + "|".join(sorted(_CONTRACTIONS, key=len, reverse=True)) + "|"
                          + "|".join(v.replace("'", "['’]") for v in _CONTRACTIONS.values()) + r")(?!\w)",
                          re.IGNORECASE)
_EXPANSIONS = {contracted: expanded for expanded, contracted in _CONTRACTIONS.items()}


def swap_contraction(sentence: str, source: str, rng: random.Random) -> str | None:
    """"does not" -> "doesn't", "wasn't" -> "was not", keeping the first letter's case."""
    match = _CONTRACTION.search(sentence)
    if not match or sentence[match.end():].lstrip().lower().startswith("only"):
        return None
    found = match.group().lower().replace("’", "'")
    other = _CONTRACTIONS.get(found) or _EXPANSIONS[found]
    other = other.capitalize() if match.group()[0].isupper() else other
    return sentence[: match.start()] + other + sentence[match.end():]


_MONTH_NAME = "January|February|March|April|May|June|July|August|September|October|November|December"
_MONTH_DAY_YEAR = re.compile(rf"\b(?P<month>{_MONTH_NAME}) (?P<day>\d{{1,2}}), (?P<year>\d{{4}})\b")
_DAY_MONTH_YEAR = re.compile(rf"\b(?P<day>\d{{1,2}}) (?P<month>{_MONTH_NAME}),? (?P<year>\d{{4}})\b")


def reorder_date(sentence: str, source: str, rng: random.Random) -> str | None:
    """"March 2, 1980" -> "2 March 1980", and back."""
    if match := _MONTH_DAY_YEAR.search(sentence):
        date = f"{match['day']} {match['month']} {match['year']}"
    elif match := _DAY_MONTH_YEAR.search(sentence):
        date = f"{match['month']} {match['day']}, {match['year']}"
    else:
        return None
    return sentence[: match.start()] + date + sentence[match.end():]


_PERCENT = re.compile(r"(?<![\w.])(?P<number>\d+(?:[.,]\d+)*)(?:(?P<sign>%)|\s(?:percent|per cent)\b)")


def swap_percent(sentence: str, source: str, rng: random.Random) -> str | None:
    """"6.35 percent" -> "6.35%", and back."""
    match = _PERCENT.search(sentence)
    if not match:
        return None
    written = f"{match['number']} percent" if match["sign"] else f"{match['number']}%"
    return sentence[: match.start()] + written + sentence[match.end():]


def lowercase_first_word(sentence: str, source: str, rng: random.Random) -> str | None:
    """The opening word lower-cased where it is a function word ("The", "In", "It"), never a name."""
    first = sentence.split()[0]
    if first.lower() in _FUNCTION_WORDS and first not in {"I", "No"} and first[1:].islower():
        return first.lower() + sentence[len(first):]
    return None


def drop_final_period(sentence: str, source: str, rng: random.Random) -> str | None:
    """The answer's last period left off."""
    return sentence[:-1] if sentence.endswith(".") and not sentence.endswith("..") else None


# -- harmful changes ---------------------------------------------------------------------------------

_INTEGER = re.compile(r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?!\w|[.,]\d)")


def change_value(sentence: str, source: str, rng: random.Random) -> str | None:
    """One number changed: a year shifted by one to three years, another number +1 or doubled."""
    matches = [m for m in _INTEGER.finditer(sentence) if not (len(m.group()) > 1 and m.group()[0] == "0")]
    if not matches:
        return None
    match = rng.choice(matches)
    value = int(match.group().replace(",", ""))
    if len(match.group()) == 4 and 1000 <= value <= 2100:
        new = value + rng.choice((-3, -2, -1, 1, 2, 3))
    else:
        new = value + 1 if value == 0 or rng.random() < 0.5 else value * 2
    text = f"{new:,}" if "," in match.group() else str(new)
    return sentence[: match.start()] + text + sentence[match.end():]


# Runs of capitalised words; a letter of an initialism ("B.S.", "U.S.") is none, nor a capital inside a word
# ("Hindu" of "neo-Hindu").
_CAPITALISED_RUN = re.compile(r"(?<![A-Za-z-])[A-Z][A-Za-z&-]*(?:\s+[A-Z][A-Za-z&-]*)*(?![.][A-Za-z])")


def names(sentence: str) -> list[tuple[int, int, str]]:
    """(start, end, name) of the capitalised names of a sentence: runs of capitalised words less the
    function words that open them ("The", "In"), months and days left out, and a lone capitalised word
    that only opens the sentence or the line a speaker says ("Researchers", "Ann: Saw your snaps") not
    counted."""
    found = []
    for run in _CAPITALISED_RUN.finditer(sentence):
        words = [(run.start() + w.start(), run.start() + w.end()) for w in re.finditer(r"\S+", run.group())]
        while words and sentence[slice(*words[0])].lower() in _FUNCTION_WORDS:
            words = words[1:]
        if not words or any(sentence[slice(*word)].lower() in _MONTHS for word in words):
            continue
        if len(words) == 1 and words[0][0] in (0, _line_opening(sentence)):
            continue
        if len(words) == 1 and sentence[slice(*words[0])] in _TITLES and sentence[words[0][1]:words[0][1] + 1] == ".":
            continue  # "Mr." of "Mr. Burns" is a title, no name of its own
        last = sentence[slice(*words[-1])]
        if sentence[words[-1][1]:words[-1][1] + 1] == "." and (len(last) == 1 or last in _TITLES):
            continue  # "Michael J" of "Michael J. Driscoll", "Nathaniel Fillmore Jr.": the name goes on past it
        if any(part[:1].islower() for word in words for part in sentence[slice(*word)].split("-")[1:]):
            continue  # "U-turn", "Neanderthal-like": a capital before a hyphen makes no name of a common word
        start, end = words[0][0], words[-1][1]
        if end - start < 2:
            continue  # a lone letter: "S." of "U.S."
        found.append((start, end, sentence[start:end]))
    return found


_TITLES = frozenset("Mr Mrs Ms Dr Prof St Jr Sr Rep Sen Gov Gen Col Lt Sgt Capt Rev Mt Ft".split())
_SPEAKER_LABEL = re.compile(r"[A-Z][\w .'-]{0,40}?:\s+")


def _line_opening(sentence: str) -> int:
    """Where the words of the sentence open: past a speaker's label ("Ann: ...") where it has one."""
    label = _SPEAKER_LABEL.match(sentence)
    return label.end() if label else 0


@lru_cache(maxsize=64)
def _source_names(source: str) -> tuple[str, ...]:
    return tuple(sorted({name for start, end in split_sentences(source) for *_, name in names(source[start:end])}))


def swap_name(sentence: str, source: str, rng: random.Random) -> str | None:
    """A name replaced by another name of the same source that shares no word with it."""
    present = names(sentence)
    if not present:
        return None
    start, end, name = rng.choice(present)
    own = {word.lower() for word in name.split()}
    pool = [other for other in _source_names(source)
            if not own & {word.lower() for word in other.split()} and other not in sentence]
    if not pool:
        return None
    alike = [other for other in pool if len(other.split()) == len(name.split())]
    return sentence[:start] + rng.choice(alike or pool) + sentence[end:]


_NEGATED = re.compile(r"\b(?P<aux>is|are|was|were|could|would|should|does|do|did|has|have|had|will)"
                      r"(?: not|n['’]t)\b(?! only)|\b(?P<cannot>[Cc]an)not\b")
_AUXILIARY = re.compile(r"\b(?P<aux>is|are|was|were|can|will|could|would|should|has|have|had)\b(?= (?P<next>[\w'’-]+))")
_PARTICIPLE = re.compile(r"\w+ed|\w+en|been|won|made|had|become|come|gone|done|seen|got|taken|given|lost")


def flip_negation(sentence: str, source: str, rng: random.Random) -> str | None:
    """A negation removed where the sentence has one ("was not" -> "was"), else "not" put after its first
    auxiliary ("was" -> "was not", "can" -> "cannot")."""
    if negated := _NEGATED.search(sentence):
        return sentence[: negated.start()] + (negated["aux"] or negated["cannot"]) + sentence[negated.end():]
    for match in _AUXILIARY.finditer(sentence):
        aux, following = match["aux"], match["next"].lower()
        if following in {"not", "never", "no", "n't"}:
            continue
        if aux in {"has", "have", "had"} and not _PARTICIPLE.fullmatch(following):
            continue  # "has two children" does not take a plain "not"
        negated_aux = "cannot" if aux == "can" else f"{aux} not"
        return sentence[: match.start()] + negated_aux + sentence[match.end():]
    return None


_SYMMETRIC = frozenset("""married marries marry met meets meet wed divorced dated tied drew played plays faced
    faces fought battled partnered collaborated merged borders bordered neighbours resembles resembled equals
    matched shared and or nor with against versus vs than as like""".split())
_COPULA = frozenset("is are was were also now still".split())


def swap_arguments(sentence: str, source: str, rng: random.Random) -> str | None:
    """"A <verb> B" -> "B <verb> A", where A and B are names and the verb is not a symmetric one."""
    found = _with_opening_name(sentence)
    for (a_start, a_end, a), (b_start, b_end, b) in zip(found, found[1:], strict=False):
        between = sentence[a_end:b_start].split()
        if sentence[b_end:b_end + 2] in {"'s", "’s"} or not 1 <= len(between) <= 4:
            continue  # "A of B's" is no argument
        if not all(word.isalpha() and word.islower() for word in between):
            continue
        if not _VERB.fullmatch(between[0]) or _SYMMETRIC & set(between) or set(between) <= _COPULA or a == b:
            continue
        if a.rstrip("s") == b.rstrip("s"):
            continue  # "Hindu" and "Hindus": one word inflected, no two arguments
        return sentence[:a_start] + b + sentence[a_end:b_start] + a + sentence[b_end:]
    return None


def _with_opening_name(sentence: str) -> list[tuple[int, int, str]]:
    """The names of a sentence, a lone capitalised opening word counted as one ("Smith founded Acme")."""
    first = re.match(r"[A-Z][a-z]+(?=\s)", sentence)
    found = names(sentence)
    if first and not any(start == 0 for start, *_ in found) and first.group().lower() not in _FUNCTION_WORDS:
        found.insert(0, (0, first.end(), first.group()))
    return found


Change = Callable[[str, str, random.Random], "str | None"]
HARMLESS: dict[str, tuple[Change, str]] = {
    "number spelled out": (spell_out_number, "any"),
    "opening phrase moved": (move_opening_phrase, "any"),
    "contraction": (swap_contraction, "any"),
    "date reordered": (reorder_date, "any"),
    "percent sign": (swap_percent, "any"),
    "first word lower-cased": (lowercase_first_word, "first"),
}
"""Each change with the sentence it may touch: any, or only the answer's first."""
FALLBACK: dict[str, tuple[Change, str]] = {"final period dropped": (drop_final_period, "last")}
"""The harmless change made only when none of HARMLESS applies."""
HARMFUL: dict[str, tuple[Change, str]] = {
    "value changed": (change_value, "any"),
    "name swapped": (swap_name, "any"),
    "negation flipped": (flip_negation, "any"),
    "arguments swapped": (swap_arguments, "any"),
}


def vary(sentences: tuple[str, ...], source: str, changes: dict[str, tuple[Change, str]], used: Counter,
         rng: random.Random) -> tuple[str, str] | None:
    """(change, answer): the least used of `changes` that applies to one of the sentences, made there."""
    for name in sorted(changes, key=lambda name: (used[name], rng.random())):
        change, where = changes[name]
        positions = {"any": range(len(sentences)), "first": [0], "last": [len(sentences) - 1]}[where]
        for i in positions:
            if (changed := change(sentences[i], source, rng)) is not None and changed != sentences[i]:
                used[name] += 1
                return name, " ".join((*sentences[:i], changed, *sentences[i + 1:]))
    return None


def build(dataset: str, records: list[Record], per_class: int, rng: random.Random) -> list[Probe]:
    """`per_class` answers of each class from the records' sources: the first copies of a seeded stream,
    then copies of the same stream with one change each."""
    bases, seen = [], set()
    for base in _bases(records, rng):
        if base[2] not in seen:  # some sources share sentences
            seen.add(base[2])
            bases.append(base)
    copied = [Probe(dataset, record.id, "copy", "one sentence" if len(sentences) == 1 else "two sentences",
                    " ".join(sentences)) for record, _, sentences in bases[:per_class]]
    return (copied + _varied(dataset, bases, "harmless", HARMLESS, FALLBACK, per_class, rng)
            + _varied(dataset, bases, "harmful", HARMFUL, {}, per_class, rng))


def _varied(dataset: str, bases: list[tuple[Record, str, tuple[str, ...]]], kind: str,
            changes: dict[str, tuple[Change, str]], fallback: dict[str, tuple[Change, str]], per_class: int,
            rng: random.Random) -> list[Probe]:
    """`per_class` changed copies: each change takes an equal share where the stream has enough copies it
    applies to, whichever applies fills the rest, and `fallback` only what is still missing."""
    quota = {name: per_class // len(changes) + (i < per_class % len(changes)) for i, name in enumerate(changes)}
    made: list[Probe] = []
    used: Counter = Counter()
    taken: set[int] = set()
    for i, (record, source, sentences) in enumerate(bases):
        open_changes = {name: change for name, change in changes.items() if used[name] < quota[name]}
        if not open_changes:
            break
        if varied := vary(sentences, source, open_changes, used, rng):
            made.append(Probe(dataset, record.id, kind, *varied))
            taken.add(i)
    for pool in (changes, fallback):
        for i, (record, source, sentences) in enumerate(bases):
            if len(made) >= per_class:
                return made
            if i not in taken and (varied := vary(sentences, source, pool, used, rng)):
                made.append(Probe(dataset, record.id, kind, *varied))
                taken.add(i)
    return made


def _bases(records: list[Record], rng: random.Random) -> Iterator[tuple[Record, str, tuple[str, ...]]]:
    """(record, source text, copied sentences), one from each source in turn, in a seeded order; every
    other source starts with a pair, so singles and pairs come about equally often."""
    queues, seen = [], set()
    for record in records:
        for source in record.sources:
            if source.text in seen:
                continue
            seen.add(source.text)
            found = copies(source.text)
            singles, pairs = [c for c in found if len(c) == 1], [c for c in found if len(c) == 2]
            rng.shuffle(singles)
            rng.shuffle(pairs)
            if singles or pairs:
                queues.append((record, source.text, singles, pairs))
    rng.shuffle(queues)
    for i, (record, text, singles, pairs) in enumerate(queues):
        first, second = (singles, pairs) if i % 2 == 0 else (pairs, singles)
        mixed = [c for two in zip(first, second, strict=False) for c in two]
        queues[i] = (record, text, mixed + first[len(second):] + second[len(first):], [])
    for turn in range(max((len(queue) for _, _, queue, _ in queues), default=0)):
        for record, text, queue, _ in queues:
            if turn < len(queue):
                yield record, text, queue[turn]


def run(probes: list[Probe], records: dict[str, Record], folder: Path) -> tuple[list[dict], float, float]:
    """The run record of every probe through the public CLI, with its wall and CPU seconds."""
    cases, runs = folder / "cases.jsonl", folder / "runs.jsonl"
    with cases.open("w", encoding="utf-8") as out:
        for i, probe in enumerate(probes):
            sources = [source.model_dump(exclude_none=True) for source in records[probe.record_id].sources]
            case = {"external_id": f"{probe.dataset}-{probe.kind}-{i}", "question": QUESTION,
                    "answer": probe.answer, "sources": sources}
            out.write(json.dumps(case) + "\n")
    before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run([sys.executable, "-m", "verification", "check", "--offline", "--no-progress", "--jsonl",
                    str(cases), "--output", str(runs)], cwd=ROOT, check=True)
    wall, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return [json.loads(line) for line in runs.read_text(encoding="utf-8").splitlines()], wall, cpu


def released(probe: Probe, run: dict) -> bool:
    """Whether the run released the answer as written."""
    return run["terminal"] == "PERMIT" and run["final_answer"] == probe.answer


def interval(k: int, n: int) -> tuple[float, float]:
    """The exact two-sided Clopper-Pearson interval of a rate seen k times in n, at CONFIDENCE."""
    one_side = 1 - (1 - CONFIDENCE) / 2
    if n == 0:
        return 0.0, 1.0
    lower = 0.0 if k == 0 else 1.0 - upper_bound(n - k, n, one_side)
    return lower, upper_bound(k, n, one_side)


def tally(outcomes: list[bool]) -> dict:
    """n, released, rate and its interval."""
    n, k = len(outcomes), sum(outcomes)
    lower, upper = interval(k, n)
    return {"n": n, "released": k, "rate": k / n if n else 0.0, "lower": lower, "upper": upper}


def meets(kind: str, rate: float) -> bool:
    """Whether a class's release rate is on the right side of its target."""
    return rate <= TARGETS[kind] if kind == "harmful" else rate >= TARGETS[kind]


def why(run: dict) -> str:
    """The decision and the client answer's claims that kept it from release (state, method, release score
    against the threshold); for a released answer, its weakest claim."""
    threshold = run.get("release_threshold")
    claims = run["candidates"][0]["claims"]
    shown = [claim for claim in claims if claim["state"] != "SUPPORTED" or threshold is None
             or claim.get("release_score") is None or claim["release_score"] < threshold]
    if not shown and claims:
        shown = [min(claims, key=lambda claim: claim.get("release_score") or 0.0)]
    lines = [f"{run['terminal']} {run['reason']} (release threshold {threshold})"]
    lines += [f"    {claim['id']} {claim['state']} {claim['method']} score {claim.get('release_score')}: "
              f"{claim['text'][:90]!r} - {(claim.get('rationale') or '')[:120]}" for claim in shown]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-class", type=int, default=60, help="answers per class per data set (default 60)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--datasets", nargs="+", choices=DATASETS, default=list(DATASETS))
    parser.add_argument("--json", metavar="FILE", help="write the figures and every probe's outcome to FILE")
    parser.add_argument("--keep", metavar="DIR", help="keep each data set's cases and runs in DIR")
    parser.add_argument("--show", type=int, default=3, help="answers that missed their target to print per class")
    args = parser.parse_args()
    rows: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    by_change: dict[tuple[str, str], list[bool]] = defaultdict(list)
    missed: dict[str, list[tuple[Probe, dict]]] = defaultdict(list)
    outcomes, timing = [], {}
    for dataset in args.datasets:
        records = load(dataset, "tune")
        probes = build(dataset, records, args.per_class, random.Random(f"{args.seed}/{dataset}"))
        with tempfile.TemporaryDirectory() as scratch:
            folder = Path(args.keep) / dataset if args.keep else Path(scratch)
            folder.mkdir(parents=True, exist_ok=True)
            runs, wall, cpu = run(probes, {record.id: record for record in records}, folder)
        timing[dataset] = {"cases": len(probes), "wall_s": wall, "cpu_s": cpu}
        for probe, record_run in zip(probes, runs, strict=True):
            ok = released(probe, record_run)
            for key in (dataset, "all"):
                rows[key][probe.kind].append(ok)
            by_change[(probe.kind, probe.change)].append(ok)
            if ok != (probe.kind != "harmful"):  # a copy or harmless change held, a harmful one released
                missed[probe.kind].append((probe, record_run))
            outcomes.append({**asdict(probe), "released": ok, "terminal": record_run["terminal"],
                             "reason": record_run["reason"]})
    figures = {key: {kind: tally(rows[key][kind]) for kind in CLASSES} for key in [*args.datasets, "all"]}
    passed = all(meets(kind, figures[key][kind]["rate"]) for key in figures for kind in CLASSES
                 if figures[key][kind]["n"])
    print(f"proof probe: tune sources, {args.per_class} answers per class per data set, seed {args.seed}")
    print(f"{'data set':<10} {'class':<9} {'released':>9} {'rate':>7}   95% interval     target")
    for key, kinds in figures.items():
        for kind, f in kinds.items():
            target = f"{'<=' if kind == 'harmful' else '>='} {TARGETS[kind]:.0%}"
            print(f"{key:<10} {kind:<9} {f['released']:>4}/{f['n']:<4} {f['rate']:6.1%}   "
                  f"[{f['lower']:5.1%}, {f['upper']:5.1%}]  {target:<7} {'ok' if meets(kind, f['rate']) else 'MISSED'}")
    print("by change (all data sets)")
    for (kind, change), results in sorted(by_change.items(), key=lambda item: CLASSES.index(item[0][0])):
        print(f"  {kind:<9} {change:<24} {sum(results):>4}/{len(results):<4} {sum(results) / len(results):6.1%}")
    print("time: " + "; ".join(f"{d} {t['cases']} cases {t['wall_s']:.1f} s wall, {t['cpu_s']:.1f} s CPU"
                               for d, t in timing.items()))
    for kind in CLASSES:
        for probe, record_run in missed[kind][: args.show]:
            verb = "released" if kind == "harmful" else "held back"
            print(f"\n{kind} {verb} ({probe.dataset}, {probe.change}): {probe.answer!r}\n  {why(record_run)}")
    if args.json:
        Path(args.json).write_text(json.dumps({"per_class": args.per_class, "seed": args.seed, "figures": figures,
                                               "by_change": {f"{k}/{c}": tally(r) for (k, c), r in by_change.items()},
                                               "timing": timing, "probes": outcomes}, indent=1), encoding="utf-8")
    print("\nPASS" if passed else "\nFAIL: copies below 100%, harmless changes below 90% or harmful ones above 0%")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
