"""The running console and who uses it: a client application (its token, its webhook endpoint) and people
signed in to the console, made with the management commands an operator runs (docs/api.md, "Getting a token",
"Running it for a team")."""

from __future__ import annotations

import contextlib
import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import psycopg

from drills import cases, state
from drills.console import ApiClient, Person
from drills.receiver import HOST, Receiver
from drills.stack import Stack

CLIENT_NAME = "drill-assistant"
PEOPLE = {
    "rita": "reviewer",  # worker kills: edits and decides while the worker is down
    "omar": "reviewer",  # the Redis outage
    "pia": "reviewer",  # the PostgreSQL restarts
    "ned": "reviewer",  # two "Next case" at once
    "paula": "policy-admin",  # calibration runs
    "sam": "support-lead",  # audit exports
}
# Open escalations the drills decide, edit and claim; made through the API before the first drill.
ESCALATIONS = 12

# One Django process runs the operator's commands in turn (each a process of its own would cost seconds).
_SETUP = """
import io, json, sys
from django.core.management import call_command
given = json.loads(sys.stdin.read())
out = io.StringIO()
call_command("create_client", given["client"], webhook_url=given["webhook_url"], stdout=out)
for name, (role, password) in given["people"].items():
    sys.stdin = io.StringIO(password + "\\n")
    call_command("user", "add", name, "--role", role, "--password-stdin", stdout=io.StringIO())
print(json.dumps({"create_client": out.getvalue()}))
"""


@dataclass
class Deployment:
    stack: Stack
    receiver: Receiver
    database: psycopg.Connection
    """The drill's own connection (superuser), for reading state and for pins."""
    token: str
    people: dict[str, Person] = field(default_factory=dict)

    def api(self) -> ApiClient:
        """A new API session (one per thread: a requests session is not shared across threads)."""
        return ApiClient(self.stack.web_url, self.token)

    def reconnect(self) -> None:
        """A new connection of the drill's own, after a restart of PostgreSQL cut the old one."""
        with contextlib.suppress(psycopg.Error):
            self.database.close()
        self.database = self.stack.connect()

    def close(self) -> None:
        self.receiver.close()
        self.database.close()

    def person(self, name: str) -> Person:
        return self.people[name]

    def submit(self, drill: str, count: int, **overrides: Any) -> list[state.Submitted]:
        """Submit `count` cases one after another; each keeps what the API answered."""
        client = self.api()
        submitted = []
        for _ in range(count):
            case = state.Submitted(cases.case_body(drill, **overrides))
            case.record(client.submit(case.body))
            submitted.append(case)
        return submitted


def prepare(stack: Stack, *, listen: str = HOST) -> Deployment:
    """Accounts and a client made with the management commands, the console's processes started, people
    signed in, and a dozen escalated cases in the queue. The webhook endpoint listens on `listen`."""
    receiver = Receiver(listen)
    receiver.start()
    passwords = {name: secrets.token_urlsafe(16) for name in PEOPLE}
    given = {
        "client": CLIENT_NAME, "webhook_url": receiver.url,
        "people": {name: (role, passwords[name]) for name, role in PEOPLE.items()},
    }
    result = stack.manage("shell", "-c", _SETUP, stdin=json.dumps(given))
    if result.returncode != 0:
        raise RuntimeError(f"creating the client and accounts failed:\n{result.stdout}\n{result.stderr}")
    printed = json.loads(result.stdout.strip().splitlines()[-1])["create_client"]
    token = _after(printed, "API token (shown once, keep it secret): ")
    receiver.secret = _after(printed, "Webhook signing secret: ")
    stack.deployment_start()
    deployment = Deployment(stack, receiver, stack.connect(), token)
    for name in PEOPLE:
        person = Person(stack.web_url, name, passwords[name])
        person.sign_in()
        deployment.people[name] = person
    seeded = deployment.submit("seed", ESCALATIONS)
    refused = [case.statuses for case in seeded if not case.accepted]
    if refused:
        raise RuntimeError(f"seeding: the API refused cases: {refused}")
    ids = [case.external_id for case in seeded]
    state.wait_cases_settled(deployment.database, ids, timeout=120)
    escalated = [s for s in state.case_states(deployment.database, ids).values() if s.status == "ESCALATED"]
    if len(escalated) < ESCALATIONS:
        raise RuntimeError(f"seeding: {len(escalated)} of {ESCALATIONS} cases escalated")
    return deployment


def _after(printed: str, label: str) -> str:
    for line in printed.splitlines():
        if line.startswith(label):
            return line[len(label):].strip()
    raise RuntimeError(f"create_client printed no {label.strip()!r}: {printed!r}")


def wait_for(check, *, timeout: float, interval: float = 0.3) -> bool:
    """Poll `check` until it is true; False at the timeout (the caller counts what is unfinished)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(interval)
    return bool(check())
