"""How a policy document gets versions: canonical content, its sha256, and the one version in force."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from verification.types import sha256_text


def canonical_content(document: BaseModel) -> dict[str, Any]:
    """The JSON a version stores: every field spelled out, so equal documents store equal JSON."""
    return document.model_dump(mode="json")


def content_sha256(content: dict[str, Any]) -> str:
    """The sha256 of sorted-key JSON: the engine computes a constitution's version the same way, so the
    first 12 digits of a constitution version's hash are the version a run record pins."""
    return sha256_text(json.dumps(content, sort_keys=True))
