"""Words every stage shares, spelled once: the models, the pipeline and the CLI's choices all
take them from here (adding a value is one edit, and mypy sees every use)."""

from __future__ import annotations

from typing import Literal, get_args

# What one task is (SPEC §5.1): one root human prompt, or the whole session tree.
TaskUnit = Literal["prompt", "session"]
# The source adapters (SPEC §2): a session's whole tree, or one transcript file on its own.
SourceName = Literal["claude-code-tree", "claude-code"]

TASK_UNITS: tuple[TaskUnit, ...] = get_args(TaskUnit)
SOURCE_NAMES: tuple[SourceName, ...] = get_args(SourceName)
