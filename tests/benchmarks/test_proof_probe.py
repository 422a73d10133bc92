"""The proof probe's answers (`benchmarks/proof_probe.py`) on a hand-made source: a copy is the source's
words, a harmless change keeps them, a harmful one says something else. The engine is not run."""

from __future__ import annotations

import random
from collections import Counter

from benchmarks import proof_probe as probe
from verification.training.evaluation import Record
from verification.types import Source

SOURCE = (
    "# Company history\n"
    "Acme Corporation was founded in Boston by Jane Porter.\n"
    "In 2010, Acme opened 5 new stores across New England.\n"
    "The company does not sell its products online. Sales grew by 12 percent on March 3, 2015.\n"
    "Read more\n"
    "Jane Porter hired Tom Keller as chief engineer in 2012.\n"
)


def rng() -> random.Random:
    return random.Random(7)


def test_copies_are_the_sources_sentences_word_for_word_less_headings_and_fragments() -> None:
    copied = probe.copies(SOURCE)

    singles = [c[0] for c in copied if len(c) == 1]
    assert singles == [
        "Acme Corporation was founded in Boston by Jane Porter.",
        "In 2010, Acme opened 5 new stores across New England.",
        "The company does not sell its products online.",
        "Sales grew by 12 percent on March 3, 2015.",
        "Jane Porter hired Tom Keller as chief engineer in 2012.",
    ]
    assert all(sentence in SOURCE for sentence in singles)
    # Two adjacent sentences; "Read more" sits between the fourth and the fifth.
    assert ("The company does not sell its products online.", "Sales grew by 12 percent on March 3, 2015.") in copied
    assert not any(c[0].startswith("Sales") and len(c) == 2 for c in copied)


def test_harmless_changes_keep_the_meaning() -> None:
    assert probe.spell_out_number("In 2010, Acme opened 5 new stores.", SOURCE, rng()) == \
        "In 2010, Acme opened five new stores."
    # A year, a date, a percentage and a number of a name stay digits.
    assert probe.spell_out_number("Sales grew by 12 percent on March 3, 2015.", SOURCE, rng()) is None
    assert probe.spell_out_number("The crew of Apollo 11 landed.", SOURCE, rng()) is None
    assert probe.move_opening_phrase("In 2010, the firm opened five new stores.", SOURCE, rng()) == \
        "The firm opened five new stores in 2010."
    assert probe.move_opening_phrase("In 2010, the firm opened stores that failed.", SOURCE, rng()) is None
    assert probe.swap_contraction("The company does not sell its products online.", SOURCE, rng()) == \
        "The company doesn't sell its products online."
    assert probe.swap_contraction("It wasn't sold.", SOURCE, rng()) == "It was not sold."
    assert probe.reorder_date("Sales grew on March 3, 2015.", SOURCE, rng()) == "Sales grew on 3 March 2015."
    assert probe.swap_percent("Sales grew by 12 percent.", SOURCE, rng()) == "Sales grew by 12%."
    assert probe.lowercase_first_word("The company grew.", SOURCE, rng()) == "the company grew."
    assert probe.lowercase_first_word("Acme grew.", SOURCE, rng()) is None


def test_harmful_changes_make_the_answer_false() -> None:
    assert probe.flip_negation("Acme Corporation was founded in Boston.", SOURCE, rng()) == \
        "Acme Corporation was not founded in Boston."
    assert probe.flip_negation("The company does not sell its products online.", SOURCE, rng()) == \
        "The company does sell its products online."
    assert probe.flip_negation("Acme can ship in a day.", SOURCE, rng()) == "Acme cannot ship in a day."
    assert probe.swap_arguments("Jane Porter hired Tom Keller as chief engineer.", SOURCE, rng()) == \
        "Tom Keller hired Jane Porter as chief engineer."
    assert probe.swap_arguments("Jane Porter met Tom Keller in Boston.", SOURCE, rng()) is None  # symmetric

    value = probe.change_value("Acme opened 5 new stores.", SOURCE, rng())
    assert value in {"Acme opened 6 new stores.", "Acme opened 10 new stores."}
    year = probe.change_value("Acme was founded in 2010.", SOURCE, rng())
    assert year != "Acme was founded in 2010." and year.startswith("Acme was founded in 20")

    sentence = "Acme Corporation was founded in Boston by Jane Porter."
    swapped = probe.swap_name(sentence, SOURCE, rng())
    before = {name for *_, name in probe.names(sentence)}
    after = {name for *_, name in probe.names(swapped)}
    # One name gone, one other name of the same source (sharing no word with it) in its place.
    assert len(before - after) == 1
    assert len(after - before) == 1 and after - before <= {"New England", "Tom Keller", "Company"}


def test_names_leave_out_openers_months_and_initials() -> None:
    found = [name for *_, name in probe.names("In March, The Acme Corporation moved to the U.S. with Jane Porter.")]

    assert found == ["Acme Corporation", "Jane Porter"]


def test_build_fills_each_class_from_copies_of_the_records_sources() -> None:
    per_class = 4
    record = Record(id="r1", sources=[Source(id="s1", text=SOURCE)], answer="-", supported=True)

    probes = probe.build("hand", [record], per_class, rng())

    kinds = Counter(p.kind for p in probes)
    assert kinds == {"copy": per_class, "harmless": per_class, "harmful": per_class}
    assert all(p.answer in SOURCE.replace("\n", " ") for p in probes if p.kind == "copy")
    assert all(p.answer not in SOURCE.replace("\n", " ") for p in probes if p.kind != "copy")
    # Each harmful change applies to this source, so each takes its share.
    assert {p.change for p in probes if p.kind == "harmful"} == set(probe.HARMFUL)


def test_targets_and_bounds() -> None:
    assert probe.meets("copy", 1.0) and not probe.meets("copy", 0.95)
    assert probe.meets("harmless", 0.9) and not probe.meets("harmless", 0.89)
    assert probe.meets("harmful", 0.0) and not probe.meets("harmful", 0.01)
    lower, upper = probe.interval(20, 20)
    assert upper == 1.0 and 0.82 < lower < 0.84  # 0.025 ** (1 / 20)
    lower, upper = probe.interval(0, 20)
    assert lower == 0.0 and 0.16 < upper < 0.17
