"""Every stable reason code with its fixed message and fix (the table every diagnostic is built
from), and docs/refusals.md rendered from it (`make docs`: `python -m converter.errors`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CodeInfo:
    message: str
    fix: str
    blocking: bool = True


def _c(message: str, fix: str, *, blocking: bool = True) -> CodeInfo:
    return CodeInfo(message, fix, blocking)


# Counts of what a tree holds and is never read that say nothing of the spend (a copy of a tool
# output, notes, a file browser's file, a provider bodies index line still being written):
# `inspect` shows them under `not_read`, never among the findings a contract binds, so a file
# browser opening the folder (or another session appending to a shared index) does not change a
# made contract. Another not-read count (CC-TREE-REMOTE-AGENT: spend not in the tree) is a finding.
NOT_BOUND = {
    "CC-TREE-CONTENT-NOT-READ": "shown by inspect (not_read), not bound",
    "CC-TREE-OS-FILE": "shown by inspect (not_read), not bound",
    "CC-BODY-INDEX-TORN": "shown by inspect (not_read), not bound",
    "CC-BODY-INDEX-BLANK": "shown by inspect (not_read), not bound",
    "CC-BODY-NONE-SELECTED": "shown by inspect (not_read), not bound",
}

# Codes earlier versions had and this one does not: a bundle they wrote may hold one among
# its receipt's findings, and still opens (`bundle.integrity`).
RETIRED_CODES = frozenset(
    {
        "CC-LINE-BIG-INTEGER",
        "CC-REC-FINALITY-UNKNOWN",
        "CONTRACT-CARRIED-FORWARD",
        "CONTRACT-NOT-CONVERTIBLE",
        "POLICY-FILE-SHAPE",
        "POLICY-FILE-UNREADABLE",
    }
)

# Findings that say some spend is in no figure (a search count unknown, a server tool not
# priced, a child cut short, agents that ran elsewhere): a cost is then a lower
# bound, and `scan --price-card` marks it `+` as it does calls the card cannot price.
SPEND_LEFT_OUT = frozenset(
    {
        "CC-REC-WEBSEARCH-COUNT-UNKNOWN",
        "CC-REC-SERVER-TOOL-UNPRICED",
        "CC-REC-AGENT-USAGE-DISAGREE",
        "CC-TREE-REMOTE-AGENT",
        "CC-TREE-DELEGATION-REMOTE",
        "CC-REC-FINAL-NO-INPUT",
        "CC-TREE-SPLIT-SESSION",  # the other parts' spend; evaluate: unless their bundles are in
    }
)

# Stable codes. Renaming one is a breaking change; docs/refusals.md lists each (a test checks).
# How to learn which file a refusal's label stands for (a stray file, a symlink, a bad id is
# `unbound/file-<hex>`): the fixes that say to move, remove or rename it said this nowhere.
_NAMED_BY_SHOW_PATHS = (
    " The message names the file only by its label (unbound/file-<hex> for one the tree "
    "could not bind): --show-paths (inspect, convert, verify; after scan, inspect the "
    "session) adds its local path, on your terminal only."
)
# The way out of a body refusal when the contract binds the bodies: converting the same
# contract without them is CONTRACT-BODIES-MISSING (a fix audit: the two fixes looped).
_WITHOUT_BODIES = (
    "do without them: make the template again without --provider-bodies (--from-contract "
    "carries your claims) and convert that contract; calls a body completed are then priced as "
    "intervals."
)
# The fix of a line's refusal (CC-LINE-*) in a provider body: those codes' own fixes speak of
# transcripts (a fuzz: "The file is not a Claude Code transcript" for an HTML response).
BODY_LINE_FIX = (
    "This file is a provider body, not a transcript: restore Claude Code's original, or "
    + _WITHOUT_BODIES
)
# The fix of such a refusal at a line of the bodies' index: a line that may be this session's
# (`sources.bodies`); Claude Code has no "original" of it to restore (a provider-bodies audit).
INDEX_LINE_FIX = (
    "This line of the provider bodies' index.jsonl is not one strict JSON record, and it may be "
    "this session's (as when Claude Code was stopped while writing a line and the next one was "
    "written after it on the same line; a line only other sessions' records make up is not read: "
    "CC-BODY-INDEX-TORN). Work on a copy of the folder: in the copy's index.jsonl delete that "
    "line (a whole record after its cut part may be kept, on a line of its own), and give the "
    "copy to --provider-bodies, in verify too; a hidden call only that line named is then left "
    "out. Or " + _WITHOUT_BODIES
)
# The fix of such a refusal in a metadata file of the tree (a subagent's .meta.json, a workflow
# run's manifest): one JSON object Claude Code writes once, beside the transcripts; those codes'
# own fixes speak of transcripts and of spend a copy lacks (an audit: "The file is not a Claude
# Code transcript" for a meta file). UTF-16's fix (copy the bytes unchanged) is any file's.
META_LINE_FIX = (
    "This file is not a transcript but a metadata file Claude Code writes beside them (a "
    "subagent's agent-<id>.meta.json, a workflow run's workflows/wf_<run>.json), one JSON "
    "object: it was edited or damaged. Restore Claude Code's original from the machine that "
    "ran the session."
)
# A response that cannot be its transcript call's (another model, other usage).
_BODY_EDITED = (
    "The response or the transcript was edited, or they are not of one session; restore "
    "Claude Code's originals, or " + _WITHOUT_BODIES
)

# The likely cause of a tree whose children are each in two files (a scan review): the session's
# folder copied into another project folder, which the tree reads as a worktree's (sources.tree).
_COPY_ELSEWHERE = (
    " A copy of this session's folder in another project folder is read with it (as a git "
    "worktree's children are): move the copy out of the projects folder (--show-paths names "
    "its files)."
)


CODES: dict[str, CodeInfo] = {
    # --- files and layout (sources) ---
    "CC-TREE-PARENT-MISSING": _c(
        "The parent transcript does not exist, or is not a regular file named *.jsonl. (For a "
        "folder of a session's agents, in a scan: no <session>.jsonl is beside it, nor in any "
        "other project folder the scan reads.)",
        "Pass the path of the session's main <session>.jsonl file (a session's folder, "
        "<session>/, is not it: the transcript is <session>.jsonl beside it; a whole projects "
        "folder is scan's). For a session folder, `--show-paths` names it: put it beside its "
        "main transcript, or remove it if it is a stray copy.",
    ),
    "CC-TREE-PARENT-VANISHED": _c(
        "A session's main transcript that scan found in its project folder was gone when its "
        "tree was read: deleted, moved or renamed while the scan ran. Nothing of that "
        "transcript's tree was read, so its calls are in no count (the row shows `-` in the "
        "table, 0 in --json, when no other part of a split session was read); it is not a "
        "pruned session (CC-TREE-PARENT-MISSING), whose transcript was never there.",
        "Nothing to fix in the files: scan again when nothing is deleting or moving sessions. "
        "A session deleted is then in no row; one moved is read where it is now.",
    ),
    "CC-TREE-PARENT-IS-FOLDER": _c(
        "The session's main transcript, <session>.jsonl, is a folder: a folder is named like a "
        "transcript, and there is no transcript to read.",
        "Rename the folder or move it out of the project folder (--show-paths names it); "
        "Claude Code writes the transcript as a file, and the session's children in "
        "<session>/, without .jsonl.",
    ),
    "CC-TREE-PROJECTS-MISSING": _c(
        "The projects folder to scan does not exist, is not a folder, or cannot be read. The "
        "location says which folder was looked in: PROJECTS_DIR as given, "
        "$CLAUDE_CONFIG_DIR/projects, or ~/.claude/projects (--show-paths prints it).",
        "Pass Claude Code's projects folder (for example ~/.claude/projects), or set "
        "CLAUDE_CONFIG_DIR to the config folder that holds it (the folder above projects, not "
        "projects itself); check its permissions. One session's .jsonl file is inspect's: "
        "`agent-evidence inspect --in FILE`.",
    ),
    "CC-TREE-SPLIT-OVERLAP": _c(
        "A scanned session's main transcript is in more than one project folder, and the trees "
        "share model calls, tool calls or subagents: they are copies of one session, not parts "
        "of it. Converting each would count the shared calls twice, and which copy is the "
        "session cannot be told.",
        "Keep the copy that holds the whole session (scan --show-paths lists where each lies), "
        "move the others out of the projects folder, and scan again.",
    ),
    "CC-TREE-SPLIT-FOLDER": _c(
        "A folder of this session's agents (<session-id>/) is in a project folder that holds no "
        "main transcript of the session (or an empty one), and the session's main transcript "
        "is in more than one other project folder (CC-TREE-SPLIT-SESSION): which of them the "
        "folder's agents belong to cannot be told, so no tree of the session reads it, and its "
        "spend would be missing from each. The session's main transcripts are there and were read.",
        "`inspect --show-paths` names the folder and the other main transcripts. Put the folder "
        "beside the main transcript whose session folder it is (or move it out of the projects "
        "folder if it is a stray copy). If the main transcripts are copies of one session "
        "(scan refuses their row CC-TREE-SPLIT-OVERLAP), keep the whole one and move the others "
        "out: the folder is then read with it, as a git worktree's children are.",
    ),
    "CC-TREE-PARENT-NAME": _c(
        "The parent transcript's file name is not the session id its records carry, followed by "
        ".jsonl; its children cannot be found.",
        "Pass Claude Code's own <session-id>.jsonl file, not a renamed copy: restore its name, "
        "beside its <session-id>/ folder where it has one (a 1.0.x transcript keeps its "
        "subagents' records in itself and needs none). A lone excerpt that delegates nothing "
        "converts with --from claude-code, which refuses any delegation.",
    ),
    "CC-TREE-PARENT-IS-SUBAGENT": _c(
        "The file given as the parent is a subagent transcript: agent-<id>.jsonl, or a copy of "
        "one under another name (every prompt and call in it is a sidechain's).",
        "Pass the session's main transcript, <session-id>.jsonl: the file beside the folder "
        "that holds subagents/, or, in Claude Code 2.0.x, beside the agent-*.jsonl files in "
        "the project folder.",
    ),
    "CC-TREE-SYMLINK": _c(
        "A file or folder of the session tree is a symbolic link.",
        "Symlinks are refused so a tree cannot point outside itself. A link in subagents/ to "
        "an agent transcript of another session is how a background session's fork carries its "
        "running agents (anthropics/claude-code#79764): that spend is the other session's, so "
        "convert that one and remove the link here (a copy would count it twice). Any other "
        "link: copy the real file into place." + _NAMED_BY_SHOW_PATHS,
    ),
    "CC-TREE-SPECIAL-FILE": _c(
        "A path in the session tree is not a regular file or folder (device, socket, pipe).",
        "Remove the special file from the session folder." + _NAMED_BY_SHOW_PATHS,
    ),
    "CC-TREE-BAD-ID": _c(
        "A file or folder name in the tree does not have the shape of its id kind.",
        "Give the file back the name Claude Code wrote (agent-<agentId>.jsonl with the agentId "
        "its delegation's result names; a run's folder and manifest by its wf_ run id). If "
        "Claude Code itself wrote this name, it is a new id form: report it with the Claude Code "
        "version. Deleting a transcript instead drops its calls from the accounting."
        + _NAMED_BY_SHOW_PATHS,
    ),
    "CC-TREE-STRAY-FILE": _c(
        "A file or folder in the session folder is not part of any known layout.",
        "Move the file out of the session folder, or report the new layout with its Claude Code "
        "version." + _NAMED_BY_SHOW_PATHS,
    ),
    "CC-TREE-CONTENT-NOT-READ": _c(
        "The session folder holds content Claude Code keeps beside the transcripts, with no "
        "model call in it: the full text of tool outputs too long to keep inline "
        "(tool-results/; the transcript holds a preview of each), the session's memory notes "
        "(session-memory/) or workflow scripts (workflows/scripts/). Their files are counted "
        "(inspect shows how many), never read, and not bound: adding or deleting one changes "
        "no contract.",
        "Nothing to do: the spend is in the transcripts.",
        blocking=False,
    ),
    "CC-TREE-REMOTE-AGENT": _c(
        "The session folder holds restore metadata of agents that ran remotely "
        "(remote-agents/, Claude Code on the web): their model calls are recorded where they "
        "ran, not in this tree, so their spend is not in this account. Counted, never read, not "
        "bound.",
        "Account for a remote agent's spend from where it ran. The count is among the "
        "contract's findings.",
        blocking=False,
    ),
    "CC-TREE-OS-FILE": _c(
        "A file a file browser writes into any folder it shows (.DS_Store, Thumbs.db, "
        "desktop.ini) is in the session tree: not Claude Code's. Counted (inspect shows how "
        "many), never read, not bound: one written later changes no contract.",
        "Nothing to do.",
        blocking=False,
    ),
    "CC-TREE-EMPTY-FILE": _c(
        "A main transcript, metadata file, run journal or run manifest is empty where content "
        "is required (an empty provider response is CC-BODY-RESPONSE-UNFINISHED).",
        "Restore an intact copy as Claude Code left it (a copy made before the session ended "
        "lacks what came after). An empty agent .meta.json, run journal or run manifest "
        "states nothing: removing it converts where the tree joins without it and refuses "
        "where it cannot. An empty main transcript holds no session to convert.",
    ),
    "CC-TREE-EMPTY-CHILD": _c(
        "A subagent transcript is empty; it holds no calls and is bound as empty.",
        "Nothing to do when its delegation failed or nothing names it. A delegation that ran "
        "but left an empty transcript is refused as CC-TREE-UNEXPANDED-DELEGATION: its spend "
        "is not recorded anywhere.",
        blocking=False,
    ),
    "CC-TREE-UNREADABLE": _c(
        "A file of the session tree (or a provider body it selects) could not be read.",
        "Check file permissions and that the disk copy is complete.",
    ),
    "CC-TREE-META-WITHOUT-CHILD": _c(
        "A subagent metadata file has no transcript beside it.",
        "Restore the missing agent-<id>.jsonl or remove the stray .meta.json.",
    ),
    "CC-TREE-AGENT-ID-TWICE": _c(
        "Two subagent transcripts of the tree carry one agent id (agent-<id>.jsonl in "
        "subagents/ and in a workflow run's folder, in two runs' folders, or in the session's "
        "folders of two project folders): Claude Code writes each agent once, so one is a "
        "copy, and which one its delegation ran is written nowhere.",
        "Restore the session's folder from one consistent copy, or remove the copy: "
        "--show-paths names both files. A copy of the session's folder in another project "
        "folder is read with it (as a git worktree's children are): move that out of the "
        "projects folder.",
    ),
    "CC-TREE-ORPHAN-CHILD": _c(
        "A subagent transcript could not be joined to any delegation call in the tree.",
        "Restore the parent or ancestor transcript that spawned it. Do not delete the child to "
        "convert: its spend would be left out. A fork Claude Code started itself (a side "
        "question, agent-a<label>-<hex>) is placed by where its replay of the parent ends: one "
        "that fits no transcript of the tree is a copy from another state of the session; "
        "restore the files from one consistent copy.",
    ),
    "CC-TREE-WARMUP-AGENT": _c(
        "A Claude Code 2.0.x warm-up agent: the sidechain it starts with a session, before any "
        "prompt, to warm its cache (its one prompt is the word Warmup; no call delegated it). "
        "Its calls are the session's, and no prompt's: with a task per prompt, whose task they "
        "are is not written anywhere.",
        "Convert the session as one task: `--task-unit session` (on inspect and convert), which "
        "gives the warm-up's calls to it, as an agent of kind `warmup`. Do not delete or move "
        "the agent file to convert per prompt: its spend would be left out.",
    ),
    "CC-TREE-AMBIGUOUS-JOIN": _c(
        "A subagent transcript matches more than one delegation call, or two children claim one.",
        "Where the only link is the prompt (Claude Code 1.0.x sidechains, or children with no "
        "metadata and no agent id), two delegation calls gave the same prompt: which child is "
        "whose is written nowhere, and this version does not guess, so the session cannot be "
        "converted; its other sessions can. Otherwise the tree is inconsistent: restore the "
        "files from one consistent copy of the session." + _COPY_ELSEWHERE,
    ),
    "CC-TREE-JOIN-CONFLICT": _c(
        "The join evidence for a subagent disagrees (metadata, tool result and progress lines name "
        "different delegation calls, the call's result names another agent, the metadata names "
        "another parent agent than the one whose call it is joined to, or the child's records "
        "name another agent than its file name).",
        "Restore the files from one consistent copy of the session. A child's records must "
        "name the agent id of its file name: agent-<id>.jsonl holds agentId <id>, its leading "
        "'a' included.",
    ),
    "CC-TREE-CYCLE": _c(
        "Subagent delegations form a cycle.",
        "The tree is inconsistent; restore the files from one consistent copy of the session."
        + _COPY_ELSEWHERE,
    ),
    "CC-TREE-DEPTH-MISMATCH": _c(
        "A subagent's declared spawn depth (spawnDepth in its agent-<id>.meta.json) does not "
        "match its place in the tree.",
        "Restore the files from one consistent copy of the session.",
    ),
    "CC-TREE-UNEXPANDED-DELEGATION": _c(
        "A delegation call (Agent/Task/Workflow) has no child transcript, or only an empty one, "
        "so nested spend is missing.",
        "Convert the whole tree with its subagents/ folder; if the children were pruned, the spend "
        "cannot be reconstructed. A child isolated in a git worktree is found in the worktree's "
        "project folder only when that folder is beside the parent's (as in ~/.claude/projects). "
        "A teammate spawned by name is found by the name in its "
        "agent-<id>.meta.json; a teammate that ran as a session of its own is not in this "
        "tree, and the lead's session cannot be converted without its spend.",
    ),
    "CC-TREE-SESSION-MISMATCH": _c(
        "A record names a different session id than the tree's parent.",
        "Convert one session at a time; a file from another session was placed in this tree.",
    ),
    "CC-TREE-MULTIPLE-SESSIONS": _c(
        "The parent transcript holds records of more than one session id.",
        "Split the file per session, or convert each session's own transcript.",
    ),
    "CC-TREE-ORPHAN-WORKFLOW-RUN": _c(
        "A workflow run folder or manifest has no Workflow call in the tree.",
        "Restore the transcript that launched the run (the main transcript or the agent that "
        "called Workflow). Do not remove the run's folder: its agents' calls would leave the "
        "accounting with nothing to show it. If that transcript is lost, the run's spend "
        "belongs to no task this tree can name: leave the session out of what you convert.",
    ),
    "CC-TREE-AGENT-RESUME-UNPLACED": _c(
        "The main transcript sends a message (SendMessage) from a later task to an agent of the "
        "tree, and the agent's transcript holds no one record with that message after its first "
        "call (or two agents answer to the name): the work it did for that task cannot be told "
        "from the work of the task that started it.",
        "Convert with --task-unit session (the whole tree one task); restore the agent's "
        "transcript if it was cut short.",
    ),
    "CC-TREE-AGENT-MESSAGE-UNFOLLOWED": _c(
        "An agent sends a message (SendMessage) to another agent of the tree that works for "
        "another task, and that agent took turns after its first call: messages between agents "
        "are not followed (only the main transcript's are), so the work it did for the "
        "sender's task cannot be told from the work of the task that started it.",
        "Convert with --task-unit session (the whole tree one task).",
    ),
    "CC-TREE-DELEGATION-REMOTE": _c(
        "Delegation calls (Agent, Workflow) whose result says they launched remotely "
        "(`remote_launched`: Claude Code on the web): their agents' model calls are recorded "
        "where they ran, not in this tree, so their spend is not in this account.",
        "Account for a remote agent's spend from where it ran. The count is among the "
        "contract's findings.",
        blocking=False,
    ),
    "CC-TREE-SPLIT-SESSION": _c(
        "Another project folder holds a main transcript of this session too (<session-id>.jsonl "
        "there as here): a session Claude Code went on with in another folder, or a copy. This "
        "tree reads its own transcript only. If the other is a part of the session, its spend "
        "is not in this account, and evaluate meets no cost gate with this bundle unless the "
        "other part's bundle is in the workload too (EVAL-COST-LEFT-OUT); if it is a copy, a "
        "bundle of each counts the same calls twice (evaluate refuses the two together: "
        "EVAL-BUNDLE-OVERLAP). The count is of the other transcripts (each file once, not the "
        "parent nor an empty one); read with --from claude-code, only between folders named as "
        "Claude Code names project folders (-home-dev-app, or C--Users-dev-app).",
        "`inspect --show-paths` names where the other transcripts are. Run `agent-evidence "
        "scan` over the projects folder: a row refused CC-TREE-SPLIT-OVERLAP "
        "means the transcripts are copies (keep the whole one, move the others out of the "
        "projects folder, and make the template again); otherwise convert each transcript and "
        "evaluate their bundles together; one that holds no model call (convert refuses it, "
        "CC-TREE-NO-CALLS) has no spend to add: move it out of the projects folder and make the "
        "template again. The count is among the contract's findings.",
        blocking=False,
    ),
    "CC-TREE-WORKFLOW-AGENT-MISSING": _c(
        "A workflow run's journal names an agent (at this line) whose transcript is not in the "
        "run's folder, or holds no record (empty, or blank lines only): its spend would be "
        "missing from the tree. An agent isolated in a git worktree can write its transcript "
        "under the worktree's project folder.",
        "Move the agent's transcript (agent-<id>.jsonl and its .meta.json) into the run's folder "
        "beside the others, or restore it if it was deleted.",
    ),
    "CC-TREE-CHILDREN-NOT-READ": _c(
        "The single-file source was given a session whose folder holds subagent transcripts "
        "(delegated, workflow, compaction or other fork agents, teammates), or with an agent "
        "transcript of the session beside it (agent-<id>.jsonl: Claude Code 2.0.x's, such as "
        "its warm-up agent); their spend would be missing.",
        "Convert the whole session tree with --from claude-code-tree, from the transcript under "
        "its own <session-id>.jsonl name (a renamed copy cannot find its children).",
    ),
    "CC-TREE-DELEGATION-IN-SINGLE-FILE": _c(
        "The single-file source found a delegation call; nested spend would be missing.",
        "Convert the session's own main transcript with --from claude-code-tree (the default), "
        "in its project folder beside its <session-id>/ folder of subagent transcripts; a 1.0.x "
        "transcript, which keeps its subagents' records in itself, converts whole that way "
        "under its own name, <session-id>.jsonl. An excerpt without them cannot be priced "
        "whole: its delegated spend is in no file given.",
    ),
    # --- lines (JSON syntax) ---
    "CC-LINE-TORN": _c(
        "The last line of a file is incomplete (no newline and not valid JSON): the file is still "
        "being written, or the session ended in a crash mid-write, and what the cut record held "
        "could be spend no other record states (a model call's only record, or a record whose "
        "kind its cut head does not say).",
        "Wait until the session is idle, then convert again. If Claude Code is no longer "
        "writing it, nothing on disk holds what was lost (resuming the session does not help: "
        "the cut record stays, CC-LINE-CUT-LOST): leave this session out of what you convert "
        "and evaluate. Do not put an older copy of the file in its place: it lacks the cut "
        "record, and would convert with that spend missing unremarked.",
    ),
    "CC-LINE-CUT-PASSED": _c(
        "A line holds a record cut short, followed by the next record or line: a write "
        "interrupted by a crash, the session then resumed (Claude Code skips such a record from "
        "2.1.121 on), or the file's last line cut so, with nothing after it. The cut record is "
        "one whose loss loses no spend (a prompt no call answered, a bookkeeping record, or a "
        "fragment of a call another record holds: that call is priced from its other records, "
        "as an interval when the cut one was its last); the records around it are read.",
        "Nothing to do: the finding is bound in the contract and counted in the bundle.",
        blocking=False,
    ),
    "CC-LINE-JOINED": _c(
        "A line holds two whole records with no newline between them (a newline lost between "
        "two writes, as several programs writing one transcript leave it): both are read, "
        "nothing was lost.",
        "Nothing to do: the finding is bound in the contract and counted in the bundle.",
        blocking=False,
    ),
    "CC-LINE-CUT-LOST": _c(
        "A line holds a record cut short by an interrupted write (a crash, then the session "
        "resumed), and what it held could be spend no other record states: a model call's only "
        "record, a record whose kind its cut head does not say, or one a later record descends "
        "from (two programs writing the file at once).",
        "Nothing on disk holds what was lost, so the session cannot be priced exactly: leave it "
        "out of what you convert and evaluate (scan lists it as refused). Do not put an older "
        "copy of the file in its place: it lacks the cut record and all written after it, and "
        "would convert with that spend missing unremarked.",
    ),
    "CC-LINE-INVALID-UTF8": _c(
        "A line is not valid UTF-8.",
        "The file is damaged; restore an intact copy of it as Claude Code left it (from the "
        "machine that ran the session). A copy made before the session ended lacks what came "
        "after: convert it only knowing that spend is missing.",
    ),
    "CC-LINE-TOO-MANY-PROBLEMS": _c(
        "The file's lines hold more than 10,000 problems (blank lines, lines that are not JSON "
        "or not a record, records cut short, ...): 10,000 of them are listed (the line named "
        "is the first of those that are not), and the file is refused. Claude Code writes no such "
        "file (a transcript, a workflow journal, a provider index): it is a log or another file "
        "given the name, or a badly damaged copy.",
        "Restore the file from a good copy, or move it out of the session's folder (or the "
        "provider bodies' folder) if it is not Claude Code's; the codes listed before this one "
        "say what its lines are.",
    ),
    "CC-LINE-UTF16": _c(
        "The file is UTF-16 or UTF-32 text (a byte-order mark or NUL bytes at its start), not "
        "the UTF-8 Claude Code writes: a copy re-encoded it, as Windows PowerShell 5's `>` and "
        "Out-File do, or an editor's save did. None of its lines is read.",
        "Copy the file's bytes unchanged (cp, Copy-Item, robocopy, an archive), never through a "
        "redirection, a pipe or an editor, from the machine that ran the session; or convert "
        "it back to UTF-8 only if no other copy exists, knowing the digest then binds that "
        "copy's bytes.",
    ),
    "CC-LINE-TOO-LONG": _c(
        "A line (or a whole-file document: a meta file, a provider body) is longer than 128 MiB, "
        "28 times the longest Claude Code record measured and four times what the Messages API "
        "takes in one request: no record is that long. Its bytes are bound by the file's digest "
        "and not read; reading them would take several times their size in memory.",
        "The file is damaged (a copy that lost its line ends, or bytes that are no transcript "
        "written into it); restore an intact copy as Claude Code left it. If Claude Code wrote "
        "this line, report its version: the limit is sources/jsonl.py MAX_LINE.",
    ),
    "CC-LINE-INVALID-JSON": _c(
        "A line is not valid JSON.",
        "The file is damaged; restore an intact copy of it as Claude Code left it (from the "
        "machine that ran the session). A copy made before the session ended lacks what came "
        "after: convert it only knowing that spend is missing.",
    ),
    "CC-LINE-NOT-OBJECT": _c(
        "A line is valid JSON but not an object.",
        "The file is not the Claude Code file it is read as (a transcript, a workflow run's "
        "journal), or it is damaged.",
    ),
    "CC-LINE-DUPLICATE-KEY": _c(
        "A JSON object on a line repeats a key; readers could disagree on its value.",
        "The file was edited or damaged; restore Claude Code's original.",
    ),
    "CC-LINE-NONFINITE": _c(
        "A line holds NaN or Infinity, which JSON does not allow, or a number too large for a "
        "double (1e400), which no JSON writer of a finite number writes.",
        "The file was edited or damaged; restore Claude Code's original.",
    ),
    "CC-LINE-TOO-DEEP": _c(
        "A line nests JSON deeper than the reader allows.",
        "The file is not the Claude Code file it is read as (a transcript, a workflow run's "
        "journal), or it is damaged.",
    ),
    "CC-LINE-BLANK": _c(
        "A file contains blank lines; they are skipped.",
        "Nothing to do.",
        blocking=False,
    ),
    # --- records ---
    "CC-REC-BAD-FIELD": _c(
        "A field the converter depends on is missing or has the wrong type (for example a line "
        "with no `type`, or a null or non-string id).",
        "The file was edited or damaged; restore Claude Code's original.",
    ),
    "CC-REC-NOT-A-TRANSCRIPT": _c(
        "No line of the file is a Claude Code record: none has a record's `type` (a tool's own "
        "log, such as a hook's, in JSON lines); the line named is its first JSON object.",
        "Give a Claude Code transcript: <session-id>.jsonl from the project folder, or a copy "
        "of one. A log another tool left beside the sessions has nothing to convert: skip it "
        "(`scan` counts it among the files it skipped).",
    ),
    "CC-REC-NO-USAGE": _c(
        "A model call's record has no usage, or a usage without its input_tokens or "
        "output_tokens (Claude Code writes both on every fragment of a call): read as zeros, it "
        "would count as a complete call of zero tokens.",
        "The file was edited or damaged; restore Claude Code's original.",
    ),
    "CC-REC-BAD-TOKEN-COUNT": _c(
        "A token counter is negative, fractional, boolean, not a number, or 2^32 or more (no "
        "model call is that large), or a cache write's 5m and 1h parts add up to more than its "
        "total (cache_creation_input_tokens). A call record whose four counts are all 0 while "
        "its split or passes are not is refused so only when it is no copy of the record of "
        "its uuid before it (docs/claude-code-shapes.md §17).",
        "The file was edited or damaged; restore Claude Code's original.",
    ),
    "CC-REC-SYNTHETIC-WITH-USAGE": _c(
        "A synthetic / API-error record carries non-zero usage.",
        "Report the Claude Code version; this record shape is not understood.",
    ),
    "CC-REC-UNKNOWN-WITH-USAGE": _c(
        "A record of an unknown type carries usage: an object holding input_tokens or "
        "output_tokens counts, anywhere in it.",
        "Report the Claude Code version; spend in an unknown record cannot be placed.",
    ),
    "CC-REC-USAGE-UNREAD": _c(
        "A record of a known type carries usage where this version takes none (at the "
        "record's top, under one of its fields, or in the message of a record that is not a "
        "model call; or a tool result other than an Agent or Task result states usage): a "
        "model call written in a new place, whose spend would be left out.",
        "Nothing in the file to change: this Claude Code version writes spend where this "
        "converter does not read it. Update agent-evidence, or report the version and the "
        "record's shape (its type and field names only).",
    ),
    "CC-REC-USAGE-UNKNOWN-COUNTER": _c(
        "A call's usage holds a non-zero count under a name this version does not price (a new "
        "counter, a renamed one, a cache write split by another duration than 5 minutes and "
        "1 hour): its spend would be left out or priced at the wrong rate.",
        "Nothing in the file to change: update agent-evidence, or report the Claude Code "
        "version and the counter's name.",
    ),
    "CC-REC-USAGE-ITERATIONS": _c(
        "A call's usage.iterations lists sampling passes whose counts do not add up to its "
        "top-level usage (with server-side compaction the API lists the compaction pass there, "
        "billed but left out of the top-level counts), hold a count under another name, or "
        "name another model than the call's; or it is not a list of objects, the shape passes "
        "are read in. This version does not price such calls. A call record whose four counts "
        "are all 0 while its passes are not is refused so only when it is no copy of the "
        "record of its uuid before it (docs/claude-code-shapes.md §17).",
        "Nothing in the file to change: update agent-evidence, or report the Claude Code "
        "version (the pass types and counts, no content).",
    ),
    "CC-REC-USAGE-FALLBACK": _c(
        "A call's usage.iterations holds a server-side fallback: a declined pass of the model "
        "asked for (`message`) and a pass of the model that served (`fallback_message`). The "
        "declined pass is billed for what it wrote before it declined, the serving pass with "
        "a fallback credit applied (the cache it writes anew billed as if already cached), by "
        "amounts the file does not state, so this version does not price the call. (A "
        "`fallback_message` pass with no declined one beside it is the call's own.)",
        "Nothing in the file to change: update agent-evidence, or report the Claude Code "
        "version (the pass types, models and counts, no content).",
    ),
    "CC-REC-FALLBACK-CREDIT": _c(
        "Calls whose usage says a fallback credit was redeemed (`fallback_credit.status.type` "
        "redeemed: after a switch of model the provider bills the cache the call wrote anew as "
        "if it were already cached) are priced as written: their cost is an upper bound, too "
        "high by an amount the file does not state.",
        "Nothing to do; weigh such calls' cost as an upper bound (the cache write is billed at "
        "no less than the cache-read rate).",
        blocking=False,
    ),
    "CC-REC-REFUSED-CALL": _c(
        "Calls the model declined (`stop_reason` refusal; Claude Code may then retry on "
        "another model, a call of its own) are priced as written. A request declined before "
        "any output is not billed (Anthropic's release notes): such a call's cost is an upper "
        "bound.",
        "Nothing to do; weigh such calls' cost as an upper bound.",
        blocking=False,
    ),
    "CC-REC-REQUEST-ID-REUSED": _c(
        "One request id names two message ids in one file (among real calls: API-error "
        "placeholders are not counted). A request answers with one message: this is one call "
        "written under two ids, which would be counted twice.",
        "Restore Claude Code's original file if it was edited; a gateway that writes a new "
        "message id per fragment cannot be converted by this version.",
    ),
    "CC-REC-MESSAGE-ID-REUSED": _c(
        "Fragments under one message id cannot be one call: a later fragment records less "
        "output than an earlier one; or, after a fragment marked as the call's final usage (a "
        "stop_reason, or a `usage.iterations` list: the marks Claude Code's versions write on "
        "a finished call), other output, or other input or cache counts with no request id to "
        "say it is the same call; or it names another request with other input or cache "
        "counts. Counted as one call, the first call's spend would be lost.",
        "Restore Claude Code's original file if it was edited or joined from two sessions; a "
        "gateway that reuses message ids for several calls, or a Claude Code version that "
        "marks a fragment final before its call ends (report the version), cannot be "
        "converted by this version.",
    ),
    "CC-REC-UNKNOWN-TYPE": _c(
        "Records of a type this converter does not know were counted and skipped (one that "
        "holds input_tokens or output_tokens counts anywhere is refused: "
        "CC-REC-UNKNOWN-WITH-USAGE).",
        "Nothing to do, unless a newer Claude Code moved spend into them.",
        blocking=False,
    ),
    "CC-REC-DUPLICATE-UUID": _c(
        "Records repeating an earlier uuid were dropped (the first copy in line order is kept), "
        "a call record written again with its four usage counts zeroed among them when its "
        "usage.iterations restore the first copy's usage (Claude Code 2.1.211).",
        "Nothing to do: Claude Code re-emits records before a compaction.",
        blocking=False,
    ),
    "CC-REC-UUID-CONFLICT": _c(
        "A record repeats an earlier record's uuid but differs in what the converter reads "
        "(another model call, other usage, another prompt or tool call): it is no re-emitted "
        "copy, and keeping only the first would drop it.",
        "The file was edited or damaged; restore Claude Code's original.",
    ),
    "CC-REC-UNEXPLAINED-DUPLICATE": _c(
        "A model call appears in two files, or one tool call id under two model calls (in "
        "one file or two), and no documented rule explains the copy.",
        "Restore the files from one consistent copy of the session." + _COPY_ELSEWHERE,
    ),
    "CC-REC-FRAGMENT-DISAGREE": _c(
        "Fragments of one model call disagree on input or cache counters; the last fragment is used.",
        "Nothing to do; this is recorded as evidence of a streaming anomaly.",
        blocking=False,
    ),
    "CC-REC-LINE-ORDER": _c(
        "A record names as its parent (parentUuid) a record written after it in the same "
        "transcript: its lines are not in the order Claude Code wrote them (moved by an edit, "
        "sorted, reversed, or files merged), and which prompt each call followed, its task, "
        "cannot be told from them.",
        "Convert the file as Claude Code wrote it: restore it from its original or a backup. "
        "The order cannot be recovered from the lines alone; without the original, leave the "
        "session out of what you convert and evaluate.",
    ),
    "CC-REC-BAD-TIMESTAMP": _c(
        "A prompt's or call's timestamp is not an instant (no time zone, a leap second, not a "
        "date): it is published as null. (An RFC 3339 offset such as +05:30 is converted to UTC; "
        "a fraction past milliseconds is cut to them.)",
        "Nothing to do unless task start times matter; then restore Claude Code's original file, "
        "which writes UTC timestamps ending in Z.",
        blocking=False,
    ),
    "CC-REC-COPY-DISAGREE": _c(
        "A copy of a call in another transcript (a fork's bootstrap, a /btw replay) names another "
        "model, other input or cache counters, or more output than the call it repeats states "
        "as final (a copy of a streaming stub, all counters 0, is compared by output only): it "
        "is not that call, and counting it once would leave its spend out.",
        "Convert the transcripts as Claude Code wrote them: a copy Claude Code writes repeats "
        "the call as it was. If they were not edited, report the Claude Code version (a gateway "
        "may reuse message ids).",
    ),
    "CC-REC-AGENT-USAGE-DISAGREE": _c(
        "A parent's Agent result states the usage of its subagent's last call (toolUseResult."
        "usage), and no call the subagent's transcript records can have had it: its input or "
        "cache counters differ from every call's, or its output from every finished call's. The "
        "transcript may be cut short of its last calls (their spend is then missing from the "
        "bundle) or be another run's.",
        "Restore the subagent's complete transcript (agent-<id>.jsonl in the session's "
        "subagents/ folder) from the machine that ran the session, and convert again. The stated "
        "usage is never counted as spend: it is a consistency check only.",
        blocking=False,
    ),
    "CC-REC-REQUEST-ID-DISAGREE": _c(
        "Fragments of one model call in one file name different request ids (requestId); the "
        "call is still one call, grouped by its message id.",
        "Nothing to do; this is recorded as evidence of a file joined from two sessions or edited "
        "by hand. requestId is a consistency check only, never how calls are grouped.",
        blocking=False,
    ),
    "CC-REC-MODEL-DISAGREE": _c(
        "Fragments of one model call name different models.",
        "The file was edited or damaged; restore Claude Code's original.",
    ),
    "CC-REC-ORPHAN-TOOL-RESULT": _c(
        "A tool result names a tool call that no transcript in the tree records, or one its "
        "own transcript records only after it (not that call's result: the call stays "
        "no-result).",
        "Nothing to do; the result is counted but carries no spend.",
        blocking=False,
    ),
    "CC-REC-EXTRA-TOOL-RESULT": _c(
        "A tool result names a tool call that has its result already, or one another "
        "transcript of the tree records (a result written twice, or in the wrong file): it is "
        "not taken. The call keeps the first result in its own transcript, or stays no-result.",
        "Nothing to do; the result carries no spend. Many of them: a transcript was edited or "
        "joined from copies, which the tree's files' dates may show.",
        blocking=False,
    ),
    "CC-REC-TOOL-NO-RESULT": _c(
        "Tool calls with no result (interrupted session) are counted with status no-result.",
        "Nothing to do.",
        blocking=False,
    ),
    "CC-REC-USAGE-INCOMPLETE": _c(
        "Model calls whose final usage was never written are priced as an interval.",
        "Nothing to do: the interval's high end prices output at the contract's "
        "max_output_tokens. If Claude Code wrote provider bodies (OTEL_LOG_RAW_API_BODIES="
        "file:<dir>), convert with --provider-bodies <dir>: a call's response gives its final "
        "usage (CC-BODY-USAGE-COMPLETED).",
        blocking=False,
    ),
    "CC-REC-USAGE-INCOMPLETE-NO-INPUT": _c(
        "Usage-incomplete model calls whose usage records no input at all (input, cache read "
        "and cache write all 0; seen on gateway traffic; a hidden call's in its provider "
        "response, named by that file). Every call reads input, so that usage was written "
        "before the input was counted: max_output_tokens (a hidden call's request max_tokens) "
        "bounds such a call's output, and neither end of its cost interval holds its input.",
        "Convert again once the sessions are idle, if they may still be running, or with "
        "--provider-bodies if Claude Code wrote them (a transcript call's response completes "
        "it, unless it states no input either; a hidden call's response is the one that "
        "states none). "
        "Otherwise read the high cost as short by these calls' input (the report counts them; evaluate takes "
        "no cost gate as met at the high cost, EVAL-COST-UNBOUNDED); the contract cannot "
        "change it.",
        blocking=False,
    ),
    "CC-REC-FINAL-NO-INPUT": _c(
        "Model calls whose usage is recorded as final but counts no input at all (input, "
        "cache read and cache write all 0; a hidden call's in its provider response, named by "
        "that file). Every call reads input, so that usage is damaged or was written by a "
        "gateway that does not count it: the calls are priced as written, and their input is "
        "in no figure.",
        "Read the cost as short by these calls' input. If the session ran through a gateway, "
        "its own bill has the input; otherwise restore the transcript from a copy Claude Code "
        "wrote.",
        blocking=False,
    ),
    "CC-REC-SYNTHETIC": _c(
        "Synthetic / API-error records were counted; they are not model calls and carry no spend.",
        "Nothing to do.",
        blocking=False,
    ),
    "CC-REC-MODEL-NAME-SHAPE": _c(
        "A model name is not the id of a known model family, so it crosses as a keyed "
        "pseudonym (model-<hex>) unless the contract reveals it.",
        "Price the pseudonymous model in the contract; if the name may be published, list it in "
        "privacy.reveal_names.",
        blocking=False,
    ),
    "CC-REC-VERSION-SHAPE": _c(
        "Distinct values of the records' `version` that are not a Claude Code version (digits "
        "and dots, as 2.1.216) are not published: claude_code_versions leaves them out.",
        "Nothing to do; Claude Code writes its version there, so another value means the "
        "transcript was written or edited by something else.",
        blocking=False,
    ),
    "CC-REC-PROGRESS-COPY": _c(
        "Copies of subagent messages inside progress lines were ignored (never counted as spend).",
        "Nothing to do.",
        blocking=False,
    ),
    "CC-REC-PROGRESS-UNMATCHED": _c(
        "A progress line holds a copy of a model call (with its usage) that no transcript of "
        "the tree records: the copy is never counted, so that call's spend would be lost (a "
        "child transcript missing, or cut short of it).",
        "Restore the subagent transcripts of the session (its subagents/ folder) from the "
        "machine that ran it, and convert again. If no complete copy exists, that call's spend "
        "is recorded nowhere else: leave this session out of what you convert and evaluate "
        "(scan lists it as refused).",
    ),
    "CC-REC-FORK-BOOTSTRAP": _c(
        "A forked child repeats its parent's delegation call; the copy is counted once.",
        "Nothing to do.",
        blocking=False,
    ),
    "CC-REC-BRANCH-COPY": _c(
        "The session was branched from another (/branch): records "
        "marked forkedFrom are copies of that session's, whose calls are counted where they "
        "were made. They are not this session's spend or tasks.",
        "Nothing to do. Convert the session it was branched from for the calls before the "
        "branch; scan counts each call once, in the session that made it.",
        blocking=False,
    ),
    "CC-REC-BRANCH-COPY-UNEXPLAINED": _c(
        "A prompt or call of the main transcript is marked forkedFrom (a copy from the session "
        "this one was branched from), but it is not one of the copies a branch starts with: it "
        "comes after the session's own prompts or calls, or names this session, or no session, "
        "as the one copied. Dropped as a copy it could be spend left out; counted, another "
        "session's spend counted twice.",
        "Convert the transcript as Claude Code wrote it: a tool that merged or edited sessions "
        "may have left the mark. If Claude Code wrote it so, report the Claude Code version "
        "(its branches take another shape).",
    ),
    "CC-REC-REPLAY": _c(
        "A fork Claude Code started itself (a /btw side question, a prompt suggestion, a "
        "memory extraction) replays its parent's calls before its own: the count is of the "
        "replayed call records, and each replayed call is counted once as spend, where it was "
        "made.",
        "Nothing to do.",
        blocking=False,
    ),
    "CC-REC-WEBSEARCH-COUNT-UNKNOWN": _c(
        "WebSearch calls whose result names no server search (an older result shape, or no "
        "structured result recorded): their search count is unknown and priced as 0, so the "
        "web-search spend is a lower bound, short by at least one search per such call ($0.01 "
        "each at the public price).",
        "Nothing in the contract can change it: no file states the count. Evaluate then meets "
        "no cost gate with this session's bundle (EVAL-COST-LEFT-OUT, INCOMPLETE): budget the "
        "searches beside the report from this count and decide by hand, or leave the bundle "
        "out of the workload. (The searches ran in a side call no transcript records: with "
        "--provider-bodies its tokens are a hidden call, CC-BODY-HIDDEN-CALL, priced in its "
        "task; its search count stays unknown.)",
        blocking=False,
    ),
    "CC-REC-SERVER-TOOL-UNPRICED": _c(
        "Model calls whose usage counts a server tool other than web search and web fetch "
        "(`server_tool_use`): its requests are not priced; the call's tokens are. evaluate "
        "takes every cost of the workload as a lower bound (EVAL-COST-UNPRICED).",
        "Check the provider's price for that tool and add the spend by hand if it matters; a "
        "newer agent-evidence may price it.",
        blocking=False,
    ),
    "CC-REC-WEBSEARCH-FROM-RESULT": _c(
        "Web search requests were taken from WebSearch tool results: those a call's results "
        "list beyond what its usage counts (usually 0); the count is of searches so taken.",
        "Nothing to do.",
        blocking=False,
    ),
    "CC-TREE-AGENT-RESUMED-BY-TASK": _c(
        "An agent was resumed by a later Agent or Task call naming it (`resume`, Claude Code "
        "2.0.28-2.1.76): its one transcript holds every run, and which of its calls a later "
        "run made is not written in a form this version reads. Under tasks by prompt, a run "
        "resumed from a later prompt would count to the first run's task.",
        "Convert with --task-unit session: the session is one task, and every call of the "
        "agent is counted in it.",
    ),
    "CC-TREE-WORKFLOW-RESUMED": _c(
        "Agents of a Workflow run launched more than once (resumed with resumeFromRunId: the "
        "run keeps its id, folder and journal) were each placed under the launch they started "
        "after, by the times Claude Code wrote on the launch calls and on each agent's first "
        "record; a launch that dispatched no agent reused the results of the others.",
        "Nothing to do.",
        blocking=False,
    ),
    "CC-TREE-WORKFLOW-RESUME-UNPLACED": _c(
        "A Workflow run was launched more than once (resumed with resumeFromRunId), and which "
        "launch started this agent cannot be told: a launch call or the agent's first record "
        "has no readable time, two launches share one, the launches are in different "
        "transcripts, the agent started before every launch, or a result of a tool other than "
        "Workflow names the run.",
        "Nothing in the files needs restoring if Claude Code wrote them so; this version "
        "cannot convert such a run. Report the case (codes and line numbers only).",
    ),
    "CC-TASK-CHANNEL-PROMPT": _c(
        "Messages sent into the session through a channel (a chat bridge such as Telegram or "
        "Slack; `origin.kind` channel) start tasks as typed prompts do: each is a request from "
        "outside the session, and the calls after it answer it. A channel can also be a bot.",
        "Nothing to do; label each such task as the work it holds (if it is not work you "
        "evaluate: acceptable false, and business_value_usd, human_minutes, incident_loss_usd "
        'and remediation_cost_usd "0"; a task with calls cannot be excluded). With '
        "--task-unit session the question does not arise.",
        blocking=False,
    ),
    "CC-REC-QUEUED-PROMPT": _c(
        "Prompts typed while the agent worked (queued commands, recorded as attachments) are "
        "not tasks: the task that was running answers them, and their calls count to it.",
        "Nothing to do; with --task-unit session the question does not arise. Label the task "
        "knowing it may have served more than its own prompt.",
        blocking=False,
    ),
    "CC-REC-SIDECHAIN-IN-FILE": _c(
        "Subagent records kept inside the parent file (Claude Code 1.0.x) were joined by their "
        "delegation prompt.",
        "Nothing to do.",
        blocking=False,
    ),
    "CC-TASK-NO-CALLS": _c(
        "Root prompts with no model call after them are listed as tasks with zero calls.",
        "Move each to excluded_tasks with a reason (not-an-attempt: a local command, an "
        "interruption; aborted; duplicate), or label it if it was an attempt: labelled, it "
        "counts in evaluate as an attempt that cost nothing.",
        blocking=False,
    ),
    "CC-TASK-UNATTRIBUTED": _c(
        "Model calls come before any root human prompt, so they belong to no prompt task.",
        "If a line of the parent transcript is refused above, its prompt may be the one missing: "
        "restore the file first. Otherwise convert with --task-unit session, which makes the "
        "whole tree one task.",
    ),
    "CC-TASK-COMPACT-SUMMARY-UNMARKED": _c(
        "A user record stands where a compaction's summary does (its parent is the "
        "compact_boundary record) but is not marked isCompactSummary, as every summary of the "
        "known versions is: a summary marked another way, or a prompt written there. Read as a "
        "prompt, it would start a task of its own and take the calls after it.",
        "Report the Claude Code version (docs/claude-code-shapes.md, Compaction). Meanwhile "
        "convert with --task-unit session, which starts no task at any prompt.",
    ),
    "CC-TASK-USER-CONTENT-UNKNOWN": _c(
        "A user record of the main transcript holds content of a kind this version does not "
        "know (neither text, images and documents, nor tool results, a command or a notice): "
        "whether it starts a task cannot be told, and either answer moves calls between tasks.",
        "Convert with --task-unit session (the whole tree one task), or update agent-evidence; "
        "report the Claude Code version and the block types (no content).",
    ),
    "CC-TASK-ORIGIN-UNKNOWN": _c(
        "A user record of the main transcript says it was sent by a source this version does "
        "not know (its `origin.kind` is not human, channel, coordinator or task-notification): "
        "whether it starts a "
        "task cannot be told, and either answer moves calls between tasks.",
        "Convert with --task-unit session (the whole tree one task), or update agent-evidence; "
        "report the Claude Code version and the origin's kind (a word Claude Code writes).",
    ),
    "CC-TREE-JOURNAL-SHAPE": _c(
        "A line of a workflow run's journal.jsonl that starts or ends an agent (`started`, "
        "`result`) names no agent as this version reads it (no `agentId` text): which "
        "transcripts the run's agents wrote cannot be checked.",
        "Update agent-evidence if Claude Code changed its journal; report the Claude Code "
        "version and the line's keys (no content). An edited journal: restore Claude Code's.",
    ),
    "CC-TREE-NO-CALLS": _c(
        "The tree holds no model call at all.",
        "Nothing to convert; pick a session that used a model.",
    ),
    # --- provider bodies (--provider-bodies DIR) ---
    "CC-BODY-DIR-UNREADABLE": _c(
        "The folder given with --provider-bodies does not exist, is not a folder, is a "
        "symbolic link, or cannot be searched.",
        "Pass the folder Claude Code writes bodies to (the <dir> of "
        "OTEL_LOG_RAW_API_BODIES=file:<dir>) by its real path, and check its permissions.",
    ),
    "CC-BODY-NOT-REGULAR": _c(
        "A provider body this tree selects (or the folder's index.jsonl) is a symbolic link, a "
        "folder or a special file: bodies are read only from regular files.",
        "A symlink: replace it with a copy of the file it points to (links are refused so the "
        "folder cannot point outside itself). A folder or special file: remove it and restore "
        "Claude Code's file, or " + _WITHOUT_BODIES,
    ),
    "CC-BODY-INDEX-FIELD": _c(
        "A line of the bodies folder's index.jsonl has no string session_id, or a line of this "
        "session names no response file of the form <request-id>.response.json or no string "
        "message_id, or a hidden call's line names a request_file not of the form "
        "<name>.request.json.",
        "The index was edited or damaged; restore Claude Code's original, or " + _WITHOUT_BODIES,
    ),
    "CC-BODY-HIDDEN-NOT-COUNTED": _c(
        "Provider responses of this session (by its index) that no transcript of this tree "
        "records, in a session split across project folders: each may be a call the "
        "session's transcript in another project folder records, or a hidden call. They are "
        "not counted as hidden calls (hidden_calls), and not priced.",
        "Nothing to do: which of them the session's other transcript records cannot be told "
        "from this tree (each project folder's transcript of a session has the same name, so "
        "they cannot be brought into one folder).",
        blocking=False,
    ),
    "CC-BODY-NONE-SELECTED": _c(
        "A --provider-bodies folder was given and holds no body of this session (no response "
        "its calls name, no index line of it): nothing was read from it, and nothing changed.",
        "Check the folder: Claude Code writes it where OTEL_LOG_RAW_API_BODIES=file:<dir> "
        "says, for sessions run with that setting.",
        blocking=False,
    ),
    "CC-BODY-INDEX-BLANK": _c(
        "Blank lines in the bodies folder's index.jsonl: no session's line. Counted, not read; "
        "shown by inspect, not bound: a line another session's writing leaves changes no "
        "contract.",
        "Nothing to do.",
        blocking=False,
    ),
    "CC-BODY-INDEX-TORN": _c(
        "A line of the bodies folder's index.jsonl is another session's and not one whole "
        "record: its last line, still being written (no newline yet), or a line a write cut "
        "short and the next line's write joined. Each record it starts shows another session's "
        "id, or the start of one that is not this session's. It is not read. Shown by inspect, "
        "not bound: a line of other sessions changes no contract. (One that may be this "
        "session's is refused: the last line CC-BODY-INDEX-PENDING, another by its damage.)",
        "Nothing to do.",
        blocking=False,
    ),
    "CC-BODY-INDEX-PENDING": _c(
        "The last line of the bodies folder's index.jsonl is still being written (no newline "
        "yet), and it may be this session's: cut before its session id, or naming this "
        "session. A call it names has not been looked for, and whether every call no "
        "transcript records was (`auxiliary_calls`) cannot be told until it is whole: a bundle "
        "made now would differ from one made a moment later, and `verify` would call the "
        "sources changed.",
        "Run again in a moment, once Claude Code has finished the line. If it stays cut (Claude "
        "Code was stopped while writing it, and nothing has been written since), its call's "
        "response was never recorded whole: work on a copy of the folder: delete that last "
        "partial line from the copy's index.jsonl (no session's whole line changes), and give "
        "the copy to --provider-bodies, in verify too; or " + _WITHOUT_BODIES,
    ),
    "CC-BODY-FILE-MISSING": _c(
        "A line of index.jsonl for this session names a response file, or for a hidden call a "
        "request file, that is not in the bodies folder.",
        "Restore the file (Claude Code never deletes bodies), or " + _WITHOUT_BODIES,
    ),
    "CC-BODY-RESPONSE-UNFINISHED": _c(
        "A provider response file of this tree is empty, or JSON cut short (it stops inside "
        "its object, a string or a character). Claude Code writes each response in one write, "
        "with no rename: a response of a session still running can be read before it is all "
        "there.",
        "If the session is still running, run again when it has finished; otherwise the file "
        "was damaged: restore Claude Code's original, or " + _WITHOUT_BODIES,
    ),
    "CC-BODY-STREAMED": _c(
        "A provider body file of this tree (a response, or a hidden call's request) is a "
        "streamed body (server-sent events: `event:` and `data:` lines), not the one JSON "
        "object Claude Code writes with OTEL_LOG_RAW_API_BODIES=file:<dir>: a proxy or another "
        "logger wrote it, or the file was replaced.",
        "Give --provider-bodies the folder Claude Code wrote (each response the final message "
        "as one JSON object: docs/provider-bodies.md), or restore Claude Code's file, or "
        + _WITHOUT_BODIES,
    ),
    "CC-BODY-COMPRESSED": _c(
        "A provider body file of this tree (a response, or a hidden call's request) is "
        "gzip-compressed (it starts with gzip's magic bytes), not the one JSON object Claude "
        "Code writes with OTEL_LOG_RAW_API_BODIES=file:<dir>: a backup or sync tool compressed "
        "it, or the file was replaced.",
        "Decompress it under its own name (`--show-paths` gives it), in a copy of the folder "
        "(`gzip -dc NAME > NAME.tmp "
        "&& mv NAME.tmp NAME`), and give that copy to --provider-bodies; or restore Claude "
        "Code's file, or " + _WITHOUT_BODIES,
    ),
    "CC-BODY-RESPONSE-SHAPE": _c(
        "A provider response file of this tree is not a response as Claude Code writes one: an "
        "object with a string id, a string model, a stop_reason that is a string or null, and a "
        "usage object.",
        "The file was edited or damaged; restore Claude Code's original, or " + _WITHOUT_BODIES,
    ),
    "CC-BODY-ID-DISAGREES": _c(
        "A provider response is not the call it is named for: its id is not the message id its "
        "index line gives; or the call its id names records other request ids than the one its "
        "file is named by (with an index, the line naming it is pointed at); or, without an "
        "index, its id is no transcript call's whose records name that request id.",
        "The file or the index was edited, or belongs to another folder; restore Claude Code's "
        "originals, or " + _WITHOUT_BODIES,
    ),
    "CC-BODY-DUPLICATE": _c(
        "Two provider responses (or two index lines) are for one model call, or two index lines "
        "name one response file, or two hidden calls' lines one request file: which one is the "
        "call's cannot be told.",
        "If you know which file or index line is a copy you added, remove it; otherwise "
        + _WITHOUT_BODIES,
    ),
    "CC-BODY-MODEL-DISAGREES": _c(
        "A provider response names another model than the transcript call it joins.",
        _BODY_EDITED,
    ),
    "CC-BODY-USAGE-DISAGREES": _c(
        "A provider response's usage cannot be the usage of the transcript call it joins: for a "
        "call the transcript completes, a counter differs; for a usage-incomplete call, its "
        "input, cache read or cache write total differs (fixed when a response starts; for a "
        "response of several passes, from its first pass's), or its output is less than the "
        "transcript's (a stub that recorded no input states none), or its web-search or "
        "web-fetch requests fewer; or it completes a subagent's call with other output than the "
        "parent's Agent result states for that call.",
        _BODY_EDITED,
    ),
    "CC-BODY-USAGE-COMPLETED": _c(
        "Model calls the transcript left usage-incomplete took their final usage from their "
        "provider response (same input and cache counts, a stop reason): they are complete, "
        "priced exactly.",
        "Nothing to do.",
        blocking=False,
    ),
    "CC-BODY-HIDDEN-CALL": _c(
        "Provider responses of this session (by its index) that no transcript call has: hidden "
        "calls (a session title, a compaction, a prompt suggestion...). Each is priced from its "
        "response and attributed to the task its request names (cc_prompt_id, else the "
        "cc_prev_req chain; under task_unit session, the one task), as a model event of a "
        "hidden agent of its kind (title, compaction, other). Counted by response, as the "
        "bundle's hidden_calls is: an advisor pass a response states is a model call and event "
        "of its own beside its call (among the model calls and the hidden agents'), not one more "
        "hidden call.",
        "Nothing to do: their cost is in the task's, and evaluate's report shows it apart.",
        blocking=False,
    ),
    "CC-BODY-HIDDEN-UNATTRIBUTED": _c(
        "A hidden call (a response of this session, by its index, that no transcript call "
        "has) cannot be attributed to a task: its request names no cc_prompt_id a turn of this "
        "tree carries and no cc_prev_req of a call of this tree, or its index line names no "
        "request file. Session-title and other side calls send neither key, and no request "
        "through a gateway or Bedrock does.",
        "Nothing in the bodies says which prompt caused the call, and it is not guessed. "
        "Convert with --task-unit session (the whole tree is one task, and the call is its), "
        "or " + _WITHOUT_BODIES,
    ),
    "CC-BODY-HIDDEN-AMBIGUOUS": _c(
        "A hidden call's request names two tasks: the turns carrying its cc_prompt_id fall in "
        "two tasks, or its cc_prompt_id names one task and its cc_prev_req a call of another.",
        "The bodies do not decide which task caused the call, and it is not guessed. Convert "
        "with --task-unit session, or " + _WITHOUT_BODIES,
    ),
    "CC-BODY-REQUEST-UNFINISHED": _c(
        "The provider request file of a hidden call is empty, or JSON cut short. Claude Code "
        "writes each request in one write, with no rename: a request of a session still "
        "running can be read before it is all there.",
        "If the session is still running, run again when it has finished; otherwise the file "
        "was damaged: restore Claude Code's original, or " + _WITHOUT_BODIES,
    ),
    "CC-BODY-REQUEST-SHAPE": _c(
        "The provider request file of a hidden call is not a request as Claude Code writes "
        "one: a JSON object whose system prompt, where its first block is Claude Code's "
        "billing header (x-anthropic-billing-header:), names cc_prompt_id and cc_prev_req at "
        "most once each, each an id (letters, digits, - and _).",
        "The file was edited or damaged; restore Claude Code's original, or " + _WITHOUT_BODIES,
    ),
    # --- contract (CONTRACT-*) ---
    "CONTRACT-POLICY-FILE-UNREADABLE": _c(
        "The --policy file could not be read, or is not valid strict JSON (a syntax error, a "
        "repeated key, NaN, text that is not UTF-8).",
        "Check the path; with a line, fix the JSON there. The file holds any of policy, "
        "baseline and outcome_contract, as contracts/examples/policy-and-baseline.json does.",
    ),
    "CONTRACT-POLICY-FILE-SHAPE": _c(
        "A field of the --policy file is missing, unknown, or of the wrong type or range (named "
        "by the path it fills in the contract).",
        'Give the field what the message says it expects (README, "Filling the contract", says '
        "what each is). With convert --template, a field left out stays null in the template, "
        "to fill there; with evaluate --policy, a field left out is one the bundles' contracts "
        "may set as they chose.",
    ),
    "CONTRACT-UNREADABLE": _c(
        "The contract file could not be read, or is not valid strict JSON (a syntax error, a "
        "repeated key, NaN, a torn write, text that is not UTF-8).",
        "Check that the path names the contract (with no line named, the file could not be "
        "read at all, or its JSON is nested deeper than any contract's); with a line, fix the "
        "JSON there (an editor that saves UTF-16 must save UTF-8 instead), or regenerate it with "
        "`convert --template`.",
    ),
    "CONTRACT-SHAPE": _c(
        "A contract field is missing, unknown, or of the wrong type or range.",
        'Give the field what the message says it expects (README, "Filling the contract", '
        "says what each claim is; the full schema is contracts/conversion-contract.schema.json "
        "in agent-evidence's repository).",
    ),
    "CONTRACT-CLAIM-NULL": _c(
        "A claim in the contract is still null.",
        "Fill every null claim (outcomes, outcome_contract, pricing, baseline, policy). A task "
        "the template lists with model_calls 0 is moved to excluded_tasks with a reason unless "
        "it was an attempt (CC-TASK-NO-CALLS).",
    ),
    "CONTRACT-KEY-MISMATCH": _c(
        "The contract was made under another pseudonym key.",
        "Convert with the key the contract was made under: the contract's key_id names it, and "
        "`agent-evidence key show-id` (with the same --key-file or AGENT_EVIDENCE_KEY) prints "
        "the one in use. Claims cannot be carried to another key (every pseudonym differs): a "
        "new template under this key starts with every claim null.",
    ),
    "CONTRACT-OTHER-SESSION": _c(
        "The contract was made for another session: its inventory does not bind this "
        "session's main transcript. Every file, count, task and pricing difference follows "
        "from that and is not listed; only the contract's own problems (shape, null claims, "
        "prices) are.",
        "Pass the --in of the session the contract was made for, or make a template for this "
        "session with convert --template.",
    ),
    "CONTRACT-TASK-UNIT-EDITED": _c(
        "The contract's source.task_unit is not the one its task list was made with (its first "
        "task is the one the other unit gives: the session's, or the first prompt's): the field "
        "was edited after the template. The task, count and outcome differences that follow "
        "from it are not listed; a file changed, added or removed since is, and so are the "
        "contract's own problems.",
        "Set source.task_unit back to what the template wrote; to count by the other unit, make "
        "a new template: convert --in SESSION --template NEW.json --task-unit UNIT --from-contract "
        "OLD.json (pricing and policy carry over; outcomes are per task and are labelled again).",
    ),
    "CONTRACT-IS-A-BUNDLE": _c(
        "The file given as a contract is a bundle (its schema_version is a bundle's): a "
        "bundle is what convert --contract writes, not what it reads.",
        "Give the contract the bundle was made from; a bundle is the output of convert --contract.",
    ),
    "CONTRACT-IS-A-TRANSCRIPT": _c(
        "The file given as a contract (or as a --policy file) is JSON Lines, a session "
        "transcript's form (one JSON object per line): the transcript is what --in reads.",
        "Pass the transcript with --in, the contract (made by convert --template, then filled) "
        "with --contract, and the team's policy file with --policy.",
    ),
    "CONTRACT-IS-A-POLICY-FILE": _c(
        "The file given as a contract is a policy file (it holds only the policy, baseline or "
        "outcome_contract sections, as --policy reads them), not a conversion contract: a "
        "contract is made for one session by convert --template.",
        "Make the session's contract from it: convert --in SESSION --template contract.json "
        "--price-card CARD --policy FILE, fill the template's null claims, then convert --in "
        "SESSION --contract contract.json --out bundle.json.",
    ),
    "CONTRACT-BODIES-MISSING": _c(
        "The contract binds provider bodies, and this conversion bound none: no "
        "--provider-bodies folder was given, or the one given holds none of this session's. "
        "Every body it binds, and what they changed, would differ. Those differences are not "
        "listed; the contract's own problems are.",
        "Pass the --provider-bodies folder the template was made with. To do without the "
        "bodies, make the template again without --provider-bodies (--from-contract carries "
        "your claims) and convert that contract.",
    ),
    "CONTRACT-BODIES-UNEXPECTED": _c(
        "This conversion was given provider bodies (--provider-bodies) that the contract does "
        "not bind: it was made without them. The differences that follow are not listed; the "
        "contract's own problems are.",
        "Leave --provider-bodies out, or make a new template with it (--from-contract carries "
        "your claims forward).",
    ),
    "CONTRACT-SOURCE-MISMATCH": _c(
        "The contract names another source adapter, adapter version or task unit than the "
        "--from or --task-unit given (the field named); every task and count would differ too.",
        "Leave --from and --task-unit out: convert --contract and verify take them from the "
        "contract. Or "
        "give the ones its template was made with.",
    ),
    "CONTRACT-FILE-CHANGED": _c(
        "A bound source file no longer matches its entry in the contract's inventory: its bytes "
        "changed (size, SHA-256), or the entry (its role) was edited.",
        "If the session changed since the template, make a new template (--from-contract carries "
        "your claims forward); an inventory is never edited by hand: regenerate it the same way.",
    ),
    "CONTRACT-FILE-ADDED": _c(
        "The tree has a file the contract's inventory does not bind.",
        "Make a new template with --from-contract to carry your claims forward.",
    ),
    "CONTRACT-FILE-REMOVED": _c(
        "A file the contract binds is no longer in the tree.",
        "Restore the file, or make a new template with --from-contract.",
    ),
    "CONTRACT-FILE-RENAMED": _c(
        "A file the contract binds is in the tree under another name: the same role, size and "
        "SHA-256 at another path, so another keyed label (the label is keyed over the file's "
        "path beside the main transcript, not its bytes).",
        "Give the file back the name it was converted under: its path beside the main "
        "transcript (for --from claude-code, the file's own name); --show-paths names where it "
        "lies now. If the new name is meant, make a new template with --from-contract.",
    ),
    "CONTRACT-COUNT-MISMATCH": _c(
        "A count in the contract's inventory differs from the sources.",
        "Make a new template with --from-contract.",
    ),
    "CONTRACT-INVENTORY-MISMATCH": _c(
        "The content-free inventory differs from the sources: its digest, the Claude Code "
        "versions or findings it lists (the location names the finding whose count differs), "
        "or its file list (a file listed twice, or reordered).",
        "Make a new template with --from-contract.",
    ),
    "CONTRACT-TASKS-MISMATCH": _c(
        "The contract's task list differs from the tasks in the sources: a task was added or "
        "removed, or a field of a task entry (id, input_digest, started_at, model_calls, "
        "subagents) was edited.",
        "Task entries are written by the tool: undo the edit at the location named, or make a "
        "new template with --from-contract (it lists dropped and new tasks). A started_at that "
        "differs after privacy.timestamps was made finer than the template's: make the "
        "template again with --timestamps and --from-contract. A contract made "
        "by version 0.1 names tasks by ids that 0.2 keys per session, and one made before "
        "0.4.8 made an old-form interruption marker a task: --from-contract carries the labels "
        "over (and names a dropped task that had calls). When a file was added or changed since (CONTRACT-FILE-ADDED, "
        "-CHANGED), the tasks differ because the session went on: --from-contract is the fix.",
    ),
    "CONTRACT-OUTCOME-MISSING": _c(
        "A task has no outcome claim and is not excluded.",
        "Add the task's outcome; a task with no model call may be listed in excluded_tasks "
        "with a reason instead.",
    ),
    "CONTRACT-UNKNOWN-CHECK": _c(
        "policy.disabled_checks names a gate that evaluate does not run.",
        "Use the gate ids acceptable-rate, cost-per-acceptable-outcome, p95-task-cost, "
        "expected-net-value, incremental-net-value, runtime-caps or sample-size, or remove it.",
    ),
    "CONTRACT-OUTCOME-UNKNOWN-TASK": _c(
        "An outcome or exclusion names a task that the sources do not have.",
        "Remove it; task ids come from the template's task list.",
    ),
    "CONTRACT-EXCLUSION-REASON": _c(
        "An excluded task has no valid reason (not-an-attempt, duplicate, aborted).",
        "Give one of the three reasons.",
    ),
    "CONTRACT-EXCLUDED-AND-LABELLED": _c(
        "A task is both excluded and labelled with an outcome.",
        "Keep one of the two.",
    ),
    "CONTRACT-EXCLUDED-HAS-CALLS": _c(
        "An excluded task has model calls: excluded_tasks is only for root prompts that no model "
        "call followed (model_calls 0 in the task list), and excluding one that spent would drop "
        "its spend from the evaluation.",
        "Move the task back to claims.outcomes and label it: an attempt that spent money counts, "
        "even an aborted one or a duplicate (label it acceptable: false).",
    ),
    # --- bundle (BUNDLE-*) ---
    "BUNDLE-UNREADABLE": _c(
        "The bundle file could not be read.",
        "Check the path and permissions.",
    ),
    "BUNDLE-IS-FOLDER": _c(
        "A folder was given where a bundle file goes; a folder's bundles are not looked for.",
        "Give each bundle file with its own --bundle (--bundle a.json --bundle b.json; for a "
        "folder, the README's loop builds the list); in the Action, one path per line.",
    ),
    "BUNDLE-NOT-A-BUNDLE": _c(
        "The file is not a bundle: it is empty, cut short, not JSON, or has no "
        "receipt.evidence_sha256 to check.",
        "Pass the bundle that convert --contract wrote; if it was downloaded, download it again.",
    ),
    "BUNDLE-IS-A-CONTRACT": _c(
        "The file given as a bundle is a conversion contract or its template (its "
        "schema_version is a contract's): a contract is what convert turns into a bundle.",
        "Convert it first: agent-evidence convert --contract FILE --in SESSION --out "
        "bundle.json, then pass bundle.json.",
    ),
    "BUNDLE-IS-A-TRANSCRIPT": _c(
        "The file given as a bundle is JSON Lines, a session transcript's form (one JSON object "
        "per line), not a bundle: a bundle is what convert --contract writes from a session.",
        "Convert the session first: agent-evidence convert --in SESSION --contract FILE --out "
        "bundle.json, then pass bundle.json.",
    ),
    "BUNDLE-IS-AN-ATTESTATION": _c(
        "The file given as a bundle is a signed attestation (a DSSE envelope, the "
        ".intoto.json convert writes beside a bundle), not the bundle it vouches for.",
        "Pass the bundle itself with --bundle (the same name without .intoto.json); the "
        "attestation beside it is found by that name and checked with --public-key.",
    ),
    "BUNDLE-SHAPE": _c(
        "The bundle's digest matches its content, but the content is not a bundle of this schema "
        "version (written by another program or version, or resealed after an edit): a field "
        "of the wrong shape, a count past 2**32, or an agent of kind `root` that has a parent "
        "(or the parentless one of another kind).",
        "Convert the bundle again with this version from its contract; if it was resealed, treat "
        "it as untrusted (an attestation would show it).",
    ),
    "BUNDLE-DANGLING-REFERENCE": _c(
        "The bundle's digest matches its content, but a reference inside it points at nothing: "
        "an event names no task, or a task or agent the bundle does not list; an edge, a tool "
        "call's requesting call or an agent's delegation names an event it does not hold; an "
        "agent's parent or an exclusion names an agent or task it does not list, or an agent's "
        "parent is not one level above it (an agent its own parent, or a loop of them), or its "
        "delegation is not a tool call of its parent; a tool call is in another task or agent "
        "than the model call that requested it, or that call is not the one its `requests` "
        "edge comes from (one such edge per tool call); or an edge joins the wrong kinds of "
        "event (`requests` runs from a model call to a tool call, `consumes` and `delegates` "
        "from a tool call to a model call, `returns` to a model call).",
        "Convert the bundle again from its contract; a bundle this program writes has none. If "
        "it was resealed after an edit, treat it as untrusted (an attestation would show it).",
    ),
    "BUNDLE-DUPLICATE-ID": _c(
        "The bundle's digest matches its content, but two of its events, tasks or agents share "
        "an id, so references to it are ambiguous, or it excludes one task twice.",
        "Convert the bundle again from its contract; if it was resealed after an edit, treat it "
        "as untrusted.",
    ),
    "BUNDLE-OUTCOME-MISMATCH": _c(
        "The bundle's digest matches its content, but its outcomes do not match its tasks: a "
        "task that is not excluded has no outcome, an outcome names a task the bundle does "
        "not list or excludes, or an excluded task has events (its spend would leave the "
        "evaluation).",
        "Convert the bundle again from its completed contract; if it was resealed after an edit, "
        "treat it as untrusted.",
    ),
    "BUNDLE-COUNT-MISMATCH": _c(
        "The bundle's digest matches its content, but a count in its receipt (model calls, tool "
        "calls, usage-incomplete calls, tasks, edges, subagents, depth, files; the findings of "
        "usage-incomplete calls, one event each; from 0.6.14, those of WebSearch calls of "
        "unknown count and of final and usage-incomplete calls of no input, one event each) or "
        "a task's model_calls differs from what its events, edges, agents and files hold; or a "
        "model call's web_search_requests is fewer than its tool calls' searches together.",
        "Convert the bundle again from its contract; if it was resealed after an edit, treat it "
        "as untrusted.",
    ),
    "BUNDLE-HIDDEN-CALLS": _c(
        "The bundle's hidden calls (calls only provider bodies show) are not as a conversion "
        "writes them: an agent of kind hidden-* must have agent type hidden, depth 1, the root "
        "as parent and no delegation, one agent per kind; such an agent has no tool events, "
        "its model events no timestamp and no edge; only a usage-incomplete one may state "
        "request_max_tokens, never below its output; receipt.hidden_calls is 0 exactly "
        "when no model event is a hidden agent's, and at most their number, and never more "
        "than the provider-response files bound (each hidden call is a response file of its "
        "own); a bundle holding one binds provider-index and provider-response files, and one "
        "stating request_max_tokens a provider-request file (where each is read from); and "
        "receipt.auxiliary_calls is observed only when a provider-index file is among its "
        "files (those calls are looked for in the bodies' index alone).",
        "The bundle was edited after it was written. Use the bundle as convert wrote it, or "
        "convert again.",
    ),
    "BUNDLE-NAME-NOT-PUBLIC": _c(
        "A model, tool, agent-type or billing-context name in the bundle (of an event, an "
        "agent, or its pricing) is none the firewall writes (a known model id, a built-in tool "
        "or agent type, a known billing value, a name its receipt's reveal_names lists, or a "
        "keyed pseudonym), a finding code "
        "is none of the catalogue's, or a label (rubric, label source, baseline) is not one "
        "word: the bundle was edited after conversion, or written by something else.",
        "Do not publish or evaluate it as it is: convert the session again with agent-evidence.",
    ),
    "BUNDLE-TIMESTAMP-PRECISION": _c(
        "A timestamp in the bundle is more precise than its receipt's privacy.timestamps says "
        "(or not in the form the converter writes): the bundle was edited after conversion.",
        "Do not publish or evaluate it as it is: convert the session again with agent-evidence.",
    ),
    "BUNDLE-COST-MISMATCH": _c(
        "The bundle's digest matches its content, but an event's cost or applied price (tier, "
        "context multiplier, unsplit cache-write rule, high output) is not what the bundle's own "
        "pricing gives for its usage, or its pricing lacks a price the event needs.",
        "Convert the bundle again from its contract; if it was resealed after an edit, treat it "
        "as untrusted.",
    ),
    "BUNDLE-SCHEMA-MISMATCH": _c(
        "The bundle says schema v1, which only agent-evidence 0.1 wrote, but names a later "
        "generator, which writes v2 with the prices its costs are checked against: it was "
        "rewritten as v1 after it was written. Or it says v2 and names 0.1, which wrote none.",
        "Convert the bundle again from its contract; treat this one as untrusted.",
    ),
    "BUNDLE-PRICE-CARD-MISMATCH": _c(
        "The bundle's receipt names a shipped price card, but a price it carries for a model or "
        "server tool the card prices (or the card's date or source) is not the card's: its "
        "prices and costs were changed together after it was written, under the card's name. "
        "Or its prices name another card (or none) than its receipt, which reports show.",
        "Convert the bundle again from its contract; if it was resealed after an edit, treat it "
        "as untrusted.",
    ),
    "BUNDLE-DIGEST-MISMATCH": _c(
        "The bundle's evidence digest does not match its content: it was changed after it was "
        "written.",
        "Obtain the bundle again from its producer; never edit a bundle by hand.",
    ),
    # --- pricing (PRICE-*) ---
    "PRICE-NULL": _c(
        "A pricing value in the contract is null.",
        "Fill the named price, multiplier, tier threshold or rule with what you were billed. "
        "--price-card pre-fills the prices of models a shipped card knows and the multiplier of "
        "a context it can read. It leaves null a context with an absent or empty field "
        "(absence is not standard: 1 only if you know those calls were billed at standard "
        "rates) and one no single multiplier prices: fast mode (speed=fast) is billed above "
        "standard (6x for Opus 4.6 up to 200K input tokens, more above), so 1 there "
        "underprices; batch discounts input and output only. unsplit_cache_write_rule takes "
        '"5m" or "1h": the cache duration those writes were billed at (Claude Code writes '
        "mostly 1h; 5m underprices them if so).",
    ),
    "PRICE-NEGATIVE": _c(
        "A price or multiplier in the contract is negative.",
        "Write the named value as a number of zero or more.",
    ),
    "PRICE-MAX-OUTPUT-BELOW-OBSERVED": _c(
        "A model's max_output_tokens is below the output tokens a call of that model recorded.",
        "Write the model's real output limit (at least the largest output it recorded): it is "
        "the high end of every usage-incomplete call's cost.",
    ),
    "PRICE-COST-TOO-LARGE": _c(
        "A call of the named model or tool would cost 10^20 USD or more at the contract's "
        "prices: a price, multiplier or max_output_tokens is far off.",
        "Check the named model's prices, context multipliers and max_output_tokens, or the "
        "named tool's price per call.",
    ),
    "PRICE-TOO-PRECISE": _c(
        "A price or multiplier in the contract has more than 30 digits before or after the "
        "decimal point.",
        "Write the named value with at most 30 digits on each side of the point.",
    ),
    "PRICE-NONFINITE": _c(
        "A price or multiplier in the contract is NaN or infinite.",
        "Write the named value as a finite decimal number.",
    ),
    "PRICE-TIERS-INVALID": _c(
        "A model's price tiers do not start at 0 input tokens or do not increase strictly.",
        "List the tiers in order: the first above 0 tokens, each next one above a larger threshold.",
    ),
    "PRICE-MODEL-MISSING": _c(
        "A model used by the session has no price in the contract.",
        "Add the model id under pricing.models with its tiers and billing contexts.",
    ),
    "PRICE-CONTEXT-MISSING": _c(
        "A billing context (service tier, speed, inference region) observed for a model has no "
        "multiplier in the contract.",
        "Add the named key (service tier|speed|region) under the model's contexts with the "
        "multiplier you were billed: 1 only when every part is standard (the region global or "
        "not_available). Fast mode and a US-only region bill above 1, and absent or empty is "
        "not standard (see PRICE-NULL).",
    ),
    "PRICE-MAX-OUTPUT-MISSING": _c(
        "A model has usage-incomplete calls but no max_output_tokens to bound their cost.",
        "Set the model's max_output_tokens to the output limit your Claude Code requested: "
        "CLAUDE_CODE_MAX_OUTPUT_TOKENS if it was set, else the model's documented maximum "
        "output.",
    ),
    "PRICE-SERVER-TOOL-MISSING": _c(
        "The session used a server tool (web search) that has no per-request price.",
        "Set pricing.server_tools.web_search to the price of one search in USD.",
    ),
    "PRICE-CLIENT-TOOL-MISSING": _c(
        "A client tool called in the session has no per-call price.",
        "Add the tool name the message names under pricing.client_tools, as written: a "
        "pseudonym (`tool-<hex>`) stays the key even when privacy.reveal_names publishes the "
        "name (0 if calling it costs nothing itself).",
    ),
    "PRICE-CARD-UNKNOWN": _c(
        "No shipped price card has that name.",
        "Use the name of a shipped card (said with this refusal, and in the `--help` of the "
        "command; the files are in contracts/price-cards/), or pass a card file path.",
    ),
    "PRICE-CARD-UNREADABLE": _c(
        "The price card file does not exist, is not a regular file, or cannot be read.",
        "Check the path and its permissions (a shipped card is given by its name alone, no "
        "path and no .json).",
    ),
    "PRICE-CARD-ID-TAKEN": _c(
        "A price card file uses the id of a card shipped with agent-evidence but holds other "
        "values; bundles name a card by its id only, so the two could not be told apart.",
        "Give your card an id of its own (the `id` field), or use the shipped card by its name.",
    ),
    "PRICE-CARD-OTHER-FILE": _c(
        "The file given as a price card is another of this tool's files: a policy file, a "
        "contract or a bundle (it has their top-level fields and no models).",
        "Give --price-card a shipped card's name (the command's `--help` lists them) or a "
        "price card file; a policy file goes to `convert --template ... --policy FILE`.",
    ),
    "PRICE-CARD-INVALID": _c(
        "The price card could not be read or is not a valid card (exact decimals, known fields, "
        "a context multiplier only for a surcharged value: not for a standard one such as "
        "`service_tier=standard` or `inference_geo=global`, nor an unrecorded `absent` or "
        "`empty`).",
        "Check the card file against a shipped card; write prices as decimal strings; remove a "
        "multiplier for a standard or unrecorded value (a standard context is priced at 1).",
    ),
    "PRICE-CARD-TIER-ENDED": _c(
        "The contract prices the named model by a shipped price card's one tier, but some of "
        "its calls had more than 200,000 input tokens (input, cache reads and cache writes) "
        "and were made before 2026-03-14 (UTC): until the model's 1M context window became "
        "generally available (2026-03-13, second-hand), such a request was billed at "
        "long-context rates (2x input and cache rates, 1.5x output), which the card does not "
        "give. A call with no time of its own is taken at the session's start.",
        "Set claims.pricing.price_card to null and price the model yourself: a second tier, "
        '"above_input_tokens": 200000, at the rates your invoice shows (the card\'s Sonnet 4.5 '
        "entry has such a tier; `inspect --price-card` counts the calls), or one tier if you "
        "know these calls were billed at the standard rates; the bundle then says the prices "
        "are your own. A contract's tiers have no dates: if the session also has calls above "
        "200,000 after 2026-03-13, a second tier prices them too high (docs/limitations.md).",
    ),
    "PRICE-CARD-MISMATCH": _c(
        "The contract names a price card (a shipped one, or the card file given with "
        "--price-card), but a price it gives for a model or server tool the card prices (or the "
        "card's date or source) is not the card's. The receipt, its "
        "signature and every report would name the card as the source of prices it does not hold.",
        "Restore the card's values for what it prices (a template made with --price-card holds "
        "them, unless --from-contract carried other prices), or set claims.pricing.price_card to "
        "null in the contract: the bundle then says the prices are your own. Leaving out "
        "--price-card changes nothing in a contract that already names a card.",
    ),
    # --- evaluation (EVAL-*) ---
    "EVAL-WORKLOAD-MISMATCH": _c(
        "The bundles disagree on policy, baseline, rubric, label source, pseudonym key, or the "
        "price of a model, context or tool they both use, so they are not one workload.",
        "Evaluate bundles made under one policy, baseline, price list, rubric, label source and "
        "pseudonym key together; or evaluate them separately.",
    ),
    "EVAL-POLICY-MISMATCH": _c(
        "The bundles were not made under the policy file evaluate --policy requires: a field it "
        "gives (policy, baseline or outcome contract; a policy's disabled gates as a set) has "
        "another value in the bundles. A gate would otherwise decide under whatever limits the "
        "bundles' producer chose.",
        "Make the bundles' contracts with that file (convert --template --policy FILE, with "
        "--from-contract OLD.json to keep the outcomes labelled) and convert again; if the "
        "team's file changed since the bundles were made, evaluate them with the file they were "
        "made under, or not at all.",
    ),
    "EVAL-DUPLICATE-TASK": _c(
        "Two bundles hold the same task id though they share no transcript file and no call "
        "(one session converted twice is EVAL-BUNDLE-OVERLAP; one bundle file given twice, "
        "EVAL-BUNDLE-REPEATED). A "
        "task id is a keyed digest of its session, prompt and place: one bundle was edited and "
        "resealed, or they are two parts of one session (resumed in another project folder) "
        "that each open with the same prompt.",
        "Check where each bundle came from (verify it, with --public-key if it is signed); two "
        "parts of one session that open alike cannot be told apart by task: evaluate them "
        "apart.",
    ),
    "EVAL-BUNDLE-OVERLAP": _c(
        "Two bundles bind the same transcript file (the same SHA-256) or hold the same model or "
        "tool call (the same event id): one session converted twice, under two keys, with two "
        "task units, by two versions of agent-evidence, or before and after it grew. Its calls "
        "would be counted twice. Or a session made with --fork-session and its original: the "
        "fork's transcript repeats the original's calls with no mark this version reads "
        "(docs/limitations.md).",
        "Give each session's bundle once: keep the latest conversion and drop the other. A "
        "fork and its original cannot be judged in one workload yet (each bundle counts the "
        "copied calls): evaluate them apart, knowing the fork's bundle repeats the original's "
        "spend for the copied tasks.",
    ),
    "EVAL-BUNDLE-REPEATED": _c(
        "One bundle file was given twice, by the same name or another (a link, ./ before it): "
        "its calls would be counted twice. Found before any bundle is opened, and said with each "
        "bundle's own refusals.",
        "Give each bundle once (a glob and a name of the same file, or a link to one, repeat it).",
    ),
    "EVAL-NO-BUNDLE": _c(
        "No bundle was given.",
        "Pass one or more --bundle files.",
    ),
    "EVAL-BUNDLE-INCOMPLETE-CLAIMS": _c(
        "A bundle's policy, baseline or outcomes are incomplete for evaluation: the claim named "
        "is missing or out of range.",
        "Regenerate the bundle from a completed contract.",
    ),
    "EVAL-UNKNOWN-CHECK": _c(
        "A bundle's policy disables a check this release does not have (a bundle written by "
        "another release, or edited).",
        "Evaluate it with the release that wrote it (its generator version), or convert it "
        "again with this one (CONTRACT-UNKNOWN-CHECK lists the gate ids it has).",
    ),
    "EVAL-GATE-MISSING": _c(
        "A required coverage has no gate in the check set, so the decision is INCOMPLETE "
        "(this release's fixed check set has a gate for every coverage; the code keeps a check "
        "set that lost one from deciding).",
        "Use a release whose check set covers every required coverage.",
    ),
    "EVAL-GATE-DISABLED": _c(
        "The policy disables a gate; its coverage is still required, so the decision is INCOMPLETE.",
        "In the contract, remove the gate from claims.policy.disabled_checks (loosen its limit "
        "instead if it is too strict) and convert --contract again: a bundle cannot be edited. "
        "If you did not make the bundle, ask its producer.",
    ),
    "EVAL-GATE-UNAVAILABLE": _c(
        "A gate could not be computed because the workload holds no tasks; the decision is "
        "INCOMPLETE.",
        "Evaluate bundles that contain at least one labelled task.",
    ),
    "EVAL-GATE-INDETERMINATE": _c(
        "A gate passes at the low cost and fails at the high cost: usage-incomplete calls leave "
        "the cost on both sides of the limit, so the decision is INCOMPLETE.",
        "If a session may still be running, convert it again once it is idle, so calls still "
        "streaming have their final usage written. A finished session keeps the calls that "
        "never got one: since Claude Code 2.1.167 mostly subagents' last calls; before it, many "
        "main-thread calls too (its transcripts often kept only a streaming stub), which leaves "
        "an older session's interval wide whatever the bound. max_output_tokens in the "
        "contract bounds their output, so set it to the output limit your Claude Code "
        "requested (CLAUDE_CODE_MAX_OUTPUT_TOKENS, when it was set), if lower than the model's; "
        "`inspect --price-card` says how much of the interval those calls make. Or convert "
        "with --provider-bodies, if Claude Code wrote them: a call's response gives its final "
        "usage. Or leave such sessions out of the workload a cost gate judges.",
    ),
    "EVAL-COST-LEFT-OUT": _c(
        "A cost gate meets its limit, but a bundle's findings say some spend is in no cost: "
        "WebSearch calls whose search count is unknown (CC-REC-WEBSEARCH-COUNT-UNKNOWN), a "
        "subagent whose transcript misses its last calls (CC-REC-AGENT-USAGE-DISAGREE), agents "
        "that ran elsewhere (CC-TREE-REMOTE-AGENT, CC-TREE-DELEGATION-REMOTE), calls recorded "
        "final with no input (CC-REC-FINAL-NO-INPUT), or a split session's other transcripts "
        "whose bundles are not in the workload (CC-TREE-SPLIT-SESSION: a bundle of each part "
        "given together completes it). No file states how much: every cost is a lower bound, and "
        "the limit is shown to be met only without that spend, so the decision is INCOMPLETE; "
        "a cost gate that fails still fails. Where the interval of the priced calls already "
        "crosses the limit, EVAL-GATE-INDETERMINATE is said beside it.",
        "The report's findings name each such finding and its bundle. Where a finding's own fix "
        "completes the evidence (a cut subagent's transcript found again, --provider-bodies for "
        "a call with no input, the other part of a split session converted and its bundle "
        "given too), do it and convert again; else account for that spend beside the "
        "report and decide by hand, recording why, or leave those bundles out of the workload "
        "(their tasks with them). `convert --template` says so when a session has one; `inspect` "
        "names the transcript line of each that one records (a remote agents' folder is a "
        "count of the tree).",
    ),
    "EVAL-COST-UNPRICED": _c(
        "A cost gate meets its limit, but a bundle counts model calls that used a server tool "
        "other than web search and web fetch (CC-REC-SERVER-TOOL-UNPRICED): no version prices "
        "its requests, so every cost leaves them out and is a lower bound. The limit is shown "
        "to be met only without them, so the decision is INCOMPLETE; a cost gate that fails "
        "still fails. Where the interval of the priced calls already crosses the limit, "
        "EVAL-GATE-INDETERMINATE is said beside it.",
        "Look up the provider's price for that tool and the requests those calls made: if the "
        "limit holds with them, decide by hand and record why; a newer agent-evidence may "
        "price the tool. Which task's calls they are is not published.",
    ),
    "EVAL-COST-UNBOUNDED": _c(
        "A cost gate meets its limit at the low cost, but usage-incomplete calls that recorded "
        "no input (CC-REC-USAGE-INCOMPLETE-NO-INPUT) have no high cost: their interval bounds "
        "their output only, while every call reads input, so the value at high cost bounds "
        "nothing, on either side of the limit. The limit is not shown to be met or missed, so "
        "the decision is INCOMPLETE.",
        "Convert again once the sessions are idle, or with --provider-bodies if Claude Code "
        "wrote them (a call's response gives its final usage, unless it states no input "
        "either). A finished session whose gateway wrote such stubs, with no bodies (or "
        "bodies of no input), has no bound on these calls' cost: no cost gate can pass for it "
        "(one that fails even at the low cost still fails), and the decision stays INCOMPLETE "
        "while its bundle is in the workload. The Markdown report's task table says `no bound` "
        "in the cost of each such task, with its bundle's number (JSON: tasks[].high_is_bound "
        "false). Where other usage-incomplete calls make the gate's interval cross the limit "
        "too, EVAL-GATE-INDETERMINATE is said beside it, with its own fix.",
    ),
    "EVAL-SAMPLE-TOO-SMALL": _c(
        "The workload has fewer tasks than the policy's min_tasks, so the decision is INCOMPLETE.",
        "Evaluate more bundles together (repeat --bundle), or collect more labelled tasks.",
    ),
    "EVAL-REPEATED-TOOL-SHAPE": _c(
        "A task calls one tool more times in a row than the policy's "
        "repetition_warning_threshold with arguments of one content-free shape (value kinds "
        "and counts): a stuck agent, or ordinary work (varied Bash or Read calls share a shape).",
        "Look at the task's trace before you read it as stuck; raise the threshold if such runs "
        "are ordinary in your work (it never changes the decision).",
        blocking=False,
    ),
    "EVAL-DEPENDENCY-CYCLE": _c(
        "A task's dependency edges contain a cycle; events should only depend on earlier events.",
        "Report the Claude Code version; the converter may have mis-joined a record.",
        blocking=False,
    ),
    "EVAL-USAGE-INCOMPLETE": _c(
        "Model calls without final usage were evaluated at both ends of their cost interval.",
        "Nothing to do unless a gate is indeterminate (see EVAL-GATE-INDETERMINATE).",
        blocking=False,
    ),
    "EVAL-TASKS-WITHOUT-CALLS": _c(
        "Labelled tasks that made no model call (a local command, an interruption, an "
        "unanswered prompt: CC-TASK-NO-CALLS) were evaluated as attempts that cost nothing: "
        "they lower the cost per acceptable outcome and the tail cost, and count in the sample "
        "size.",
        "Nothing to do if they were attempts. If not, move them to the contract's "
        "excluded_tasks (not-an-attempt, aborted or duplicate) and convert again.",
        blocking=False,
    ),
    "EVAL-COSTS-UNCHECKED": _c(
        "Bundles written by 0.1 (schema v1) carry no prices, so their costs could not be priced "
        "again from them: only a signature vouches for those costs.",
        "Evaluate with --public-key and the producer's key, or convert the sessions again with "
        "this version.",
        blocking=False,
    ),
    "EVAL-AUXILIARY-NOT-OBSERVED": _c(
        "Auxiliary calls (session titles, compaction calls outside a compaction agent's "
        "transcript, web-search side calls) were not all looked for: no provider bodies were "
        "given, or they have no index.jsonl of the session (before Claude Code 2.1.274), or some "
        "call's response is not in it (bodies turned on mid-session), so such calls' spend may "
        "not be in the costs.",
        "Convert with --provider-bodies from a folder whose index names every call's response "
        "(Claude Code 2.1.274 on, OTEL_LOG_RAW_API_BODIES=file:<dir> from the session's start); "
        "otherwise read the costs as leaving out those calls: a session title is a small Haiku "
        "call, a compaction call re-reads the whole conversation.",
        blocking=False,
    ),
    # --- attestation and verification (ATTEST-*) ---
    "ATTEST-RECEIPT-MISMATCH": _c(
        "The receipt the attestation signs is not the bundle's own receipt: the attestation is "
        "another bundle's, or the bundle's receipt changed after signing; exit 5.",
        "Do not trust the bundle as it is: pair it with its own .intoto.json, or ask for it to be "
        "converted and attested again.",
    ),
    "ATTEST-REDERIVE-OTHER-VERSION": _c(
        "The bundle was written by another version of agent-evidence (its generator.version); "
        "re-derivation is byte for byte, and another version writes other bytes.",
        "Re-derive with the agent-evidence that wrote it (the bundle's generator.version): in a "
        "clone of this project, check out the last commit whose pyproject.toml has that version "
        "(the one before the next version's bump: git log -p -- pyproject.toml), as released, "
        "run make demo, and verify with its .venv/bin/agent-evidence (0.2.0's bytes changed "
        "under its one number: docs/upgrading.md, From 0.2). Its digest and signature can "
        "still be checked with this one.",
    ),
    "ATTEST-REDERIVE-MISMATCH": _c(
        "The bundle re-derived from the given sources, contract and pseudonym key is not byte for "
        "byte the bundle given; exit 5.",
        "Check that the contract and key are the producer's; if they are, the bundle was not made "
        "from these sources and this contract.",
    ),
    "ATTEST-REDERIVE-SOURCES-CHANGED": _c(
        "The session files given are not the ones the bundle binds: a file's SHA-256 or size, the "
        "set of files, or what they account differs from its contract's inventory (the lines "
        "below name each); exit 5.",
        "Re-derive from the session tree exactly as it was when converted (a session that went on "
        "after the conversion has grown); if it is that tree, the bundle is not evidence of it.",
    ),
    "ATTEST-REDERIVE-RENAMED": _c(
        "The session files given are the ones the bundle binds, byte for byte, but some lie "
        "under other names than they were converted under (the lines below name each, "
        "CONTRACT-FILE-RENAMED): a file's label is keyed over its name, so the bundle cannot "
        "be re-derived from them as given. Nothing was found changed; exit 2.",
        "Give each file back the name it was converted under (its path beside the main "
        "transcript; for --from claude-code, the file's own name: --show-paths names where "
        "each lies now), then verify again.",
    ),
    "ATTEST-REDERIVE-OTHER-SESSION": _c(
        "The session files given are another session's: the bundle's contract binds none of "
        "them as its main transcript (by name or by bytes). Either --in names the wrong "
        "session, or the bundle is not evidence of these files; exit 5.",
        "Pass --in the main transcript (<session-id>.jsonl) of the session the bundle was made "
        "from; if that is the file given, the bundle is not evidence of it.",
    ),
    "ATTEST-REDERIVE-OTHER-KEY": _c(
        "Re-deriving takes the pseudonym key the bundle was made under; the key given (--key-file, "
        "else AGENT_EVIDENCE_KEY, else your config folder's) is another.",
        "Pass the producer's key with --key-file or AGENT_EVIDENCE_KEY: the bundle's key_id "
        "names it (`key show-id` prints a key's). Without it, check the digest and signature "
        "only (verify with no --contract and --in).",
    ),
    "ATTEST-REDERIVE-BODIES-MISSING": _c(
        "The bundle was made with provider bodies, and this re-derivation bound none: no "
        "--provider-bodies folder was given, or the one given holds none of this session's.",
        "Pass the producer's provider-bodies folder with --provider-bodies. Without it, check the "
        "digest and signature only (verify with no --contract and --in).",
    ),
    "ATTEST-REDERIVE-BODIES-UNEXPECTED": _c(
        "The bundle was made without provider bodies, and this re-derivation was given a "
        "--provider-bodies folder holding some of this session's.",
        "Leave --provider-bodies out: the bundle binds no bodies to compare.",
    ),
    "ATTEST-REDERIVE-OTHER-CONTRACT": _c(
        "The contract given is not the one the bundle names (its keyed digest, under the key the "
        "contract names, is not the receipt's contract_sha256: another contract, or the same "
        "one re-indented or edited); exit 5.",
        "Re-derive with the producer's contract file exactly as it was converted; if it is that "
        "file, the bundle's receipt was changed.",
    ),
    "ATTEST-TOO-LARGE": _c(
        "The attestation file is larger than any this program writes (64 MiB): it was not read "
        "past that.",
        "Give the <bundle>.intoto.json that `convert --attest-key` wrote beside the bundle.",
    ),
    "ATTEST-MISSING": _c(
        "A public key was given but the attestation is not there, or is empty: "
        "<bundle>.intoto.json beside the bundle (or, for verify, the file --attestation "
        "names).",
        "Keep the attestation beside the bundle as <bundle>.intoto.json (verify also takes its "
        "path as --attestation FILE: check that file exists and is not empty). A bundle "
        "converted without --attest-key has none: ask its producer for a signed one.",
    ),
    "ATTEST-NOT-AN-ENVELOPE": _c(
        "The attestation file is not a DSSE envelope: not JSON with a payload or payloadType "
        "key (another document, such as the bundle itself, or another format); nothing was "
        "checked.",
        "Pass the .intoto.json file that convert --attest-key wrote beside the bundle; if it was "
        "downloaded, download it again.",
    ),
    "ATTEST-ENVELOPE-MALFORMED": _c(
        "The attestation is a DSSE envelope (it has a payload or payloadType) but cannot be "
        "read: a missing or ill-typed field, a repeated key, a payload that is not base64, or "
        "bytes that no longer parse (a flipped byte, a cut); exit 5. (A signature entry whose "
        "sig is not base64 is skipped as another signer's: ATTEST-SIGNATURE-INVALID when no "
        "other verifies.)",
        "Use the .intoto.json file written beside the bundle; if it was edited, the bundle "
        "cannot be trusted until it is attested again.",
    ),
    "ATTEST-TOO-MANY-SIGNATURES": _c(
        "The attestation is a DSSE envelope with more than 64 signature entries, more than "
        "are tried (each try costs a check over the whole payload): no signature was checked, "
        "so nothing is known either way; exit 2. DSSE itself sets no limit.",
        "Ask the signer for an envelope holding only the signatures you need (at most 64 "
        "entries, theirs among them), or verify this one with another DSSE tool, such as "
        'securesystemslib (docs/verifying.md, "With other DSSE tooling"), and check its '
        "subject digest too.",
    ),
    "ATTEST-SIGNATURE-INVALID": _c(
        "No signature in the attestation verifies with the given public key; exit 5. When the "
        "message adds [its keyid names another key], every signature names (by its keyid, an "
        "unsigned hint) a key other than this one: most likely the wrong key was given. "
        "Without that addition, a signature names this key or no key: most likely the envelope "
        "or its signature was altered.",
        "Check that --public-key (in the Action: public-key or public-key-pem) is the key of "
        "whoever made the bundle; otherwise the envelope was altered after signing.",
    ),
    "ATTEST-PAYLOAD-TYPE": _c(
        "The attestation is signed but its payload type is not application/vnd.in-toto+json; "
        "exit 5.",
        "Pass the attestation agent-evidence wrote for this bundle, not another signed document.",
    ),
    "ATTEST-STATEMENT-INVALID": _c(
        "The signed payload is not an agent-evidence in-toto v1 receipt statement (another "
        "statement type or predicate, not one subject with a SHA-256 digest, a subject digest "
        "verify checks that is not lowercase hex of that algorithm's length, or not strict "
        "JSON); exit 5.",
        "Pass the attestation agent-evidence wrote for this bundle, not another signed document.",
    ),
    "ATTEST-SUBJECT-MISMATCH": _c(
        "The attestation is valid but a digest of its subject is not this bundle's: its "
        "SHA-256, or another it names that verify computes (sha224, sha384, sha512, "
        "sha512_224, sha512_256, sha3_*, blake2b, blake2s, sha1, md5); exit 5.",
        "Pair the bundle with its own .intoto.json; if they belong together, the bundle's bytes "
        "changed after it was attested (re-indented or re-encoded counts: the signature covers "
        "the exact bytes, the evidence digest only the values).",
    ),
    "ATTEST-KEY-EXISTS": _c(
        "The signing key file or its .pub file already exists; it was not replaced.",
        "Choose a new --out path, or delete the old pair by hand if you mean to retire it.",
    ),
    "ATTEST-KEY-PUBLIC-NAME": _c(
        "keygen's --out ends in .pub, the public key's suffix: the private key would be the "
        "file named like a public key, the one people hand out.",
        "Name the private key without .pub (e.g. --out signing.pem); its public key is written "
        "beside it as signing.pem.pub.",
    ),
    "ATTEST-KEY-UNWRITABLE": _c(
        "The signing key could not be written (folder missing or not writable).",
        "Choose an existing folder you can write to.",
    ),
    "ATTEST-KEY-UNREADABLE": _c(
        "The signing key (--attest-key) or public key file (--public-key; in the Action, "
        "public-key) does not exist or could not be read.",
        "Check the path and the file's permissions.",
    ),
    "ATTEST-KEY-INVALID": _c(
        "The key file is not one PKCS#8 PEM private key (damaged, not PEM (an OpenSSH key), two "
        "keys in one file, or not a regular file).",
        "A file that holds the public key too: keep only the private one. Otherwise (an "
        "OpenSSH key, `BEGIN OPENSSH PRIVATE KEY`, is not read) create a key pair with "
        "`agent-evidence keygen --out KEY.pem` (its .pub is the new key verifiers check; "
        "`--encrypt` protects it with a passphrase).",
    ),
    "ATTEST-KEY-PASSPHRASE-MISSING": _c(
        "The signing key is encrypted (or `keygen --encrypt` was asked) and no passphrase was "
        "given: AGENT_EVIDENCE_ATTEST_KEY_PASSPHRASE is unset or empty, and standard input or "
        "error is not a terminal to ask on (CI, a pipe, a redirect).",
        "Set AGENT_EVIDENCE_ATTEST_KEY_PASSPHRASE from your secret store (in CI, a secret), or "
        "run the command on a terminal, which asks for it without echoing.",
    ),
    "ATTEST-KEY-PASSPHRASE-WRONG": _c(
        "The passphrase given does not decrypt the signing key (or the encrypted key is damaged).",
        "Check the passphrase: AGENT_EVIDENCE_ATTEST_KEY_PASSPHRASE, when set, is used and the "
        "terminal is not asked; its value counts every byte, a trailing newline too. Check that "
        "--attest-key names the key you meant.",
    ),
    "ATTEST-PUBLIC-KEY-INVALID": _c(
        "The public key given to check a signature (--public-key, or the Action's public-key "
        "input) is not a PEM public key (empty, damaged, not PEM, two keys in one file, or not "
        "a regular file), or is a weak Ed25519 key (of small order, or no curve point) under "
        "which anyone can forge a signature.",
        "Pass the producer's public key: the .pem.pub file `keygen` wrote beside their signing "
        "key (in the Action: its path as public-key, or its text as public-key-pem). A key pair "
        "of your own cannot check their signature.",
    ),
    "ATTEST-KEY-WRONG-TYPE": _c(
        "The key is not an Ed25519 key of the expected kind (a private key where the public "
        "key belongs, or another algorithm).",
        "Pass the .pem file to --attest-key and the .pem.pub file to --public-key (in the "
        "Action: its path as public-key, or its text as public-key-pem).",
    ),
    "ATTEST-KEY-PERMISSIONS": _c(
        "The signing key file can be read or written by other users (its group or others "
        "have some permission on it).",
        "Run `chmod 600` on the --attest-key file.",
    ),
    # --- usage (USAGE-*) ---
    # --- keys ---
    "KEY-MISSING": _c(
        "No pseudonym key was found (no --key-file, no AGENT_EVIDENCE_KEY, none in the config "
        "folder), and this command does not create one.",
        "For a first template: run `agent-evidence key init` (inspect, scan and convert "
        "--template with no contract make one too), or pass --key-file, or set AGENT_EVIDENCE_KEY. To convert a "
        "contract, carry one forward, or re-derive a bundle (verify): pass the key it was made "
        "with (--key-file or AGENT_EVIDENCE_KEY); a new key cannot reproduce its pseudonyms.",
    ),
    "KEY-NO-HOME": _c(
        "No pseudonym key was given, and there is no home folder to keep one in ($HOME unset "
        "with no user entry, or not an absolute path) nor an absolute XDG_CONFIG_HOME.",
        "Pass --key-file, or set AGENT_EVIDENCE_KEY (64 hex characters, from a secret), or set "
        "XDG_CONFIG_HOME (or HOME) to an absolute folder you can write to.",
    ),
    "KEY-FILE-MISSING": _c(
        "The pseudonym key file given with --key-file does not exist.",
        "Check the --key-file path. A contract, a carried contract or a bundle to verify needs the "
        "key it was made with (its key_id names it): a new key cannot give its pseudonyms. For "
        "a first template only, `agent-evidence key init --key-file PATH` creates one there.",
    ),
    "KEY-INVALID": _c(
        "The pseudonym key is not 64 hexadecimal characters (32 bytes), or its key file is "
        "not a regular file.",
        "Check where the key came from, which the location names: --key-file, else "
        "$AGENT_EVIDENCE_KEY (it wins over the key file), else the key file `agent-evidence key "
        "init` creates. A key file must be a "
        "regular file (not a pipe such as <(...), a device or a socket): give a key from a "
        "secret store as $AGENT_EVIDENCE_KEY.",
    ),
    "KEY-UNREADABLE": _c(
        "The pseudonym key file could not be read (a read error from the disk or the system).",
        "Check the --key-file path names the key file itself, and that the disk can be read.",
    ),
    "KEY-PERMISSIONS": _c(
        "The pseudonym key file can be read by other users.",
        "Run `chmod 600` on the key file the location names (the --key-file given, or the "
        "default key file).",
    ),
    "KEY-UNWRITABLE": _c(
        "The pseudonym key could not be created there (the folder is missing, is a file, or is "
        "not writable).",
        "Create the folder first (a --key-file's folder is not made for it), or choose a "
        "writable location with --key-file, or set AGENT_EVIDENCE_KEY.",
    ),
    "KEY-EXISTS": _c(
        "A pseudonym key already exists; it was not replaced.",
        "Keep using it (the --key-file given, else $XDG_CONFIG_HOME/agent-evidence/pseudonym.key, "
        "~/.config when XDG_CONFIG_HOME is unset); delete it by hand only if you mean to lose "
        "every earlier pseudonym.",
    ),
    # --- output ---
    "OUT-SAME-AS-INPUT": _c(
        "An output path is the same file as an input.",
        "Write the output to a new file.",
    ),
    "OUT-IN-SESSION-TREE": _c(
        "An output path is inside a session's tree, or named as one's transcript or folder: a "
        "<session-id>/ folder in the parent transcript's project folder (this session's also in "
        "a folder beside it; another session's in a folder beside it that holds a session), "
        "which holds that session's subagent transcripts, their metadata and workflow runs. A "
        "file written there would be read with that session next time (and refused as a stray "
        "file), or would replace a file its contract binds.",
        "Write the output outside the projects folder's session folders: in a folder of your "
        'own (the contracts and bundles of many sessions: README, "Many sessions").',
    ),
    "OUT-REPLACES-KEY": _c(
        "An output path holds a key (a PEM signing key or its public half, or a pseudonym "
        "key); writing the output there would destroy it.",
        "Write the output to another file.",
    ),
    "OUT-REPLACES-EVIDENCE": _c(
        "An output path holds evidence this output may not replace: a conversion contract, a "
        "bundle, an attestation (a DSSE envelope), a transcript (.jsonl), or a team's --policy "
        "file or a price card (chosen before any result, never written by this tool). A bundle "
        "replaces only a bundle, an attestation only the one beside its bundle, a report none "
        "of them.",
        "Write the output to another file. A template replaces a contract or a bundle only with "
        "--force.",
    ),
    "OUT-NOT-A-FILE": _c(
        "An output path is a symlink, a device, a pipe, a socket or a folder. Outputs are "
        "written to a new file and renamed into place, which would replace it.",
        "Name a new file or an existing regular file; for the attestation beside a bundle "
        "(the --out name + .intoto.json), move what is at that path away. To see a report on "
        "the terminal, leave out --report: evaluate prints it.",
    ),
    "OUT-STDOUT-FAILED": _c(
        "The command's output could not be written to standard output: the disk or device is "
        "full, a quota was reached, the reader closed the pipe, or standard output is closed or "
        "open for reading only. Said before any work when standard output cannot be written at "
        "all; output files a command already wrote are whole (a line after this one says so; "
        "inspect and scan write none).",
        "Free space, or send standard output to a file or to a reader that reads it all "
        "(evaluate: `--report FILE` writes its report to a file).",
    ),
    "OUT-EXISTS": _c(
        "The template's output file already exists; it may be a contract you filled in.",
        "Write the template to a new file (use --from-contract to carry the old claims), or pass "
        "--force to replace it (with --from-contract naming that same file, its claims are "
        "carried into the new template).",
    ),
    "OUT-FILLED-CONTRACT": _c(
        "The template's output file is a contract with task outcomes already labelled, and "
        "--force would replace it with a template that does not carry them all: no "
        "--from-contract names that file, or it does and some of its labelled tasks are not "
        "this session's tasks (another session's contract, a wrong --in; or tasks dropped "
        "since).",
        "Carry them into the new template: add --from-contract with that same file (it is read "
        "before the template is written). Where it names it already, write the template to a "
        "new file and compare (its notices name what is not carried), or delete the old "
        "contract yourself if its labels are not wanted.",
    ),
    "OUT-NO-SPACE": _c(
        "The output could not be written: the filesystem (or your quota there) is full, or the "
        "file would be larger than the system lets this process write. Nothing was left behind, "
        "and a file it would have replaced is as it was.",
        "Free space there (or raise the file-size limit, `ulimit -f`), or write the output to "
        "another filesystem.",
    ),
    "OUT-UNWRITABLE": _c(
        "The output could not be written (folder missing or not writable).",
        "Choose an existing folder you can write to.",
    ),
    "RUN-OUT-OF-MEMORY": _c(
        "The run needed more memory than it could get (the machine's, or a limit set on the "
        "process: `ulimit -v`, a container's). Nothing was written, and a file it would have "
        "replaced is as it was.",
        "Check the paths given: a large file that is no transcript, contract or bundle (an "
        "archive, a log) is read as one. Otherwise free memory or raise the limit, and run it "
        "again: memory grows with a tree's calls and lines (docs/performance.md: about 150 MB "
        "for a 200 MB tree).",
    ),
}


_GROUPS = {
    "CC-TREE": "Files and layout",
    "CC-LINE": "Lines (JSON syntax)",
    "CC-REC": "Records and accounting",
    "CC-TASK": "Tasks",
    "CC-BODY": "Provider bodies",
    "CONTRACT": "Conversion contract",
    "PRICE": "Pricing",
    "BUNDLE": "Bundle",
    "EVAL": "Evaluation",
    "ATTEST": "Attestation and verification",
    "KEY": "Pseudonym key",
    "OUT": "Output",
    "RUN": "The run itself",
    "USAGE": "Usage",
}


def render_catalogue() -> str:
    """docs/refusals.md, generated from CODES (`make docs`; a test fails when it is stale)."""
    out = [
        "# Refusal and finding codes",
        "",
        "Every diagnostic `agent-evidence` prints carries one of these stable codes, a fixed message,",
        "the file's role and keyed label, and a line number when there is one. No message ever",
        "quotes a value from your files. `--show-paths` adds the local relative path on stderr only.",
        "",
        "**Blocking** codes make the run refuse (exit 2, nothing written). **Findings** are counted",
        "in the report and the contract; they never block on their own.",
        "",
        "This file is generated from `src/converter/errors/codes.py` by `make docs`. Renaming a code is",
        "a breaking change.",
        "",
    ]
    placed: set[str] = set()
    for prefix, title in _GROUPS.items():
        codes = [c for c in CODES if c.startswith(prefix + "-") and c not in placed]
        if not codes:
            continue
        out += [f"## {title}", ""]
        for code in codes:
            placed.add(code)
            info = CODES[code]
            kind = "blocking" if info.blocking else NOT_BOUND.get(code, "finding")
            out += [f"### `{code}`", "", f"- Kind: {kind}", f"- Meaning: {info.message}"]
            out += [f"- What to do: {info.fix}", ""]
    rest = [c for c in CODES if c not in placed]
    if rest:
        raise KeyError(f"codes without a group: {rest}")
    return "\n".join(out)
