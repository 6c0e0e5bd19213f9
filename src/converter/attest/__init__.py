"""Signed attestations (SPEC §9): a DSSE envelope (Ed25519) around an in-toto v1 Statement whose
subject is a bundle's SHA-256 and whose predicate is the bundle's receipt.

`dsse` and `statement` are pure functions over bytes; `keys` (key generation and loading) and
`signed` (reading the attestation beside a bundle) touch the file system.
"""
