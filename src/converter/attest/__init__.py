"""Signed attestations (SPEC §9): a DSSE envelope (Ed25519) around an in-toto v1 Statement whose
subject is a bundle's SHA-256 and whose predicate is the bundle's receipt.

`dsse` and `statement` are pure functions over bytes; `keys` is the only module that touches the
file system (key generation and loading).
"""
