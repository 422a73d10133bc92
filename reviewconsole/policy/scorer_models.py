"""Scorer model versions on a worker's disk: the bytes live in the database (`ScorerModel`), the engine
reads a folder. Each host writes a version's folder once, under VAR_DIR/scorer-models/<sha256>/, and
checks the hash as it does, so a host never scores with a file that is not the version's."""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from pathlib import Path

from django.conf import settings

from reviewconsole.policy.models import ScorerModel
from verification import SCORER_MODEL_FILE as MODEL_FILE
from verification import SCORER_TOKENIZER_FILE as TOKENIZER_FILE
from verification import SHIPPED_MODEL_DIR, ModelUnavailable


def models_dir() -> Path:
    return Path(settings.VAR_DIR) / "scorer-models"


def model_folder(sha256: str) -> Path:
    """The folder holding the model version whose file hashes to `sha256`, written from the database the
    first time this host needs it. ModelUnavailable when no version has that hash."""
    folder = models_dir() / sha256
    if (folder / MODEL_FILE).is_file():
        return folder
    row = ScorerModel.objects.filter(sha256=sha256).only("onnx", "tokenizer", "figures").first()
    if row is None:
        raise ModelUnavailable(f"scorer model {sha256[:12]} is pinned but no scorer model version has that hash")
    data = bytes(row.onnx)
    if hashlib.sha256(data).hexdigest() != sha256:
        raise ModelUnavailable(f"scorer model v{row.pk}: stored file does not hash to {sha256[:12]}")
    models_dir().mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{sha256[:12]}-", dir=models_dir()))
    try:
        (staging / MODEL_FILE).write_bytes(data)
        (staging / TOKENIZER_FILE).write_text(row.tokenizer, encoding="utf-8")
        (staging / "figures.json").write_text(json.dumps(row.figures), encoding="utf-8")
        try:
            staging.rename(folder)
        except OSError:
            if not (folder / MODEL_FILE).is_file():  # not another process that got there first
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return folder


def scorer_files_check() -> None:
    """Stop the process, with one line naming the file, when the learned scorer is configured and its
    model folder (VERIFICATION_MODEL_DIR's or the shipped one) lacks a file. Looks at the files only:
    loading the model is for a process that verifies (`engine.load_scorer`)."""
    if settings.VERIFICATION_SCORER != "learned":
        return
    folder = Path(settings.VERIFICATION_MODEL_DIR) if settings.VERIFICATION_MODEL_DIR else SHIPPED_MODEL_DIR
    for path in (folder / MODEL_FILE, folder / TOKENIZER_FILE):
        if not path.is_file():
            raise SystemExit(
                f"error: scorer model file missing: {path} (set VERIFICATION_SCORER=rules to run without it)"
            )
