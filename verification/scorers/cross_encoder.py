"""The learned scorer: a MiniLM cross-encoder that reads a claim against its window, run as int8 ONNX.

It reads the window and the claim together ("[CLS] window [SEP] claim [SEP]", at most MAX_TOKENS
tokens, the window cut before the claim is), so it sees paraphrase that word overlap misses ("can be
refunded in full" / "request a full refund"). Only onnxruntime, tokenizers and numpy are needed to run
it; training (`training.py`) needs torch. The model is loaded once per process and scores are kept by
the pair's content, so a repair that re-verifies an unchanged claim costs nothing.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verification.errors import PermanentError

if TYPE_CHECKING:
    import numpy as np

# numpy, onnxruntime and tokenizers (and the retrieval modules `window` reads) are imported where a model
# is loaded or run, not with this module: a process that only names a model folder's files or catches
# ModelUnavailable, and never scores, does not pay for them (about 40 MB, before any model is loaded).

MODEL_DIR = Path(__file__).with_name("model")
MODEL_FILE = "model.int8.onnx"
TOKENIZER_FILE = "tokenizer.json"
MAX_TOKENS = 128
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_CACHE_SIZE = 50_000


class ModelUnavailable(PermanentError):
    """The scorer's model file is missing or cannot be read; the message names the file."""


def load_tokenizer(path: Path, max_tokens: int = MAX_TOKENS) -> Any:
    """The WordPiece tokenizer, cutting the longer of window and claim (the window, all but always) to fit
    `max_tokens`."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.enable_truncation(max_length=max_tokens, strategy="longest_first")
    tokenizer.no_padding()
    return tokenizer


def padded(encodings: Sequence[Any], width: int) -> dict[str, np.ndarray]:
    """The model's three inputs for a batch, padded with zeros to `width` tokens."""
    import numpy as np

    arrays = {name: np.zeros((len(encodings), width), dtype=np.int64) for name in INPUTS}
    for row, encoding in enumerate(encodings):
        size = len(encoding.ids)
        arrays["input_ids"][row, :size] = encoding.ids
        arrays["attention_mask"][row, :size] = encoding.attention_mask
        arrays["token_type_ids"][row, :size] = encoding.type_ids
    return arrays


class CrossEncoder:
    """One loaded model: the logit of support for (window, claim) pairs."""

    def __init__(self, folder: Path = MODEL_DIR, threads: int = 1) -> None:
        # One thread per session: a worker pool already runs a process per core, and one pair of 128
        # tokens is too small to split well; one thread spent 15% less CPU per claim than two (measured).
        model_path, tokenizer_path = folder / MODEL_FILE, folder / TOKENIZER_FILE
        for path in (model_path, tokenizer_path):
            if not path.is_file():
                raise ModelUnavailable(f"scorer model file missing: {path}")
        import onnxruntime

        from verification.scorers.window import HYPOTHESIS

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        # Idle threads sleep instead of spinning for the next batch: a worker's cores are shared with
        # the rest of the engine and with other workers.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self.session = onnxruntime.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
            self.tokenizer = load_tokenizer(tokenizer_path)
        except Exception as error:  # onnxruntime raises its own classes for every kind of bad file
            raise ModelUnavailable(f"scorer model file unreadable: {model_path} ({type(error).__name__})") from error
        self.sha256 = hashlib.sha256(model_path.read_bytes()).hexdigest()
        figures_path = folder / "figures.json"
        figures = json.loads(figures_path.read_text(encoding="utf-8")) if figures_path.is_file() else {}
        self.reads_question = figures.get("hypothesis") == HYPOTHESIS
        """Whether the model was trained on claims read after their question (`window.hypothesis`); one
        trained on bare claims is given bare claims."""
        stack = figures.get("stack")
        self.stack: dict[str, float] | None = (
            {key: float(stack[key]) for key in ("model", "rules", "bias")} if isinstance(stack, dict) else None
        )
        """The stack refitted for this model (`stack.py`, a retrained model's); None: the shipped one."""
        self._cache: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def run(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """The model's logit of support for each (window, claim) pair, uncached.

        One pair per run: the int8 model quantises activations with one scale per tensor, so in a batch a
        pair's reading would move with the pairs beside it (by up to 0.26 in probability, measured), and a
        verdict would depend on which claims happened to share its case. Alone, a pair also needs no
        padding, which costs more than batching saves (about 15% less CPU per pair, measured)."""
        import numpy as np

        result = np.zeros(len(pairs), dtype=np.float32)
        for row, encoding in enumerate(self.tokenizer.encode_batch(list(pairs)) if pairs else []):
            inputs = padded([encoding], len(encoding.ids))
            result[row] = self.session.run(["logits"], inputs)[0].reshape(-1)[0]
        return result

    def logits(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """The logit for each pair; pairs seen before (by content) are not run again."""
        keys = [_pair_key(window, claim) for window, claim in pairs]
        with self._lock:
            found = {key: self._cache[key] for key in keys if key in self._cache}
        missing = list({key: i for i, key in enumerate(keys) if key not in found}.values())
        if missing:
            computed = self.run([pairs[i] for i in missing]).tolist()
            found.update((keys[i], logit) for i, logit in zip(missing, computed, strict=True))
            with self._lock:
                for i in missing:
                    self._cache[keys[i]] = found[keys[i]]
                while len(self._cache) > _CACHE_SIZE:
                    self._cache.popitem(last=False)
        return [found[key] for key in keys]


def _pair_key(window: str, claim: str) -> str:
    return hashlib.sha256(f"{len(window)}:{window}\x00{claim}".encode()).hexdigest()


def shipped(folder: Path = MODEL_DIR) -> CrossEncoder:
    """The model in `folder` (by default the one committed with the engine), loaded once per process.

    Per process, not per import: a session's thread pool does not survive a fork, so a worker child
    (Celery's prefork pool) loads its own rather than inheriting its parent's."""
    return _loaded(folder, os.getpid())


@functools.cache
def _loaded(folder: Path, pid: int) -> CrossEncoder:
    return CrossEncoder(folder)
