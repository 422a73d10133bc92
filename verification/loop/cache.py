"""Verdicts cached by (claim hash, evidence snapshot hash, verifier version, verifier config).

A repair changes a few claims; the rest are word for word what they were, checked against the same
sources by the same verifier with the same settings, so their verdicts still hold. Any change to one of
the four parts of the key is a miss: new sources, a new verifier version or new settings re-verify all.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from verification.claims.extraction import ExtractedClaim
from verification.decision.verifier import Verdict, Verifier
from verification.errors import PermanentError
from verification.types import Source, sha256_text


class VerificationCache:
    """Verdicts keyed by (claim hash, evidence snapshot hash, verifier version, verifier config)."""

    def __init__(self, verifier: Verifier, sources: Sequence[Source]) -> None:
        self._verifier = verifier
        self._sources = list(sources)
        self.snapshot = sha256_text(json.dumps([[s.id, s.text] for s in sources]))
        """Hash of the evidence every verdict here was reached on."""
        self._config = verifier.config_fingerprint()
        self._verdicts: dict[tuple[str, str, str, str], Verdict] = {}

    def key(self, claim: ExtractedClaim) -> tuple[str, str, str, str]:
        """The cache key of a claim's verdict: its text and the context it is read with."""
        read = f"{claim.context}\n{claim.statement}" if claim.context else claim.statement
        return sha256_text(read), self.snapshot, self._verifier.name, self._config

    def verify(
        self, claims: Sequence[ExtractedClaim], *, use_cache: bool = True
    ) -> tuple[list[Verdict], list[Verdict]]:
        """One verdict per claim, and the fresh ones among them: only cache misses reach the verifier."""
        misses = [c for c in claims if not use_cache or self.key(c) not in self._verdicts]
        fresh = self._verifier.verify(misses, self._sources) if misses else []
        if len(fresh) != len(misses):
            raise PermanentError(f"verifier {self._verifier.name} gave {len(fresh)} verdicts for {len(misses)} claims")
        by_claim = {id(claim): verdict for claim, verdict in zip(misses, fresh, strict=True)}
        for claim, verdict in zip(misses, fresh, strict=True):
            self._verdicts[self.key(claim)] = verdict
        verdicts = [by_claim.get(id(claim)) or self._verdicts[self.key(claim)] for claim in claims]
        return verdicts, fresh
