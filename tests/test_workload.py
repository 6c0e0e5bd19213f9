"""Bundles given together: what makes them one workload, named by position (SPEC §10)."""

from __future__ import annotations

from typing import Any

from converter.bundle.io import open_bundle
from converter.bundle.model import BundleHead
from converter.workload import workload_problems
from tests.conftest import FIXTURES

HEAD = open_bundle((FIXTURES / "synthetic_bundle.golden.json").read_bytes())


def _other_session(head: BundleHead, **receipt: Any) -> BundleHead:
    """The golden head as if another session: other task ids, other transcript digests."""
    files = tuple(
        f.model_copy(update={"sha256": f"{i:064x}"}) for i, f in enumerate(head.receipt.files)
    )
    tasks = tuple(t.model_copy(update={"id": "task-" + "1" * 12}) for t in head.tasks)
    update = {"files": files, **receipt}
    return head.model_copy(
        update={"tasks": tasks, "receipt": head.receipt.model_copy(update=update)}
    )


def _where(heads: list[BundleHead | None]) -> list[tuple[str, str | None]]:
    return [(p.code, p.where) for p in workload_problems(heads)]


def test_two_sessions_agree() -> None:
    assert _where([HEAD, _other_session(HEAD)]) == []


def test_one_shared_subagent_transcript_is_an_overlap() -> None:
    other = _other_session(HEAD)
    files = (*other.receipt.files[:1], HEAD.receipt.files[1], *other.receipt.files[2:])
    shared = other.model_copy(update={"receipt": other.receipt.model_copy(update={"files": files})})
    assert _where([HEAD, None, shared]) == [
        ("EVAL-BUNDLE-OVERLAP", "bundle 1 of 3 and bundle 3 of 3"),
    ]


def test_shared_meta_files_and_empty_transcripts_are_no_overlap() -> None:
    """Every empty child has the SHA-256 of nothing, and metadata files can repeat."""
    other = _other_session(HEAD)
    empty = HEAD.receipt.files[1].model_copy(update={"size": 0})
    ours = HEAD.receipt.model_copy(
        update={"files": (*HEAD.receipt.files[:1], empty, HEAD.receipt.files[2])}
    )
    theirs = other.receipt.model_copy(
        update={"files": (*other.receipt.files[:1], empty, HEAD.receipt.files[2])}
    )
    assert (
        _where(
            [
                HEAD.model_copy(update={"receipt": ours}),
                other.model_copy(update={"receipt": theirs}),
            ]
        )
        == []
    )


def test_every_disagreement_is_named() -> None:
    other = _other_session(HEAD, label_source="panel-b", key_id="key-" + "0" * 16)
    assert _where([None, HEAD, other]) == [
        (
            "EVAL-WORKLOAD-MISMATCH",
            "bundle 3 of 3: receipt/label_source differs from bundle 2 of 3",
        ),
        ("EVAL-WORKLOAD-MISMATCH", "bundle 3 of 3: receipt/key_id differs from bundle 2 of 3"),
    ]


def test_the_same_bundle_twice_is_a_duplicate_task_and_an_overlap() -> None:
    assert _where([HEAD, HEAD]) == [
        ("EVAL-DUPLICATE-TASK", "bundle 1 of 2 and bundle 2 of 2"),
        ("EVAL-BUNDLE-OVERLAP", "bundle 1 of 2 and bundle 2 of 2"),
    ]
