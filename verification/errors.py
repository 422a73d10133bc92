"""The two kinds of failure at the engine boundary, and the permanent one of a case that lacks a field.

Workers retry a `TransientError` with backoff and record a `PermanentError` and stop.
"""

from __future__ import annotations


class VerificationError(Exception):
    """Base class for errors raised by the engine."""


class TransientError(VerificationError):
    """Worth retrying: a model server timed out, a connection dropped, a rate limit was hit."""


class PermanentError(VerificationError):
    """Retrying cannot help: the input or the configuration is wrong."""


class MissingFieldError(PermanentError):
    """The case lacks a field this configuration needs; `field` names it."""

    def __init__(self, field: str, message: str) -> None:
        # Both arguments stay in `args`: pickling (and so Celery reporting the error) rebuilds it from them.
        super().__init__(field, message)
        self.field = field
        self.message = message

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


class UnknownConstitution(MissingFieldError):
    """The case names a constitution that is not known here; `field` is "constitution"."""
