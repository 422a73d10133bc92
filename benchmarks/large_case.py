"""Large cases: the engine's cost against the size of a case's sources, and a 1 MB case end to end.

    .venv/bin/python benchmarks/large_case.py [--repeats 3] [--sizes 10000,100000,1000000] [--no-stack]

1. The offline engine alone (`check_case`, what a worker runs), pinned to one core, on sources of 10k, 100k
   and 1M characters in four shapes: ordinary prose in 5 sources; 5 sources that are each one long run
   with no sentence punctuation (scraped tables, transcripts); one paragraph repeated to fill 5 sources;
   and many tiny sources of 500 characters (2,000 at 1M: more than the API's 50, so this one is what the
   CLI or a raised API_MAX_SOURCES allows). Each case's answer is 10 claims taken from the start of its
   sources, the same at every size, one of them a price with its amount changed (`make_case`). Every
   repeat builds new texts (no cache can carry a result from one repeat to the next); a warm-up round
   comes first and the best repeat of each case is reported, CPU beside wall time, with a reference
   workload (tokenising the same sources with a plain regular expression, linear by construction) timed
   beside it to show how fast the machine was meanwhile.
2. The persisted path for a 1 MB case (5 sources of 200,000 characters, each shape the API accepts):
   `POST /api/v1/cases` through Django's test client, the `intake.verify_case` task run in-process (load,
   engine, store the chain and route it), and the reviewer's case page with the evidence marked, each
   stage timed (wall, CPU of this process, CPU of the PostgreSQL server processes serving it).

Exits non-zero when, for a shape, the engine's CPU cost per character at the largest size is over twice
its cost at the size ten times smaller (cost growing faster than the sources), when a case of the largest
size takes longer than its constitution's `max_wall_ms`, or when the 1 MB case is not accepted, does not
finish within that budget, or its page does not show its evidence.

Needs PostgreSQL (and Redis, where the API hands the task after the commit) on 127.0.0.1 for part 2; it
drops and recreates its own database (BENCH_DATABASE, BENCH_REDIS_URL choose others).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verification.engine import check_case  # noqa: E402
from verification.policy.constitution import DEFAULT as DEFAULT_CONSTITUTION  # noqa: E402
from verification.types import Case, Source  # noqa: E402

DATABASE = os.environ.get("BENCH_DATABASE", "reviewconsole_large_bench")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/12")
MAX_GROWTH = 2.0
"""Largest allowed ratio of the CPU cost per character at one size to the cost at a tenth of it."""
API_SOURCE_CHARS = 200_000
"""A source's largest size at the API (API_MAX_SOURCE_CHARS): a 1 MB case there is 5 sources of it."""
TINY_SOURCE_CHARS = 500
_REFERENCE_WORD = re.compile(r"\w+")

_ADJECTIVES = "annual monthly premium basic standard extended regional global quarterly weekly".split()
_NOUNS = ("plan refund invoice seat account policy warranty device battery charger licence order customer "
          "manager report team office contract payment discount shipment").split()
_VERBS = "includes covers requires allows offers supports replaces extends limits provides".split()


def _sentence(rng: random.Random, number: int) -> str:
    """One sentence of a handbook, with its own numbers, so sources grow their vocabulary as they grow;
    every fourth one a price."""
    if number % 4 == 3:
        return (f"The {rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)} costs ${rng.randint(5, 90)} per month in "
                f"region R{number}.")
    return (f"The {rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)} {rng.choice(_VERBS)} {rng.randint(1, 500)} "
            f"{rng.choice(_NOUNS)}s for the {rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)} of region "
            f"R{number} since {1990 + number % 30}.")


def _filled(size: int, next_text: Callable[[], str], joiner: str = " ") -> str:
    parts, length = [], 0
    while length < size:
        part = next_text()
        parts.append(part)
        length += len(part) + len(joiner)
    return joiner.join(parts)[:size].rstrip() or "x"


