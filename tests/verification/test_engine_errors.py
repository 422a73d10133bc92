"""Every error the engine raises survives pickling, as Celery needs to report it from a worker."""

from __future__ import annotations

import importlib
import inspect
import pickle
import pkgutil

import pytest

import verification
from verification.cli import InputError
from verification.decision.calibration import UnknownGroup
from verification.engine import MissingFieldError, ScorerModelMismatch, UnknownConstitution
from verification.errors import PermanentError, TransientError, VerificationError
from verification.llm.client import ScriptExhausted
from verification.loop.repair import UnknownRepairMode
from verification.scorers import UnknownScorer
from verification.scorers.card import CardUnreadable
from verification.scorers.cross_encoder import ModelUnavailable
from verification.training.dequantize import UnmappedWeight
from verification.training.evaluation import DatasetUnavailable
from verification.training.replay import ReplayUnavailable
from verification.training.retraining import DequantisationMismatch, RetrainingRefused

EXAMPLES: list[Exception] = [
    VerificationError("the engine failed"),
    TransientError("critic: model server unreachable at http://127.0.0.1:9/v1"),
    PermanentError("critic: model server answered HTTP 401: bad key"),
    MissingFieldError("answer", "required when no model is configured to draft one"),
    UnknownConstitution("constitution", "unknown constitution 'support-v1'; known: default"),
    UnknownRepairMode("repair: unknown repair mode 'guess'"),
    UnknownGroup("calibration_group: 'wice' is not a group of the calibration in force (its groups: wice/hold)"),
    DatasetUnavailable("no wice records for split 'report'"),
    InputError("case.json: not valid JSON"),
    ScriptExhausted("no script for role 'critic'"),
    ModelUnavailable("scorer model file missing: /srv/models/model.int8.onnx"),
    CardUnreadable("model card rules: its features are not the measures coverage, best_sentence_coverage"),
    UnknownScorer("VERIFICATION_SCORER: unknown scorer 'fast'; choose one of learned, rules"),
    ScorerModelMismatch("constitution shop pins the scorer model 2e8f14603ec5; the verifier scores with 000000000000"),
    UnmappedWeight("model.int8.onnx: no bias follows the weight onnx::MatMul_892_quantized"),
    ReplayUnavailable("replay sample missing: verification/training/replay.jsonl.gz"),
    DequantisationMismatch("model.int8.onnx: the float model rebuilt from it reads pairs 0.3 apart"),
    RetrainingRefused("pairs: every organisation pair has the label 1; a model learns nothing from one label"),
]


def _engine_exception_classes() -> set[type[BaseException]]:
    classes = set()
    for module_info in pkgutil.walk_packages(verification.__path__, prefix="verification."):
        if module_info.name.endswith("__main__"):
            continue  # importing it runs the command line
        module = importlib.import_module(module_info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__.startswith("verification."):
                classes.add(value)
    return classes


def test_every_engine_exception_class_has_an_example_here() -> None:
    # A new exception class must be added to EXAMPLES, so that it is round-tripped too.
    assert _engine_exception_classes() == {type(error) for error in EXAMPLES}


@pytest.mark.parametrize("error", EXAMPLES, ids=lambda error: type(error).__name__)
def test_an_engine_exception_survives_a_pickle_round_trip(error: Exception) -> None:
    copy = pickle.loads(pickle.dumps(error))

    assert type(copy) is type(error)
    assert str(copy) == str(error)
    assert copy.args == error.args
    assert vars(copy) == vars(error)


def test_a_missing_field_keeps_its_field_and_message_after_pickling() -> None:
    copy = pickle.loads(pickle.dumps(UnknownConstitution("constitution", "unknown constitution 'support-v1'")))

    assert copy.field == "constitution"
    assert str(copy) == "constitution: unknown constitution 'support-v1'"
    assert isinstance(copy, MissingFieldError) and isinstance(copy, PermanentError)
