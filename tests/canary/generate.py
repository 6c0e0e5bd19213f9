"""A hypothesis strategy for valid Claude Code session trees full of secrets (SPEC §6.5).

`trees()` draws a `TreePlan` (the shape: turns, calls, tools, children, compaction, errors, …);
`write_tree(plan, base)` writes it in Claude Code's native layout under `base` and returns a
`Tree` that lists every source string it wrote.

Every free string field gets a distinct secret `K` + 12 random alphanumerics (prompts, responses,
thinking, tool inputs and results, descriptions, meta descriptions, cwd, git branch, an e-mail in
a hook reminder, titles and summaries, file-history paths, workflow names and paths, API error
text, unknown record types and their payloads, MCP server and tool names, custom agent types),
and every id whose format allows a free shape carries one too (`msg_<secret>`,
`toolu_<secret>`, `req_<secret>`, `srvtoolu_<secret>`). Ids whose shape is fixed (session id and
record uuids, `a<16 hex>` agent ids, `wf_<hex>-<hex>` run ids) are random per example. The
project folder is named after a secret.

Strings that are not secrets are Claude Code's own vocabulary (record types, block types, stop
reasons, built-in tool and agent names, model names, versions, billing values, …): `ALLOWED`
lists them all, and `MARKUP` lists the fixed markup Claude Code wraps around free text. A test
checks that every string written is a recorded source string, an allowed name or a timestamp,
so nothing escapes the leak check by being forgotten here.

Free text never contains a run of 8 or more non-secret characters outside `MARKUP`: every
8-character window of a source string holds part of a secret, so an 8-gram found in an output
is a leak and not a coincidence with the product's own words.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import random
import re
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from hypothesis import strategies as st

MODELS = ("claude-opus-4-8", "claude-sonnet-5", "claude-haiku-4-5-20251001")
VERSIONS = ("2.1.216", "2.1.167", "2.1.251")
SIMPLE_TOOLS = ("Read", "Bash", "Grep", "Glob", "Edit", "WebFetch", "TodoWrite")
BUILTIN_AGENT_TYPES = ("general-purpose", "Explore", "Plan")
SYNTHETIC = "<synthetic>"

# Claude Code's own vocabulary, as written by this generator: the only non-secret strings.
ALLOWED: frozenset[str] = frozenset(
    {
        *MODELS,
        *VERSIONS,
        *SIMPLE_TOOLS,
        *BUILTIN_AGENT_TYPES,
        SYNTHETIC,
        "Agent",
        "Task",
        "Workflow",
        "WebSearch",
        "workflow-subagent",
        # record types and subtypes
        "user",
        "assistant",
        "system",
        "attachment",
        "summary",
        "permission-mode",
        "last-prompt",
        "file-history-snapshot",
        "ai-title",
        "custom-title",
        "queue-operation",
        "progress",
        "hook_progress",
        "compact_boundary",
        "api_error",
        "turn_duration",
        "local_command",
        "hook_success",
        "UserPromptSubmit",
        "started",
        "result",
        # message and block vocabulary
        "message",
        "text",
        "image",
        "thinking",
        "tool_use",
        "tool_result",
        "base64",
        "image/png",
        "end_turn",
        "stop_sequence",
        "direct",
        "high",
        # billing context values
        "standard",
        "not_available",
        "fast",
        # record field values
        "external",
        "cli",
        "default",
        "human",
        "typed",
        "info",
        "error",
        "unknown",
        "auto",
        "enqueue",
        "completed",
        "failed",
        "async_launched",
        "local_workflow",
        "ECONNRESET",
        "Conversation compacted",
        "",
    }
)

# Fixed markup Claude Code wraps around free text and ids; split off before the 8-gram check.
MARKUP: tuple[str, ...] = (
    "<command-name>",
    "</command-name>",
    "<command-message>",
    "</command-message>",
    "<command-args>",
    "</command-args>",
    "<local-command-stdout>",
    "</local-command-stdout>",
    "agentId: ",
    "<usage>total_tokens: ",
    "</usage>",
    # layout affixes of file names (the ids between them are sources)
    "agent-",
    ".meta.json",
    ".jsonl",
    # a web search result's URL scheme, 8 characters of no secret: a price card's source URLs,
    # which cross into a priced template, hold it too
    "https://",
)

# Short fragments (< 8 characters each) set around secrets to stress encoders: unicode,
# quotes, backslashes, newlines, a line separator, markup-like brackets.
_NOISE = ("", "", "é€ ", '"q" ', "\\n", "\n", "日本語", "\u2028", "😀 ", "<b>", "{x}", "\t", "a b ")

_ALNUM = string.ascii_letters + string.digits
SECRET = re.compile(r"K[A-Za-z0-9]{12}")
TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")


# ------------------------------------------------------------------------------------------
# plans (what hypothesis draws and shrinks)


@dataclass(frozen=True)
class ChildPlan:
    calls: int  # 1..2 own model calls (plus one more when it delegates to a grandchild)
    incomplete: bool  # its last call never gets a final usage record
    custom_type: bool  # agent type `<secret>:<secret>` (a plugin agent)
    legacy_task: bool  # spawned by `Task` rather than `Agent`
    meta: bool  # has agent-<id>.meta.json (else joined by the result's agentId)
    spawn_depth: bool  # meta carries spawnDepth
    grandchild: ChildPlan | None = None


@dataclass(frozen=True)
class ToolPlan:
    kind: Literal["builtin", "mcp", "agent", "workflow", "websearch"]
    name: str = "Read"
    error: bool = False
    string_result: bool = False  # toolUseResult as a bare string
    child: ChildPlan | None = None
    workflow_children: int = 0
    terminal: bool = True  # workflow journal has result lines


@dataclass(frozen=True)
class CallPlan:
    model: str
    thinking: Literal["none", "encrypted", "plain"]
    text: bool
    tools: tuple[ToolPlan, ...]
    incomplete: bool


@dataclass(frozen=True)
class TurnPlan:
    prompt: Literal["string", "blocks", "image", "command"]
    calls: tuple[CallPlan, ...]
    api_error: bool
    attachment: bool
    compaction: bool
    unknown: bool
    bookkeeping: bool


@dataclass(frozen=True)
class TreePlan:
    seed: int
    version: str
    turns: tuple[TurnPlan, ...]


def _child_plans(depth: int) -> st.SearchStrategy[ChildPlan]:
    grand: st.SearchStrategy[ChildPlan | None] = (
        st.none() | _child_plans(depth + 1) if depth < 2 else st.none()
    )
    return st.builds(
        ChildPlan,
        calls=st.integers(1, 2),
        incomplete=st.booleans(),
        custom_type=st.booleans(),
        legacy_task=st.booleans(),
        meta=st.booleans(),
        spawn_depth=st.booleans(),
        grandchild=grand,
    )


def _tool_plans(delegations: bool) -> st.SearchStrategy[ToolPlan]:
    plain = [
        st.builds(
            ToolPlan,
            kind=st.just("builtin"),
            name=st.sampled_from(SIMPLE_TOOLS),
            error=st.booleans(),
            string_result=st.booleans(),
        ),
        st.builds(ToolPlan, kind=st.just("mcp"), error=st.booleans()),
        st.builds(ToolPlan, kind=st.just("websearch")),
    ]
    if not delegations:
        return st.one_of(*plain)
    return st.one_of(
        *plain,
        st.builds(ToolPlan, kind=st.just("agent"), child=_child_plans(1)),
        st.builds(
            ToolPlan,
            kind=st.just("workflow"),
            workflow_children=st.integers(1, 2),
            terminal=st.booleans(),
        ),
    )


def _call_plans(last: bool, delegations: bool) -> st.SearchStrategy[CallPlan]:
    tools = _tool_plans(delegations)
    return st.builds(
        CallPlan,
        model=st.sampled_from(MODELS),
        thinking=st.sampled_from(("none", "encrypted", "plain")),
        text=st.booleans(),
        tools=st.lists(tools, min_size=0 if last else 1, max_size=3).map(tuple),
        incomplete=st.booleans(),
    )


@st.composite
def _turn_plans(draw: st.DrawFn, first: bool, delegations: bool) -> TurnPlan:
    kinds: tuple[Literal["string", "blocks", "image", "command"], ...] = (
        ("string", "blocks", "image") if first else ("string", "blocks", "image", "command")
    )
    prompt = draw(st.sampled_from(kinds))
    calls: tuple[CallPlan, ...] = ()
    if prompt != "command":
        n = draw(st.integers(1, 3))
        calls = tuple(draw(_call_plans(i == n - 1, delegations)) for i in range(n))
    return TurnPlan(
        prompt=prompt,
        calls=calls,
        api_error=draw(st.booleans()),
        attachment=draw(st.booleans()),
        compaction=draw(st.booleans()),
        unknown=draw(st.booleans()),
        bookkeeping=draw(st.booleans()),
    )


@st.composite
def trees(draw: st.DrawFn, delegations: bool = True) -> TreePlan:
    """A plan of a valid session tree; `write_tree` turns it into files. Without `delegations`,
    no call delegates (no Agent, Task or Workflow tool, so no subagent transcript): a tree the
    single-file source (`--from claude-code`) converts whole instead of refusing."""
    n = draw(st.integers(1, 3))
    turns = tuple(draw(_turn_plans(i == 0, delegations)) for i in range(n))
    return TreePlan(
        seed=draw(st.integers(0, 2**63 - 1)),
        version=draw(st.sampled_from(VERSIONS)),
        turns=turns,
    )


# ------------------------------------------------------------------------------------------
# the written tree


@dataclass
class Tree:
    base: Path  # what the tree was written under (the "projects" folder)
    parent: Path  # <base>/<project>/<sid>.jsonl
    session_id: str
    sources: set[str] = field(default_factory=set)  # every non-allowed string written
    secrets: set[str] = field(default_factory=set)  # the canaries themselves
    model_calls: int = 0
    tool_calls: int = 0
    subagents: int = 0
    files: dict[str, bytes] = field(default_factory=dict)  # path relative to base -> bytes

    def new_secret(self, rng: random.Random) -> str:
        while True:
            value = "K" + "".join(rng.choice(_ALNUM) for _ in range(12))
            if value not in self.secrets:
                self.secrets.add(value)
                self.sources.add(value)
                return value


class _Usage:
    def __init__(self, rng: random.Random) -> None:
        self.inp = rng.randint(1, 50)
        self.c5 = rng.choice((0, rng.randint(1, 3000)))
        self.c1h = rng.randint(0, 9000)
        self.cr = rng.randint(0, 60000)
        self.out = rng.randint(6, 2500)

    def final(self, speed: str) -> dict[str, Any]:
        return {
            "input_tokens": self.inp,
            "cache_creation_input_tokens": self.c5 + self.c1h,
            "cache_read_input_tokens": self.cr,
            "output_tokens": self.out,
            "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
            "service_tier": "standard",
            "cache_creation": {
                "ephemeral_1h_input_tokens": self.c1h,
                "ephemeral_5m_input_tokens": self.c5,
            },
            "inference_geo": "not_available",
            "iterations": [],
            "speed": speed,
        }

    def partial(self, out: int) -> dict[str, Any]:
        return {
            "input_tokens": self.inp,
            "cache_creation_input_tokens": self.c5 + self.c1h,
            "cache_read_input_tokens": self.cr,
            "cache_creation": {
                "ephemeral_5m_input_tokens": self.c5,
                "ephemeral_1h_input_tokens": self.c1h,
            },
            "output_tokens": out,
            "service_tier": "standard",
            "inference_geo": "not_available",
        }

    def total(self) -> int:
        return self.inp + self.c5 + self.c1h + self.cr + self.out


class _Writer:
    def __init__(self, plan: TreePlan, base: Path) -> None:
        self.rng = random.Random(plan.seed)
        self.plan = plan
        self.version = plan.version
        self.time = dt.datetime(2026, 3, 1, tzinfo=dt.UTC) + dt.timedelta(
            seconds=self.rng.randint(0, 10**7)
        )
        sid = self._uuid()
        self.tree = Tree(base=base, parent=base, session_id=sid)
        project = f"-home-{self.secret()}-{self.secret()}"
        self.tree.parent = base / project / f"{sid}.jsonl"
        self.reg(sid, project, f"{sid}.jsonl")
        self.project = project
        self.sid = sid
        self.cwds = [f"/home/{self.secret()}/{self.secret()}" for _ in range(2)]
        self.branches = [f"fix/{self.secret()}" for _ in range(2)]
        self.reg(*self.cwds, *self.branches)

    # --- values -------------------------------------------------------------------------
    @property
    def sources(self) -> set[str]:
        return self.tree.sources

    def secret(self) -> str:
        return self.tree.new_secret(self.rng)

    def reg(self, *values: str) -> None:
        self.sources.update(values)

    def text(self) -> str:
        """Free text: a secret between short stress fragments."""
        value = self.rng.choice(_NOISE) + self.secret() + self.rng.choice(_NOISE)
        self.reg(value)
        return value

    def hexid(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def _uuid(self) -> str:
        h = self.hexid(32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:]}"

    def uuid(self) -> str:
        value = self._uuid()
        self.reg(value)
        return value

    def ts(self) -> str:
        self.time += dt.timedelta(milliseconds=self.rng.randint(200, 4000))
        return self.time.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.time.microsecond // 1000:03d}Z"

    def ident(self, prefix: str) -> str:
        value = prefix + self.secret()
        self.reg(value)
        return value

    def agent_id(self) -> str:
        value = "a" + self.hexid(16)
        self.reg(value, f"agent-{value}.jsonl", f"agent-{value}.meta.json")
        return value

    def env(self) -> dict[str, Any]:
        return {
            "userType": "external",
            "entrypoint": "cli",
            "cwd": self.rng.choice(self.cwds),
            "sessionId": self.sid,
            "version": self.version,
            "gitBranch": self.rng.choice(self.branches),
        }

    # --- files --------------------------------------------------------------------------
    def dump_jsonl(self, rel: str, records: list[dict[str, Any]]) -> None:
        data = "".join(
            json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in records
        )
        self.tree.files[rel] = data.encode("utf-8")

    def dump_json(self, rel: str, obj: Any) -> None:
        data = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
        self.tree.files[rel] = data.encode("utf-8")


class _Stream:
    """One transcript being written (main stream or a child)."""

    def __init__(self, w: _Writer, agent_id: str | None = None) -> None:
        self.w = w
        self.agent_id = agent_id
        self.records: list[dict[str, Any]] = []
        self.last: str | None = None  # uuid of the last conversation record

    def add(self, rec: dict[str, Any], chain: bool = True) -> dict[str, Any]:
        self.records.append(rec)
        if chain and "uuid" in rec:
            self.last = rec["uuid"]
        return rec

    def head(self) -> dict[str, Any]:
        rec: dict[str, Any] = {"parentUuid": self.last, "isSidechain": self.agent_id is not None}
        if self.agent_id:
            rec["agentId"] = self.agent_id
        return rec

    def user(self, content: Any, **extra: Any) -> dict[str, Any]:
        rec = self.head()
        rec.update(
            {
                "promptId": self.w.uuid(),
                "type": "user",
                "message": {"role": "user", "content": content},
                "uuid": self.w.uuid(),
                "timestamp": self.w.ts(),
            }
        )
        rec.update(extra)
        rec.update(self.w.env())
        return self.add(rec)

    def fragment(
        self, call: _Call, block: dict[str, Any], final: bool, out: int = 1
    ) -> dict[str, Any]:
        rec = self.head()
        usage = call.usage.final(call.speed) if final else call.usage.partial(out)
        rec.update(
            {
                "message": {
                    "model": call.model,
                    "id": call.msg_id,
                    "type": "message",
                    "role": "assistant",
                    "content": [block],
                    "stop_reason": call.stop if final else None,
                    "stop_sequence": None,
                    "usage": usage,
                },
                "requestId": call.req_id,
                "type": "assistant",
                "uuid": self.w.uuid(),
                "timestamp": self.w.ts(),
                "effort": "high",
            }
        )
        rec.update(self.w.env())
        return self.add(rec)

    def system(self, subtype: str, body: dict[str, Any]) -> dict[str, Any]:
        rec = self.head()
        rec.update({"type": "system", "subtype": subtype, **body})
        rec.update({"timestamp": self.w.ts(), "uuid": self.w.uuid(), "isMeta": False})
        rec.update(self.w.env())
        return self.add(rec)


@dataclass
class _Call:
    model: str
    msg_id: str
    req_id: str
    usage: _Usage
    stop: str
    speed: str


def _text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


class _TreeBuilder:
    def __init__(self, plan: TreePlan, base: Path) -> None:
        self.w = _Writer(plan, base)
        self.plan = plan
        self.sub = f"{self.w.project}/{self.w.sid}/subagents"

    def new_call(self, model: str, stop: str) -> _Call:
        w = self.w
        w.tree.model_calls += 1
        speed = "fast" if w.rng.random() < 0.2 else "standard"
        return _Call(model, w.ident("msg_"), w.ident("req_"), _Usage(w.rng), stop, speed)

    # --- tools --------------------------------------------------------------------------
    def tool_use(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        self.w.tree.tool_calls += 1
        return {"type": "tool_use", "id": self.w.ident("toolu_"), "name": name, "input": args}

    def tool(
        self, stream: _Stream, plan: ToolPlan, depth: int
    ) -> tuple[dict[str, Any], Any, Any, bool | None]:
        """(tool_use block, result content, toolUseResult, is_error) for one planned tool."""
        w = self.w
        if plan.kind == "builtin":
            block = self.tool_use(plan.name, {"file_path": w.text(), "description": w.text()})
            if plan.error:
                return block, w.text(), w.text(), True
            result = (
                w.text()
                if plan.string_result
                else {"stdout": w.text(), "stderr": "", w.secret(): 1}
            )
            return block, w.text(), result, False
        if plan.kind == "mcp":
            name = f"mcp__{w.secret()}__{w.secret()}"
            w.reg(name)
            # an MCP tool's argument names are its server's own: a secret key (was: only
            # values held secrets, so a key reaching an output went unseen)
            block = self.tool_use(name, {"query": w.text(), "limit": 3, w.secret(): w.text()})
            body = [_text(w.text())]
            return block, body, body, True if plan.error else None
        if plan.kind == "websearch":
            block = self.tool_use("WebSearch", {"query": w.text()})
            links = [{"title": w.text(), "url": f"https://{w.secret()}.io/{w.secret()}"}]
            w.reg(links[0]["url"])
            summary = w.text()
            outcome = {
                "query": block["input"]["query"],
                "results": [{"tool_use_id": w.ident("srvtoolu_"), "content": links}, summary],
                "durationSeconds": 1.25,
            }
            return block, summary, outcome, None
        if plan.kind == "agent":
            assert plan.child is not None
            return self.agent(stream, plan.child, depth)
        return self.workflow(plan)

    def agent_type(self, child: ChildPlan) -> str:
        if child.custom_type:
            value = f"{self.w.secret()}:{self.w.secret()}"
            self.w.reg(value)
            return value
        return self.w.rng.choice(BUILTIN_AGENT_TYPES)

    def agent(
        self, spawner: _Stream, child: ChildPlan, depth: int
    ) -> tuple[dict[str, Any], Any, Any, bool | None]:
        w = self.w
        agent_type = self.agent_type(child)
        prompt = w.text()
        description = w.text()
        block = self.tool_use(
            "Task" if child.legacy_task else "Agent",
            {"description": description, "prompt": prompt, "subagent_type": agent_type},
        )
        agent_id = w.agent_id()
        final_text, last = self.child_stream(agent_id, prompt, child, depth + 1)
        meta: dict[str, Any] = {
            "agentType": agent_type,
            "description": description,
            "toolUseId": block["id"],
        }
        if depth >= 1:
            assert spawner.agent_id is not None
            meta["parentAgentId"] = spawner.agent_id
        if child.spawn_depth:
            meta["spawnDepth"] = depth + 1
        if child.meta or depth >= 1:  # depth 2 is only joinable through its meta
            w.dump_json(f"{self.sub}/agent-{agent_id}.meta.json", meta)
        usage_line = f"agentId: {agent_id}"
        usage_block = f"<usage>total_tokens: {last.total()}</usage>"
        w.reg(usage_line, usage_block)
        content = [_text(final_text), _text(usage_line), _text(usage_block)]
        outcome = {
            "status": "completed",
            "prompt": prompt,
            "agentId": agent_id,
            "agentType": agent_type,
            "content": [_text(final_text)],
            "totalDurationMs": w.rng.randint(100, 90000),
            "totalTokens": last.total(),
            "totalToolUseCount": 1,
            "usage": last.final("standard"),
        }
        return block, content, outcome, None

    def child_stream(
        self, agent_id: str, prompt: str, plan: ChildPlan, depth: int
    ) -> tuple[str, _Usage]:
        """Write a subagent transcript; return its last text and its last call's usage."""
        w = self.w
        w.tree.subagents += 1
        s = _Stream(w, agent_id)
        s.user(prompt)
        final_text = ""
        last_usage: _Usage | None = None
        steps = plan.calls + (1 if plan.grandchild else 0)
        for i in range(steps):
            is_last = i == steps - 1
            delegating = plan.grandchild is not None and i == 0
            call = self.new_call(w.rng.choice(MODELS), "end_turn" if is_last else "tool_use")
            incomplete = plan.incomplete and is_last
            s.fragment(call, _text(w.text()), final=False, out=1)
            if delegating:
                assert plan.grandchild is not None
                block, content, outcome, _ = self.agent(s, plan.grandchild, depth)
                use = s.fragment(call, block, final=not incomplete, out=3)
                s.user(
                    [{"tool_use_id": block["id"], "type": "tool_result", "content": content}],
                    toolUseResult=outcome,
                    sourceToolAssistantUUID=use["uuid"],
                )
            else:
                final_text = w.text()
                s.fragment(call, _text(final_text), final=not incomplete, out=5)
            last_usage = call.usage
        w.dump_jsonl(f"{self.sub}/agent-{agent_id}.jsonl", s.records)
        assert last_usage is not None
        return final_text, last_usage

    def workflow(self, plan: ToolPlan) -> tuple[dict[str, Any], Any, Any, bool | None]:
        w = self.w
        run = f"wf_{w.hexid(8)}-{w.hexid(3)}"
        w.reg(run, f"{run}.json")
        script = f"/home/{w.secret()}/{w.secret()}.js"
        w.reg(script)
        block = self.tool_use("Workflow", {"scriptPath": script})
        name = w.text()
        summary = w.text()
        tdir = f"/home/{w.secret()}/{run}"
        w.reg(tdir)
        task_id = "w" + w.hexid(8)
        w.reg(task_id)
        folder = f"{self.sub}/workflows/{run}"
        journal: list[dict[str, Any]] = []
        agents = []
        total = 0
        for _ in range(plan.workflow_children):
            agent_id = w.agent_id()
            w.tree.subagents += 1
            s = _Stream(w, agent_id)
            s.user(w.text())
            call = self.new_call(w.rng.choice(MODELS), "end_turn")
            result = w.text()
            s.fragment(call, _text(result), final=w.rng.random() < 0.7, out=2)
            total += call.usage.total()
            w.dump_jsonl(f"{folder}/agent-{agent_id}.jsonl", s.records)
            w.dump_json(f"{folder}/agent-{agent_id}.meta.json", {"agentType": "workflow-subagent"})
            key = "v2:" + w.hexid(64)
            w.reg(key)
            journal.append({"type": "started", "key": key, "agentId": agent_id})
            if plan.terminal:
                journal.append(
                    {"type": "result", "key": key, "agentId": agent_id, "result": result}
                )
            agents.append({"agentId": agent_id, "status": "completed"})
        w.dump_jsonl(f"{folder}/journal.jsonl", journal)
        w.dump_json(
            f"{w.project}/{w.sid}/workflows/{run}.json",
            {
                "runId": run,
                "taskId": task_id,
                "workflowName": name,
                "status": "completed",
                "scriptPath": script,
                "startTime": w.ts(),
                "endTime": w.ts(),
                "totalTokens": total,
                "agentCount": len(agents),
                "agents": agents,
            },
        )
        outcome = {
            "status": "async_launched",
            "taskId": task_id,
            "taskType": "local_workflow",
            "workflowName": name,
            "runId": run,
            "summary": summary,
            "transcriptDir": tdir,
            "scriptPath": script,
        }
        return block, summary, outcome, False

    # --- the main stream ----------------------------------------------------------------
    def prompt(self, p: _Stream, kind: str) -> None:
        w = self.w
        human = {"permissionMode": "default", "origin": {"kind": "human"}, "promptSource": "typed"}
        if kind == "string":
            p.user(w.text(), **human)
        elif kind == "blocks":
            p.user([_text(w.text())], **human)
        elif kind == "image":
            data = base64.b64encode(b"\x89PNG\r\n\x1a\n" + w.secret().encode()).decode()
            w.reg(data)
            image = {"type": "base64", "media_type": "image/png", "data": data}
            p.user([_text(w.text()), {"type": "image", "source": image}], **human)
        else:
            name, args = w.secret(), w.secret()
            body = (
                f"<command-name>/{name}</command-name>\n<command-message>{name}"
                f"</command-message>\n<command-args>{args}</command-args>"
            )
            w.reg(body)
            p.user(body)
            out = f"<local-command-stdout>{w.secret()}</local-command-stdout>"
            w.reg(out)
            p.system("local_command", {"content": out, "level": "info"})

    def bookkeeping(self, p: _Stream) -> None:
        w = self.w
        sid = w.sid
        path = f"{w.secret()}/{w.secret()}.py"
        w.reg(path)
        mid = w.uuid()
        p.add(
            {
                "type": "file-history-snapshot",
                "messageId": mid,
                "snapshot": {
                    "messageId": mid,
                    "trackedFileBackups": {
                        path: {"backupFileName": w.ident("bk"), "version": 1, "backupTime": w.ts()}
                    },
                    "timestamp": w.ts(),
                },
                "isSnapshotUpdate": False,
            },
            chain=False,
        )
        p.add({"type": "ai-title", "aiTitle": w.text(), "sessionId": sid}, chain=False)
        p.add({"type": "custom-title", "customTitle": w.text(), "sessionId": sid}, chain=False)
        p.add({"type": "summary", "summary": w.text(), "leafUuid": w.uuid()}, chain=False)
        p.add(
            {"type": "last-prompt", "lastPrompt": w.text(), "leafUuid": w.uuid(), "sessionId": sid},
            chain=False,
        )
        p.add(
            {
                "type": "queue-operation",
                "operation": "enqueue",
                "timestamp": w.ts(),
                "sessionId": sid,
                "content": w.text(),
            },
            chain=False,
        )
        rec = p.head()
        rec.update(
            {
                "type": "progress",
                "data": {"type": "hook_progress", "hookName": w.text(), "command": w.text()},
                "parentToolUseID": w.ident("toolu_"),
                "toolUseID": w.ident("toolu_"),
                "timestamp": w.ts(),
                "uuid": w.uuid(),
            }
        )
        rec.update(w.env())
        p.add(rec, chain=False)

    def attachment(self, p: _Stream) -> None:
        w = self.w
        mail = f"{w.secret()}@{w.secret()}.io"
        w.reg(mail)
        rec = p.head()
        rec.update(
            {
                "attachment": {
                    "type": "hook_success",
                    "hookName": "UserPromptSubmit",
                    "toolUseID": w.uuid(),
                    "hookEvent": "UserPromptSubmit",
                    "content": mail,
                    "stdout": mail,
                    "stderr": "",
                    "exitCode": 0,
                    "command": f"/home/{w.secret()}/hook.sh",
                    "durationMs": 21,
                },
                "type": "attachment",
                "uuid": w.uuid(),
                "timestamp": w.ts(),
            }
        )
        w.reg(rec["attachment"]["command"])
        rec.update(w.env())
        p.add(rec)

    def api_error(self, p: _Stream) -> None:
        w = self.w
        p.system(
            "api_error",
            {
                "level": "error",
                "error": {"message": w.text(), "formatted": w.text(), "code": "ECONNRESET"},
                "retryInMs": 576.07,
                "retryAttempt": 1,
                "maxRetries": 10,
            },
        )
        zero = {
            "input_tokens": 0,
            "output_tokens": 0,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "service_tier": None,
        }
        rec = p.head()
        rec.update(
            {
                "type": "assistant",
                "uuid": w.uuid(),
                "timestamp": w.ts(),
                "message": {
                    "id": w.uuid(),
                    "model": SYNTHETIC,
                    "role": "assistant",
                    "stop_reason": "stop_sequence",
                    "type": "message",
                    "usage": zero,
                    "content": [_text(w.text())],
                },
                "error": "unknown",
                "isApiErrorMessage": True,
            }
        )
        rec.update(w.env())
        p.add(rec)

    def compaction(self, p: _Stream) -> None:
        w = self.w
        summary_ts = w.ts()
        boundary = {
            "parentUuid": None,
            "logicalParentUuid": p.last,
            "isSidechain": False,
            "type": "system",
            "subtype": "compact_boundary",
            "content": "Conversation compacted",
            "isMeta": False,
            "timestamp": w.ts(),
            "uuid": w.uuid(),
            "level": "info",
            "compactMetadata": {"trigger": "auto", "preTokens": 150000, "postTokens": 9000},
        }
        boundary.update(w.env())
        p.add(boundary)
        p.user(w.text(), isVisibleInTranscriptOnly=True, isCompactSummary=True)
        p.records[-1]["timestamp"] = summary_ts  # earlier than the boundary, as observed

    def unknown(self, p: _Stream) -> None:
        w = self.w
        rec = p.head()
        rec.update(
            {
                "type": f"future-{w.secret()}",
                "payload": {"note": w.text(), "level": 3},
                "uuid": w.uuid(),
                "timestamp": w.ts(),
            }
        )
        w.reg(rec["type"])
        rec.update(w.env())
        p.add(rec)

    def call(self, p: _Stream, plan: CallPlan) -> None:
        w = self.w
        stop = "tool_use" if plan.tools else "end_turn"
        call = self.new_call(plan.model, stop)
        final = not plan.incomplete
        if plan.thinking != "none":
            sig = base64.b64encode(w.secret().encode() * 3).decode()
            w.reg(sig)
            thought = "" if plan.thinking == "encrypted" else w.text()
            p.fragment(call, {"type": "thinking", "thinking": thought, "signature": sig}, final)
        if plan.text or not plan.tools:
            p.fragment(call, _text(w.text()), final)
        results = []
        for tool in plan.tools:
            block, content, outcome, is_error = self.tool(p, tool, depth=0)
            use = p.fragment(call, block, final)
            results.append((block, content, outcome, is_error, use))
        for block, content, outcome, is_error, use in results:  # parallel: results after uses
            result: dict[str, Any] = {
                "tool_use_id": block["id"],
                "type": "tool_result",
                "content": content,
            }
            if is_error is not None:
                result["is_error"] = is_error
            p.user([result], toolUseResult=outcome, sourceToolAssistantUUID=use["uuid"])

    def build(self) -> Tree:
        w = self.w
        p = _Stream(w)
        p.add({"type": "permission-mode", "permissionMode": "default", "sessionId": w.sid})
        for turn in self.plan.turns:
            if turn.bookkeeping:
                self.bookkeeping(p)
            self.prompt(p, turn.prompt)
            if turn.attachment:
                self.attachment(p)
            if turn.api_error:
                self.api_error(p)
            for call in turn.calls:
                self.call(p, call)
            p.system("turn_duration", {"durationMs": w.rng.randint(10, 99999), "messageCount": 3})
            if turn.unknown:
                self.unknown(p)
            if turn.compaction:
                self.compaction(p)
        w.dump_jsonl(f"{w.project}/{w.sid}.jsonl", p.records)
        for rel in w.tree.files:
            path = w.tree.base / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(w.tree.files[rel])
        return w.tree


