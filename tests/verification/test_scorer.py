"""The learned scorer: the shipped model's readings, the checks' veto over it, training end to end."""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from verification.claims.extraction import extract_claims
from verification.decision.offline import OfflineVerifier
from verification.retrieval.index import SourceIndex
from verification.scorers import UnknownScorer, make_scorer
from verification.scorers.cross_encoder import MODEL_DIR, CrossEncoder, ModelUnavailable, shipped
from verification.scorers.features import Assessment, assess
from verification.scorers.learned import LearnedScorer
from verification.training.pairs import Pair
from verification.types import Case, Source, State

DEMO_CASES = Path(__file__).resolve().parents[2] / "verification" / "demo_cases.json"
REFUNDS = Source(id="refunds", text=(
    "Annual plans can be refunded in full within 30 days of purchase. After 30 days, annual plans are not "
    "refundable. Monthly plans can be cancelled at any time and are not refunded."
))

# (window, claim, probability recorded from the shipped model). A new model records new ones.
RECORDED = [
    ("Annual plans can be refunded in full within 30 days of purchase.",
     "You can get all your money back on an annual plan if you ask within 30 days of buying it.", 0.6391),
    ("Annual plans can be refunded in full within 30 days of purchase.",
     "The office is closed on public holidays.", 0.0577),
    ("The Arden 14 has a 14-inch display. Its battery lasts up to 18 hours.",
     "The Arden 14's battery lasts up to 18 hours.", 0.9389),
    ("Thomas Arnold was the publisher of Home Media Magazine for more than 12 years.",
     "Arnold founded Home Media Magazine in 1991.", 0.1021),
]


def test_the_shipped_model_gives_its_recorded_readings():
    logits = shipped().logits([(window, claim) for window, claim, _ in RECORDED])
    readings = [1 / (1 + math.exp(-logit)) for logit in logits]
    for (_, claim, recorded), reading in zip(RECORDED, readings, strict=True):
        assert reading == pytest.approx(recorded, abs=0.02), claim
    paraphrase, unrelated, restated, unsupported = readings
    assert paraphrase > 0.5 > unrelated
    assert restated > 0.5 > unsupported


def test_a_pairs_reading_does_not_depend_on_the_pairs_read_beside_it():
    window, claim, _ = RECORDED[0]
    alone = CrossEncoder().run([(window, claim)])[0]
    beside_others = CrossEncoder().run([(w, c) for w, c, _ in RECORDED] + [(window * 3, "A longer claim " * 8)])[0]
    assert beside_others == pytest.approx(alone, abs=1e-5)


def test_a_paraphrase_of_the_source_is_supported_by_the_learned_scorer():
    claims = extract_claims("You can request a full refund within 30 days of purchase on an annual plan.")
    verdict = OfflineVerifier(make_scorer("learned")).verify(claims, [REFUNDS])[0]
    assert verdict.state is State.SUPPORTED
    assert verdict.extra["scorer"] == "learned/2"
    # The evidence cited is the window that grounded it.
    assert any("refunded in full within 30 days" in span.quote for span in verdict.evidence)


def test_the_same_pair_is_read_once():
    model = shipped()
    pair = ("A window read once.", "A claim read once.")
    first = model.logits([pair])
    cached = len(model._cache)
    assert model.logits([pair, pair]) == first * 2
    assert len(model._cache) == cached


class Certain:
    """A scorer sure of every claim: what the typed checks decide must not move."""

    name = "certain/1"
    threshold = 0.5

    def fingerprint(self) -> dict[str, object]:
        return {"name": self.name}

    def probabilities(self, assessments: Sequence[Assessment]) -> list[float]:
        return [1.0] * len(assessments)


def test_the_checks_keep_their_veto_whatever_the_scorer_says():
    verifier = OfflineVerifier(Certain())
    contradicted, unstated = verifier.verify(extract_claims(
        "Annual plans can be refunded in full within 60 days of purchase. "
        "Annual plans can be refunded in full within 30 days of purchase for a $25 fee."
    ), [REFUNDS])
    # A typed contradiction is REFUTED however sure the scorer is.
    assert contradicted.state is State.REFUTED and contradicted.release_score == 0.0
    # A committed value no cited sentence states is never SUPPORTED.
    assert unstated.state is not State.SUPPORTED
    assert unstated.release_score is not None and unstated.release_score < 0.5


def test_a_missing_model_file_is_one_line_naming_it(tmp_path):
    with pytest.raises(ModelUnavailable) as raised:
        CrossEncoder(tmp_path)
    assert str(raised.value) == f"scorer model file missing: {tmp_path / 'model.int8.onnx'}"


def test_a_corrupt_model_file_is_one_line_naming_it(tmp_path):
    shutil.copyfile(MODEL_DIR / "tokenizer.json", tmp_path / "tokenizer.json")
    (tmp_path / "model.int8.onnx").write_bytes(b"not a model")
    with pytest.raises(ModelUnavailable) as raised:
        CrossEncoder(tmp_path)
    assert str(raised.value).startswith(f"scorer model file unreadable: {tmp_path / 'model.int8.onnx'}")
    assert "\n" not in str(raised.value)


