"""Deterministic generator of large synthetic Claude Code session trees in the real shapes.

Shapes follow Claude Code 2.1.216 as in fixtures/make_fixtures.py and FORMAT-NOTES §1, §4, §6, §8:

- a parent `<sid>.jsonl` with many root prompts (or one, for the linearity trees), each preceded
  by a `file-history-snapshot` line (some of them large) and often followed by a hook
  `attachment`; `turn_duration`, `last-prompt`, `<task-notification>` bookkeeping;
- streamed calls: one line per content block (encrypted thinking, text, tool_use). The main
  stream repeats the final usage and `stop_reason` on every fragment; subagents write climbing
  partial usage and put `stop_reason` on the last fragment only; a few subagent calls never get a
  final record (usage-incomplete);
- parallel tool calls, results sometimes between the call's own fragments, results of realistic
  size (Read/Bash/Edit bodies of KBs, the text twice: message content and `toolUseResult`), and
  every `huge_every_mb` MB one tool result of `huge_mb` MB (the multi-MB lines of real trees);
- `Agent` children (`subagents/agent-<id>.jsonl` + `.meta.json`) to depth 2 (`parentAgentId`),
  with `agent_progress` lines in the spawning stream embedding copies of child fragments;
- `Workflow` runs: children in `subagents/workflows/<run>/` with `workflow-subagent` metas, a
  `journal.jsonl`, and the run manifest `workflows/<run>.json`.

Everything comes from one `random.Random(seed)`: the same parameters write the same bytes. Records
are written as they are made (memory stays small whatever the size). The generator counts what it
writes and returns the numbers `inspect` must report (`Expected`).
"""

from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

MB = 1_000_000
VERSION = "2.1.216"
OPUS = "claude-opus-4-8"
SONNET = "claude-sonnet-5"
HAIKU = "claude-haiku-4-5-20251001"
GENERATOR_VERSION = 1  # bump when the bytes written for given parameters change
_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_HEX = "0123456789abcdef"
_START_MS = 1_784_000_000_000  # 2026-07-14, a fixed epoch: timestamps are part of the bytes

_WORDS = [
    "def",
    "return",
    "self",
    "value",
    "config",
    "retry",
    "request",
    "client",
    "handler",
    "parse",
    "token",
    "cache",
    "session",
    "import",
    "from",
    "class",
    "async",
    "await",
    "yield",
    "raise",
    "error",
    "result",
    "status",
    "response",
    "payload",
    "order",
    "checkout",
    "total",
    "amount",
    "currency",
    "rounding",
    "test",
    "assert",
    "fixture",
    "module",
    "service",
    "worker",
    "queue",
    "café",
    "naïve",
    "résumé",
    "—",
    "“quoted”",
    "東京",
    "✓",
]


@dataclass(frozen=True, slots=True)
class Params:
    """What to generate. `target_mb` is a lower bound on the bytes of all files together."""

    target_mb: float
    seed: int = 7
    single_task: bool = False  # one root prompt whose calls and subagents add up to the size
    huge_every_mb: float | None = 40.0  # one multi-MB tool result per this many MB written
    huge_mb: tuple[float, float] = (2.0, 5.0)
    agent_rate: float = 0.06  # per main-stream call: spawns Agent children
    workflow_rate: float = 0.012  # per main-stream call: launches a Workflow run
    session_id: str | None = None  # default: drawn from the seed


@dataclass(slots=True)
class Expected:
    """What the generator wrote, as `inspect` must count it."""

    parent: Path
    files: list[Path] = field(default_factory=list)
    bytes: int = 0
    lines: int = 0
    largest_line: int = 0
    tasks: int = 0
    model_calls: int = 0
    tool_calls: int = 0
    usage_incomplete_calls: int = 0
    subagents: int = 0
    delegations_expanded: int = 0
    max_depth: int = 0
    transcript_files: int = 0
    meta_files: int = 0
    total_tokens: int = 0

    def counts(self) -> dict[str, int]:
        keys = (
            "tasks",
            "model_calls",
            "tool_calls",
            "usage_incomplete_calls",
            "subagents",
            "delegations_expanded",
            "max_depth",
            "transcript_files",
            "meta_files",
        )
        return {k: getattr(self, k) for k in keys}

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["parent"] = str(self.parent)
        out["files"] = [str(f) for f in self.files]
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Expected:
        data = dict(data)
        data["parent"] = Path(data["parent"])
        data["files"] = [Path(f) for f in data["files"]]
        return cls(**data)


