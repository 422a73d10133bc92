"""Measuring the offline verifier on public labelled data (WiCE, SummEdits, HaluEval).

The data files live outside the repository (`shared/data` next to it, or VERIFICATION_DATA_DIR);
nothing else in the engine reads them. A record counts as "supported" when every checkable claim
extracted from its answer is SUPPORTED. Beside that verdict each record gets its answer's release score
(`release.answer_score`), which gives the figures that matter for a release gate: how well the score
ranks (AUROC), and at the calibrated threshold of a risk budget, the share of inconsistent answers
released as written (the unsafe release rate) and of consistent ones (automation).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from verification.claims.extraction import extract_claims
from verification.decision.bounds import auroc
from verification.decision.calibration import (
    DEFAULT_MAX_UNSAFE_RELEASE_RATE,
    LabelledScores,
    ReleaseCalibration,
    builtin_calibration,
    upper_bound,
)
from verification.decision.offline import OfflineVerifier
from verification.decision.strata import answer_score, answer_stratum
from verification.decision.verifier import Verifier, identity
from verification.errors import PermanentError
from verification.retrieval.index import SourceIndex
from verification.types import Source, State

DATASETS = ("wice", "summedits", "halueval")
_SPLITS = ("tune", "hold", "report")
"""`hold` is the part of the tune splits the shipped cross-encoder never trained on: all of WiCE
claim_dev, and the half of SummEdits `evaluation` and of HaluEval whose sources `fold` deals to "hold".
The learned scorer's stack and its calibration are fitted, and its tune figures taken, on it alone."""
_SUMMEDITS_SPLITS = {"tune": "evaluation", "hold": "evaluation", "report": "test"}


def fold(source_text: str) -> str:
    """"fit" or "hold": which half of a tune split a source belongs to, dealt by a hash of its text."""
    return "fit" if int(hashlib.sha256(source_text.encode()).hexdigest()[:8], 16) % 2 == 0 else "hold"


def _kept(split: str, source_text: str) -> bool:
    return split != "hold" or fold(source_text) == "hold"


class DatasetUnavailable(PermanentError):
    """The requested dataset or split has no data here."""


@dataclass
class Record:
    """One labelled (sources, answer) pair."""

    id: str
    """The dataset's identifier of the record."""
    sources: list[Source]
    """The evidence the answer is judged against."""
    answer: str
    """The text whose claims are checked."""
    supported: bool
    """The gold label, reduced to supported / not supported."""
    label: str = ""
    """The dataset's own label, where it has more than two."""
    domain: str = ""
    """The SummEdits domain, empty elsewhere."""
    gold_sets: list[list[tuple[int, int]]] = field(default_factory=list)
    """WiCE: sufficient sets of supporting sentences, as (start, end) offsets into the single source."""
    question: str = ""
    """HaluEval: the question the answer answers; empty where the set has none."""


def data_dir() -> Path:
    """Where the data files are: VERIFICATION_DATA_DIR, else `shared/data` beside the repository."""
    configured = os.environ.get("VERIFICATION_DATA_DIR")
    return Path(configured) if configured else Path(__file__).resolve().parents[3] / "shared" / "data"


def load(dataset: str, split: str, limit: int | None = None) -> list[Record]:
    """The records of one dataset split; raises DatasetUnavailable when there are none here."""
    if dataset not in DATASETS:
        raise DatasetUnavailable(f"unknown dataset {dataset!r}; choose one of {', '.join(DATASETS)}")
    if split not in _SPLITS:
        raise DatasetUnavailable(f"unknown split {split!r}; choose one of {', '.join(_SPLITS)}")
    loader = {"wice": _wice, "summedits": _summedits, "halueval": _halueval}[dataset]
    records = []
    for record in loader(data_dir(), split):
        records.append(record)
        if limit is not None and len(records) >= limit:
            break
    if not records:
        raise DatasetUnavailable(f"no {dataset} records for split {split!r} in {data_dir()}")
    return records


