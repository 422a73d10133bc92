"""The hash chain: how an event's hash is computed and how the chain is checked.

hash = sha256(canonical JSON of the event's fields, including prev_hash). The canonical form sorts keys
and writes times as UTC with microseconds, so the hash of a row read back from the database equals the
hash computed before it was written.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

GENESIS_HASH = "0" * 64
HASHED_FIELDS = ("seq", "created_at", "actor", "action", "object_type", "object_id", "case_id", "payload")


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


def event_hash(
    *,
    seq: int,
    created_at: datetime | str,
    actor: str,
    action: str,
    object_type: str,
    object_id: str,
    case_id: int | None,
    payload: dict[str, Any],
    prev_hash: str,
) -> str:
    document = {
        "seq": seq,
        "created_at": created_at if isinstance(created_at, str) else canonical_time(created_at),
        "actor": actor,
        "action": action,
        "object_type": object_type,
        "object_id": object_id,
        "case_id": case_id,
        "payload": payload,
        "prev_hash": prev_hash,
    }
    return hashlib.sha256(canonical_json(document).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class BrokenLink:
    """The first event whose stored hash or link does not match what the chain says it must be."""

    event_id: int
    seq: int
    problem: str
    expected: str
    stored: str


def first_broken_link(rows: Iterable[tuple]) -> tuple[int, BrokenLink | None]:
    """Walk rows (id, prev_hash, hash, *HASHED_FIELDS) in seq order; count them and find the first break.

    Rows are as `rows.event_rows` yields them: created_at as canonical text, payload as JSON text.

    Keeps only the previous hash, so memory stays constant whatever the chain's length.
    """
    expected_prev, expected_seq, count = GENESIS_HASH, 1, 0
    for row in rows:
        event_id, prev_hash, stored_hash, *values = row
        fields = dict(zip(HASHED_FIELDS, values, strict=True))
        fields["payload"] = json.loads(fields["payload"])
        count += 1
        if fields["seq"] != expected_seq:
            return count, BrokenLink(event_id, fields["seq"], "sequence gap", str(expected_seq), str(fields["seq"]))
        if prev_hash != expected_prev:
            return count, BrokenLink(event_id, fields["seq"], "prev_hash", expected_prev, prev_hash)
        computed = event_hash(**fields, prev_hash=prev_hash)
        if computed != stored_hash:
            return count, BrokenLink(event_id, fields["seq"], "hash", computed, stored_hash)
        expected_prev, expected_seq = stored_hash, expected_seq + 1
    return count, None