Usage5 = tuple[int, int, int, int, int]  # input, cache 5m, cache 1h, cache read, output


def _final_usage(u: Usage5) -> dict[str, Any]:
    inp, c5, c1h, cr, out = u
    return {
        "input_tokens": inp,
        "cache_creation_input_tokens": c5 + c1h,
        "cache_read_input_tokens": cr,
        "output_tokens": out,
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": "standard",
        "cache_creation": {"ephemeral_1h_input_tokens": c1h, "ephemeral_5m_input_tokens": c5},
        "inference_geo": "not_available",
        "iterations": [],
        "speed": "standard",
    }


def _partial_usage(u: Usage5, out: int) -> dict[str, Any]:
    inp, c5, c1h, cr, _ = u
    return {
        "input_tokens": inp,
        "cache_creation_input_tokens": c5 + c1h,
        "cache_read_input_tokens": cr,
        "cache_creation": {"ephemeral_5m_input_tokens": c5, "ephemeral_1h_input_tokens": c1h},
        "output_tokens": out,
        "service_tier": "standard",
        "inference_geo": "not_available",
    }


def _text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


class _Out:
    """One JSONL file being written; every line is counted into the tree's totals."""

    def __init__(self, path: Path, exp: Expected) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.handle: IO[bytes] = path.open("wb", buffering=1 << 20)
        self.exp = exp
        exp.files.append(path)

    def write(self, rec: dict[str, Any]) -> None:
        data = orjson.dumps(rec, option=orjson.OPT_APPEND_NEWLINE)
        self.handle.write(data)
        self.exp.bytes += len(data)
        self.exp.lines += 1
        self.exp.largest_line = max(self.exp.largest_line, len(data))

    def close(self) -> None:
        self.handle.close()


class _Stream:
    """The main stream or one child: its file, identity and the tip of its parentUuid chain."""

    def __init__(self, out: _Out, agent_id: str | None, depth: int) -> None:
        self.out = out
        self.agent_id = agent_id
        self.depth = depth
        self.sidechain = agent_id is not None
        self.last: str | None = None
        self.prompt_id: str | None = None
        self.samples: list[dict[str, Any]] = []  # child fragments copied into progress lines


