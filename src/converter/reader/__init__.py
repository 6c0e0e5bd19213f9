"""Stage 2: the Claude Code reader. Raw records become streams, calls, tool calls, agents, tasks
and edges. Values here still hold local ids; only the firewall turns them into artifacts."""
