"""Drill: poison and hostile submissions. Each is refused with a 4xx in the API's JSON error shape, naming the
field at fault, within seconds, and stores nothing; a body that is odd but valid (deep, huge numbers within the
limits, unusual text) is accepted and its case finishes like any other: nothing runs for ever.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from drills import cases, state
from drills.deployment import Deployment
from drills.report import Row
from drills.stack import CLAIM_HOLD_SECONDS

NAME = "poison and hostile bodies"
# A refusal that takes longer than this is a request that ran far too long (the API reads the body once).
ANSWER_SECONDS = 10.0


@dataclass(frozen=True)
class Probe:
    what: str
    body: bytes
    status: int
    """The status it must get."""
    field: str
    """The field the error must name (a prefix: a key's path may follow)."""


def _body(**overrides: Any) -> dict[str, Any]:
    return cases.case_body("hostile", **overrides)


def _raw(body: dict[str, Any], **replacements: str) -> bytes:
    """The body as JSON with placeholders replaced by text JSON encoders refuse to write (NaN, deep nesting)."""
    text = json.dumps(body)
    for placeholder, value in replacements.items():
        text = text.replace(json.dumps(placeholder), value)
    return text.encode("utf-8")


def _nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(levels - 1):
        value = {"deeper": value}
    return value


def _source(**fields: str) -> list[dict[str, str]]:
    return [{"id": "refund-policy", "text": cases.REFUND_POLICY, **fields}]


def probes() -> list[Probe]:
    return [
        Probe("metadata nested 300 levels", _raw(_body(metadata=_nested(300))), 400, "body"),
        Probe("JSON nested 5,000 levels", _raw(_body(metadata="@"), **{"@": "[" * 5000 + "]" * 5000}), 400, "body"),
        Probe("an integer of 5,000 digits", _raw(_body(metadata={"n": "@"}), **{"@": "9" * 5000}), 400, "body"),
        Probe("NaN", _raw(_body(metadata={"n": "@"}), **{"@": "NaN"}), 400, "body"),
        Probe("Infinity", _raw(_body(metadata={"n": "@"}), **{"@": "Infinity"}), 400, "body"),
        Probe("-Infinity", _raw(_body(metadata={"n": "@"}), **{"@": "-Infinity"}), 400, "body"),
        Probe("1e999", _raw(_body(metadata={"n": "@"}), **{"@": "1e999"}), 400, "body"),
        Probe("a lone surrogate in the question", _raw(_body(question="@"), **{"@": '"why \\ud800"'}), 400,
              "question"),
        Probe("a lone surrogate in a metadata key", _raw(_body(metadata="@"), **{"@": '{"\\udfff": 1}'}), 400,
              "metadata."),
        Probe("a lone surrogate in a source's text", _raw(_body(sources=_source(text="@")), **{"@": '"\\udc00"'}),
              400, "sources.0.text"),
        Probe("NUL in the answer", _raw(_body(answer="refund\x00policy")), 400, "answer"),
        Probe("a source title of 501 characters", _raw(_body(sources=_source(title="t" * 501))), 400,
              "sources.0.title"),
        Probe("a source uri of 2,001 characters",
              _raw(_body(sources=_source(uri="https://example.com/" + "u" * 1981))), 400, "sources.0.uri"),
        Probe("a body of 2,000,001 bytes", _raw(_body(metadata={"pad": "x" * 2_000_001})), 413, "body"),
        Probe("not JSON", b'{"question": "refund?", "sources": [', 400, "body"),
    ]


def accepted_probes() -> list[tuple[str, bytes]]:
    """Odd but within every limit: accepted, and must finish."""
    return [
        ("metadata nested 31 levels (the limit is 32 with the body)", _raw(_body(metadata=_nested(31)))),
        ("a 100-digit integer and 1e308 in metadata",
         _raw(_body(metadata={"n": "@", "f": "#"}), **{"@": "9" * 100, "#": "1e308"})),
        ("astral and right-to-left text", _raw(_body(question="Refund? \U0001f4a5 \u202eeulav\u202c",
                                                     metadata={"note": "\U00010348" * 100}))),
    ]


def drill(deployment: Deployment, row: Row) -> None:
    db, client = deployment.database, deployment.api()
    count_rows = "SELECT (SELECT count(*) FROM intake_case) + (SELECT count(*) FROM intake_source)"
    slowest = 0.0
    for probe in probes():
        before = state.scalar(db, count_rows)
        answer = client.submit(raw=probe.body)
        stored = state.scalar(db, count_rows) - before
        slowest = max(slowest, answer.seconds)
        row.cases += 1
        row.server_errors += answer.server_error
        fields = answer.fields()
        if (answer.status == probe.status and answer.is_json and any(f.startswith(probe.field) for f in fields)
                and not stored and answer.seconds < ANSWER_SECONDS):
            row.once += 1
            continue
        if stored:
            row.problem(f"{probe.what}: {stored} rows stored for a refused body")
        row.problem(f"{probe.what}: HTTP {answer.status} naming {fields} in {answer.seconds:.1f} s "
                    f"(wanted {probe.status} naming {probe.field!r}): {answer.why()}")
    submitted = []
    for what, body in accepted_probes():
        case = state.Submitted(json.loads(body))
        answer = client.submit(raw=body)
        slowest = max(slowest, answer.seconds)
        case.statuses.append(answer.status)
        row.server_errors += answer.server_error
        if answer.status == 202 and isinstance(answer.body, dict):
            case.case_id = int(answer.body["id"])
        else:
            row.cases += 1
            row.problem(f"{what}: HTTP {answer.status}, wanted 202: {answer.why()}")
        submitted.append(case)
    state.wait_cases_settled(db, [case.external_id for case in submitted if case.accepted],
                             timeout=CLAIM_HOLD_SECONDS + 30)
    state.tally_cases(row, db, submitted)
    row.note(f"{len(probes())} hostile bodies refused naming the field, {len(submitted)} odd but valid ones "
             f"finished; slowest answer {slowest:.2f} s")