class Generator:
    def __init__(self, root: Path, params: Params) -> None:
        self.root = root
        self.p = params
        self.rng = random.Random(params.seed)  # noqa: S311 - deterministic test data, not secrets
        self.clock = _START_MS
        self.sid = self.uuid()
        if params.session_id is not None:
            self.sid = params.session_id
        self.cwd = f"/home/dev/{self.word()}/service"
        self.env = {
            "userType": "external",
            "entrypoint": "cli",
            "cwd": self.cwd,
            "sessionId": self.sid,
            "version": VERSION,
            "gitBranch": "feature/" + self.word(),
        }
        self.exp = Expected(parent=root / f"{self.sid}.jsonl")
        self.lean = False  # chain trees: one tool_use fragment per call, no thinking or text
        self.tree = root / self.sid
        pool_rng = random.Random(params.seed ^ 0x5EED)  # noqa: S311
        lines = []
        size = 0
        while size < 256 * 1024:
            indent = "    " * pool_rng.randrange(4)
            words = " ".join(pool_rng.choice(_WORDS) for _ in range(pool_rng.randrange(3, 14)))
            line = f'{indent}{words}("{pool_rng.choice(_WORDS)}")\t# {pool_rng.randrange(10**6)}'
            lines.append(line)
            size += len(line.encode()) + 1
        self.pool = "\n".join(lines)
        self.pool2 = self.pool + self.pool
        self.next_huge = (
            params.huge_every_mb * MB / 2 if params.huge_every_mb is not None else float("inf")
        )

    # ---------------------------------------------------------------- ids, time, text

    def uuid(self) -> str:
        s = f"{self.rng.getrandbits(128):032x}"
        return f"{s[:8]}-{s[8:12]}-4{s[13:16]}-{'89ab'[int(s[16], 16) % 4]}{s[17:20]}-{s[20:]}"

    def _b58(self, n: int) -> str:
        return "".join(self.rng.choices(_B58, k=n))

    def msg_id(self) -> str:
        return "msg_011C" + self._b58(20)

    def req_id(self) -> str:
        return "req_011C" + self._b58(20)

    def toolu(self) -> str:
        return "toolu_01" + self._b58(22)

    def hexid(self, n: int) -> str:
        return "".join(self.rng.choices(_HEX, k=n))

    def word(self) -> str:
        return self.rng.choice(_WORDS[:40])

    def ts(self, step: int | None = None) -> str:
        self.clock += step if step is not None else self.rng.randrange(300, 4000)
        sec, ms = divmod(self.clock, 1000)
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(sec)) + f".{ms:03d}Z"

    def body(self, size: int) -> str:
        """`size` characters of code-like text from the pool (repeated for multi-MB bodies)."""
        if size <= len(self.pool):
            start = self.rng.randrange(len(self.pool))
            return self.pool2[start : start + size]
        reps = size // len(self.pool) + 1
        return (self.pool * reps)[:size]

    def sentence(self, n: int = 12) -> str:
        return " ".join(self.rng.choice(_WORDS) for _ in range(n)) + "."

    # ---------------------------------------------------------------- records

    def head(self, s: _Stream, parent: str | None) -> dict[str, Any]:
        rec: dict[str, Any] = {"parentUuid": parent, "isSidechain": s.sidechain}
        if s.prompt_id is not None:
            rec["promptId"] = s.prompt_id
        if s.agent_id:
            rec["agentId"] = s.agent_id
        return rec

    def emit(self, s: _Stream, rec: dict[str, Any], chain: bool = True) -> dict[str, Any]:
        s.out.write(rec)
        if chain and "uuid" in rec:
            s.last = rec["uuid"]
        return rec

    def user(self, s: _Stream, content: Any, **after: Any) -> dict[str, Any]:
        rec = self.head(s, s.last)
        rec["type"] = "user"
        rec["message"] = {"role": "user", "content": content}
        rec["uuid"] = self.uuid()
        rec["timestamp"] = self.ts()
        rec.update(after)
        rec.update(self.env)
        return self.emit(s, rec)

    def fragment(
        self, s: _Stream, call: dict[str, Any], block: dict[str, Any], final: bool, out: int
    ) -> dict[str, Any]:
        rec = self.head(s, s.last)
        rec["message"] = {
            "model": call["model"],
            "id": call["id"],
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": call["stop"] if final else None,
            "stop_sequence": None,
            "stop_details": None,
            "usage": _final_usage(call["u"]) if final else _partial_usage(call["u"], out),
        }
        rec["requestId"] = call["req"]
        rec["type"] = "assistant"
        rec["uuid"] = self.uuid()
        rec["timestamp"] = self.ts()
        rec["effort"] = "high"
        rec.update(self.env)
        self.emit(s, rec)
        if s.sidechain and len(s.samples) < 3 and self.rng.random() < 0.3:
            s.samples.append(rec)
        return rec

    def tool_result(
        self, s: _Stream, frag: dict[str, Any], tool_id: str, content: Any, tur: Any
    ) -> dict[str, Any]:
        s.last = frag["uuid"]
        block = {"tool_use_id": tool_id, "type": "tool_result", "content": content}
        if self.rng.random() < 0.5:
            block["is_error"] = False
        return self.user(s, [block], toolUseResult=tur, sourceToolAssistantUUID=frag["uuid"])

    def snapshot(self, s: _Stream, message_id: str) -> None:
        big = self.rng.random() < 0.05
        n = self.rng.randrange(500, 3000) if big else self.rng.randrange(0, 12)
        backups = {
            f"src/{self.word()}/{self.word()}_{i}.py": {
                "backupFileName": f"{self.hexid(16)}@v{1 + i % 5}",
                "version": 1 + i % 5,
                "backupTime": self.ts(0),
            }
            for i in range(n)
        }
        self.emit(
            s,
            {
                "type": "file-history-snapshot",
                "messageId": message_id,
                "snapshot": {
                    "messageId": message_id,
                    "trackedFileBackups": backups,
                    "timestamp": self.ts(0),
                },
                "isSnapshotUpdate": False,
            },
            chain=False,
        )

    # ---------------------------------------------------------------- tools

    def huge_due(self) -> int:
        if self.exp.bytes < self.next_huge or self.p.huge_every_mb is None:
            return 0
        low, high = self.p.huge_mb
        size = int(self.rng.uniform(low, high) * MB)
        self.next_huge = self.exp.bytes + size + self.p.huge_every_mb * MB
        return size

    def plain_tool(self) -> tuple[dict[str, Any], Any, Any]:
        """A non-delegating tool call: (tool_use block, result content, toolUseResult)."""
        kind = self.rng.choices(("Read", "Bash", "Grep", "Edit", "Glob"), (5, 4, 2, 2, 1))[0]
        huge = self.huge_due() // 2 if kind in ("Read", "Bash") else 0  # the text is written twice
        tid = self.toolu()
        path = f"{self.cwd}/src/{self.word()}/{self.word()}.py"
        if kind == "Read":
            text = self.body(huge or int(self.rng.lognormvariate(8.0, 0.9)))
            nlines = text.count("\n") + 1
            block = {"file_path": path}
            content: Any = text if huge else self.numbered(text)
            tur: Any = {
                "type": "text",
                "file": {
                    "filePath": path,
                    "content": text,
                    "numLines": nlines,
                    "startLine": 1,
                    "totalLines": nlines,
                },
            }
        elif kind == "Bash":
            text = self.body(huge or int(self.rng.lognormvariate(7.0, 1.0)))
            block = {"command": f"pytest -q tests/{self.word()}", "description": self.sentence(4)}
            content = text
            tur = {
                "stdout": text,
                "stderr": "",
                "interrupted": False,
                "isImage": False,
                "noOutputExpected": False,
            }
        elif kind == "Grep":
            names = [f"{self.cwd}/src/{self.word()}_{i}.py" for i in range(self.rng.randrange(12))]
            block = {"pattern": self.word(), "path": self.cwd, "output_mode": "files_with_matches"}
            content = f"Found {len(names)} files\n" + "\n".join(names)
            tur = {"mode": "files_with_matches", "filenames": names, "numFiles": len(names)}
        elif kind == "Edit":
            old = self.body(self.rng.randrange(200, 1500))
            new = self.body(self.rng.randrange(200, 1500))
            block = {"file_path": path, "old_string": old, "new_string": new}
            content = f"The file {path} has been updated."
            tur = {
                "filePath": path,
                "oldString": old,
                "newString": new,
                "originalFile": self.body(self.rng.randrange(2000, 12000)),
                "structuredPatch": [
                    {"oldStart": 1, "oldLines": 3, "newStart": 1, "newLines": 3, "lines": [new]}
                ],
                "userModified": False,
                "replaceAll": False,
            }
        else:
            names = [f"{self.cwd}/tests/test_{self.word()}_{i}.py" for i in range(5)]
            block = {"pattern": f"tests/**/*{self.word()}*.py"}
            content = "\n".join(names)
            tur = {"filenames": names, "durationMs": 9, "numFiles": 5, "truncated": False}
        use = {"type": "tool_use", "id": tid, "name": kind, "input": block}
        use["caller"] = {"type": "direct"}
        return use, content, tur

    @staticmethod
    def numbered(text: str) -> str:
        return "".join(f"{i + 1:>6}\t{line}\n" for i, line in enumerate(text.split("\n")))

    # ---------------------------------------------------------------- calls

    def usage(self, s: _Stream) -> Usage5:
        r = self.rng
        return (
            r.randrange(1, 12),
            r.choice((0, 0, 0, r.randrange(50, 800))),
            r.randrange(100, 6000),
            r.randrange(8000, 160000),
            int(r.lognormvariate(5.5, 1.0)) + 1,
        )

    def call(
        self,
        s: _Stream,
        model: str,
        tools: list[tuple[dict[str, Any], Any, Any]],
        incomplete: bool = False,
        delegation: list[tuple[dict[str, Any], Any]] | None = None,
    ) -> Usage5:
        """One model call: fragments (thinking, text, tool uses), then its tool results.

        `delegation` pairs a tool_use block with a function that runs the child(ren) and
        returns (content, toolUseResult); such calls write progress lines before the result.
        """
        r = self.rng
        u = self.usage(s)
        uses = [t[0] for t in tools] + [d[0] for d in delegation or []]
        call = {
            "model": model,
            "id": self.msg_id(),
            "req": self.req_id(),
            "u": u,
            "stop": "tool_use" if uses else "end_turn",
        }
        blocks: list[dict[str, Any]] = []
        if r.random() < 0.5 and not self.lean:
            sig = "Er" + "".join(r.choices(_B58, k=r.randrange(300, 1200)))
            blocks.append({"type": "thinking", "thinking": "", "signature": sig})
        if (r.random() < 0.7 and not self.lean) or not uses:
            blocks.append(_text(self.sentence(r.randrange(8, 80))))
        blocks += uses
        interleave = len(tools) > 1 and r.random() < 0.25
        main = not s.sidechain
        out = 0
        frags: dict[str, dict[str, Any]] = {}
        pending: list[tuple[dict[str, Any], Any, Any]] = []
        for i, block in enumerate(blocks):
            last = i == len(blocks) - 1
            out += r.randrange(1, 4)
            final = main or (last and not incomplete)
            rec = self.fragment(s, call, block, final, out)
            if block.get("type") == "tool_use":
                frags[block["id"]] = rec
            if interleave and block.get("type") == "tool_use" and not last:
                tool = next(t for t in tools if t[0] is block)
                self.tool_result(s, rec, block["id"], tool[1], tool[2])
            elif block.get("type") == "tool_use":
                tool_entry = next((t for t in tools if t[0] is block), None)
                if tool_entry is not None:
                    pending.append(tool_entry)
        tip = s.last
        for use, content, tur in pending:
            s.last = tip
            self.tool_result(s, frags[use["id"]], use["id"], content, tur)
        for use, run in delegation or []:
            child_content, child_tur = run(s, frags[use["id"]])
            self.tool_result(s, frags[use["id"]], use["id"], child_content, child_tur)
        self.exp.model_calls += 1
        self.exp.tool_calls += len(uses)
        if incomplete:
            self.exp.usage_incomplete_calls += 1
            self.exp.total_tokens += sum(u[:4]) + out
        else:
            self.exp.total_tokens += sum(u)
        return u if not incomplete else (*u[:4], out)

    # ---------------------------------------------------------------- children

    def agent_delegation(self, s: _Stream) -> tuple[dict[str, Any], Any]:
        prompt = self.sentence(self.rng.randrange(20, 120))
        desc = self.sentence(4)
        agent_type = self.rng.choice(("general-purpose", "Explore", "Plan"))
        use = {
            "type": "tool_use",
            "id": self.toolu(),
            "name": "Agent",
            "input": {"description": desc, "prompt": prompt, "subagent_type": agent_type},
            "caller": {"type": "direct"},
        }

        def run(parent: _Stream, frag: dict[str, Any]) -> tuple[Any, Any]:
            return self.agent_child(parent, frag, use, prompt, desc, agent_type)

        return use, run

    def agent_child(
        self,
        parent: _Stream,
        frag: dict[str, Any],
        use: dict[str, Any],
        prompt: str,
        desc: str,
        agent_type: str,
    ) -> tuple[Any, Any]:
        child_id = "a" + self.hexid(16)
        depth = parent.depth + 1
        folder = self.tree / "subagents"
        meta: dict[str, Any] = {
            "agentType": agent_type,
            "description": desc,
            "toolUseId": use["id"],
        }
        if parent.agent_id is not None:
            meta["parentAgentId"] = parent.agent_id
        self.write_meta(folder / f"agent-{child_id}.meta.json", meta)
        child = _Stream(_Out(folder / f"agent-{child_id}.jsonl", self.exp), child_id, depth)
        child.prompt_id = parent.prompt_id
        self.register_child(depth, delegation=True)
        self.user(child, prompt)
        calls = self.rng.randrange(4, 20) if depth == 1 else self.rng.randrange(2, 8)
        nested_at = self.rng.randrange(calls - 1) if depth == 1 and self.rng.random() < 0.3 else -1
        last: Usage5 = (0, 0, 0, 0, 0)
        tools_used = 0
        for i in range(calls):
            model = SONNET if depth == 1 else HAIKU
            if i == calls - 1:
                last = self.call(child, model, [])
            elif i == nested_at:
                self.call(child, model, [], delegation=[self.agent_delegation(child)])
                tools_used += 1
            else:
                tools = [self.plain_tool() for _ in range(self.rng.choice((1, 1, 1, 2, 3)))]
                incomplete = self.rng.random() < 0.08
                self.call(child, model, tools, incomplete=incomplete)
                tools_used += len(tools)
        child.out.close()
        final_text = self.sentence(30)
        for sample in child.samples:
            self.progress(parent, frag, use["id"], child_id, sample)
        total = sum(last)
        content = [
            _text(final_text),
            _text(
                f"agentId: {child_id} (use SendMessage with to: '{child_id}' to continue this "
                f"agent)\n<usage>total_tokens: {total}\ntool_uses: {tools_used}\n"
                f"duration_ms: {self.rng.randrange(5000, 900000)}</usage>"
            ),
        ]
        tur = {
            "status": "completed",
            "prompt": prompt,
            "agentId": child_id,
            "agentType": agent_type,
            "content": [_text(final_text)],
            "totalDurationMs": self.rng.randrange(5000, 900000),
            "totalTokens": total,
            "totalToolUseCount": tools_used,
            "usage": _final_usage(last),
            "toolStats": {"readCount": tools_used, "searchCount": 0, "bashCount": 0},
        }
        return content, tur

    def progress(
        self, s: _Stream, frag: dict[str, Any], tool_id: str, agent_id: str, sample: dict[str, Any]
    ) -> None:
        rec = self.head(s, frag["uuid"])
        rec.pop("promptId", None)
        rec["type"] = "progress"
        rec["data"] = {
            "message": {
                "type": "assistant",
                "message": sample["message"],
                "uuid": sample["uuid"],
                "timestamp": sample["timestamp"],
            },
            "type": "agent_progress",
            "prompt": "",
            "agentId": agent_id,
        }
        rec["toolUseID"] = "agent_msg_" + self._b58(24)
        rec["parentToolUseID"] = tool_id
        rec["uuid"] = self.uuid()
        rec["timestamp"] = self.ts()
        rec.update(self.env)
        self.emit(s, rec, chain=False)

    def workflow_delegation(self, s: _Stream) -> tuple[dict[str, Any], Any]:
        script = f"{self.cwd}/workflows/{self.word()}.js"
        use = {
            "type": "tool_use",
            "id": self.toolu(),
            "name": "Workflow",
            "input": {"scriptPath": script},
            "caller": {"type": "direct"},
        }

        def run(parent: _Stream, frag: dict[str, Any]) -> tuple[Any, Any]:
            return self.workflow_run(parent, script)

        return use, run

    def workflow_run(self, parent: _Stream, script: str) -> tuple[Any, Any]:
        run_id = f"wf_{self.hexid(8)}-{self.hexid(3)}"
        task_id = "w" + self.hexid(8)
        folder = self.tree / "subagents" / "workflows" / run_id
        journal: list[dict[str, Any]] = []
        agents = []
        for _ in range(self.rng.randrange(2, 5)):
            child_id = "a" + self.hexid(16)
            key = "v2:" + self.hexid(64)
            journal.append({"type": "started", "key": key, "agentId": child_id})
            self.write_meta(
                folder / f"agent-{child_id}.meta.json", {"agentType": "workflow-subagent"}
            )
            child = _Stream(_Out(folder / f"agent-{child_id}.jsonl", self.exp), child_id, 1)
            child.prompt_id = parent.prompt_id
            self.register_child(1, delegation=False)
            self.user(child, self.sentence(40))
            for i in range(calls := self.rng.randrange(3, 10)):
                tools = [] if i == calls - 1 else [self.plain_tool()]
                self.call(child, SONNET, tools, incomplete=bool(tools) and self.rng.random() < 0.1)
            child.out.close()
            journal.append({"type": "result", "key": key, "agentId": child_id, "result": "ok"})
            agents.append({"agentId": child_id, "status": "completed"})
        out = _Out(folder / "journal.jsonl", self.exp)
        for line in journal:
            out.write(line)
        out.close()
        self.write_meta(
            self.tree / "workflows" / f"{run_id}.json",
            {
                "runId": run_id,
                "taskId": task_id,
                "workflowName": "release-check",
                "status": "completed",
                "scriptPath": script,
                "totalTokens": self.rng.randrange(10**5, 10**6),
                "agentCount": len(agents),
                "agents": agents,
            },
            meta=False,
        )
        self.exp.delegations_expanded += 1
        tdir = f"/home/dev/.claude/projects/x/{self.sid}/subagents/workflows/{run_id}"
        content = (
            f"Workflow launched in background. Task ID: {task_id}\nTranscript dir: {tdir}\n"
            f"Script file: {script}\nRun ID: {run_id}\n"
        )
        tur = {
            "status": "async_launched",
            "taskId": task_id,
            "taskType": "local_workflow",
            "workflowName": "release-check",
            "runId": run_id,
            "summary": self.sentence(5),
            "transcriptDir": tdir,
            "scriptPath": script,
        }
        return content, tur

    def register_child(self, depth: int, delegation: bool) -> None:
        self.exp.subagents += 1
        self.exp.transcript_files += 1
        self.exp.max_depth = max(self.exp.max_depth, depth)
        if delegation:
            self.exp.delegations_expanded += 1

    def write_meta(self, path: Path, obj: dict[str, Any], meta: bool = True) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = orjson.dumps(obj)
        path.write_bytes(data)
        self.exp.files.append(path)
        self.exp.bytes += len(data)
        self.exp.meta_files += meta

    # ---------------------------------------------------------------- the main stream

    def main_call(self, s: _Stream, final: bool) -> None:
        r = self.rng
        if final:
            self.call(s, OPUS, [])
            return
        roll = r.random()
        if roll < self.p.workflow_rate:
            self.call(s, OPUS, [], delegation=[self.workflow_delegation(s)])
        elif roll < self.p.workflow_rate + self.p.agent_rate:
            n = r.choice((1, 1, 1, 2, 3))
            self.call(s, OPUS, [], delegation=[self.agent_delegation(s) for _ in range(n)])
        else:
            n = r.choice((1, 1, 1, 1, 2, 2, 3))
            self.call(s, OPUS, [self.plain_tool() for _ in range(n)])

    def prompt(self, s: _Stream) -> None:
        uuid = self.uuid()
        self.snapshot(s, uuid)
        s.prompt_id = self.uuid()
        text = self.sentence(self.rng.randrange(10, 200))
        rec = self.head(s, s.last)
        rec.update({"type": "user", "message": {"role": "user", "content": text}})
        rec.update({"uuid": uuid, "timestamp": self.ts()})
        rec.update({"permissionMode": "default", "origin": {"kind": "human"}})
        rec["promptSource"] = "typed"
        rec.update(self.env)
        self.emit(s, rec)
        self.exp.tasks += 1
        if self.rng.random() < 0.4:
            hook = {
                "type": "hook_success",
                "hookName": "UserPromptSubmit",
                "toolUseID": self.uuid(),
                "hookEvent": "UserPromptSubmit",
                "content": self.sentence(10),
                "stdout": self.sentence(10),
                "stderr": "",
                "exitCode": 0,
                "command": "/home/dev/.claude/hooks/check.sh",
                "durationMs": self.rng.randrange(5, 80),
            }
            att = self.head(s, s.last)
            att.pop("promptId", None)
            att.update({"attachment": hook, "type": "attachment", "uuid": self.uuid()})
            att["timestamp"] = self.ts()
            att.update(self.env)
            self.emit(s, att)
        self.emit(
            s,
            {"type": "last-prompt", "lastPrompt": text, "leafUuid": s.last, "sessionId": self.sid},
            chain=False,
        )

    def end_turn(self, s: _Stream) -> None:
        rec = self.head(s, s.last)
        rec.pop("promptId", None)
        rec.update({"type": "system", "subtype": "turn_duration"})
        rec.update({"durationMs": self.rng.randrange(2000, 600000), "messageCount": 12})
        rec.update({"timestamp": self.ts(), "uuid": self.uuid(), "isMeta": False})
        rec.update(self.env)
        self.emit(s, rec)
        if self.rng.random() < 0.1:
            self.user(
                s,
                f"<task-notification>\n<task-id>w{self.hexid(8)}</task-id>\n<status>completed"
                f"</status>\n<summary>{self.sentence(8)}</summary>\n</task-notification>",
                isMeta=True,
            )

    def run(self) -> Expected:
        target = self.p.target_mb * MB
        s = _Stream(_Out(self.exp.parent, self.exp), None, 0)
        self.exp.transcript_files += 1
        self.emit(
            s,
            {"type": "permission-mode", "permissionMode": "default", "sessionId": self.sid},
            chain=False,
        )
        while True:
            self.prompt(s)
            if self.exp.tasks == 1:
                title = {"type": "ai-title", "aiTitle": self.sentence(5), "sessionId": self.sid}
                self.emit(s, title, chain=False)
            calls = self.rng.randrange(3, 25)
            i = 0
            while True:
                done = self.exp.bytes >= target if self.p.single_task else i >= calls - 1
                self.main_call(s, final=done)
                i += 1
                if done:
                    break
            self.end_turn(s)
            if self.exp.bytes >= target or self.p.single_task:
                break
        s.out.close()
        return self.exp