def prose(size: int, rng: random.Random) -> list[str]:
    """Ordinary sentences in 5 sources, a paragraph break every 6 sentences."""
    counter = iter(range(10**9))
    paragraph = lambda: " ".join(_sentence(rng, next(counter)) for _ in range(6))  # noqa: E731
    return [_filled(size // 5, paragraph, "\n\n") for _ in range(5)]


def unpunctuated(size: int, rng: random.Random) -> list[str]:
    """5 sources, each one run of words with no sentence punctuation and no line break."""
    counter = iter(range(10**9))
    return [_filled(size // 5, lambda: _sentence(rng, next(counter)).rstrip(".")) for _ in range(5)]


def repeated(size: int, rng: random.Random) -> list[str]:
    """One paragraph of 8 sentences, repeated to fill 5 sources."""
    paragraph = " ".join(_sentence(rng, number) for number in range(8))
    return [_filled(size // 5, lambda: paragraph, "\n") for _ in range(5)]


def tiny(size: int, rng: random.Random) -> list[str]:
    """Sources of 500 characters each."""
    counter = iter(range(10**9))
    return [_filled(TINY_SOURCE_CHARS, lambda: _sentence(rng, next(counter))) for _ in range(size // TINY_SOURCE_CHARS)]


SHAPES: dict[str, Callable[[int, random.Random], list[str]]] = {
    "prose": prose, "unpunctuated": unpunctuated, "repeated": repeated, "tiny sources": tiny,
}
API_SHAPES = ("prose", "unpunctuated", "repeated")
"""The shapes a 1 MB case can take at the API (at most 50 sources)."""


ANSWER_FROM_CHARS = 2_000
"""The answer's claims come from this many first characters of the case's text, the same at every size."""


def make_case(shape: str, size: int, seed: int) -> Case:
    """A case of `size` characters of sources in `shape`, answered by 10 claims taken from them.

    The claims come from the first ANSWER_FROM_CHARS characters of the sources, which a seed makes the same
    at every size: what grows from one size to the next is only the text the claims are checked against.
    One claim is a price with its amount changed (a critical claim: the case goes to a person whatever a
    repair makes of it).
    """
    texts = SHAPES[shape](size, random.Random(seed))
    opening = " ".join(texts)[:ANSWER_FROM_CHARS]
    pick = random.Random(seed)  # its own draws: the same claims whatever the size
    sentences = [sentence for sentence in re.findall(r"[A-Z][^.\n]{30,}\.", opening) if "$" not in sentence]
    words = opening.split()
    claims = []
    for _ in range(9):
        if len(sentences) >= 5:
            claim = pick.choice(sentences).rstrip(".")
        else:  # no sentences to take: a run of 14 words
            first = pick.randrange(max(1, len(words) - 16))
            claim = " ".join(words[first : first + 14])
        claims.append(claim[:1].upper() + claim[1:] + ".")
    price = re.search(r"[Tt]he (\w+ \w+) costs \$(\d+) per month in (region R\d+)", opening)
    if price:
        claims.insert(5, f"The {price[1]} costs ${int(price[2]) + 1000} per month in {price[3]}.")
    sources = [Source(id=f"source-{number}", title=f"Handbook part {number}", text=text)
               for number, text in enumerate(texts)]
    return Case(external_id=f"large-{shape}-{size}-{seed}", question="What does the plan include?",
                answer=" ".join(claims), sources=sources)


# --- 1. The engine alone ---------------------------------------------------------------------------


@dataclass
class EngineRun:
    shape: str
    size: int
    sources: int
    cpu_s: float
    wall_s: float
    reference_s: float
    terminal: str
    reason: str
    claims: int

    @property
    def ns_per_char(self) -> float:
        return self.cpu_s * 1e9 / self.size


def _reference_seconds(case: Case) -> float:
    """CPU seconds of a fixed, engine-independent linear workload over the same sources."""
    started = time.thread_time()
    for source in case.sources:
        sorted(set(_REFERENCE_WORD.findall(source.text.lower())))
    return time.thread_time() - started


def time_engine(shape: str, size: int, seed: int) -> EngineRun:
    case = make_case(shape, size, seed)
    reference = _reference_seconds(case)
    cpu, wall = time.thread_time(), time.perf_counter()
    record = check_case(case)
    cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
    return EngineRun(shape, size, len(case.sources), cpu, wall, reference, record.terminal.value,
                     record.reason.value, record.metrics.claims)


def engine_part(sizes: list[int], repeats: int) -> tuple[dict[tuple[str, int], EngineRun], list[str]]:
    for shape in SHAPES:  # warm imports, regex caches, the built-in calibration and the allocator
        time_engine(shape, sizes[0], seed=1)
    best: dict[tuple[str, int], EngineRun] = {}
    for repeat in range(repeats):
        for shape in SHAPES:
            for size in sizes:
                run = time_engine(shape, size, seed=100 + repeat)
                if (shape, size) not in best or run.cpu_s < best[shape, size].cpu_s:
                    best[shape, size] = run
    budget_ms = DEFAULT_CONSTITUTION.policy.max_wall_ms
    failures = []
    print(f"{'shape':<14}{'chars':>10}{'sources':>9}{'CPU ms':>10}{'wall ms':>10}{'ns/char':>9}"
          f"{'growth':>8}{'x ref':>7}  outcome")
    for shape in SHAPES:
        previous: EngineRun | None = None
        for size in sizes:
            run = best[shape, size]
            growth = run.ns_per_char / previous.ns_per_char if previous and previous.size * 10 == size else None
            print(f"{shape:<14}{size:>10,}{run.sources:>9}{run.cpu_s * 1000:>10.0f}{run.wall_s * 1000:>10.0f}"
                  f"{run.ns_per_char:>9.0f}{f'{growth:.2f}' if growth else '':>8}"
                  f"{run.cpu_s / run.reference_s:>7.0f}  {run.terminal} {run.reason} ({run.claims} claims)")
            if growth is not None and growth > MAX_GROWTH:
                failures.append(f"{shape}: CPU per character at {size:,} is {growth:.2f}x its cost at "
                                f"{previous.size:,} (at most {MAX_GROWTH}x)")
            if size == sizes[-1] and (run.wall_s * 1000 > budget_ms or run.reason == "TIME_BUDGET_EXHAUSTED"):
                failures.append(f"{shape}: {size:,} characters took {run.wall_s * 1000:.0f} ms, "
                                f"the budget is {budget_ms} ms")
            previous = run
    print(f"growth: CPU per character against the size ten times smaller (at most {MAX_GROWTH}); x ref: the "
          f"engine's CPU over the reference workload's on the same sources; budget {budget_ms} ms a case")
    return best, failures


# --- 2. The persisted path -------------------------------------------------------------------------


@dataclass
class Stage:
    wall_s: float = 0.0
    cpu_s: float = 0.0
    database_cpu_s: float = 0.0


class _Timed:
    """Wall time, this process's CPU and the database server's CPU of one stage."""

    def __init__(self, stage: Stage) -> None:
        from benchstack import CpuMeter, database_backends

        self.stage = stage
        self.meter = CpuMeter(lambda: database_backends(DATABASE))

    def __enter__(self) -> _Timed:
        self.meter.start()
        self.cpu, self.wall = time.process_time(), time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stage.wall_s = time.perf_counter() - self.wall
        self.stage.cpu_s = time.process_time() - self.cpu
        self.stage.database_cpu_s = self.meter.stop()


def _setup_stack() -> tuple[object, str, object]:
    from benchstack import configure_django, reset_database

    configure_django(DATABASE, REDIS_URL=REDIS_URL, SPOT_CHECK_RATE="0", DB_CONN_MAX_AGE="3600")
    reset_database(DATABASE)
    subprocess.run(["redis-cli", "-u", REDIS_URL, "flushdb"], check=True, capture_output=True)
    import django

    django.setup()
    from django.contrib.auth.models import Group, User

    from reviewconsole.accounts.roles import Role
    from reviewconsole.intake.services import client_create

    client, token = client_create(name="Large cases")
    reviewer = User.objects.create_user(username="rita")
    reviewer.groups.add(Group.objects.get_or_create(name=Role.REVIEWER.value)[0])
    return client, token, reviewer


def persisted_part(repeats: int) -> list[str]:
    _, token, reviewer = _setup_stack()
    from django.test import Client

    from reviewconsole.intake.models import Case as CaseRow
    from reviewconsole.intake.tasks import verify_case
    from reviewconsole.review.models import Escalation

    budget_ms = DEFAULT_CONSTITUTION.policy.max_wall_ms
    http = Client()
    http.force_login(reviewer)
    failures: list[str] = []
    print(f"\n1 MB case through the console ({repeats} repeats, best by total wall time): API submission, "
          "the task run in-process, the reviewer's case page")
    print(f"{'shape':<14}{'body MB':>8}  {'submit':>22}  {'run (task)':>22}  {'case page':>22}  {'page MB':>7}"
          f"{'marks':>6}  outcome")
    print(f"{'':<14}{'':>8}  {'wall / CPU / db ms':>22}  {'wall / CPU / db ms':>22}  {'wall / CPU / db ms':>22}")
    # Warm-up: the first request of a process loads URL patterns, templates and the API's token cache.
    warm = make_case("prose", 10_000, seed=1)
    warm_id = http.post("/api/v1/cases", data=warm.model_dump_json(exclude_none=True).encode(),
                        content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}").json()["id"]
    verify_case(warm_id)
    http.get(f"/review/cases/{warm_id}/")
    for shape in API_SHAPES:
        results = []
        for repeat in range(repeats):
            case = make_case(shape, 5 * API_SOURCE_CHARS, seed=200 + repeat)
            body = case.model_dump_json(exclude_none=True).encode()
            submit, run, page = Stage(), Stage(), Stage()
            with _Timed(submit):
                answer = http.post("/api/v1/cases", data=body, content_type="application/json",
                                   HTTP_AUTHORIZATION=f"Bearer {token}")
            if answer.status_code != 202:
                failures.append(f"{shape}: the API answered {answer.status_code}: {answer.content[:300]!r}")
                break
            case_id = answer.json()["id"]
            with _Timed(run):
                verify_case(case_id)
            stored = CaseRow.objects.get(pk=case_id)
            escalation = Escalation.objects.filter(case_id=case_id).first()
            if escalation is None:
                failures.append(f"{shape}: the case ended {stored.status} {stored.reason} with no escalation to "
                                "show (the benchmark's answers are meant to need a person)")
                break
            with _Timed(page):
                shown = http.get(f"/review/cases/{case_id}/")
            html = shown.content.decode()
            marks = html.count('<mark id="ev-')  # evidence marked in the sources (`review.marking`)
            results.append((submit, run, page, len(body), len(html), marks, stored, shown.status_code))
        if not results:
            continue
        submit, run, page, body_bytes, page_bytes, marks, stored, status = min(
            results, key=lambda r: r[0].wall_s + r[1].wall_s + r[2].wall_s
        )
        stages = "  ".join(f"{s.wall_s * 1000:>8.0f} /{s.cpu_s * 1000:>6.0f} /{s.database_cpu_s * 1000:>5.0f}"
                           for s in (submit, run, page))
        print(f"{shape:<14}{body_bytes / 1e6:>8.2f}  {stages}  {page_bytes / 1e6:>7.2f}{marks:>6}  "
              f"{stored.status} {stored.terminal} {stored.reason}")
        if stored.status not in ("RELEASED", "REJECTED", "ESCALATED"):
            failures.append(f"{shape}: the 1 MB case ended {stored.status}, not a terminal outcome")
        if run.wall_s * 1000 > budget_ms:
            failures.append(f"{shape}: the 1 MB case's run took {run.wall_s * 1000:.0f} ms, the budget is "
                            f"{budget_ms} ms")
        if status != 200 or not marks:
            failures.append(f"{shape}: the case page answered {status} with {marks} evidence marks")
    subprocess.run(["redis-cli", "-u", REDIS_URL, "flushdb"], check=True, capture_output=True)
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", default="10000,100000,1000000",
                        help="characters of sources, comma-separated, each ten times the one before")
    parser.add_argument("--no-stack", action="store_true", help="time the engine alone (no PostgreSQL needed)")
    args = parser.parse_args()
    try:
        sizes = sorted(int(size) for size in args.sizes.split(","))
    except ValueError:
        parser.error("--sizes: give whole numbers of characters separated by commas, e.g. 10000,100000")
    if args.repeats < 1 or sizes[0] < 5 * TINY_SOURCE_CHARS:
        parser.error(f"--repeats must be at least 1 and every size at least {5 * TINY_SOURCE_CHARS}")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    started = time.perf_counter()
    _, failures = engine_part(sizes, args.repeats)
    if not args.no_stack:
        failures += persisted_part(args.repeats)
    print(f"\npeak memory (max RSS): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB; "
          f"whole run {time.perf_counter() - started:.0f} s on 1 pinned core")
    if failures:
        print("FAIL:\n  " + "\n  ".join(failures))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