def write_tree(plan: TreePlan, base: Path) -> Tree:
    """Write the planned tree under `base` (a fresh folder); return what was written."""
    return _TreeBuilder(plan, base).build()


def json_strings(value: Any) -> list[str]:
    """Every string value (not key) inside a decoded JSON value, iteratively."""
    out: list[str] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return out


def written_strings(tree: Tree) -> set[str]:
    """Every string value in every file of the tree, and every file and folder name."""
    found: set[str] = set()
    for rel, data in tree.files.items():
        found.update(part for part in rel.split("/"))
        text = data.decode("utf-8", "replace")
        lines = text.split("\n") if rel.endswith(".jsonl") else [text]
        for line in lines:
            if line.strip():
                found.update(json_strings(json.loads(line)))
    return found


def unexplained(tree: Tree) -> set[str]:
    """Strings in the files that are neither recorded sources, allowed names nor timestamps."""
    structural = {"subagents", "workflows", "journal.jsonl"}
    return {
        s
        for s in written_strings(tree)
        if s not in tree.sources
        and s not in ALLOWED
        and s not in structural
        and not TIMESTAMP.fullmatch(s)
        and len(s) >= 8
    }


# ------------------------------------------------------------------------------------------
# failing runs: one broken line or document, itself full of secrets

Corruption = Literal["torn", "garbage", "invalid-utf8", "duplicate-key", "bad-meta", "non-object"]
CORRUPTIONS: tuple[Corruption, ...] = (
    "torn",
    "garbage",
    "invalid-utf8",
    "duplicate-key",
    "bad-meta",
    "non-object",
)


