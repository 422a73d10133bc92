"""`python -m verification`: check cases, print the JSON Schema, evaluate, calibrate, train the learned scorer.

Input errors (bad JSON, a missing or invalid field, an unreadable file) exit with status 2 and one
line naming the field; engine errors (a model server down or misconfigured) exit with status 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from pydantic import BaseModel, ValidationError

from verification.cli.run_table import format_table
from verification.cli.training import add_scorer_option, add_train_command
from verification.decision.calibration import DEFAULT_CONFIDENCE, DEFAULT_MAX_UNSAFE_RELEASE_RATE, ReleaseCalibration
from verification.decision.strata import answer_score
from verification.decision.verifier import Verifier, identity
from verification.engine import MissingFieldError, check_case, default_verifier
from verification.errors import VerificationError
from verification.llm.cascade import Cascade, CascadeVerifier
from verification.llm.client import ChatModel, OpenAIChatModel, describe_error
from verification.loop.repair import REPAIR_MODES
from verification.policy.constitution import DEFAULT
from verification.types import Case, RunRecord

_EXIT_ENGINE_ERROR = 1
_EXIT_INPUT_ERROR = 2

_SCHEMAS: dict[str, type[BaseModel]] = {"case": Case, "run": RunRecord}
_DATASETS = ("wice", "summedits", "halueval")


class InputError(Exception):
    """Input the CLI refuses; the message is the one line printed after "error: "."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    if getattr(args, "scorer", None):
        # The engine reads the choice where it builds the offline verifier, in this process only.
        os.environ["VERIFICATION_SCORER"] = args.scorer
    try:
        return args.run(args)
    except InputError as exc:
        return _fail(str(exc), _EXIT_INPUT_ERROR)
    except MissingFieldError as exc:
        # A case missing what this configuration needs (no answer, no model) is still bad input.
        return _fail(str(exc), _EXIT_INPUT_ERROR)
    except VerificationError as exc:
        return _fail(str(exc), _EXIT_ENGINE_ERROR)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m verification", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    check = commands.add_parser("check", help="check a case (or a JSONL file of cases) and print the run record")
    check.add_argument("case", nargs="?", help="a case JSON file, or - for standard input")
    check.add_argument("--jsonl", metavar="FILE", help="check one case per line; writes one run record per line")
    check.add_argument("--output", metavar="FILE", help="write to FILE instead of standard output")
    check.add_argument("--format", choices=("json", "table"), default="json", help="output format (one case)")
    check.add_argument("--offline", action="store_true", help="use the offline verifier even if LLM_BASE_URL is set")
    check.add_argument("--no-progress", action="store_true", help="no progress bar for --jsonl")
    check.add_argument("--calibration-group", metavar="GROUP",
                       help="judge the answers as answers of this group of the release calibration (its own "
                       "threshold; the built-in groups are wice/hold, summedits/hold, halueval/hold)")
    add_scorer_option(check)
    check.set_defaults(run=_check)

    schema = commands.add_parser("schema", help="print the JSON Schema of a case or a run record")
    schema.add_argument("which", nargs="?", choices=tuple(_SCHEMAS), default="case")
    schema.set_defaults(run=_schema)

    evaluate = commands.add_parser("eval", help="measure the verifier on a labelled dataset")
    evaluate.add_argument("--dataset", required=True, choices=_DATASETS)
    evaluate.add_argument("--split", required=True, choices=("tune", "hold", "report"),
                          help="hold: the part of the tune splits the shipped scorer never trained on")
    evaluate.add_argument("--limit", type=_positive_int, metavar="N", help="check at most N examples")
    evaluate.add_argument("--output", metavar="FILE", help="write per-example results to FILE")
    evaluate.add_argument(
        "--repair", choices=REPAIR_MODES, metavar="MODE",
        help="run the whole engine with this repair mode (none = the no-repair baseline, auto) and report "
        "unsupported claims before and after, supported claims removed and the regression rate",
    )
    evaluate.add_argument("--max-unsafe-release-rate", type=_rate, default=DEFAULT_MAX_UNSAFE_RELEASE_RATE,
                          metavar="RATE", help="risk budget whose calibrated threshold the release figures use "
                          "(default %(default)s)")
    add_scorer_option(evaluate)
    evaluate.set_defaults(run=_evaluate)

    calibrate = commands.add_parser(
        "calibrate", help="compute the release threshold for a risk budget from labelled cases",
        description="Each line of LABELLED.jsonl is a case plus \"consistent\": true or false (people's judgement "
        "of the answer against its sources) and an optional \"group\"; the threshold bounds the unsafe release "
        "rate in every group. With --tune, the labelled data are the tune splits of the public data sets. With "
        "LLM_BASE_URL set, the calibration is the model path's: an answer scores by the claims the model decides "
        "in the cascade (those the offline verifier cannot settle at this budget), and answers it decides none "
        "of are left out.",
    )
    calibrate.add_argument("labelled", nargs="?", metavar="LABELLED.jsonl", help="labelled cases, one per line")
    calibrate.add_argument("--tune", action="store_true",
                           help="calibrate on the tune splits (WiCE, SummEdits, HaluEval) instead of a file: "
                           "the parts the shipped scorer never trained on (--split hold of eval)")
    calibrate.add_argument("--max-unsafe-release-rate", type=_rate, default=DEFAULT_MAX_UNSAFE_RELEASE_RATE,
                           metavar="RATE", help="the risk budget (default %(default)s)")
    calibrate.add_argument("--confidence", type=_rate, default=DEFAULT_CONFIDENCE, metavar="LEVEL",
                           help="confidence of the upper bound (default %(default)s)")
    calibrate.add_argument("--output", metavar="FILE", help="write the calibration JSON to FILE")
    calibrate.add_argument("--save-builtin", action="store_true",
                           help="with --tune: save the scores as the engine's built-in calibration data")
    calibrate.add_argument("--offline", action="store_true",
                           help="use the offline verifier even if LLM_BASE_URL is set")
    add_scorer_option(calibrate)
    calibrate.set_defaults(run=_calibrate)

    add_train_command(commands)
    return parser


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1 (exclusive), got {value}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