def run(
    dataset: str,
    split: str,
    *,
    limit: int | None = None,
    output: str | None = None,
    progress: bool = True,
    max_unsafe_release_rate: float = DEFAULT_MAX_UNSAFE_RELEASE_RATE,
) -> dict:
    """Verify every record of a split with the offline engine, print a summary and return the figures."""
    records = load(dataset, split, limit)
    verifier = OfflineVerifier()
    started = time.perf_counter()
    rows = []
    crashes = 0
    for record in tqdm(records, desc=f"{dataset}/{split}", file=sys.stderr, disable=not progress):
        try:
            rows.append(_evaluate(record, verifier))
        except Exception as error:  # a crash is a finding to count, not a reason to stop measuring
            crashes += 1
            rows.append({"id": record.id, "gold": record.supported, "predicted": False, "crash": repr(error),
                         "domain": record.domain, "label": record.label, "states": [], "score": 0.0})
    report = _summarise(dataset, split, rows, crashes, time.perf_counter() - started, verifier)
    calibration = builtin_calibration(identity(verifier), max_unsafe_release_rate)
    report.update(_release_figures(rows, calibration))
    if calibration is None:
        report["calibration"] = ("none for this configuration: every answer goes to a person (calibrate with "
                                 "`python -m verification calibrate --tune --save-builtin`)")
    else:
        own = calibration.for_group(f"{dataset}/hold")
        if own is not calibration:
            # What a constitution that says its answers are of this group (Policy.calibration_group) releases.
            mine = _release_figures(rows, own)
            report.update({"own_group_threshold": own.threshold, "own_group_unsafe_release_rate":
                           mine["unsafe_release_rate"], "own_group_automation": mine["automation"]})
    print(format_summary(report))
    if output:
        Path(output).write_text(json.dumps({**report, "records": rows}, indent=2) + "\n", encoding="utf-8")
    return report


def format_summary(report: dict) -> str:
    """A few readable lines of the figures in `report`."""
    lines = [f"{report['dataset']} / {report['split']}: {report['records']} records, "
             f"{report['crashes']} crashes, {report['elapsed_s']:.1f} s ({report['verifier']})"]
    for key in ("balanced_accuracy", "accuracy", "three_way_accuracy", "evidence_recall_at_3",
                "average_balanced_accuracy", "release_auroc", "release_threshold", "unsafe_release_rate",
                "unsafe_release_upper_bound", "automation", "own_group_threshold",
                "own_group_unsafe_release_rate", "own_group_automation"):
        if report.get(key) is not None:
            lines.append(f"  {key:<32}{report[key]:.4f}")
    if report.get("calibration"):
        lines.append(f"  calibration                 {report['calibration']}")
    for domain, figures in sorted(report.get("per_domain", {}).items()):
        lines.append(f"  {domain:<28}{figures['balanced_accuracy']:.4f}  ({figures['records']} records)")
    return "\n".join(lines)


def _release_figures(rows: list[dict], calibration: ReleaseCalibration | None) -> dict:
    """AUROC of the answers' release scores and, at the calibrated threshold, unsafe releases and automation.

    An answer is released as written when its score reaches the threshold (every claim SUPPORTED, the
    weakest at or above it); `unsafe_release_rate` is the share of answers labelled inconsistent that
    are, `automation` the share of consistent ones.
    """
    consistent = [row["score"] for row in rows if row["gold"]]
    inconsistent = [row["score"] for row in rows if not row["gold"]]
    figures: dict = {"release_auroc": auroc(consistent, inconsistent)}
    if calibration is None:
        return figures
    threshold = calibration.threshold if calibration.met else float("inf")
    unsafe = sum(score >= threshold for score in inconsistent)
    figures.update({
        "release_threshold": calibration.threshold,
        "max_unsafe_release_rate": calibration.max_unsafe_release_rate,
        "unsafe_release_rate": unsafe / len(inconsistent) if inconsistent else None,
        "unsafe_release_upper_bound": upper_bound(unsafe, len(inconsistent), calibration.confidence)
        if inconsistent else None,
        "automation": sum(score >= threshold for score in consistent) / len(consistent) if consistent else None,
        "calibration": f"{calibration.verifier}, budget {calibration.max_unsafe_release_rate:.0%}, "
        f"calibrated on {calibration.data}",
    })
    return figures


