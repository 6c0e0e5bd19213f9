"""agent-evidence: a privacy firewall from Claude Code session trees to content-free evidence."""

from typing import Final, Literal

__version__ = "0.6.22"
GENERATOR: Final[Literal["agent-evidence"]] = "agent-evidence"