# ---------------------------------------------------------------------------------------------
# check


def _check(args: argparse.Namespace) -> int:
    if (args.case is None) == (args.jsonl is None):
        raise InputError("check: give one CASE file (or -) or --jsonl FILE")
    if args.jsonl is not None and args.format != "json":
        raise InputError("--format: table prints one case; --jsonl writes JSON lines")
    checker = _checker(offline=args.offline, calibration_group=args.calibration_group)
    if args.jsonl is not None:
        cases = _read_jsonl(args.jsonl)
        with _opened(args.output) as out:
            for case in _progress(cases, enabled=not args.no_progress):
                out.write(_record_json(checker(case)) + "\n")
                out.flush()
        return 0
    case = _parse_case(_read(args.case), where="")
    record = checker(case)
    with _opened(args.output) as out:
        out.write((format_table(record) if args.format == "table" else _record_json(record, indent=2)) + "\n")
    return 0


def _checker(*, offline: bool, calibration_group: str | None = None) -> Callable[[Case], RunRecord]:
    model: ChatModel | None = None if offline else OpenAIChatModel.from_env()
    return lambda case: check_case(case, model=model, calibration_group=calibration_group)


def _record_json(record: RunRecord, indent: int | None = None) -> str:
    # by_alias: a repair's "from" is a Python keyword and lives in the model as `from_`.
    return record.model_dump_json(by_alias=True, indent=indent)


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InputError(f"cannot read {path}: {reason}") from None


