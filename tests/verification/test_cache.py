"""The verification cache: a verdict is reused only when claim, evidence, verifier and settings all match."""

from __future__ import annotations

from tests.verification.verifiers import KeywordVerifier
from verification.claims.extraction import extract_claims
from verification.loop.cache import VerificationCache
from verification.types import Source, State

SOURCES = [Source(id="s", text="Acme is based in Oslo.")]


def test_a_second_verification_of_the_same_claim_is_a_hit() -> None:
    verifier = KeywordVerifier({})
    cache = VerificationCache(verifier, SOURCES)
    claims = extract_claims("Acme is based in Oslo. Acme has 40 staff.")

    first, fresh_first = cache.verify(claims)
    again, fresh_again = cache.verify(claims[:1])

    assert len(fresh_first) == 2 and fresh_again == [] and again[0] == first[0]
    assert verifier.seen == [claim.text for claim in claims]
    assert cache.verify(claims[:1], use_cache=False)[1] != []


def test_every_part_of_the_key_matters() -> None:
    [claim] = extract_claims("Acme is based in Oslo.")
    base = VerificationCache(KeywordVerifier({}), SOURCES)
    other_sources = VerificationCache(KeywordVerifier({}), [Source(id="s", text="Acme is based in Bergen.")])
    other_config = VerificationCache(KeywordVerifier({"Oslo": State.REFUTED}), SOURCES)
    other_version = VerificationCache(KeywordVerifier({}, name="keyword/2"), SOURCES)

    keys = {cache.key(claim) for cache in (base, other_sources, other_config, other_version)}
    [other_claim] = extract_claims("Acme is based in Bergen.")

    assert len(keys) == 4
    assert base.key(claim) != base.key(other_claim)


def test_a_bare_answer_read_with_another_question_is_a_miss() -> None:
    cache = VerificationCache(KeywordVerifier({}), SOURCES)
    [for_city] = extract_claims("Oslo", "Where is Acme based?")
    [for_founding] = extract_claims("Oslo", "Where was Acme founded?")

    assert cache.key(for_city) != cache.key(for_founding)
