"""Drill: one reviewer presses "Next case" twice at once (a double press, two browser windows), many times.

One case per reviewer is the rule, held by the database (a per-reviewer lock around the claim): after each
pair of simultaneous requests the reviewer must hold exactly one case, and both requests must have sent them
to it. Between trials the reviewer gives the case back ("Release"), so each trial starts holding nothing.
"""

from __future__ import annotations

import threading

from drills import state
from drills.console import Answer, Person
from drills.deployment import Deployment
from drills.report import Row

NAME = 'same reviewer, two "Next case" at once'
TRIALS = 50


def _held(deployment: Deployment, reviewer: str) -> list[int]:
    rows = deployment.database.execute(
        "SELECT e.case_id FROM review_escalation e JOIN auth_user u ON u.id = e.holder_id WHERE u.username = %s "
        "AND e.status = 'OPEN' AND e.lease_expires_at > now() ORDER BY e.case_id", [reviewer]
    ).fetchall()
    return [int(found[0]) for found in rows]


def drill(deployment: Deployment, row: Row) -> None:
    first = deployment.person("ned")
    # The second window: a session of its own, signed in as the same person.
    second = Person(first.base_url, first.username, first.password)
    second.sign_in()
    if len(state.open_escalations(deployment.database)) < 2:
        row.problem("fewer than two free cases in the queue: the race would prove nothing")
        return
    results: list[tuple[Answer, int | None]] = [(Answer(0, "", ""), None)] * 2
    double_claims = 0
    for _trial in range(TRIALS):
        for case_id in _held(deployment, first.username):
            first.release(case_id)
        gate = threading.Barrier(2)

        def press(index: int, person: Person, gate: threading.Barrier = gate) -> None:
            gate.wait(10)
            results[index] = person.next_case()

        threads = [threading.Thread(target=press, args=(index, person)) for index, person in enumerate((first, second))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        held = _held(deployment, first.username)
        row.cases += 1
        row.server_errors += sum(answer.server_error for answer, _ in results)
        landed = {case_id for _, case_id in results}
        if len(held) > 1:
            double_claims += 1
            row.duplicated += 1
        elif len(held) == 1 and landed == set(held) and all(answer.status == 302 for answer, _ in results):
            row.once += 1
        else:
            row.problem(f"holds {held} after answers {[answer.status for answer, _ in results]} to cases {landed}")
    if double_claims:
        row.problem(f"the reviewer held two cases after {double_claims} of {TRIALS} double presses")
    row.note(f"{TRIALS} double presses: the reviewer held exactly one case after {row.once}, and both windows "
             "showed it")
    for case_id in _held(deployment, first.username):
        first.release(case_id)
