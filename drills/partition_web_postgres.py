"""Drill: a web host is cut off from PostgreSQL while clients use both web hosts.

web1's link to the database goes silent (nothing refuses, nothing resets: packets are lost). A client sending
to web1 must get the API's JSON 503 with Retry-After within the configured timeouts (the link's, then a new
connect's), never a hang, and nothing it sent may be stored half-written. A client sending to web2 meanwhile
must be served as usual. When the link heals, the first client sends its refused cases again (same
`external_id`, as a client retrying a 503 does) and every case finishes exactly once.
"""

from __future__ import annotations

import threading
import time

from drills import cases, state
from drills.console import Answer, ApiClient
from drills.deployment import Deployment, wait_for
from drills.hosts import DB_GIVES_UP_SECONDS
from drills.report import Row

NAME = "hosts: web host cut off from PostgreSQL"
TO_CUT_HOST = 4
TO_OTHER_HOST = 10
# A loaded machine's scheduling on top of the timeouts themselves.
SLACK_SECONDS = 3.0


def drill(deployment: Deployment, row: Row) -> None:
    stack, db = deployment.stack, deployment.database
    web1, postgres = stack.host("web1"), stack.host("db")
    to_web1 = ApiClient(stack.url_of("web1"), deployment.token)
    refused: list[tuple[state.Submitted, Answer]] = []
    served: list[tuple[state.Submitted, Answer]] = []

    def other_client() -> None:
        client = ApiClient(stack.url_of("web2"), deployment.token)
        for _ in range(TO_OTHER_HOST):
            case = state.Submitted(cases.case_body("cut-web-db"))
            served.append((case, _send(client, case)))

    stack.network.partition(web1, postgres)
    cut_at = time.monotonic()
    try:
        beside = threading.Thread(target=other_client, name="web2-client")
        beside.start()
        for _ in range(TO_CUT_HOST):
            case = state.Submitted(cases.case_body("cut-web-db"))
            refused.append((case, _send(to_web1, case)))
        beside.join(120)
        stored = state.scalar(db, "SELECT count(*) FROM intake_case WHERE external_id = ANY(%s)",
                              [[case.external_id for case, _ in refused]])
    finally:
        stack.network.heal(web1, postgres)
    healed_at = time.monotonic()
    slowest = max(answer.seconds for _, answer in refused)
    row.note(f"web1 cut off for {healed_at - cut_at:.0f} s: its {len(refused)} answers "
             f"{sorted({answer.status for _, answer in refused})} in at most {slowest:.1f} s (the link's and a "
             f"connect's timeouts: {DB_GIVES_UP_SECONDS} s, and {SLACK_SECONDS:.0f} s for the machine); web2 answered "
             f"{len(served)} submissions "
             f"{sorted({answer.status for _, answer in served})} meanwhile, slowest "
             f"{max(answer.seconds for _, answer in served):.1f} s")
    for case, answer in refused:
        if answer.status != 503 or answer.server_error:
            row.server_errors += answer.server_error
            row.problem(f"web1 answered {case.external_id} with HTTP {answer.status} instead of the JSON 503: "
                        f"{answer.why()}")
        elif answer.seconds > DB_GIVES_UP_SECONDS + SLACK_SECONDS:
            row.problem(f"web1 took {answer.seconds:.1f} s to answer 503 (bound {DB_GIVES_UP_SECONDS} s)")
    for case, answer in served:
        row.server_errors += answer.server_error
        if answer.status != 202:
            row.problem(f"web2 answered {case.external_id} with HTTP {answer.status}: {answer.why()}")
    if stored:
        row.rows_lost += stored
        row.problem(f"{stored} cases web1 refused were stored anyway")

    # The client retries what web1 refused, on web1, until it is served again.
    def retried() -> bool:
        waiting = [case for case, _ in refused if not case.accepted]
        return all(_send(to_web1, case).status in (200, 202) for case in waiting)

    back = wait_for(retried, timeout=30, interval=0.5)
    row.recovered(time.monotonic() - healed_at)
    if not back:
        row.problem("web1 did not serve the retried cases within 30 s of the heal")
    submitted = [case for case, _ in [*refused, *served]]
    state.wait_cases_settled(db, [case.external_id for case in submitted if case.accepted], timeout=60)
    state.tally_cases(row, db, submitted)


def _send(client: ApiClient, case: state.Submitted) -> Answer:
    answer = client.submit(case.body)
    case.record(answer)
    return answer