def generate(root: Path, params: Params) -> Expected:
    """Write one session tree into `root` (a project folder); return what it holds."""
    return Generator(root, params).run()


def generate_chain(root: Path, events: int, where: str, seed: int = 11) -> Expected:
    """A tree whose one task (`where="task"`) or one subagent (`"subagent"`) holds `events`
    chained events: events/2 model calls, each requesting one tool whose result feeds the next.
    """
    gen = Generator(root, Params(target_mb=0, seed=seed, huge_every_mb=None))
    gen.lean = True
    exp = gen.exp
    s = _Stream(_Out(exp.parent, exp), None, 0)
    exp.transcript_files += 1
    gen.prompt(s)

    def small_tool() -> tuple[dict[str, Any], Any, Any]:
        use = {
            "type": "tool_use",
            "id": gen.toolu(),
            "name": "Bash",
            "input": {"command": f"make step-{exp.tool_calls}"},
            "caller": {"type": "direct"},
        }
        out = gen.sentence(6)
        return use, out, {"stdout": out, "stderr": "", "interrupted": False}

    def chain(stream: _Stream, model: str) -> None:
        for _ in range(events // 2):
            stream_tools = [small_tool()]
            gen.call(stream, model, stream_tools)

    if where == "task":
        chain(s, OPUS)
        gen.call(s, OPUS, [])
    else:
        use, _ = gen.agent_delegation(s)
        prompt = use["input"]["prompt"]

        def run(parent: _Stream, frag: dict[str, Any]) -> tuple[Any, Any]:
            child_id = "a" + gen.hexid(16)
            folder = gen.tree / "subagents"
            meta = {"agentType": "general-purpose", "toolUseId": use["id"]}
            gen.write_meta(folder / f"agent-{child_id}.meta.json", meta)
            child = _Stream(_Out(folder / f"agent-{child_id}.jsonl", exp), child_id, 1)
            child.prompt_id = parent.prompt_id
            gen.register_child(1, delegation=True)
            gen.user(child, prompt)
            chain(child, SONNET)
            last = gen.call(child, SONNET, [])
            child.out.close()
            tur = {"status": "completed", "agentId": child_id, "usage": _final_usage(last)}
            return [_text(gen.sentence(5))], tur

        gen.call(s, OPUS, [], delegation=[(use, run)])
        gen.call(s, OPUS, [])
    gen.end_turn(s)
    s.out.close()
    return exp


def generate_projects(root: Path, sessions: int, seed: int = 21) -> list[Expected]:
    """A Claude Code projects folder: `sessions` trees of mixed size (median ~0.15 MB, a long
    tail to 5 MB) spread over a few project folders, for timing `scan`."""
    sizes = random.Random(seed)  # noqa: S311
    out = []
    for i in range(sessions):
        mb = min(sizes.lognormvariate(-1.9, 1.0), 5.0)
        project = root / f"-home-dev-project-{i % 8}"
        out.append(
            generate(project, Params(target_mb=mb, seed=seed * 100_003 + i, huge_every_mb=None))
        )
    return out
