"""Evaluation (SPEC §10): a workload of task facts in, a decision, an exit code and reports out.

Pure: no file is read or written here. An adapter turns loaded bundles into a `Workload`.
"""

from __future__ import annotations

from converter.evaluate.checks import (
    CHECKS,
    DECISION_CONTRACT,
    REQUIRED_COVERAGE,
    Check,
    decision_contract_digest,
    evaluate,
)
from converter.evaluate.inputs import (
    HIDDEN_CALLS,
    ROOT_AGENT,
    Baseline,
    Claims,
    Digests,
    Interval,
    OwnBound,
    OwnPrice,
    Policy,
    TaskFacts,
    Workload,
    hidden_key,
    is_hidden,
    shape_key,
)
from converter.evaluate.kernel import unplaced_left_out
from converter.evaluate.report import render_json, render_markdown, render_text
from converter.evaluate.result import Evaluation

__all__ = [
    "CHECKS",
    "DECISION_CONTRACT",
    "HIDDEN_CALLS",
    "REQUIRED_COVERAGE",
    "ROOT_AGENT",
    "Baseline",
    "Check",
    "Claims",
    "Digests",
    "Evaluation",
    "Interval",
    "OwnBound",
    "OwnPrice",
    "Policy",
    "TaskFacts",
    "Workload",
    "decision_contract_digest",
    "evaluate",
    "hidden_key",
    "is_hidden",
    "render_json",
    "render_markdown",
    "render_text",
    "shape_key",
    "unplaced_left_out",
]