def _parse_case(text: str, *, where: str) -> Case:
    """`where` prefixes messages, such as "line 3: "."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        # A JSONL line is one line: its number is in `where` already.
        position = f"column {exc.colno}" if where else f"line {exc.lineno} column {exc.colno}"
        raise InputError(f"{where}invalid JSON: {exc.msg} at {position}") from None
    if not isinstance(data, dict):
        raise InputError(f"{where}a case must be a JSON object, got {type(data).__name__}")
    try:
        return Case.model_validate(data)
    except ValidationError as exc:
        raise InputError(f"{where}{describe_error(exc)}") from None


def _read_jsonl(path: str) -> list[Case]:
    # Every line is validated before the first case is checked: a typo on line 900 should not cost
    # 899 cases' worth of model calls before it is reported.
    cases = []
    for number, line in enumerate(_read(path).splitlines(), start=1):
        if line.strip():
            cases.append(_parse_case(line, where=f"line {number}: "))
    return cases


def _progress(cases: list[Case], *, enabled: bool) -> Iterator[Case]:
    from tqdm import tqdm

    yield from tqdm(cases, desc="cases", unit="case", file=sys.stderr, disable=not enabled)


@contextmanager
def _opened(path: str | None) -> Iterator[TextIO]:
    if path is None:
        yield sys.stdout
        return
    try:
        handle = open(path, "w", encoding="utf-8")  # noqa: SIM115 (closed below; stdout must not be)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    with handle:
        yield handle


# ---------------------------------------------------------------------------------------------
# schema and eval


def _schema(args: argparse.Namespace) -> int:
    mode: Any = "serialization" if args.which == "run" else "validation"
    print(json.dumps(_SCHEMAS[args.which].model_json_schema(mode=mode), indent=2))
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    if args.repair is not None:
        from verification.training import repair_evaluation

        repair_evaluation.run(
            args.dataset, args.split, repair=args.repair, limit=args.limit, output=args.output, progress=True
        )
        return 0
    from verification.training import evaluation

    evaluation.run(args.dataset, args.split, limit=args.limit, output=args.output, progress=True,
                   max_unsafe_release_rate=args.max_unsafe_release_rate)
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    from verification.decision import calibration as release
    from verification.training import evaluation

    if args.tune == (args.labelled is not None):
        raise InputError("calibrate: give one LABELLED.jsonl file or --tune")
    if args.save_builtin and not args.tune:
        raise InputError("--save-builtin: the built-in calibration comes from the tune splits; add --tune")
    verifier = default_verifier(None if args.offline or args.tune else OpenAIChatModel.from_env())
    name = identity(verifier)
    if args.tune:
        groups = [group for dataset in evaluation.DATASETS
                  for group in evaluation.labelled_strata(dataset, "hold", verifier, progress=True)]
    else:
        score = _answer_scorer(verifier, args.max_unsafe_release_rate)
        rows = []
        for group, consistent, case in _read_labelled(args.labelled):
            found = score(case)
            if found is not None:
                rows.append((group, consistent, found))
        if not rows:
            raise InputError(f"{args.labelled}: the model decided no claim of these answers; nothing to calibrate")
        groups = release.group_scores(rows)
    try:
        calibration = release.calibrate(groups, max_unsafe_release_rate=args.max_unsafe_release_rate,
                                        confidence=args.confidence, verifier=name)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    if args.save_builtin:
        scorer = getattr(verifier, "scorer", None)
        if scorer is None:
            raise InputError("--save-builtin: the built-in calibration is the offline verifier's; add --offline")
        release.save_builtin(release.CalibrationData(verifier=name, groups=groups, computed=calibration.computed,
                                                     confidence=args.confidence),
                             release.builtin_path(scorer.name.split("/")[0]))
    print(_format_calibration(calibration), file=sys.stderr)
    with _opened(args.output) as out:
        out.write(calibration.model_dump_json(indent=2) + "\n")
    return 0


def _answer_scorer(verifier: Verifier, max_unsafe_release_rate: float) -> Callable[[Case], float | None]:
    """The release score of a labelled answer for the path `verifier` names (None: not on that path).

    The model path of a cascade is calibrated on what it decides: the claims the offline verifier leaves
    to it at this budget, each answer scored by its weakest such claim.
    """
    from verification.training import evaluation

    bound = verifier.bind(DEFAULT.policy.model_copy(update={"max_unsafe_release_rate": max_unsafe_release_rate})) \
        if isinstance(verifier, Cascade) else verifier

    def score(case: Case) -> float | None:
        verdicts, answer = evaluation.score_answer(_answer_of(case), list(case.sources), bound, case.question)
        if not isinstance(bound, CascadeVerifier):
            return answer
        decided = [verdict for verdict in verdicts if verdict.decided_by is not None or
                   verdict.method == "cascade:model-failed"]
        return answer_score(decided) if decided else None

    return score


def _format_calibration(calibration: ReleaseCalibration) -> str:
    """The threshold and, per group, counts, unsafe releases with their bound, and automation."""
    verdict = "" if calibration.met else "  NOT MET: no threshold keeps the bound within budget; nothing releases"
    lines = [f"threshold {calibration.threshold:.4f} for a budget of {calibration.max_unsafe_release_rate:.1%} "
             f"unsafe releases at {calibration.confidence:.0%} confidence ({calibration.verifier}){verdict}"]
    for group in calibration.groups:
        lines.append(
            f"  {group.name:<20} {group.inconsistent:>5} inconsistent, {group.unsafe_released:>4} released "
            f"({group.unsafe_release_rate:.1%}, bound {group.unsafe_upper_bound:.1%}); {group.consistent:>5} "
            f"consistent, automation {group.automation:.1%}"
        )
    for stratum in calibration.strata:
        at = ("the pooled threshold (too few labels of its own)" if stratum.pooled else
              "nothing on a score" if stratum.threshold is None else f"threshold {stratum.threshold:.4f}")
        bound = stratum.bound
        lines.append(
            f"  stratum {stratum.name:<12} {bound.inconsistent:>5} inconsistent, {bound.unsafe_released:>4} released "
            f"(bound {bound.unsafe_upper_bound:.1%}); {bound.consistent:>5} consistent, automation "
            f"{bound.automation:.1%}; releases at {at}"
        )
    return "\n".join(lines)


def _read_labelled(path: str) -> Iterator[tuple[str, bool, Case]]:
    """(group, consistent, case) per line; every line is validated before the first is scored."""
    rows = []
    for where, data in json_lines(path, "a labelled case"):
        consistent = data.pop("consistent", None)
        if not isinstance(consistent, bool):
            raise InputError(f"{where}consistent: required, true or false")
        group = data.pop("group", "labelled")
        if not isinstance(group, str) or not group.strip():
            raise InputError(f"{where}group: must be a non-empty string")
        case = _parse_case(json.dumps(data), where=where)
        if case.answer is None:
            raise InputError(f"{where}answer: required to calibrate")
        rows.append((group, consistent, case))
    if not rows:
        raise InputError(f"{path}: no labelled cases")
    return iter(rows)


def json_lines(path: str, what: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """("line N: ", its object) for each non-blank line of a JSONL file (or - for standard input); InputError
    naming the line where one is not a JSON object (`what` says what a line holds, such as "a labelled case")."""
    for number, line in enumerate(_read(path).splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {number}: "
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}invalid JSON: {exc.msg} at column {exc.colno}") from None
        if not isinstance(data, dict):
            raise InputError(f"{where}{what} must be a JSON object, got {type(data).__name__}")
        yield where, data


def _answer_of(case: Case) -> str:
    assert case.answer is not None  # _read_labelled refuses cases without one
    return case.answer


def _fail(message: str, status: int) -> int:
    print(f"error: {message}", file=sys.stderr)
    return status