def score_answer(answer: str, sources: list[Source], verifier: Verifier, question: str = "") -> tuple[list, float]:
    """The verdicts on an answer's checkable claims and the answer's release score."""
    claims = [claim for claim in extract_claims(answer, question) if claim.checkable]
    verdicts = verifier.verify(claims, sources) if claims else []
    return verdicts, answer_score(verdicts)


def labelled_scores(dataset: str, split: str, verifier: Verifier, *, progress: bool = False) -> LabelledScores:
    """The release scores of a labelled split's answers, consistent and inconsistent apart."""
    consistent: list[float] = []
    inconsistent: list[float] = []
    for record in tqdm(load(dataset, split), desc=f"{dataset}/{split}", file=sys.stderr, disable=not progress):
        _, score = score_answer(record.answer, record.sources, verifier, record.question)
        (consistent if record.supported else inconsistent).append(score)
    return LabelledScores(name=f"{dataset}/{split}", consistent=consistent, inconsistent=inconsistent)


def labelled_strata(dataset: str, split: str, verifier: Verifier, *, progress: bool = False) -> list[LabelledScores]:
    """The release scores of a labelled split's answers by stratum (`strata.STRATA`), consistent and
    inconsistent apart: one entry per stratum the answers fall in, each named after the split."""
    strata: dict[str, tuple[list[float], list[float]]] = {}
    for record in tqdm(load(dataset, split), desc=f"{dataset}/{split}", file=sys.stderr, disable=not progress):
        verdicts, score = score_answer(record.answer, record.sources, verifier, record.question)
        consistent, inconsistent = strata.setdefault(answer_stratum(verdicts) or "", ([], []))
        (consistent if record.supported else inconsistent).append(score)
    return [LabelledScores(name=f"{dataset}/{split}", consistent=consistent, inconsistent=inconsistent,
                           stratum=stratum or None) for stratum, (consistent, inconsistent) in strata.items()]


def balanced_accuracy(gold: list[bool], predicted: list[bool]) -> float:
    """Mean of the recall on supported and the recall on not supported records."""
    recalls = []
    for cls in (True, False):
        total = sum(1 for g in gold if g == cls)
        if total:
            recalls.append(sum(1 for g, p in zip(gold, predicted, strict=True) if g == cls and p == cls) / total)
    return sum(recalls) / len(recalls) if recalls else 0.0


def _evaluate(record: Record, verifier: OfflineVerifier) -> dict:
    index = SourceIndex(record.sources)
    claims = extract_claims(record.answer, record.question)
    verdicts = [verifier.verify_claim(claim, index) for claim in claims]
    states = [verdict.state for verdict in verdicts]
    checked = [state for claim, state in zip(claims, states, strict=True) if claim.checkable]
    supported = sum(1 for state in checked if state is State.SUPPORTED)
    row: dict = {
        "id": record.id,
        "gold": record.supported,
        "predicted": supported == len(checked),
        "three_way": "supported" if supported == len(checked)
        else "partially_supported" if supported else "not_supported",
        "label": record.label,
        "domain": record.domain,
        "states": [str(state) for state in states],
        "score": answer_score(v for claim, v in zip(claims, verdicts, strict=True) if claim.checkable),
    }
    if record.gold_sets:
        top = index.search(record.answer, 3)
        row["evidence_hit"] = any(
            all(any(span.start < end and start < span.end for span in top) for start, end in gold)
            for gold in record.gold_sets
        )
    return row


