"""Signed tree heads: what the sealer signs after each batch, and how whoever holds one checks it.

A tree head says "the log's first `tree_size` events hash to `root_hash`", signed with Ed25519. The
signing key comes from the environment (AUDIT_SIGNING_KEY), never from the database, so someone who can
rewrite every row and recompute every hash still cannot sign the heads that would make the rewrite look
whole. And heads copied out of the database (`manage.py audit_heads`, or the sealer's AUDIT_HEADS_FILE:
`heads_file.py`) pin history even against someone who holds the key: a log that was rewritten no longer
hashes to a head saved before.

Ed25519 rather than an HMAC: an auditor checks heads with the public key alone, which cannot sign.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from dataclasses import asdict, dataclass
from functools import cache

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

STATEMENT_HEADER = "reviewconsole audit tree head v1"
_HEX = frozenset("0123456789abcdef")


@dataclass(frozen=True)
class SignedTreeHead:
    """One tree head as it is signed, stored and handed to auditors (one JSON line each)."""

    tree_size: int
    """How many events, from seq 1, the head covers."""
    root_hash: str
    """RFC 6962 root of those events' leaf hashes, hex."""
    sealed_at: str
    """When the sealer made it, canonical UTC text (as `leaves.canonical_time` writes it)."""
    key_id: str
    """Which key signed it: the first 16 hex digits of SHA-256 of the raw public key."""
    signature: str
    """Ed25519 signature of `statement()`, base64."""

    def statement(self) -> bytes:
        return head_statement(tree_size=self.tree_size, root_hash=self.root_hash, sealed_at=self.sealed_at)

    def as_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> SignedTreeHead:
        """A head from one JSON line as `audit_heads` prints it; ValueError names what is wrong."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(f"not JSON ({error.msg})") from None
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        missing = [name for name in cls.__dataclass_fields__ if name not in data]
        if missing:
            raise ValueError(f"missing {', '.join(missing)}")
        size = data["tree_size"]
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise ValueError(f"tree_size must be a whole number, got {size!r}")
        root = data["root_hash"]
        if not isinstance(root, str) or len(root) != 64 or not set(root) <= _HEX:
            raise ValueError(f"root_hash must be 64 lowercase hex digits, got {root!r}")
        for name in ("sealed_at", "key_id", "signature"):
            if not isinstance(data[name], str):
                raise ValueError(f"{name} must be text, got {data[name]!r}")
        return cls(tree_size=size, root_hash=root, sealed_at=data["sealed_at"], key_id=data["key_id"],
                   signature=data["signature"])


def head_statement(*, tree_size: int, root_hash: str, sealed_at: str) -> bytes:
    """The exact bytes signed: a header naming the format, then one value a line."""
    return f"{STATEMENT_HEADER}\n{tree_size}\n{root_hash}\n{sealed_at}\n".encode("ascii")


@cache
def _signing_key(secret: str) -> Ed25519PrivateKey:
    # Any long random string is a key: its SHA-256, under a label of its own, is the Ed25519 seed.
    seed = hashlib.sha256(b"reviewconsole audit tree heads\x00" + secret.encode("utf-8")).digest()
    return Ed25519PrivateKey.from_private_bytes(seed)


def signing_key() -> Ed25519PrivateKey:
    return _signing_key(settings.AUDIT_SIGNING_KEY)


def public_key_text(key: Ed25519PublicKey) -> str:
    """The raw 32-byte public key, base64: what an auditor is given and AUDIT_TRUSTED_PUBLIC_KEYS lists."""
    return base64.b64encode(key.public_bytes(Encoding.Raw, PublicFormat.Raw)).decode("ascii")


def key_id(key: Ed25519PublicKey) -> str:
    return hashlib.sha256(key.public_bytes(Encoding.Raw, PublicFormat.Raw)).hexdigest()[:16]


def sign_head(*, tree_size: int, root_hash: str, sealed_at: str) -> SignedTreeHead:
    key = signing_key()
    statement = head_statement(tree_size=tree_size, root_hash=root_hash, sealed_at=sealed_at)
    return SignedTreeHead(
        tree_size=tree_size, root_hash=root_hash, sealed_at=sealed_at, key_id=key_id(key.public_key()),
        signature=base64.b64encode(key.sign(statement)).decode("ascii"),
    )


@cache
def _parse_public_key(text: str) -> Ed25519PublicKey:
    try:
        raw = base64.b64decode(text, validate=True)
        return Ed25519PublicKey.from_public_bytes(raw)
    except (binascii.Error, ValueError):
        raise ImproperlyConfigured(
            f"AUDIT_TRUSTED_PUBLIC_KEYS: {text!r} is not a base64 Ed25519 public key (32 bytes)"
        ) from None


def trusted_keys() -> dict[str, Ed25519PublicKey]:
    """Public keys whose heads verify, by key id: the signing key's, and those of keys it replaced."""
    keys = [signing_key().public_key(), *(_parse_public_key(text) for text in settings.AUDIT_TRUSTED_PUBLIC_KEYS)]
    return {key_id(key): key for key in keys}


def signature_problem(head: SignedTreeHead, keys: dict[str, Ed25519PublicKey]) -> str | None:
    """Why the head's signature does not hold, or None when it does."""
    key = keys.get(head.key_id)
    if key is None:
        return (f"it is signed by key {head.key_id}, which is neither the signing key nor one listed in "
                "AUDIT_TRUSTED_PUBLIC_KEYS")
    try:
        key.verify(base64.b64decode(head.signature, validate=True), head.statement())
    except (InvalidSignature, binascii.Error, ValueError):
        return f"its signature does not verify with key {head.key_id}"
    return None