def test_the_question_reaches_only_a_model_trained_to_read_it(tmp_path):
    for name in ("model.int8.onnx", "tokenizer.json"):
        shutil.copyfile(MODEL_DIR / name, tmp_path / name)
    (tmp_path / "figures.json").write_text(json.dumps({"hypothesis": "question claim"}), encoding="utf-8")
    index = SourceIndex([Source(id="k", text="The Oberoi Group is a hotel company with its head office in Delhi.")])
    [claim] = extract_claims("Delhi", "The Oberoi family's hotel company has a head office in what city?")
    assessment = assess(claim.text, index, claim.context)
    bare = assess(claim.text, index)

    trained_on_bare, trained_on_questions = LearnedScorer(shipped()), LearnedScorer(CrossEncoder(tmp_path))

    assert trained_on_bare.model_logits([assessment]) == trained_on_bare.model_logits([bare])
    assert trained_on_questions.model_logits([assessment]) != trained_on_questions.model_logits([bare])


def test_an_unknown_scorer_is_refused_by_name():
    with pytest.raises(UnknownScorer, match="VERIFICATION_SCORER: unknown scorer 'fast'"):
        make_scorer("fast")


PAIRS = [
    Pair("A man is eating a piece of bread.", "A man is eating food.", 1, "nli/test"),
    Pair("A man is eating a piece of bread.", "A woman is driving a car.", 0, "nli/test"),
    Pair("The shop opens at 9 am on weekdays.", "The shop opens at 9 am.", 1, "tune/test"),
    Pair("The shop opens at 9 am on weekdays.", "The shop opens at 7 am.", 0, "tune/test"),
] * 4 + [
    Pair("Refunds are paid within 5 days.", "Refunds take up to 5 days.", 1, "nli/test", validation=True),
    Pair("Refunds are paid within 5 days.", "Refunds are paid in cash.", 0, "nli/test", validation=True),
]


def test_training_runs_end_to_end_resumes_and_exports_a_checked_int8_model(tmp_path):
    from verification.training import fine_tune as training

    settings = training.Settings(batch_size=4, checkpoint_every=2)
    output, work = tmp_path / "model", tmp_path / "work"
    figures = training.train(output, work, settings, pairs=PAIRS)
    assert figures["training"]["steps"] == 8  # 16 pairs, the 8 tune ones seen 3 times: 32 pairs in batches of 4
    model = CrossEncoder(output)
    assert len(model.logits([("A window.", "A claim.")])) == 1
    # The int8 file reads as the float model does, within what quantisation costs.
    assert figures["int8_against_float"]["max_abs_logit_difference"] < 0.2
    assert figures["validation"]["nli/test"]["pairs"] == 2
    saved = json.loads((output / "figures.json").read_text(encoding="utf-8"))
    assert saved["sha256"] == model.sha256
    assert _weight_types(output / "model.int8.onnx") == {"uint8"}
    # A second run finds the last checkpoint: no step is trained again, and the export is the same model.
    again = training.train(output, work, settings, pairs=PAIRS)
    assert again["training"]["seconds_this_run"] == 0
    assert again["sha256"] == figures["sha256"]


def test_the_shipped_model_card_names_its_file():
    card = (MODEL_DIR / "MODEL_CARD.md").read_text(encoding="utf-8")
    figures = json.loads((MODEL_DIR / "figures.json").read_text(encoding="utf-8"))
    assert figures["sha256"] == shipped().sha256
    assert shipped().sha256 in card
    assert Path(MODEL_DIR / "model.int8.onnx").stat().st_size <= 30 * 1024 * 1024
    assert _weight_types(MODEL_DIR / "model.int8.onnx") == {"uint8"}