def _summarise(dataset: str, split: str, rows: list[dict], crashes: int, elapsed: float,
               verifier: OfflineVerifier) -> dict:
    gold = [row["gold"] for row in rows]
    predicted = [row["predicted"] for row in rows]
    report: dict = {
        "dataset": dataset,
        "split": split,
        "records": len(rows),
        "crashes": crashes,
        "elapsed_s": round(elapsed, 2),
        "verifier": f"{verifier.name} {verifier.config_fingerprint()}",
        "balanced_accuracy": balanced_accuracy(gold, predicted),
        "accuracy": sum(g == p for g, p in zip(gold, predicted, strict=True)) / len(rows),
    }
    if dataset == "wice":
        report["three_way_accuracy"] = sum(row.get("three_way") == row["label"] for row in rows) / len(rows)
        hits = [row["evidence_hit"] for row in rows if "evidence_hit" in row]
        report["evidence_recall_at_3"] = sum(hits) / len(hits) if hits else None
    if dataset == "summedits":
        by_domain: dict[str, list[dict]] = defaultdict(list)
        for row in rows:
            by_domain[row["domain"]].append(row)
        report["per_domain"] = {
            domain: {
                "records": len(domain_rows),
                "balanced_accuracy": balanced_accuracy([r["gold"] for r in domain_rows],
                                                       [r["predicted"] for r in domain_rows]),
            }
            for domain, domain_rows in sorted(by_domain.items())
        }
        report["average_balanced_accuracy"] = sum(
            figures["balanced_accuracy"] for figures in report["per_domain"].values()
        ) / len(report["per_domain"])
    return report


def _json_lines(path: Path, split: str, why_no_report: str) -> Iterator[dict]:
    """The records of a file that only has a tune split."""
    if split == "report":
        raise DatasetUnavailable(f"{why_no_report}; use --split tune")
    _require(path)
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def _wice(root: Path, split: str) -> Iterator[Record]:
    path = root / "wice" / "claim_dev.jsonl"
    for raw in _json_lines(path, split, "the WiCE report split is held back and not available here"):
        offsets, pieces, position = [], [], 0
        for sentence in raw["evidence"]:
            # WiCE sentences are kept one per line so offsets map back to sentence indexes.
            text = sentence.replace("\n", " ")
            offsets.append((position, position + len(text)))
            pieces.append(text)
            position += len(text) + 1
        gold_sets = [[offsets[i] for i in group] for group in raw["supporting_sentences"] if group]
        yield Record(
            id=raw["meta"]["id"],
            sources=[Source(id="page", text="\n".join(pieces) or " .")],
            answer=raw["claim"],
            supported=raw["label"] == "supported",
            label=raw["label"],
            gold_sets=gold_sets,
        )


def _summedits(root: Path, split: str) -> Iterator[Record]:
    wanted = _SUMMEDITS_SPLITS[split]
    paths = sorted((root / "summedits").glob("summedits_*.json"))
    if not paths:
        _require(root / "summedits" / "summedits_news.json")
    for path in paths:
        domain = path.stem.removeprefix("summedits_")
        for raw in json.loads(path.read_text(encoding="utf-8")):
            if raw["split"] == wanted and _kept(split, raw["doc"]):
                yield Record(id=raw["id"], sources=[Source(id="doc", text=raw["doc"])], answer=raw["summary"],
                             supported=raw["label"] == 1, label=str(raw["label"]), domain=domain)


def _halueval(root: Path, split: str) -> Iterator[Record]:
    path = root / "halueval" / "qa_one-turn_data.json"
    for number, raw in enumerate(_json_lines(path, split, "HaluEval has only a tune split here")):
        if not _kept(split, raw["knowledge"]):
            continue
        sources = [Source(id="knowledge", text=raw["knowledge"])]
        question = raw["question"].strip()
        # Alternate so that any prefix (--limit) keeps the 50/50 balance.
        yield Record(id=f"{number}-right", sources=sources, answer=raw["right_answer"], supported=True,
                     question=question)
        yield Record(id=f"{number}-hallucinated", sources=sources, answer=raw["hallucinated_answer"],
                     supported=False, question=question)


def _require(path: Path) -> None:
    if not path.exists():
        raise DatasetUnavailable(f"data file not found: {path} (set VERIFICATION_DATA_DIR)")