def corrupt(tree: Tree, mode: Corruption, pick: int) -> str:
    """Break one file of a written tree in place; return the file's path relative to `base`.

    `torn` cuts the last line of a transcript in the middle of a string (a call's only record,
    which may still be being written: a cut record that holds no spend is passed over); the
    others replace a line (or a meta document) with bytes that are not a valid record and carry
    new secrets.
    """
    rng = random.Random(pick)
    transcripts = sorted(r for r in tree.files if r.endswith(".jsonl"))
    metas = sorted(r for r in tree.files if r.endswith(".meta.json"))
    if mode == "bad-meta" and metas:
        rel = metas[pick % len(metas)]
        secret = tree.new_secret(rng)
        data = ('{"agentType":"' + secret + '","description":').encode()
    else:
        rel = transcripts[pick % len(transcripts)]
        lines = tree.files[rel].split(b"\n")[:-1]
        secret = tree.new_secret(rng)
        other = tree.new_secret(rng)
        if mode in ("torn", "bad-meta"):
            bad = f'{{"message":{{"id":"msg_cut","content":"{secret} {other}'.encode()
            lines.append(bad)
            data = b"\n".join(lines)  # no final newline: a writer stopped mid-line
        else:
            bad = {
                "garbage": f"{secret} not json {other}".encode(),
                "invalid-utf8": f'{{"type":"user","content":"{secret}'.encode()
                + b"\xff\xfe"
                + f'{other}"}}'.encode(),
                "duplicate-key": f'{{"type":"user","type":"{secret}","uuid":"{other}"}}'.encode(),
                "non-object": f'["{secret}","{other}"]'.encode(),
            }[mode]
            lines.insert(pick % (len(lines) + 1), bad)
            data = b"\n".join(lines) + b"\n"
    tree.sources.update({secret})
    tree.files[rel] = data
    (tree.base / rel).write_bytes(data)
    return rel
