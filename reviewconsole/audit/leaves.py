"""An event as a leaf of the log: the canonical bytes of its content and their RFC 6962 leaf hash.

The writer computes the leaf hash when it appends; the sealer puts it in the tree; `audit_verify`
recomputes it from the stored row. The canonical form sorts keys and writes times as UTC with
microseconds, so a row read back from the database hashes as it did before it was written.

The position (`seq`) is not part of a leaf: the writer does not know it, and the tree binds a leaf to
its position anyway (moving a leaf changes every root above it).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from reviewconsole.audit.merkle import hash_leaf

LEAF_FIELDS = ("created_at", "actor", "action", "object_type", "object_id", "case_id", "payload")


def canonical_time(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def normalise_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload as it will read back from a JSON column: dates, UUIDs and tuples become JSON values."""
    return json.loads(json.dumps(payload, default=str, allow_nan=False), parse_float=_float_as_stored)


def _float_as_stored(text: str) -> float | int:
    # PostgreSQL's jsonb keeps numbers as decimals: 1e+20 reads back as 100000000000000000000, an int,
    # whose canonical JSON (and hash) differs from the float's. Python writes floats from 1e16 up with an
    # exponent, so exactly those become ints here; smaller ones read back as the same float.
    value = float(text)
    return int(value) if abs(value) >= 1e16 else value


def leaf_entry(
    *,
    created_at: datetime | str,
    actor: str,
    action: str,
    object_type: str,
    object_id: str,
    case_id: int | None,
    payload: dict[str, Any],
) -> bytes:
    """The bytes a leaf hashes: the event's content as canonical JSON."""
    document = {
        "created_at": created_at if isinstance(created_at, str) else canonical_time(created_at),
        "actor": actor,
        "action": action,
        "object_type": object_type,
        "object_id": object_id,
        "case_id": case_id,
        "payload": payload,
    }
    return canonical_json(document).encode("utf-8")


def leaf_hash(**content: Any) -> str:
    """The event's leaf hash, hex: SHA-256(0x00 || its canonical JSON). Takes the `LEAF_FIELDS`."""
    return hash_leaf(leaf_entry(**content)).hex()
