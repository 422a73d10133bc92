"""The reviewer's pages under a large queue: 100,000 open escalations in PostgreSQL.

Seeds a fresh database with 100,000 escalated cases (set-based INSERT ... SELECT generate_series, the
fastest way to fill PostgreSQL short of COPY from a file, then VACUUM ANALYZE as autovacuum would) and
one case with 5 candidates of 20 claims each, then times the queue page (its top, and a page deep in
it as 500 clicks on Next reach it) and that case page through Django's test client, in process, and the
queue page's counts per reason alone (`review.queue.queue_page_counts`, as the page counts), and searches
of the queue's texts in English and in Chinese. Prints the SQL queries and the median and p95 time of each;
exits non-zero when one misses its target below.

    .venv/bin/python benchmarks/console.py [--escalations 100000] [--requests 200] [--database NAME]

Needs PostgreSQL on 127.0.0.1 (as `make test` does); drops and recreates its own database.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from urllib.parse import urlencode

from benchstack import configure_django, reset_database

DATABASE = "reviewconsole_console_bench"  # --database names another, for runs side by side
# name: (max queries, max p95 in milliseconds)
TARGETS = {"queue": (10, 60.0), "deep": (10, 60.0), "case": (15, 100.0), "counts": (1, 2.0)}
# Searches of the queue's texts (one question in 50 is in Chinese): an English word most cases have, a
# Chinese word, and Chinese words written together without spaces, as Chinese is written.
SEARCHES = ("refund", "退款", "年度套餐退款")
DEEP_PAGE = 501  # the page 500 clicks on Next lead to
CANDIDATES, CLAIMS_PER_CANDIDATE = 5, 20
STATES = ["SUPPORTED", "REFUTED", "INSUFFICIENT_EVIDENCE", "SUPPORTED", "CONFLICTING", "NOT_VERIFIABLE"]


def _seed_queue(count: int, client_id: int, reviewer_ids: list[int]) -> None:
    """`count` open escalations with varied reasons, severities, ages, constitutions and holders."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO intake_case (client_id, question, metadata, constitution_name, constitution_version,
                status, terminal, reason, release_held, final_answer, verifier, error, attempts,
                submitted_at, finished_at, updated_at)
            SELECT %s, CASE WHEN n %% 50 = 0 THEN '第 ' || n || ' 个问题：年度套餐可以退款吗？'
                ELSE 'Question number ' || n || ': can I get a refund on my annual plan?' END, '{}',
                (ARRAY['', 'customer-support', 'medical-information'])[1 + n %% 3], '',
                'ESCALATED', (ARRAY['REVIEW', 'ABSTAIN'])[1 + n %% 2],
                (ARRAY['CRITICAL_CLAIM', 'CONFLICTING_EVIDENCE', 'UNSUPPORTED_CLAIM', 'CYCLE_DETECTED',
                       'RULE_FAILED', 'REPAIR_BUDGET_EXHAUSTED'])[1 + n %% 6],
                '', '', 'offline/1', '', 1,
                now() - n * interval '7 seconds', now() - n * interval '7 seconds', now()
            FROM generate_series(1, %s) AS n
            """,
            [client_id, count],
        )
        cursor.execute(
            """
            INSERT INTO review_escalation (case_id, status, priority, reason, severity, is_spot_check,
                holder_id, lease_expires_at, assigned_to_id, reviews_required, held_release, created_at)
            SELECT c.id, 'OPEN', 100 + (c.id * 37) %% 300, c.reason,
                (ARRAY['CRITICAL', 'MODERATE', 'MINOR'])[1 + (c.id / 6) %% 3], c.id %% 20 = 0,
                CASE WHEN c.id %% 50 = 0 THEN (%s::bigint[])[1 + c.id %% %s] END,
                CASE WHEN c.id %% 50 = 0 THEN now() + interval '5 minutes' END,
                -- A lead has assigned one case in ten; one in eight gets a second review.
                CASE WHEN c.id %% 10 = 0 THEN (%s::bigint[])[1 + c.id %% %s] END,
                CASE WHEN c.id %% 8 = 0 THEN 2 ELSE 1 END, false,
                c.submitted_at
            FROM intake_case c
            """,
            [reviewer_ids, len(reviewer_ids), reviewer_ids, len(reviewer_ids)],
        )



def _seed_big_case(client) -> int:
    """One escalated case with 5 candidates of 20 claims, evidence, verdicts, findings and repairs."""
    from reviewconsole.intake.constitutions import constitution_pin
    from reviewconsole.intake.models import Candidate, Case, CaseStatus, Claim, Finding, RepairAttempt, RuleVerdict
    from reviewconsole.intake.models import Source as SourceRow
    from reviewconsole.review.models import CaseNote, ClaimLabel, Escalation
    from verification.types import sha256_text

    sentences = [f"Fact {n}: the annual plan includes benefit number {n} for 30 days. " for n in range(40)]
    source_text = "".join(sentences)
    pin = constitution_pin(None)  # the default constitution in force: every case pins one
    case = Case.objects.create(
        client=client, question="What does the annual plan include?", answer="", status=CaseStatus.ESCALATED,
        terminal="REVIEW", reason="CONFLICTING_EVIDENCE", verifier="offline/1", constitution_pin=pin,
        constitution_name=pin.document.name, constitution_version=pin.short_sha,
        run_record={
            "metrics": {"repairs_attempted": 4, "verifier_calls": 100, "model_calls": 0, "elapsed_ms": 80},
            "review_package": {
                "original_candidate": "c0", "current_candidate": "c4", "target_failures": ["k3"],
                "new_failures": [], "rule_failures": [], "budget_reason": None,
                "policy_reason": "conflicting evidence", "attempts": [{}] * 4, "evidence_used": [{}] * 20,
            },
        },
    )
    SourceRow.objects.create(case=case, position=0, source_id="plan", title="Plan", text=source_text,
                             sha256=sha256_text(source_text))
    parent = None
    for position in range(CANDIDATES):
        claims_text = [f"The plan includes benefit {n + position} for 30 days." for n in range(CLAIMS_PER_CANDIDATE)]
        text = " ".join(claims_text)
        candidate = Candidate.objects.create(
            case=case, position=position, candidate_id=f"c{position}", parent=parent,
            origin="CLIENT" if position == 0 else "REPAIR", operation="" if position == 0 else "REPLACE_WITH_EVIDENCE",
            text=text, sha256=sha256_text(text),
        )
        offset, rows = 0, []
        for index, claim_text in enumerate(claims_text):
            at = source_text.index(sentences[index + position])
            rows.append(Claim(
                candidate=candidate, position=index, claim_id=f"k{index + position}", text=claim_text,
                start=offset, end=offset + len(claim_text), state=STATES[(index + position) % len(STATES)],
                severity="CRITICAL" if index % 4 == 0 else "MINOR", method="offline", confidence=0.7,
                evidence=[{"source_id": "plan", "start": at, "end": at + len(sentences[index + position]) - 1,
                           "quote": sentences[index + position].strip()}],
                rationale="The cited sentence states what the claim says.",
            ))
            offset += len(claim_text) + 1
        Claim.objects.bulk_create(rows)
        RuleVerdict.objects.bulk_create(
            RuleVerdict(candidate=candidate, position=n, rule=rule, passed=n == 0, critique="", checked_by="code")
            for n, rule in enumerate(["word-limit", "no-promise-outside-sources"])
        )
        Finding.objects.create(candidate=candidate, position=0, claim="benefit", problem="unsupported")
        parent = candidate
    RepairAttempt.objects.bulk_create(
        RepairAttempt(case=case, position=n, from_candidate=f"c{n}", to_candidate=f"c{n + 1}" if n % 2 else "",
                      operation="REPLACE_WITH_EVIDENCE", target_claim_ids=["k3"], outcome="ACCEPTED" if n % 2 else
                      "REJECTED", failure="" if n % 2 else "a supported claim was removed")
        for n in range(4)
    )
    Escalation.objects.create(case=case, reason=case.reason, severity="CRITICAL", priority=999)
    author = _reviewer()
    CaseNote.objects.bulk_create(CaseNote(case=case, author=author, text=f"note {n}") for n in range(3))
    # The reviewer has labelled half the claims of the version on screen: the page shows labels beside states.
    labels = ["SUPPORTED", "REFUTED", "NOT_IN_SOURCES"]
    shown = Claim.objects.filter(candidate=parent).order_by("position")
    ClaimLabel.objects.bulk_create(
        ClaimLabel(claim=claim, case=case, reviewer=author, label=labels[n % 3]) for n, claim in enumerate(shown)
        if n % 2 == 0
    )
    return case.pk


def _count_queue() -> None:
    """Fill the queue's kept counts from the rows the seed wrote, as the data migration (0007) does for
    a database that has escalations, and check them against a count of the queue."""
    from django.db import connection

    from reviewconsole.review.queue_counts import queue_counts_drift
    from reviewconsole.review.services.queue_counts import queue_counts_rebuild

    queue_counts_rebuild()
    assert not queue_counts_drift(), "the kept counts differ from a count of the queue"
    with connection.cursor() as cursor:
        # What autovacuum does to a table in steady state: statistics, and a visibility map so that
        # index scans need not visit the table.
        cursor.execute("VACUUM ANALYZE")


def _reviewer():
    from django.contrib.auth.models import Group, User

    from reviewconsole.accounts.roles import Role

    user, created = User.objects.get_or_create(username="bench-reviewer")
    if created:
        user.groups.add(Group.objects.get_or_create(name=Role.REVIEWER.value)[0])
    return user


def _deep_page_url(page: int) -> tuple[str, int]:
    """The link Next shows on page `page - 1`, and the case that must open that page."""
    from reviewconsole.review.models import Escalation, EscalationStatus
    from reviewconsole.review.queue import QUEUE_PAGE_SIZE, QueueCursor
    from reviewconsole.review.queue_order import QUEUE_ORDER

    queue = Escalation.objects.filter(status=EscalationStatus.OPEN).order_by(*QUEUE_ORDER)
    offset = (page - 1) * QUEUE_PAGE_SIZE
    last_shown, first = queue[offset - 1], queue[offset]
    return f"/review/?after={QueueCursor.of(last_shown).encode()}", first.case_id


def _measure_counts(query: str, requests: int) -> tuple[int, float, float]:
    """SQL queries, median and p95 milliseconds of the counts the queue page shows under `query`'s filters."""
    from django.contrib.auth.models import User
    from django.db import connection
    from django.http import QueryDict
    from django.utils import timezone

    from reviewconsole.intake.models import Client
    from reviewconsole.review.forms import QueueFilterForm
    from reviewconsole.review.queue import queue_page_counts

    filters = QueueFilterForm(QueryDict(query), clients=Client.objects.all()).filters()
    reviewer = User.objects.get(username="bench-reviewer")

    def counts() -> None:
        assert queue_page_counts(filters=filters, reviewer=reviewer, now=timezone.now()).per_reason, query

    for _ in range(5):
        counts()
    queries: list[str] = []

    def count(execute, sql, params, many, context):
        queries.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        counts()
    timings = []
    for _ in range(requests):
        started = time.perf_counter()
        counts()
        timings.append((time.perf_counter() - started) * 1000)
    timings.sort()
    return len(queries), statistics.median(timings), timings[int(0.95 * (len(timings) - 1))]


