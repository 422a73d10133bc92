"""The Merkle tree of the audit log, hashed as RFC 6962 (Certificate Transparency) and RFC 9162 say.

leaf = SHA-256(0x00 || entry), node = SHA-256(0x01 || left || right), and the root of n leaves splits at
the largest power of two below n. The domain bytes keep a leaf from ever passing for a node. Plain
functions over bytes: no Django, so the sealer, `audit_verify` and an outside auditor compute the same.

The tree is never stored node by node. A `CompactRange` holds the roots of the perfect subtrees along
its right edge (one per set bit of the size, at most 64), which is all that extending it needs; that is
how the sealer appends a batch without reading any leaf it sealed before (Trillian's compact ranges).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

EMPTY_ROOT = hashlib.sha256(b"").digest()
"""The root of the empty tree (RFC 6962 2.1)."""


def hash_leaf(entry: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + entry).digest()


def hash_children(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


class CompactRange:
    """The right edge of a tree of `size` leaves: enough to append leaves and to compute the root."""

    def __init__(self, size: int = 0, hashes: Sequence[bytes] = ()) -> None:
        if size < 0 or len(hashes) != size.bit_count():
            raise ValueError(f"a tree of {size} leaves has {max(size, 0).bit_count()} edge subtrees, not {len(hashes)}")
        self.size = size
        self.hashes = list(hashes)
        """Roots of the perfect subtrees, left to right; their sizes are the set bits of `size`, largest first."""

    def append(self, leaf_hash: bytes) -> None:
        self.hashes.append(leaf_hash)
        # Each trailing 1 bit of the old size is a subtree as big as the one just completed: merge them.
        size = self.size
        while size & 1:
            right = self.hashes.pop()
            self.hashes[-1] = hash_children(self.hashes[-1], right)
            size >>= 1
        self.size += 1

    def extend(self, leaf_hashes: Iterable[bytes]) -> None:
        for leaf_hash in leaf_hashes:
            self.append(leaf_hash)

    def root(self) -> bytes:
        """RFC 6962's MTH of the leaves appended so far: the edge subtrees folded from the right."""
        if not self.hashes:
            return EMPTY_ROOT
        root = self.hashes[-1]
        for left in reversed(self.hashes[:-1]):
            root = hash_children(left, root)
        return root


def root_of(leaf_hashes: Iterable[bytes]) -> bytes:
    tree = CompactRange()
    tree.extend(leaf_hashes)
    return tree.root()


def _largest_power_of_two_below(n: int) -> int:
    return 1 << ((n - 1).bit_length() - 1)


def inclusion_ranges(index: int, size: int) -> list[tuple[int, int]]:
    """The leaf ranges [start, end) whose subtree roots make the audit path of leaf `index` in a tree of
    `size` leaves (RFC 6962 2.1.1, PATH), in proof order: the sibling nearest the leaf first."""
    if not 0 <= index < size:
        raise ValueError(f"leaf {index} is not in a tree of {size} leaves")
    ranges: list[tuple[int, int]] = []
    start, end = 0, size
    while end - start > 1:
        split = start + _largest_power_of_two_below(end - start)
        if index < split:
            ranges.append((split, end))
            end = split
        else:
            ranges.append((start, split))
            start = split
    return ranges[::-1]


def inclusion_proof(index: int, size: int, leaf_hashes: Iterable[bytes]) -> list[bytes]:
    """The audit path of leaf `index`, computed from the tree's leaf hashes read once, in order.

    The path's subtrees are disjoint, so each leaf feeds at most one of them: memory stays at one
    compact range per path node however large the tree.
    """
    ranges = inclusion_ranges(index, size)
    subtrees = {bounds: CompactRange() for bounds in ranges}
    by_start = sorted(ranges)
    current = 0
    for position, leaf_hash in enumerate(leaf_hashes):
        if position >= size:
            break
        while current < len(by_start) and position >= by_start[current][1]:
            current += 1
        if current < len(by_start) and by_start[current][0] <= position:
            subtrees[by_start[current]].append(leaf_hash)
    if any(tree.size != end - start for (start, end), tree in subtrees.items()):
        raise ValueError(f"fewer than {size} leaves were given")
    return [subtrees[bounds].root() for bounds in ranges]


def verify_inclusion(*, leaf_hash: bytes, index: int, size: int, proof: Sequence[bytes], root: bytes) -> bool:
    """Whether `proof` shows leaf `index` with `leaf_hash` in the tree of `size` leaves with `root`
    (RFC 9162 2.1.3.2, step for step)."""
    if not 0 <= index < size:
        return False
    fn, sn, result = index, size - 1, leaf_hash
    for sibling in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            result = hash_children(sibling, result)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            result = hash_children(result, sibling)
        fn >>= 1
        sn >>= 1
    return sn == 0 and result == root
