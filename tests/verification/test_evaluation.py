from __future__ import annotations

import json

import pytest

from verification.training import evaluation


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    (tmp_path / "wice").mkdir()
    (tmp_path / "summedits").mkdir()
    wice = [
        {"label": "supported", "claim": "Acme was founded in 1987 in Boston.", "supporting_sentences": [[1]],
         "evidence": ["About Acme", "Acme was founded in 1987 in Boston.", "It makes anvils."], "meta": {"id": "w1"}},
        {"label": "not_supported", "claim": "Acme was founded in 1992 in Boston.", "supporting_sentences": [],
         "evidence": ["About Acme", "Acme was founded in 1987 in Boston."], "meta": {"id": "w2"}},
    ]
    (tmp_path / "wice" / "claim_dev.jsonl").write_text("\n".join(json.dumps(r) for r in wice) + "\n")
    doc = "Refunds are available within 30 days of purchase. Approved refunds reach the card in 5 days."
    summedits = [
        {"id": "a", "doc": doc, "summary": "Refunds are available within 30 days of purchase.", "label": 1,
         "split": "evaluation"},
        {"id": "b", "doc": doc, "summary": "Refunds are available within 90 days of purchase.", "label": 0,
         "split": "evaluation"},
        {"id": "c", "doc": doc, "summary": "Refunds reach the card in 5 days.", "label": 1, "split": "test"},
    ]
    (tmp_path / "summedits" / "summedits_sales_email.json").write_text(json.dumps(summedits))
    monkeypatch.setenv("VERIFICATION_DATA_DIR", str(tmp_path))
    return tmp_path


def test_wice_tune_reports_balanced_accuracy_three_way_and_evidence_recall(data_dir, tmp_path, capsys):
    output = tmp_path / "report.json"
    report = evaluation.run("wice", "tune", output=str(output), progress=False)
    assert report["records"] == 2 and report["crashes"] == 0
    assert report["balanced_accuracy"] == 1.0
    assert report["three_way_accuracy"] == 1.0
    assert report["evidence_recall_at_3"] == 1.0
    assert "balanced_accuracy" in capsys.readouterr().out
    written = json.loads(output.read_text())
    assert [row["id"] for row in written["records"]] == ["w1", "w2"]


def test_summedits_splits_and_per_domain_figures(data_dir):
    tune = evaluation.run("summedits", "tune", progress=False)
    assert tune["records"] == 2
    assert tune["per_domain"]["sales_email"]["balanced_accuracy"] == 1.0
    assert evaluation.run("summedits", "report", limit=1, progress=False)["records"] == 1


def test_held_back_split_raises_a_clear_error(data_dir):
    with pytest.raises(evaluation.DatasetUnavailable, match="held back"):
        evaluation.run("wice", "report", progress=False)
    with pytest.raises(evaluation.DatasetUnavailable, match="unknown dataset"):
        evaluation.run("fever", "tune", progress=False)
