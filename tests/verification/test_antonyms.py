from __future__ import annotations

from verification.claims.antonyms import OPPOSITES, flipped_word
from verification.claims.tokens import stem


def test_opposites_are_symmetric_and_compared_on_stems():
    assert stem("decreased") in OPPOSITES[stem("increase")]
    assert stem("increase") in OPPOSITES[stem("decreased")]


def test_a_flipped_word_in_the_same_context_is_found_with_its_surface_forms():
    assert flipped_word("The board rejected the merger.", "The board approved the merger.") == ("rejected", "approved")
    assert flipped_word("Profit was down 70 basis points.", "Profit was up 70 basis points.") == ("down", "up")


def test_an_opposite_about_something_else_does_not_count():
    claim = "The board approved the merger on Monday."
    source = "Analysts rejected the idea that rates matter; the board voted on the merger on Monday."
    assert flipped_word(claim, source) is None


def test_no_flip_when_the_source_says_both_or_the_same():
    assert flipped_word("Sales rose in May.", "Sales rose in May.") is None
    assert flipped_word("Sales rose in May.", "Sales rose in May after they fell in April.") is None


def test_required_and_optional_and_opposite_superlatives_are_flips():
    assert flipped_word("Two-factor login is required for Starter accounts.",
                        "Two-factor login is optional for Starter accounts.") is not None
    assert flipped_word("The X200 is the heaviest laptop in our range.",
                        "The X200 is the lightest laptop in our range.") is not None


def test_comparatives_of_words_ending_in_y_keep_their_opposites():
    # "heavier" is "heavy" + "-er": the stemmer gives it back its "y", so "lighter" is its opposite.
    assert flipped_word("The new model is 20% heavier than the old one.",
                        "The new model is 20% lighter than the old one.") is not None