def _weight_types(path: Path) -> set[str]:
    """The element types of the weights every integer matrix product in the file reads."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    weights = {tensor.name: tensor for tensor in model.graph.initializer}
    return {numpy_helper.to_array(weights[node.input[1]]).dtype.name
            for node in model.graph.node if node.op_type == "MatMulInteger"}


def test_unsigned_weights_give_the_exact_integer_sums_on_any_cpu(tmp_path):
    # Largest activations against largest weights: the pairs of products that a 16-bit sum saturates on.
    import numpy as np
    import onnx
    import onnxruntime
    from onnx import TensorProto, helper, numpy_helper

    from verification.training.fine_tune import unsigned_weights

    rng = np.random.default_rng(7)
    weights = rng.choice(np.array([-127, 127, 100, -3], dtype=np.int8), size=(64, 32))
    activations = rng.choice(np.array([255, 250, 0, 17], dtype=np.uint8), size=(4, 64))
    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["a", "w", "a_zero", "w_zero"], ["y"])], "product",
        [helper.make_tensor_value_info("a", TensorProto.UINT8, [4, 64])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [4, 32])],
        [numpy_helper.from_array(weights, "w"), numpy_helper.from_array(np.uint8(0), "a_zero"),
         numpy_helper.from_array(np.zeros(32, dtype=np.int8), "w_zero")],
    )
    path = tmp_path / "product.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    unsigned_weights(path)
    assert _weight_types(path) == {"uint8"}
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    exact = activations.astype(np.int64) @ weights.astype(np.int64)
    assert (session.run(None, {"a": activations})[0] == exact).all()


def test_nothing_is_supported_without_a_cited_sentence_however_sure_the_scorer():
    verifier = OfflineVerifier(Certain())
    cases = [Case.model_validate(raw) for raw in json.loads(DEMO_CASES.read_text(encoding="utf-8"))]
    answers = [(case.answer or "", case.question, list(case.sources)) for case in cases]
    answers += [("We guarantee it. Refunds are instant.", "Can I get a refund?", [REFUNDS])]
    bare = []
    for answer, question, sources in answers:
        claims = extract_claims(answer, question)
        bare += [(claim.text, verdict.rationale) for claim, verdict in zip(claims, verifier.verify(claims, sources),
                                                                           strict=True)
                 if verdict.state is State.SUPPORTED and not verdict.evidence]
    assert bare == []


def test_the_rules_scorer_saves_and_loads_its_card_and_scores_the_same(tmp_path):
    from verification.scorers.card import RULES_CARD, read_card
    from verification.scorers.rules import RulesScorer

    index = SourceIndex([REFUNDS])
    assessments = [assess(claim.text, index) for claim in extract_claims(
        "Annual plans can be refunded within 30 days. Monthly plans are refunded in full.")]
    shipped_rules = RulesScorer()
    assert shipped_rules.get_params()["weights"] == read_card(RULES_CARD)["weights"]
    shipped_rules.save(tmp_path / "rules.json")
    loaded = RulesScorer.load(tmp_path / "rules.json")
    assert loaded.probabilities(assessments) == shipped_rules.probabilities(assessments)
    assert loaded.fingerprint() == shipped_rules.fingerprint()
    # Another card is another scorer: its weights move the scores and the fingerprint with them.
    card = read_card(tmp_path / "rules.json")
    card["weights"]["coverage"] += 1.0
    other = RulesScorer(card)
    assert other.fingerprint() != shipped_rules.fingerprint()
    assert other.probabilities(assessments) != shipped_rules.probabilities(assessments)


def test_a_card_without_a_weight_is_refused_naming_it(tmp_path):
    from verification.scorers.card import CardUnreadable, read_card
    from verification.scorers.rules import RulesScorer

    card = read_card(Path(__file__).resolve().parents[2] / "verification" / "scorers" / "rules.json")
    del card["weights"]["name_absent"]
    with pytest.raises(CardUnreadable, match="name_absent"):
        RulesScorer(card)
    (tmp_path / "broken.json").write_text("{", encoding="utf-8")
    with pytest.raises(CardUnreadable, match="broken.json"):
        RulesScorer.load(tmp_path / "broken.json")


def test_the_learned_scorer_reads_its_stack_from_the_models_card():
    figures = json.loads((MODEL_DIR / "figures.json").read_text(encoding="utf-8"))
    scorer = LearnedScorer(shipped())
    params = scorer.get_params()
    assert params["stack"] == {"model": figures["stack"]["model"], "rules": figures["stack"]["rules"]}
    assert (params["bias"], params["threshold"]) == (figures["stack"]["bias"], figures["stack"]["threshold"])
    assert params["model_sha256"] == figures["sha256"]


def test_a_stack_written_into_a_models_card_is_the_one_its_scorer_reads(tmp_path):
    from verification.training import stack as stack_fit

    for name in ("model.int8.onnx", "tokenizer.json", "figures.json"):
        shutil.copyfile(MODEL_DIR / name, tmp_path / name)
    index = SourceIndex([Source(id="k", text="Refunds are paid to the card used within 30 days of the request.")])
    [claim] = extract_claims("Refunds go back to your card within a month.")
    assessment = assess(claim.text, index)

    stack_fit.save(tmp_path, {"model": 1.0, "rules": 0.0, "bias": -0.5, "threshold": 0.4}, {"records": 3})
    refitted = LearnedScorer(CrossEncoder(tmp_path))
    assert refitted.stack == {"model": 1.0, "rules": 0.0} and refitted.bias == -0.5
    [logit] = refitted.model_logits([assessment])
    assert refitted.probabilities([assessment]) == [pytest.approx(1 / (1 + math.exp(-(logit - 0.5))))]
    card = json.loads((tmp_path / "figures.json").read_text(encoding="utf-8"))
    assert card["sha256"] == shipped().sha256 and card["stack_fit"] == {"records": 3}  # the rest of the card kept

    stack_fit.save(tmp_path, None, {"kept": "too few claims"})
    assert LearnedScorer(CrossEncoder(tmp_path)).stack == LearnedScorer(shipped()).stack
