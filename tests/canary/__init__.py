"""Canary machinery for the privacy property (SPEC §6.5, issue 5).

`generate` builds valid Claude Code session trees with a distinct random secret in every string
field and records every source string; `leaks` indexes command outputs and finds any source
string (or 8-character piece of one) in them; `commands` is the registry of command runners the
property runs — a new command is one entry there.
"""
