"""agent-evidence: a privacy firewall from Claude Code session trees to content-free evidence."""

__version__ = "0.4.10"
GENERATOR = "agent-evidence"
