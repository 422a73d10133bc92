"""Print the log's signed tree heads as JSON lines, for an auditor to keep outside the database."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandParser

from reviewconsole.audit.heads import key_id, public_key_text, signing_key
from reviewconsole.audit.selectors import tree_heads_since


class Command(BaseCommand):
    help = (
        "Print signed tree heads covering more than --since events, one JSON line each, oldest first. Append "
        "them to a file kept elsewhere; `audit_verify --heads FILE` later proves the log was not rewritten since."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--since", type=int, default=0, metavar="N",
                            help="only heads of more than N events (the last tree_size you saved)")
        parser.add_argument("--latest", action="store_true", help="only the newest head")
        parser.add_argument("--public-key", action="store_true",
                            help="print the signing key's public half (base64) and its id instead")

    def handle(self, *args, since: int, latest: bool, public_key: bool, **options) -> None:
        if public_key:
            key = signing_key().public_key()
            self.stdout.write(json.dumps({"key_id": key_id(key), "public_key": public_key_text(key)}))
            return
        heads = tree_heads_since(since)
        if latest:
            heads = heads.order_by("-tree_size")[:1]
        for head in heads.iterator(chunk_size=2000):
            self.stdout.write(head.signed().as_json())
