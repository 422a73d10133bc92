"""Drill: four rewrites of the audit log, and the runtime role refused every way of making one.

The runtime role (what web, workers, beat and the relay run as) must be refused UPDATE, DELETE, TRUNCATE,
DISABLE TRIGGER and DROP on the log. So the rewrites are done as the tables' owner (the migration role), each
on a copy of the database made after the deployment stopped, and with the signing key in hand for the first
three (the strongest attacker: the database's own tree heads are rebuilt and re-signed, so only the heads
kept outside the database, AUDIT_HEADS_FILE, can tell). For each, `manage.py audit_verify --heads FILE` must
exit non-zero and name the event rewritten (its id, or a seq or id range that holds it).

1. delete the last events (and the heads over them; a head at the new end is signed);
2. edit an event's payload and recompute its leaf hash and every later head;
3. truncate the log and re-insert it without one event, renumbered, heads recomputed;
4. insert a forged decision at the head, sealed (the owner without the key can sign no head for it).

Appending a forged event *with* the key and a head signed for it cannot be told from an honest append
(docs/audit.md: the log proves history was not changed, not that every appender was honest); the drill runs it and
reports what `audit_verify` says, without counting it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from drills import state
from drills.deployment import Deployment
from drills.report import Row
from drills.stack import APP_ROLE, DATABASE, OWNER_ROLE, Stack

NAME = "audit log rewrites (4) + runtime role refused"
EVENT_COLUMNS = "id, seq, created_at, actor, action, object_type, object_id, case_id, payload, leaf_hash"
# Changes with any event's content, hash or position: the log before and after the runtime role's attempts.
LOG_DIGEST = ("SELECT count(*), max(seq), md5(string_agg(seq || leaf_hash || payload::text, '' ORDER BY seq)) "
              "FROM audit_auditevent")


@dataclass(frozen=True)
class Target:
    """The event a rewrite changed, which `audit_verify` must name."""

    what: str
    event_id: int
    seq: int


class DrillError(Exception):
    """The drill itself cannot go on (its own hashing disagrees with the log's, say)."""


def drill(deployment: Deployment, row: Row) -> None:
    stack = deployment.stack
    sealed = stack.manage("audit_seal")  # what the stopped sealer had not reached yet
    baseline = _verify(stack, DATABASE)
    if sealed.returncode != 0 or baseline.returncode != 0:
        row.problem(f"the untouched log does not verify: {sealed.stderr.strip()} {_output(baseline)}")
        return
    row.note(f"untouched log: {baseline.stdout.strip()}")
    _runtime_refusals(stack, row)
    deployment.database.close()  # a database is copied only while nobody is connected to it
    _configure_signing(stack)
    rewrites = [_delete_last_events, _edit_and_recompute, _truncate_and_reinsert, _forge_at_head, _forge_with_key]
    copies: list[str] = []
    try:
        targets = []
        for rewrite in rewrites:
            copy = f"rewrite_{rewrite.__name__.strip('_')}"
            copies.append(copy)
            targets.append(_rewritten_copy(stack, copy, rewrite))
        # Each check is a process of its own, as an operator runs it; they run side by side to save time.
        with ThreadPoolExecutor(max_workers=3) as pool:
            results = list(pool.map(lambda copy: _verify(stack, copy), copies))
    finally:
        with stack.connect(database="postgres") as superuser:
            for copy in copies:
                superuser.execute(f"DROP DATABASE IF EXISTS {copy} WITH (FORCE)")
    *counted, (key_target, key_result) = zip(targets, results, strict=True)
    for target, result in counted:
        row.cases += 1
        named = _names(_output(result), target)
        if result.returncode != 0 and named:
            row.once += 1
            row.note(f"{target.what} (event id={target.event_id}, seq {target.seq}): {_first_line(result)}")
        else:
            row.problem(f"{target.what} (event id={target.event_id}, seq {target.seq}): audit_verify exited "
                        f"{result.returncode}, {'naming' if named else 'not naming'} it: {_first_line(result)}")
    row.note(f"not counted, {key_target.what}: audit_verify exited {key_result.returncode}: {_first_line(key_result)}")


# --- The runtime role ----------------------------------------------------------------------------

REFUSED_TO_RUNTIME_ROLE = (
    ("UPDATE an event's payload", "UPDATE audit_auditevent SET payload = '{}'::jsonb WHERE id = %(id)s"),
    ("UPDATE a sealed event's seq", "UPDATE audit_auditevent SET seq = seq + 1000000 WHERE id = %(id)s"),
    ("DELETE an event", "DELETE FROM audit_auditevent WHERE id = %(id)s"),
    ("DELETE a tree head", "DELETE FROM audit_audittreehead WHERE tree_size = %(size)s"),
    ("TRUNCATE the log", "TRUNCATE audit_auditevent, audit_audittreehead"),
    ("DISABLE TRIGGER", "ALTER TABLE audit_auditevent DISABLE TRIGGER USER"),
    ("DROP TABLE", "DROP TABLE audit_auditevent"),
)


def _runtime_refusals(stack: Stack, row: Row) -> None:
    with stack.connect() as superuser:
        before = state.one(superuser, LOG_DIGEST)
        event_id = state.scalar(superuser, "SELECT id FROM audit_auditevent WHERE seq = 1")
        size = state.scalar(superuser, "SELECT max(tree_size) FROM audit_audittreehead")
    refused = []
    with stack.connect(APP_ROLE, autocommit=False) as runtime:
        for what, statement in REFUSED_TO_RUNTIME_ROLE:
            row.cases += 1
            try:
                runtime.execute(statement, {"id": event_id, "size": size})
            except psycopg.Error as error:
                runtime.rollback()
                row.once += 1
                refused.append(f"{what} ({(error.diag.message_primary or '').split(':')[0]})")
            else:
                runtime.rollback()
                row.problem(f"the runtime role was allowed to {what}")
    with stack.connect() as superuser:
        after = state.one(superuser, LOG_DIGEST)
    if after != before:
        row.problem(f"the log changed under the runtime role's attempts: {before} -> {after}")
    row.note(f"runtime role {APP_ROLE} refused: {'; '.join(refused)}")


# --- Rewrites, as the owner, on copies ----------------------------------------------------------


def _rewritten_copy(stack: Stack, copy: str, rewrite: Callable[[psycopg.Connection], Target]) -> Target:
    """A copy of the database, rewritten by the owner; the event the rewrite changed."""
    with stack.connect(database="postgres") as superuser:
        superuser.execute(f"DROP DATABASE IF EXISTS {copy}")
        superuser.execute(f"CREATE DATABASE {copy} TEMPLATE {DATABASE} OWNER {OWNER_ROLE}")
        superuser.execute(f"REVOKE ALL ON DATABASE {copy} FROM PUBLIC")
        superuser.execute(f"GRANT CONNECT ON DATABASE {copy} TO {APP_ROLE}")
    with stack.connect(OWNER_ROLE, copy, autocommit=False) as owner:
        # The owner may: that is why the console does not run as the owner.
        owner.execute("ALTER TABLE audit_auditevent DISABLE TRIGGER USER")
        owner.execute("ALTER TABLE audit_audittreehead DISABLE TRIGGER USER")
        target = rewrite(owner)
        owner.execute("ALTER TABLE audit_auditevent ENABLE TRIGGER USER")
        owner.execute("ALTER TABLE audit_audittreehead ENABLE TRIGGER USER")
        owner.commit()
    return target


def _delete_last_events(owner: psycopg.Connection) -> Target:
    events = _events(owner)
    keep = len(events) - 3
    owner.execute("DELETE FROM audit_auditevent WHERE seq > %s", [keep])
    sizes = _head_sizes(owner)
    ends = [(size, sealed_at) for size, sealed_at in sizes if size <= keep]
    if not ends or ends[-1][0] != keep:
        ends.append((keep, sizes[-1][1]))
    _rebuild_heads(owner, [_leaf_bytes(event) for event in events[:keep]], ends)
    first_gone = events[keep]
    return Target("deleted the last 3 events", first_gone["id"], first_gone["seq"])


def _edit_and_recompute(owner: psycopg.Connection) -> Target:
    events = _events(owner)
    decisions = [event for event in events if event["action"].startswith("decision.")]
    event = decisions[0] if decisions else events[len(events) // 2]
    event["payload"] = {**event["payload"], "note": "approved after a call with the customer's manager"}
    event["leaf_hash"] = _leaf_hash(event)
    owner.execute("UPDATE audit_auditevent SET payload = %s, leaf_hash = %s WHERE id = %s",
                  [Jsonb(event["payload"]), event["leaf_hash"], event["id"]])
    _rebuild_heads(owner, [_leaf_bytes(each) for each in events], _head_sizes(owner))
    return Target(f"edited a {event['action']} event, every later hash recomputed", event["id"], event["seq"])


def _truncate_and_reinsert(owner: psycopg.Connection) -> Target:
    events = _events(owner)
    sizes = _head_sizes(owner)
    gone = events[len(events) // 2]
    owner.execute("TRUNCATE audit_auditevent, audit_audittreehead")
    kept = [event for event in events if event["id"] != gone["id"]]
    with owner.cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO audit_auditevent ({EVENT_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            [(event["id"], seq, event["created_at"], event["actor"], event["action"], event["object_type"],
              event["object_id"], event["case_id"], Jsonb(event["payload"]), event["leaf_hash"])
             for seq, event in enumerate(kept, start=1)],
        )
    ends: list[tuple[int, datetime]] = []
    for size, sealed_at in sizes:
        size -= size >= gone["seq"]
        if size and (not ends or ends[-1][0] != size):
            ends.append((size, sealed_at))
    _rebuild_heads(owner, [_leaf_bytes(event) for event in kept], ends)
    return Target(f"truncated and re-inserted the log without a {gone['action']} event", gone["id"], gone["seq"])


def _forged_decision(owner: psycopg.Connection) -> dict[str, Any]:
    events = _events(owner)
    last = events[-1]
    case_id = state.scalar(owner, "SELECT max(case_id) FROM review_decision")
    forged = {
        "seq": last["seq"] + 1, "created_at": datetime.now(UTC), "actor": "user:rita", "action": "decision.approved",
        "object_type": "decision", "object_id": "999999", "case_id": case_id,
        "payload": {"kind": "APPROVE", "note": "approved", "override_reason": ""},
    }
    forged["leaf_hash"] = _leaf_hash(forged)
    forged["id"] = state.scalar(
        owner,
        "INSERT INTO audit_auditevent (seq, created_at, actor, action, object_type, object_id, case_id, payload, "
        "leaf_hash) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
        [forged["seq"], forged["created_at"], forged["actor"], forged["action"], forged["object_type"],
         forged["object_id"], forged["case_id"], Jsonb(forged["payload"]), forged["leaf_hash"]],
    )
    forged["events"] = events
    return forged


def _forge_at_head(owner: psycopg.Connection) -> Target:
    forged = _forged_decision(owner)
    return Target("inserted a forged decision at the head, sealed", forged["id"], forged["seq"])


def _forge_with_key(owner: psycopg.Connection) -> Target:
    forged = _forged_decision(owner)
    leaves = [_leaf_bytes(event) for event in forged["events"]] + [bytes.fromhex(forged["leaf_hash"])]
    _rebuild_heads(owner, leaves, [*_head_sizes(owner), (forged["seq"], forged["created_at"])])
    return Target("a forged decision at the head with a head signed by the real key", forged["id"], forged["seq"])


# --- Hashing as the log does (the product's own functions: an attacker can read the source too) ---


def _configure_signing(stack: Stack) -> None:
    from django.conf import settings

    if not settings.configured:
        settings.configure(AUDIT_SIGNING_KEY=stack.audit_signing_key, AUDIT_TRUSTED_PUBLIC_KEYS=[])


def _events(owner: psycopg.Connection) -> list[dict[str, Any]]:
    with owner.cursor(row_factory=dict_row) as cursor:
        events = cursor.execute(f"SELECT {EVENT_COLUMNS} FROM audit_auditevent ORDER BY seq").fetchall()
    for event in events:
        if event["seq"] is None:
            raise DrillError("an unsealed event on a log that was sealed before the copy")
        if _leaf_hash(event) != event["leaf_hash"]:
            raise DrillError(f"the drill hashes event id={event['id']} differently from the log")
    return events


def _leaf_hash(event: dict[str, Any]) -> str:
    from reviewconsole.audit.leaves import leaf_hash

    # As audit_verify reads a row: the payload as the JSON column gives it back.
    payload = json.loads(json.dumps(event["payload"]))
    return leaf_hash(created_at=event["created_at"], actor=event["actor"], action=event["action"],
                     object_type=event["object_type"], object_id=event["object_id"], case_id=event["case_id"],
                     payload=payload)


def _leaf_bytes(event: dict[str, Any]) -> bytes:
    return bytes.fromhex(event["leaf_hash"])


def _head_sizes(owner: psycopg.Connection) -> list[tuple[int, datetime]]:
    return [(int(size), sealed_at) for size, sealed_at in
            owner.execute("SELECT tree_size, sealed_at FROM audit_audittreehead ORDER BY tree_size").fetchall()]


def _rebuild_heads(owner: psycopg.Connection, leaves: list[bytes], ends: list[tuple[int, datetime]]) -> None:
    """Replace every tree head with one per end (size, time), over `leaves`, signed with the log's key."""
    from reviewconsole.audit.heads import sign_head
    from reviewconsole.audit.leaves import canonical_time
    from reviewconsole.audit.merkle import CompactRange

    owner.execute("DELETE FROM audit_audittreehead")
    tree = CompactRange()
    for size, sealed_at in ends:
        tree.extend(leaves[tree.size:size])
        signed = sign_head(tree_size=size, root_hash=tree.root().hex(), sealed_at=canonical_time(sealed_at))
        owner.execute(
            "INSERT INTO audit_audittreehead (tree_size, root_hash, sealed_at, frontier, key_id, signature) "
            "VALUES (%s, %s, %s, %s, %s, %s)",
            [size, signed.root_hash, sealed_at, Jsonb([subtree.hex() for subtree in tree.hashes]), signed.key_id,
             signed.signature],
        )


# --- audit_verify --------------------------------------------------------------------------------


def _verify(stack: Stack, database: str) -> Any:
    return stack.manage("audit_verify", "--heads", str(stack.heads_file), database=database)


def _output(result: Any) -> str:
    return f"{result.stdout}\n{result.stderr}".strip()


def _first_line(result: Any) -> str:
    lines = [line for line in _output(result).splitlines() if line.strip()]
    return lines[0][:400] if lines else "(no output)"


def _names(output: str, target: Target) -> bool:
    """Whether the report names the event: by id, or by a seq or id range that holds it."""
    if f"id={target.event_id} " in output or f"id={target.event_id})" in output:
        return True
    for low, high in re.findall(r"seq (\d+)\.\.(\d+)", output):
        if int(low) <= target.seq <= int(high):
            return True
    for low, high in re.findall(r"ids (\d+)\.\.(\d+)", output):
        if int(low) <= target.event_id <= int(high):
            return True
    return any(int(seq) == target.seq for seq in re.findall(r"seq (\d+)(?!\.\.)\b", output))
