"""The claim view and claim extraction: an answer split into claims, each read once into a `ClaimView`
(words, stems, values with units, names, relations, negation, qualifiers) that every later stage reads."""