def _full_count_ms(requests: int) -> float:
    """Median milliseconds of a count of the whole open queue per reason: what every queue page cost before."""
    from django.db.models import Count

    from reviewconsole.review.models import Escalation, EscalationStatus

    timings = []
    for _ in range(requests):
        started = time.perf_counter()
        list(Escalation.objects.filter(status=EscalationStatus.OPEN).order_by().values_list("reason")
             .annotate(n=Count("*")))
        timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings)


def _measure(http, url: str, requests: int) -> tuple[int, float, float]:
    from django.db import connection

    for _ in range(5):  # warm caches and connections
        assert http.get(url).status_code == 200, url
    # Counted with an execute wrapper: Django clears its own query log when each request starts.
    queries: list[str] = []

    def count(execute, sql, params, many, context):
        queries.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        http.get(url)
    timings = []
    for _ in range(requests):
        started = time.perf_counter()
        response = http.get(url)
        timings.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, url
    timings.sort()
    return len(queries), statistics.median(timings), timings[int(0.95 * (len(timings) - 1))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--escalations", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--database", default=DATABASE)
    args = parser.parse_args()
    configure_django(args.database)
    reset_database(args.database)

    import django

    django.setup()
    from django.contrib.auth.models import Group, User
    from django.test import Client as HttpClient

    from reviewconsole.accounts.roles import Role
    from reviewconsole.intake.services import client_create

    client, _ = client_create(name="bench-assistant")
    reviewer = _reviewer()
    others = [User.objects.create_user(username=f"reviewer-{n}") for n in range(5)]
    for user in others:
        user.groups.add(Group.objects.get(name=Role.REVIEWER.value))
    started = time.perf_counter()
    _seed_queue(args.escalations - 1, client.pk, [user.pk for user in others])
    case_id = _seed_big_case(client)
    _count_queue()
    print(f"seeded {args.escalations:,} open escalations in {time.perf_counter() - started:.1f} s")

    http = HttpClient()
    http.force_login(reviewer)
    deep_url, deep_first_case = _deep_page_url(DEEP_PAGE)
    # Time the page the cursor names, not an error page or the top of the queue in its place.
    assert f'href="/review/cases/{deep_first_case}/"' in http.get(deep_url).content.decode(), deep_url
    pages = {
        "queue": "/review/",
        "deep": deep_url,
        "case": f"/review/cases/{case_id}/",
    }
    failed = False
    print(f"{'page':<8}{'queries':>8}{'median ms':>11}{'p95 ms':>9}   target")
    for name, url in pages.items():
        queries, median, p95 = _measure(http, url, args.requests)
        max_queries, max_p95 = TARGETS[name]
        ok = queries <= max_queries and p95 < max_p95
        failed |= not ok
        print(f"{name:<8}{queries:>8}{median:>11.1f}{p95:>9.1f}   <= {max_queries} queries, p95 < {max_p95:.0f} ms"
              f"  {'ok' if ok else 'MISSED'}")
    queries, median, p95 = _measure_counts("", args.requests)
    max_queries, max_p95 = TARGETS["counts"]
    ok = queries <= max_queries and p95 < max_p95
    failed |= not ok
    print(f"{'counts':<8}{queries:>8}{median:>11.2f}{p95:>9.2f}   <= {max_queries} queries, p95 < {max_p95:.0f} ms"
          f"  {'ok' if ok else 'MISSED'}")
    for word in SEARCHES:
        queries, median, p95 = _measure(http, f"/review/?{urlencode({'q': word})}", max(20, args.requests // 4))
        print(f"  search {word}: {queries} queries, median {median:.1f} ms, p95 {p95:.1f} ms")
    print(f"  deep: the queue's page {DEEP_PAGE:,}, after= the last case of page {DEEP_PAGE - 1:,}")
    print(f"  counts: the queue page's counts per reason alone; counting the open queue instead: median "
          f"{_full_count_ms(max(20, args.requests // 10)):.1f} ms")
    # Counts under other filters, for information: severity is a column of the kept counts; the others
    # are counted per load, up to the cap per reason.
    for query in ("severity=CRITICAL&reason=RULE_FAILED", "held=none", "constitution=customer-support",
                  f"assignee={others[0].pk}"):
        queries, median, p95 = _measure_counts(query, max(20, args.requests // 4))
        print(f"  counts?{query}: {queries} queries, median {median:.2f} ms, p95 {p95:.2f} ms")
    # A filtered view and Previous from deep in the queue, reported for information.
    previous = deep_url.replace("after=", "before=")
    for label, url in (("queue?severity=CRITICAL&reason=RULE_FAILED", "/review/?severity=CRITICAL&reason=RULE_FAILED"),
                       ("queue?before= (back from the same place)", previous)):
        queries, median, p95 = _measure(http, url, max(20, args.requests // 4))
        print(f"  {label}: {queries} queries, median {median:.1f} ms, p95 {p95:.1f} ms")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
