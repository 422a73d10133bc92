"""Export formats: audit events as CSV or JSON lines, reviewer decisions as regression fixtures.

Everything here is a generator over bounded chunks of rows, so a download of any size and the file a
task writes both use the same constant memory.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from reviewconsole.audit.leaves import canonical_json, canonical_time
from reviewconsole.audit.models import AuditExport, ExportFormat
from reviewconsole.audit.rows import event_rows
from reviewconsole.intake.models import Claim
from reviewconsole.intake.services import case_contract
from reviewconsole.review.labels import UNSAFE_LABELS
from reviewconsole.review.models import Decision, DecisionKind, ErrorTag
from reviewconsole.support.selectors import AuditFilter, decisions_for_fixtures, events_matching
from verification import Origin

# Columns in the order a person reads them. With payload (JSON) and created_at (canonical UTC text) each
# row's leaf hash can be recomputed from the export alone.
CSV_COLUMNS = ("seq", "created_at", "actor", "action", "object_type", "object_id", "case_id", "payload",
               "leaf_hash", "id")
# Lines are sent in batches: one write per row would make the response framing cost more than the rows.
_LINES_PER_CHUNK = 1000
_FIXTURE_CHUNK = 200


def _json_line(row: tuple) -> str:
    """One event as a JSON object with sorted keys; the payload is embedded as the database wrote it."""
    event_id, seq, leaf_hash, created_at, actor, action, object_type, object_id, case_id, payload = row
    return (
        f'{{"action":{_string(action)},"actor":{_string(actor)},"case_id":{_number(case_id)},'
        f'"created_at":"{created_at}","id":{event_id},"leaf_hash":"{leaf_hash}","object_id":{_string(object_id)},'
        f'"object_type":{_string(object_type)},"payload":{payload},"seq":{seq}}}'
    )


_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f]')


def _string(value: str) -> str:
    # Names and ids rarely need escaping; skipping json.dumps for them is a third of a JSONL export's time.
    return json.dumps(value, ensure_ascii=False) if _NEEDS_ESCAPE.search(value) else f'"{value}"'


def _number(value: int | None) -> str:
    return "null" if value is None else str(int(value))


_NEEDS_QUOTES = re.compile(r'[",\r\n]')


def _csv_field(value: str) -> str:
    """RFC 4180 quoting, only where needed (written by hand: the csv module was most of an export's time)."""
    return '"' + value.replace('"', '""') + '"' if _NEEDS_QUOTES.search(value) else value


def _csv_line(row: tuple) -> str:
    event_id, seq, leaf_hash, created_at, actor, action, object_type, object_id, case_id, payload = row
    # Only the free-text columns can hold a comma, quote or newline; a JSON payload always holds quotes.
    quoted_payload = '"' + payload.replace('"', '""') + '"'
    return (
        f"{seq},{created_at},{_csv_field(actor)},{_csv_field(action)},{_csv_field(object_type)},"
        f"{_csv_field(object_id)},{'' if case_id is None else case_id},{quoted_payload},{leaf_hash},{event_id}"
    )


# Each generator yields (text, rows in it), so a task can count progress without parsing its output.
Chunk = tuple[str, int]


def _lines_in_chunks(lines: Iterator[str], header: str | None = None) -> Iterator[Chunk]:
    batch: list[str] = [header] if header else []
    rows = 0
    for line in lines:
        batch.append(line)
        rows += 1
        if rows == _LINES_PER_CHUNK:
            yield "\n".join(batch) + "\n", rows
            batch.clear()
            rows = 0
    if batch:
        yield "\n".join(batch) + "\n", rows


def decision_fixture(decision: Decision) -> dict[str, Any]:
    """A reviewer's decision as a regression test for the engine: the case in its contract shape, the
    answer the reviewer released (their correction, if they edited it) or rejected, and its claims with the
    engine's state beside the human label where a reviewer gave one.

    The claims' labels come prefetched (`_fixture_chunks`); `label` is the deciding reviewer's, else the
    latest another reviewer gave, and `labels` lists them all. `error_tags` (on each claim, and on the
    answer as a whole) are the kinds of error reviewers tagged, from the constitution's taxonomy.

    An approval that went past failing claims or past a label saying a claim is wrong is `overridden`, with
    those claims in `overridden_claims`: a person chose to release it anyway, so it is no clean example of
    an answer that should pass.
    """
    candidate = decision.candidate
    approved = decision.kind == DecisionKind.APPROVE
    claims = [_fixture_claim(claim, decision.reviewer_id) for claim in candidate.claims.all()]
    labelled_unsafe = [claim["id"] for claim in claims if claim["label"] in UNSAFE_LABELS] if approved else []
    answer_tags = [_tag(tag) for tag in candidate.error_tags.all() if tag.claim_id is None]
    return {
        "case": case_contract(decision.case).model_dump(mode="json"),
        "expected": {
            "terminal": "PERMIT" if approved else "REJECT",
            "answer": candidate.text if approved else None,
            "rejected_answer": None if approved else candidate.text,
            # Stored origins are the engine's enum values ("REVIEWER"), as intake writes them.
            "corrected": approved and candidate.origin == Origin.REVIEWER.value,
            "overridden": approved and bool(decision.override_reason or labelled_unsafe),
            "overridden_claims": labelled_unsafe,
            "claims": claims,
            "error_tags": answer_tags,
        },
        "provenance": {
            "case_id": decision.case_id,
            "decision_id": decision.pk,
            "candidate": candidate.candidate_id,
            "reviewer": decision.reviewer.get_username(),
            "decided_at": canonical_time(decision.created_at),
            "reason_code": decision.reason_code,
            "override_reason": decision.override_reason,
        },
    }


def _fixture_claim(claim: Claim, decider_id: int) -> dict[str, Any]:
    labels = list(claim.labels.all())
    chosen = next((label for label in labels if label.reviewer_id == decider_id), None)
    if chosen is None and labels:
        chosen = max(labels, key=lambda label: label.updated_at)
    return {
        "id": claim.claim_id, "text": claim.text, "start": claim.start, "end": claim.end, "state": claim.state,
        "label": chosen.label if chosen is not None else None,
        "labels": [
            {"label": label.label, "reviewer": label.reviewer.get_username(), "blind": label.blind,
             "labelled_at": canonical_time(label.updated_at)}
            for label in labels
        ],
        "error_tags": [_tag(tag) for tag in claim.error_tags.all()],
    }


def _tag(tag: ErrorTag) -> dict[str, Any]:
    """A reviewer's error tag: the kind's code and label (as the constitution's taxonomy named it) and who."""
    return {"kind": tag.kind, "label": tag.kind_label, "reviewer": tag.reviewer.get_username()}


def _fixture_chunks(audit_filter: AuditFilter) -> Iterator[Chunk]:
    decisions = decisions_for_fixtures(audit_filter).prefetch_related(
        "case__sources", "candidate__claims__labels__reviewer", "candidate__claims__error_tags__reviewer",
        "candidate__error_tags__reviewer",
    )
    for decision in decisions.iterator(chunk_size=_FIXTURE_CHUNK):
        yield canonical_json(decision_fixture(decision)) + "\n", 1


def export_chunks(export_format: str, audit_filter: AuditFilter, tree_size: int) -> Iterator[Chunk]:
    """The export's text in chunks; events stop at `tree_size`, the signed tree head the export recorded."""
    if export_format == ExportFormat.FIXTURES:
        return _fixture_chunks(audit_filter)
    rows = event_rows(events_matching(audit_filter).filter(seq__lte=tree_size))
    if export_format == ExportFormat.CSV:
        return _lines_in_chunks(map(_csv_line, rows), header=",".join(CSV_COLUMNS))
    return _lines_in_chunks(map(_json_line, rows))


def export_text(chunks: Iterator[Chunk]) -> Iterator[str]:
    return (text for text, _ in chunks)


_SUFFIX = {ExportFormat.CSV: "csv", ExportFormat.JSONL: "jsonl", ExportFormat.FIXTURES: "fixtures.jsonl"}


def export_file_name(export: AuditExport) -> str:
    return f"audit-export-{export.pk}.{_SUFFIX[ExportFormat(export.format)]}"


def write_export(chunks: Iterator[Chunk], path: Path, *, progress: Callable[[int], None]) -> int:
    """Write the chunks to `path`, readable by its owner alone, calling `progress(rows so far)` after each;
    returns the rows written."""
    rows = 0
    # 0600 from its creation (whatever the umask): the audit trail is the support lead's to download, not every
    # account's on the host to read.
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(descriptor, 0o600)
    with open(descriptor, "w", encoding="utf-8", newline="") as file:
        for text, count in chunks:
            file.write(text)
            rows += count
            progress(rows)
    return rows
