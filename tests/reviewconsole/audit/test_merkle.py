"""The tree's hashing agrees with RFC 6962 and with other implementations, root for root and proof for proof."""

from __future__ import annotations

import pytest

from reviewconsole.audit.merkle import (
    EMPTY_ROOT,
    CompactRange,
    hash_leaf,
    inclusion_proof,
    root_of,
    verify_inclusion,
)

# The reference inputs and roots of Certificate Transparency's and Trillian's test suites.
ENTRIES = [b"", b"\x00", b"\x10", b"\x20\x21", b"\x30\x31", b"\x40\x41\x42\x43", bytes(range(0x50, 0x58)),
           bytes(range(0x60, 0x70))]
ROOTS = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
LEAVES = [hash_leaf(entry) for entry in ENTRIES]


@pytest.mark.parametrize("size", range(len(ROOTS)))
def test_roots_match_the_reference_at_every_size(size):
    assert root_of(LEAVES[:size]).hex() == ROOTS[size]
    assert EMPTY_ROOT.hex() == ROOTS[0]


@pytest.mark.parametrize(
    ("index", "proof"),
    [
        (0, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
             "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
             "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
        (5, ["bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
             "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
             "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    ],
)
def test_inclusion_proofs_match_the_reference(index, proof):
    assert [node.hex() for node in inclusion_proof(index, 8, LEAVES)] == proof
    assert verify_inclusion(leaf_hash=LEAVES[index], index=index, size=8, proof=[bytes.fromhex(p) for p in proof],
                            root=bytes.fromhex(ROOTS[8]))


def test_every_leaf_of_every_small_tree_proves_and_nothing_else_does():
    for size in range(1, 34):
        leaves = [hash_leaf(bytes([size, index])) for index in range(size)]
        root = root_of(leaves)
        for index in range(size):
            proof = inclusion_proof(index, size, leaves)
            assert verify_inclusion(leaf_hash=leaves[index], index=index, size=size, proof=proof, root=root)
            other = leaves[(index + 1) % size] if size > 1 else hash_leaf(b"other")
            assert not verify_inclusion(leaf_hash=other, index=index, size=size, proof=proof, root=root)
            if size > 1:  # the same proof does not place the leaf anywhere else
                moved = (index + 1) % size
                assert not verify_inclusion(leaf_hash=leaves[index], index=moved, size=size, proof=proof, root=root)
            assert not verify_inclusion(leaf_hash=leaves[index], index=size, size=size, proof=proof, root=root)


def test_a_tree_extended_from_its_stored_frontier_equals_one_built_at_once():
    leaves = [hash_leaf(bytes([n])) for n in range(45)]
    first = CompactRange()
    first.extend(leaves[:21])
    resumed = CompactRange(first.size, list(first.hashes))  # what a head stores, read back
    resumed.extend(leaves[21:])
    assert resumed.size == 45 and resumed.root() == root_of(leaves)
    with pytest.raises(ValueError, match="edge subtrees"):
        CompactRange(21, first.hashes[:-1])
