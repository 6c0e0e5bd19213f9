"""Which tool and agent-type names may cross the firewall as they are (SPEC §6.3)."""

from __future__ import annotations

import re

from converter.firewall.pseudonyms import Pseudonymizer

# The shape of `types.PublicName`: a revealed name that does not fit it (too long, spaces,
# punctuation) is pseudonymized rather than failing the output model.
_PUBLIC_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]{0,63}")

DELEGATION_TOOLS = frozenset({"Agent", "Task", "Workflow"})

# Claude Code's built-in client tools. Everything else (MCP `mcp__server__tool`, plugins) is
# pseudonymized unless the contract's privacy.reveal_names lists it.
BUILTIN_TOOLS = frozenset(
    {
        "Agent",
        "Task",
        "Workflow",
        "Bash",
        "BashOutput",
        "KillShell",
        "KillBash",
        "Read",
        "Write",
        "Edit",
        "MultiEdit",
        "NotebookEdit",
        "NotebookRead",
        "Glob",
        "Grep",
        "LS",
        "WebSearch",
        "WebFetch",
        "TodoWrite",
        "TodoRead",
        "ExitPlanMode",
        "EnterPlanMode",
        "AskUserQuestion",
        "Skill",
        "SlashCommand",
        "ListMcpResourcesTool",
        "ReadMcpResourceTool",
        "TaskCreate",
        "TaskGet",
        "TaskList",
        "TaskUpdate",
        "TaskOutput",
        "TaskStop",
        "ToolSearch",
        "LSP",
        "SendMessage",
        "TeamCreate",
        "TeamDelete",
        "Monitor",
        "CronCreate",
        "CronDelete",
        "CronList",
        "ScheduleWakeup",
        "PushNotification",
        "EnterWorktree",
        "ExitWorktree",
    }
)

# Server tools priced per request by the provider, not per client call.
SERVER_TOOLS = frozenset({"web_search", "web_fetch"})

BUILTIN_AGENT_TYPES = frozenset(
    {
        "general-purpose",
        "Explore",
        "Plan",
        "statusline-setup",
        "output-style-setup",
        "claude-code-guide",
        "workflow-subagent",
        "fork",
        "compaction",
        "side-question",
        "sidechain",
    }
)


def public_tool_name(name: str, pseudo: Pseudonymizer, reveal: frozenset[str]) -> str:
    if name in BUILTIN_TOOLS or (name in reveal and _PUBLIC_NAME.fullmatch(name)):
        return name
    return pseudo.name("tool", name)


def public_agent_type(name: str, pseudo: Pseudonymizer, reveal: frozenset[str]) -> str:
    if name in BUILTIN_AGENT_TYPES or (name in reveal and _PUBLIC_NAME.fullmatch(name)):
        return name
    return pseudo.name("agent-type", name)
