"""`python -m verification`, run as a user would: in a subprocess, reading files and stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import verification
from tests.verification.conftest import LARKSPUR_CLAIMS
from tests.verification.fake_openai import MODEL_NAME, FakeOpenAIServer, Reply
from tests.verification.replies import cove_reply, role_of
from verification import cli
from verification.types import Reason, RunRecord, State, Terminal

ROOT = Path(__file__).resolve().parents[2]


def _case(**changes: Any) -> dict[str, Any]:
    case = {
        "external_id": "cli-1",
        "question": "How long is data kept after cancelling?",
        "answer": "Your data is kept for 30 days after cancelling.",
        "sources": [{"id": "retention", "text": "After cancellation, account data is kept for 30 days."}],
    }
    return {**case, **changes}


def _run(*args: str, stdin: str = "", llm: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    # LLM_* settings only where a test gives them (a fake server on 127.0.0.1): otherwise the CLI
    # must take the offline path and never reach for a network.
    env = {key: value for key, value in os.environ.items() if not key.startswith("LLM_")}
    env.update(llm or {})
    return subprocess.run(
        [sys.executable, "-m", "verification", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        check=False,
    )


def _write(path: Path, data: Any) -> str:
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def test_check_prints_the_run_record_as_json(tmp_path: Path) -> None:
    result = _run("check", _write(tmp_path / "case.json", _case()))

    assert result.returncode == 0, result.stderr
    record = RunRecord.model_validate_json(result.stdout)
    assert record.external_id == "cli-1" and record.verifier.startswith("offline/")
    [claim] = record.candidates[0].claims
    assert claim.text == "Your data is kept for 30 days after cancelling."
    # A paraphrase of a one-sentence source: supported, and scored at or above the threshold of its
    # stratum (what its evidence is), which the run record names beside the threshold it applied.
    assert claim.state is State.SUPPORTED and claim.release_score >= record.release_threshold
    assert record.release_stratum == claim.stratum and record.release_stratum is not None
    assert (record.terminal, record.reason) == (Terminal.PERMIT, Reason.ALL_SUPPORTED)


def test_check_reads_stdin_and_writes_to_a_file(tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    result = _run("check", "-", "--output", str(out), stdin=json.dumps(_case()))

    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert RunRecord.model_validate_json(out.read_text()).external_id == "cli-1"


def test_table_format_shows_the_whole_chain(tmp_path: Path) -> None:
    case = _case(
        answer="Hello! " + " ".join(LARKSPUR_CLAIMS),
        sources=[
            {"id": "retention", "text": "After cancellation, account data is kept for 30 days."},
            {"id": "timing", "text": "Refunds reach the card in 5 to 10 business days."},
        ],
    )
    result = _run("check", _write(tmp_path / "case.json", case), "--format", "table")
    record = RunRecord.model_validate_json(_run("check", _write(tmp_path / "same.json", case)).stdout)

    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{record.terminal.value} ({record.reason.value})")
    assert "constitution default@" in lines[0]
    headers = [line for line in lines if line.startswith("candidate ")]
    assert [line.split()[1] for line in headers] == [candidate.id for candidate in record.candidates]
    assert lines.count("  id  " + lines[lines.index(headers[0]) + 2][6:]) >= 1
    first = lines.index(headers[0])
    assert lines[first + 2].split() == ["id", "state", "severity", "claim", "best", "evidence"]
    rows = {line.split()[0]: line for line in lines[first + 3 : first + 6]}
    assert set(rows) == {"k1", "k2", "k3"}
    assert "Your data is kept for 90 days" in rows["k3"] and "[retention]" in rows["k3"]
    assert "CRITICAL" in rows["k3"]
    repairs = [line for line in lines if line.startswith("repair ")]
    assert len(repairs) == len(record.repairs)
    for line, repair in zip(repairs, record.repairs, strict=True):
        assert repair.operation in line and repair.outcome in line
    assert any(line.startswith(f"terminal: {record.terminal.value} {record.reason.value}") for line in lines)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "error: invalid JSON: Expecting property name enclosed in double quotes at line 1 column 2"),
        (json.dumps([_case()]), "error: a case must be a JSON object, got list"),
        (json.dumps({k: v for k, v in _case().items() if k != "question"}), "error: question: Field required"),
        (json.dumps(_case(sources=[{"id": "s", "text": "  "}])), "error: sources.0.text: must not be blank"),
        (json.dumps(_case(sources="none")), "error: sources: Input should be a valid list"),
        (json.dumps(_case(sources=[])), "error: sources: List should have at least 1 item after validation, not 0"),
        (json.dumps(_case(answer=None)), "error: answer: required when no model is configured to draft one"),
        (
            json.dumps(_case(sources=[{"id": "a", "text": "x"}, {"id": "a", "text": "y"}])),
            "error: sources: duplicate id 'a'",
        ),
    ],
)
def test_invalid_input_exits_2_with_one_line_naming_the_field(tmp_path: Path, content: str, message: str) -> None:
    result = _run("check", _write(tmp_path / "case.json", content))

    assert result.returncode == 2
    assert result.stderr.splitlines() == [message]
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_an_unreadable_file_exits_2(tmp_path: Path) -> None:
    result = _run("check", str(tmp_path / "missing.json"))
    assert result.returncode == 2
    assert result.stderr.strip() == f"error: cannot read {tmp_path / 'missing.json'}: No such file or directory"


def test_jsonl_writes_one_run_record_per_case_in_order(tmp_path: Path) -> None:
    lines = [json.dumps(_case(external_id=f"case-{n}")) for n in range(3)]
    source = _write(tmp_path / "cases.jsonl", "\n".join([lines[0], "", *lines[1:]]) + "\n")
    out = tmp_path / "runs.jsonl"

    result = _run("check", "--jsonl", source, "--output", str(out))

    assert result.returncode == 0, result.stderr
    records = [RunRecord.model_validate_json(line) for line in out.read_text().splitlines()]
    assert [record.external_id for record in records] == ["case-0", "case-1", "case-2"]
    assert "3/3" in result.stderr, "a progress bar is drawn on stderr"


def test_a_bad_jsonl_line_is_reported_by_number_before_any_case_is_checked(tmp_path: Path) -> None:
    bad = json.dumps(_case(question=""))
    source = _write(tmp_path / "cases.jsonl", "\n".join([json.dumps(_case()), bad]))
    out = tmp_path / "runs.jsonl"

    result = _run("check", "--jsonl", source, "--output", str(out))

    assert result.returncode == 2
    assert result.stderr.splitlines() == ["error: line 2: question: String should have at least 1 character"]
    assert not out.exists()


def test_a_jsonl_line_that_is_not_json_is_reported_by_line_and_column(tmp_path: Path) -> None:
    source = _write(tmp_path / "cases.jsonl", json.dumps(_case()) + "\n" + '{"question": }' + "\n")

    result = _run("check", "--jsonl", source)

    assert result.returncode == 2
    assert result.stderr.splitlines() == ["error: line 2: invalid JSON: Expecting value at column 14"]
    assert result.stdout == ""


def test_check_needs_exactly_one_input(tmp_path: Path) -> None:
    both = _run("check", "-", "--jsonl", _write(tmp_path / "c.jsonl", json.dumps(_case())))
    assert both.returncode == 2 and both.stderr.startswith("error: check: give one CASE")


@pytest.mark.parametrize(("which", "fields"), [("case", {"question", "sources"}), ("run", {"terminal", "reason"})])
def test_schema_prints_a_json_schema_of_the_contract(which: str, fields: set[str]) -> None:
    result = _run("schema", which)

    assert result.returncode == 0, result.stderr
    schema = json.loads(result.stdout)
    assert schema["type"] == "object" and fields <= set(schema["required"])
    _assert_well_formed(schema, schema)
    if which == "run":
        assert "from" in schema["$defs"]["Repair"]["properties"], "aliases, as the JSON is written"


def _assert_well_formed(node: Any, root: dict[str, Any]) -> None:
    """Every $ref resolves and every type is a JSON Schema type."""
    if isinstance(node, dict):
        if "$ref" in node:
            name = node["$ref"].removeprefix("#/$defs/")
            assert name in root["$defs"], node["$ref"]
        if isinstance(node.get("type"), str):
            assert node["type"] in {"object", "array", "string", "integer", "number", "boolean", "null"}
        for value in node.values():
            _assert_well_formed(value, root)
    elif isinstance(node, list):
        for value in node:
            _assert_well_formed(value, root)


def test_eval_passes_its_arguments_to_the_evaluation(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    def run(dataset: str, split: str, **kwargs: Any) -> dict[str, Any]:
        calls.append((dataset, split, kwargs))
        return {}

    from verification.training import evaluation

    monkeypatch.setattr(evaluation, "run", run)

    status = cli.main(["eval", "--dataset", "summedits", "--split", "report", "--limit", "5", "--output", "o.json",
                       "--max-unsafe-release-rate", "0.1"])

    assert status == 0
    assert calls == [("summedits", "report", {"limit": 5, "output": "o.json", "progress": True,
                                              "max_unsafe_release_rate": 0.1})]
    assert verification.training.evaluation is evaluation


def test_eval_refuses_an_unknown_dataset() -> None:
    result = _run("eval", "--dataset", "squad", "--split", "tune")
    assert result.returncode == 2 and "invalid choice: 'squad'" in result.stderr


def test_check_uses_the_model_named_in_the_environment(tmp_path: Path, fake_server: FakeOpenAIServer) -> None:
    fake_server.responder = cove_reply
    settings = {"LLM_BASE_URL": fake_server.base_url, "LLM_MODEL": "asked-model", "LLM_API_KEY": "k"}

    # A looser paraphrase than the default case's: the offline verifier reads it below its safe band (the
    # threshold of its stratum), so the cascade asks the model.
    loose = _case(answer="We hold on to your data for 30 days once you cancel.")
    result = _run("check", _write(tmp_path / "case.json", loose), llm=settings)

    assert result.returncode == 0, result.stderr
    record = RunRecord.model_validate_json(result.stdout)
    assert record.verifier == "cascade/1"
    [claim] = record.candidates[0].claims
    assert claim.method == f"model:{MODEL_NAME}" and claim.question
    assert claim.decided_by is not None and claim.decided_by.startswith("cove/1:asked-model ")
    assert claim.escalation is not None and "below the safe band" in claim.escalation
    # A question, then its verification, then the critic reading the draft against the sources.
    assert [role_of(r.system) for r in fake_server.received] == ["question_writer", "verifier", "critic"]
    assert all(r.headers_authorization == "Bearer k" for r in fake_server.received)


def test_a_refused_api_key_exits_1_with_one_line(tmp_path: Path, fake_server: FakeOpenAIServer) -> None:
    fake_server.responder = lambda received: Reply(status=401)
    settings = {"LLM_BASE_URL": fake_server.base_url, "LLM_MODEL": "m", "LLM_API_KEY": "wrong"}

    loose = _case(answer="We hold on to your data for 30 days once you cancel.")  # sent to the model
    result = _run("check", _write(tmp_path / "case.json", loose), llm=settings)

    assert result.returncode == 1
    [line] = result.stderr.splitlines()
    assert line.startswith("error: question_writer: model server answered HTTP 401")


def test_offline_flag_ignores_the_model_settings(tmp_path: Path) -> None:
    # Port 9 (discard) on loopback: were the model used, the run would fail to connect.
    settings = {"LLM_BASE_URL": "http://127.0.0.1:9/v1", "LLM_MODEL": "m"}
    result = _run("check", _write(tmp_path / "case.json", _case()), "--offline", llm=settings)
    assert result.returncode == 0, result.stderr
    assert RunRecord.model_validate_json(result.stdout).verifier.startswith("offline/")


def test_eval_with_repair_runs_the_whole_engine_in_that_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    def run(dataset: str, split: str, **kwargs: Any) -> dict[str, Any]:
        calls.append((dataset, split, kwargs))
        return {}

    from verification.training import repair_evaluation

    monkeypatch.setattr(repair_evaluation, "run", run)

    status = cli.main(["eval", "--dataset", "halueval", "--split", "tune", "--repair", "none", "--limit", "3"])

    assert status == 0
    assert calls == [("halueval", "tune", {"repair": "none", "limit": 3, "output": None, "progress": True})]


def test_eval_refuses_an_unknown_repair_mode() -> None:
    result = _run("eval", "--dataset", "halueval", "--split", "tune", "--repair", "guess")
    assert result.returncode == 2 and "invalid choice: 'guess'" in result.stderr
