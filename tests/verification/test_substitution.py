from __future__ import annotations

from verification.checks.substitution import swapped_name


def test_another_name_in_the_same_words_is_a_swap():
    claim = "Shares of Contoso rose after John Smith announced the deal."
    source = "Shares of Contoso rose after Maria Alvarez announced the deal."
    assert swapped_name(claim, source) == ("John Smith", "Maria Alvarez")


def test_a_swapped_number_inside_a_name_is_found():
    claim = "The Tier 2 ratio rose."
    source = "The Tier 1 ratio rose."
    assert swapped_name(claim, source) == ("Tier 2", "Tier 1")


def test_the_same_name_or_the_same_number_written_differently_is_not_a_swap():
    assert swapped_name("It ran after Maria Alvarez spoke.", "It ran after Maria Alvarez spoke.") is None
    assert swapped_name("Change takes place during the 2018–19 academic year.",
                        "Change will take place over the coming 2018-2019 academic year.") is None


def test_names_between_function_words_only_are_not_compared():
    # "of X in" aligns by chance far too often to say anything.
    assert swapped_name("A statue of Lincoln in the park.", "A statue of Washington in the park.") is None
