"""The two kinds of failure at the engine boundary.

Workers retry a `TransientError` with backoff and record a `PermanentError` and stop.
"""

from __future__ import annotations


class VerificationError(Exception):
    """Base class for errors raised by the engine."""


class TransientError(VerificationError):
    """Worth retrying: a model server timed out, a connection dropped, a rate limit was hit."""


class PermanentError(VerificationError):
    """Retrying cannot help: the input or the configuration is wrong."""
