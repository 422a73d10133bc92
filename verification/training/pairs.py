"""Labelled (window, claim) pairs for training the cross-encoder, from the data files beside the project.

Two kinds:
- sentence pairs of the public inference sets in `data/nli/` (entailment, SUPPORTS and "Fully
  attributable" are supported; every other label is not; unlabelled pairs are dropped), deduplicated
  on (premise, claim);
- windows of the tune splits as the engine sees them: each claim of an answer, extracted as the engine
  extracts it, against the sentences the engine's retrieval selects for it (`window.window_text`).
  WiCE's train token file gives claims disjoint from `claim_dev`; SummEdits `evaluation` and HaluEval
  are split in two by a hash of the source, and only the "fit" half is trained on. The other half, with
  WiCE `claim_dev`, is what the release model and the calibration are fitted and measured on, so no
  figure is ever taken on a window the network was trained on.

Every pair carries the name of the set it came from and whether it is for validation, so the trainer can
report per set. Nothing here imports torch.
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from verification.claims.extraction import extract_claims
from verification.retrieval.index import SourceIndex
from verification.scorers.window import hypothesis, window_text
from verification.training.evaluation import Record, data_dir, fold, load
from verification.types import Source

_SUPPORTED = {"entailment", "supports", "fully attributable"}
_UNLABELLED = {"", "-", "generic"}
VALIDATION_SHARE = 0.04
"""Share of the inference pairs (by a hash of the premise) held out to choose and check the model."""


@dataclass(frozen=True)
class Pair:
    """One training example."""

    premise: str
    """The window of source text."""
    claim: str
    """The claim judged against it, as the model reads it (`window.hypothesis`)."""
    label: int
    """1 when the premise supports the claim, else 0."""
    origin: str
    """The data set it came from, such as "nli/snli" or "summedits/fit"."""
    validation: bool = False
    """Held out of training, for choosing and checking the model."""


def _held_out(key: str) -> bool:
    return int(hashlib.sha256(("validation:" + key).encode()).hexdigest()[:8], 16) / 0xFFFFFFFF < VALIDATION_SHARE


def _label(text: str) -> int | None:
    value = text.strip().lower()
    if value in _UNLABELLED:
        return None
    return 1 if value in _SUPPORTED else 0


def _tsv(path: Path, premise: str, claim: str, label: str) -> Iterator[tuple[str, str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as lines:
        for row in csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE):
            if row.get(premise) and row.get(claim):
                yield row[premise], row[claim], row.get(label) or ""


def _jsonl(path: Path) -> Iterator[dict]:
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def _detokenised(text: str) -> str:
    """SNLI's files are tokenised with spaces ("packages ." ); the engine's claims are not."""
    for mark in (" .", " ,", " ?", " !", " 's", " n't", " ;", " :"):
        text = text.replace(mark, mark[1:])
    return text.strip()


def _inference_rows(root: Path) -> Iterator[tuple[str, str, str, str]]:
    """(set, premise, claim, label) from every file of `nli/`."""
    nli = root / "nli"
    snli = nli / "snli_dev_test_via_esnli"
    for part in ("dev", "test"):
        premises = (snli / f"dataset__eSNLI__s1.{part}").read_text(encoding="utf-8").splitlines()
        claims = (snli / f"dataset__eSNLI__s2.{part}").read_text(encoding="utf-8").splitlines()
        labels = (snli / f"dataset__eSNLI__labels.{part}").read_text(encoding="utf-8").splitlines()
        for premise, claim, label in zip(premises, claims, labels, strict=True):
            yield "snli", _detokenised(premise), _detokenised(claim), label
    for path in sorted((nli / "cad_snli").glob("*.tsv")):
        for row in _tsv(path, "sentence1", "sentence2", "gold_label"):
            yield ("cad_snli", *row)
    for path in sorted((nli / "conjnli").glob("*.tsv")):
        for row in _tsv(path, "Premise", "Hypothesis", "Label"):
            yield ("conjnli", *row)
    for raw in _jsonl(nli / "breaking_nli" / "dataset.jsonl"):
        yield "breaking_nli", raw["sentence1"], raw["sentence2"], raw["gold_label"]
    for row in _tsv(nli / "med" / "MED.tsv", "sentence1", "sentence2", "gold_label"):
        yield ("med", *row)
    for path in sorted((nli / "begin").glob("*.tsv")):
        for row in _tsv(path, "knowledge", "response", "begin_label"):
            yield ("begin", *row)
    for raw in _jsonl(nli / "fool_me_twice" / "dataset__dev.jsonl"):
        evidence = " ".join(item["text"] for item in raw.get("gold_evidence", []))
        if evidence:
            yield "fool_me_twice", evidence, raw["text"], raw["label"]
    for path in sorted((nli / "fever_symmetric").glob("*.jsonl")):
        for raw in _jsonl(path):
            yield "fever_symmetric", _detokenised(raw["evidence"]), _detokenised(raw["claim"]), raw["label"]


def _inference_pairs(root: Path | None = None) -> list[Pair]:
    """The labelled inference pairs, deduplicated, with a share held out for validation."""
    seen: set[tuple[str, str]] = set()
    pairs = []
    for origin, premise, claim, text in _inference_rows(root or data_dir()):
        label = _label(text)
        key = (premise.strip(), claim.strip())
        if label is None or key in seen or not all(key):
            continue
        seen.add(key)
        # Held out by premise, so a premise's revised twins never sit on both sides.
        pairs.append(Pair(key[0], key[1], label, f"nli/{origin}", _held_out(key[0])))
    return pairs


def _claim_pairs(record: Record, origin: str, label_of: dict[str, int] | None = None,
                 validation: bool = False) -> Iterator[Pair]:
    """Each claim of a record's answer against its retrieved window, labelled by the record (or by
    `label_of`, a claim text's own label, where the record's label does not hold for every claim)."""
    index = SourceIndex(record.sources)
    for claim in extract_claims(record.answer, record.question):
        label = label_of.get(claim.statement) if label_of is not None else int(record.supported)
        if label is None:
            continue
        hits = index.select(claim.statement, 3)
        if hits:
            yield Pair(window_text(hits), hypothesis(claim.statement, claim.context), label, origin, validation)


def _wice_train(root: Path) -> Iterator[Pair]:
    """WiCE's train claims (every one of them has an unsupported part): the claim against its retrieved
    window and against its annotated supporting sentences, both unsupported; and the claim with its
    unsupported tokens taken out against those supporting sentences, supported. The two make a minimal
    pair: the same window, a claim with and without the words it cannot back."""
    for raw in _jsonl(root / "wice" / "non_supported_tokens_train.jsonl"):
        sentences = [sentence.replace("\n", " ") for sentence in raw["evidence"]]
        supported = raw["label"] == "supported"
        record = Record(id="", sources=[Source(id="page", text="\n".join(sentences) or " .")],
                        answer=raw["claim"], supported=supported)
        yield from _claim_pairs(record, "wice/train")
        for group in raw["supporting_sentences"][:1]:
            gold = " ".join(sentences[i] for i in sorted(group) if i < len(sentences))
            if gold:
                yield Pair(gold, raw["claim"], int(supported), "wice/train-gold")
                kept = _joined(t for t, unsupported in zip(raw["claim_tokens"], raw["non_supported_spans"],
                                                          strict=True) if not unsupported)
                if not supported and len(kept.split()) >= 4 and kept != raw["claim"]:
                    yield Pair(gold, kept, 1, "wice/train-kept")


def _joined(tokens: Iterator[str]) -> str:
    """Tokens back into text: no space before closing punctuation or after an opening one."""
    text = ""
    for token in tokens:
        if text and token not in {".", ",", ";", ":", "!", "?", ")", "'s", "%", "-"} and not text.endswith(("(", "-")):
            text += " "
        text += token
    return text


def summedits_claim_labels(records: list[Record]) -> dict[str, dict[str, int]]:
    """Per document, each summary claim's own label: a claim of an inconsistent summary that no
    consistent summary of the same document has is where the edit is; the others are supported."""
    consistent: dict[str, set[str]] = {}
    for record in records:
        if record.supported:
            texts = {claim.statement for claim in extract_claims(record.answer)}
            consistent.setdefault(record.sources[0].text, set()).update(texts)
    labels: dict[str, dict[str, int]] = {}
    for record in records:
        known = consistent.get(record.sources[0].text, set())
        claims = [claim.statement for claim in extract_claims(record.answer)]
        if record.supported:
            labels[record.id] = dict.fromkeys(claims, 1)
            continue
        edited = [text for text in claims if text not in known]
        if not edited:
            continue
        if len(edited) == len(claims) and len(claims) > 1:
            # No consistent sibling to tell the edited sentence by: only its weakest claims are known bad.
            continue
        labels[record.id] = {text: int(text in known) for text in claims}
    return labels


def _tune_pairs(root: Path | None = None) -> list[Pair]:
    """Windows from the tune splits' training halves (and validation pairs from the other halves)."""
    root = root or data_dir()
    pairs = list(_wice_train(root))
    summedits = load("summedits", "tune")
    labels = summedits_claim_labels(summedits)
    for record in summedits:
        if record.id in labels:
            half = fold(record.sources[0].text)
            pairs.extend(_claim_pairs(record, f"summedits/{half}", labels[record.id], validation=half == "hold"))
    for record in load("halueval", "tune"):
        half = fold(record.sources[0].text)
        if len(extract_claims(record.answer)) == 1:
            pairs.extend(_claim_pairs(record, f"halueval/{half}", validation=half == "hold"))
    for record in load("wice", "tune"):
        pairs.extend(_claim_pairs(record, "wice/dev", validation=True))
    return pairs


def training_pairs(root: Path | None = None) -> list[Pair]:
    """Every pair: inference sets and tune windows, in a fixed order."""
    return _inference_pairs(root) + _tune_pairs(root)
