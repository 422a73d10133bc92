"""The heads file: every signed tree head, appended as one JSON line, where the database cannot rewrite it.

The sealer appends each head once its batch has committed (AUDIT_HEADS_FILE); `audit_heads` prints the
same lines for an auditor who keeps a copy elsewhere. Whoever can rewrite the database, even holding the
signing key, cannot make a rewritten log hash to heads written here before: `audit_verify` checks the log
against the file and names the first batch, or event, that no longer matches.

Appended after the commit, never before: a head written for a batch that then rolled back would be a
false alarm for ever. A head lost between the commit and the write (the process died) costs nothing but
precision: the next head covers every event before it.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from reviewconsole.audit.heads import SignedTreeHead

logger = logging.getLogger(__name__)


class HeadsFileError(ValueError):
    """The file cannot be read as heads; the message names the file and, for a bad line, its number."""


def heads_file_append(*, path: Path, head: SignedTreeHead) -> None:
    """Append one head and flush it to disk. A failure is logged, not raised: the batch is committed already."""
    line = (head.as_json() + "\n").encode("utf-8")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # One write() of a whole line to a file opened O_APPEND: sealers in other processes append whole lines.
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(descriptor, line)
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
    except OSError as error:
        logger.error("tree head %d was not appended to AUDIT_HEADS_FILE %s: %s (the next head covers its events)",
                     head.tree_size, path, error.strerror or error)


def heads_file_read(path: Path) -> list[SignedTreeHead]:
    """Every head in the file, in file order; blank lines are skipped."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise HeadsFileError(f"cannot read {path}: {error.strerror}") from None
    heads = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            heads.append(SignedTreeHead.from_json(line))
        except ValueError as error:
            raise HeadsFileError(f"{path} line {number}: {error}") from None
    return heads
