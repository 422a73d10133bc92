from __future__ import annotations

import pytest

from verification.claims.extraction import extract_claims
from verification.claims.sentences import split_sentences
from verification.claims.tokens import content_stems, stem, words


def _sentences(text: str) -> list[str]:
    return [text[start:end] for start, end in split_sentences(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "c." is circa, not the end of a sentence.
        ("The panel dates from c. 1491–1510. It hangs in Bruges.",
         ["The panel dates from c. 1491–1510.", "It hangs in Bruges."]),
        # A case name's "v." is versus, as "vs." is.
        ("Maddox and Howard v. Moore concerned a monument. It stood in Montgomery.",
         ["Maddox and Howard v. Moore concerned a monument.", "It stood in Montgomery."]),
        # A title ending in "!" inside quotes does not end the sentence around it.
        ('They recorded it for the "Kerrang!" release "Remastered". Sales were modest.',
         ['They recorded it for the "Kerrang!" release "Remastered".', "Sales were modest."]),
        ('He shouted "Stop!" Then he left.', ['He shouted "Stop!"', "Then he left."]),
        # Paragraphs pasted together lose the space after a period; the next sentence still starts there.
        ("It is 6 mi west of downtown Boston.Stanford University is in California.",
         ["It is 6 mi west of downtown Boston.", "Stanford University is in California."]),
        # A period inside a name, an abbreviation or a number is not such a join.
        ("Install Node.js first. The U.S.Army base and e.g.Paris stay whole. It costs 3.50 a day.",
         ["Install Node.js first.", "The U.S.Army base and e.g.Paris stay whole.", "It costs 3.50 a day."]),
    ],
)
def test_sentence_ends(text, expected):
    assert _sentences(text) == expected


def test_a_claim_with_circa_stays_one_claim():
    claims = extract_claims("The panel in Bruges is of exceptional quality, but dates from c. 1491–1510.")
    assert [claim.text for claim in claims] == [
        "The panel in Bruges is of exceptional quality, but dates from c. 1491–1510."
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("the 2018–19 academic year", ["2018", "2019", "academic", "year"]),
        ("the 1999-00 season", ["1999", "2000", "season"]),
        # A month and a year-month date are not ranges.
        ("filed 2016-08 and 2016-08-25", ["fil", "2016", "08", "2016", "08", "25"]),
        ("activists in the U.K. and the UK", ["activist", "uk", "uk"]),
        ("on April 9th", ["april", "9"]),
    ],
)
def test_content_stems_normalise_what_sources_write_differently(text, expected):
    assert content_stems(text) == expected


def test_month_abbreviations_share_the_months_stem():
    assert stem("nov") == stem("november") and stem("sept") == stem("september")


def test_word_offsets_point_at_what_is_written():
    text = "From 2018–19 the U.S. office opened."
    assert [(word, text[start:end]) for word, start, end in words(text)] == [
        ("from", "From"), ("2018", "2018"), ("2019", "19"), ("the", "the"), ("us", "U.S."),
        ("office", "office"), ("opened", "opened"),
    ]


@pytest.mark.parametrize(("text", "expected"), [
    ("The magazine was founded in 1987.Hot Rod is a car magazine.",
     ["The magazine was founded in 1987.", "Hot Rod is a car magazine."]),
    ('It was a sister publication to the "Fortean Times".British is a monthly.',
     ['It was a sister publication to the "Fortean Times".', "British is a monthly."]),
    # A decimal, an initialism and a number after a year run on.
    ("Version 2.5 is out.", ["Version 2.5 is out."]),
    ("The U.S.Army is large.", ["The U.S.Army is large."]),
    ("He won in 2010.5 people came.", ["He won in 2010.5 people came."]),
])
def test_a_sentence_run_into_the_next_ends_after_a_year_or_a_closing_quote(text, expected):
    assert [text[start:end] for start, end in split_sentences(text)] == expected
