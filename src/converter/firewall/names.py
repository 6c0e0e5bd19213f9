"""Which tool, agent-type and model names may cross the firewall as they are (SPEC §6.3), and
which names a diagnostic may show (`may_name`).

Opening a bundle or a contract checks names with these, so this module imports neither the
reader nor the sources."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from converter.firewall.pseudonyms import Pseudonymizer
from converter.firewall.types import MODEL_ID
from converter.recorded import SYNTHETIC_MODEL
from converter.vocabulary import HIDDEN

# The shape of `types.PublicName`: a revealed name that does not fit it (too long, spaces,
# punctuation) is pseudonymized rather than failing the output model.
_PUBLIC_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]{0,63}")

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
        "prompt-suggestion",
        "memory-extraction",
        "sidechain",
        "warmup",
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


_MODEL = re.compile(MODEL_ID)
# Model families whose ids cross as written: a regional or vendor prefix (Bedrock's
# `us.anthropic.`, OpenRouter's `anthropic/`), then the family and a version. Another vendor's
# family is one line here (and a new release of this program); until then its calls are priced
# under a pseudonym, or the contract reveals the name.
_FAMILY = re.compile(
    r"(?:(?:us|us-gov|eu|apac|jp|au|ca|global)\.)?"
    r"(?:(?:anthropic|openai|google|minimax|moonshotai|deepseek|qwen|meta-llama|mistralai|x-ai)"
    r"[./])?"
    r"(?:claude|gpt|o[1-9]|gemini|minimax|glm|kimi|deepseek|qwen|llama|mistral|codestral|grok)"
    r"(?=[-.0-9:@]|$)",
    re.IGNORECASE,
)
# What may follow the family: a closed grammar, not free text. Each `-`-separated part is a
# version (`4`, `3.5`, `4o`, `m2.7`, `v1`, `70b`, `a22b`, `8x7b`), a snapshot date, or a word
# model ids use. A gateway alias such as `claude-3-acme-payroll` or a token glued to a family
# (`claude-3-sk-ant-api03-…`) has a part outside it and gets a pseudonym.
_WORDS = (
    "opus|sonnet|haiku|instant|fable|mythos|mini|nano|pro|flash|lite|turbo|preview|latest|"
    "thinking|think|exp|experimental|chat|coder|code|codex|instruct|large|medium|small|max|"
    "plus|air|vision|reasoner|reasoning|online|high|low|fast|beta|omni|audio|realtime|search|"
    "ultra|nemo|it|base|next|oss|image|deep|research|distill|llama|qwen"
)
# The letters a version pairs with digits are the few real ids use: after digits `o` and `v`
# (`4o`, `4v`, `4.5v`) and a size's `b`, `k`, `m` (`70b`, `1.5b`, `16k`); before them `k`, `m`,
# `r`, `v`, `z` (`k2`, `m2.7`, `r1`, `v3`, `z1`). Any letter would spell a name one part at a
# time (`j0-o0-h0-n0`). Real ids have up to 7 parts after the family; 8 are allowed.
_PART = (
    r"(?:[0-9]{8}|[0-9]{1,4}|[0-9]{1,2}(?:\.[0-9]{1,2})?[ov]?|[0-9]{1,4}(?:\.[0-9])?[bkm]|"
    r"[kmrvz][0-9]{1,2}(?:\.[0-9]{1,2})?|a[0-9]{1,2}b|[0-9]{1,2}x[0-9]{1,2}b|" + _WORDS + ")"
)
_AFTER_FAMILY = re.compile(rf"(?:-?{_PART})?(?:-{_PART}){{0,7}}", re.IGNORECASE)
_DIGIT = re.compile(r"[0-9]")
# Digits are a channel of their own: each part may be a version, but `claude-4111-1111-1111-1111`
# (a card number), `claude-192-168-10-20` (an address), `claude-20241022-555-867-5309` or
# `claude-12345678` is no model (a firewall hunt, then a review of it). One snapshot date may
# stand (`20241022`, `2024-08-06`, or Vertex's `@20241022`), a real date. Past it, real ids
# have at most 3 parts that are only a number, 6 digits among them
# (`gemini-2.5-pro-preview-05-06`, `gpt-3.5-turbo-0125`), and 12 digits in all, suffixes
# included (`qwen3-235b-a22b-instruct-2507`, Bedrock's `:0`).
_DAY = r"20[0-9]{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])"
_DATE = re.compile(
    rf"(?<![0-9])(?:{_DAY}|20[0-9]{{2}}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01]))(?![0-9])"
)
# After the body: Vertex's `@date` (a real one: `@41111111` is left in the body, where no part
# takes `@`) and up to two `:` revisions (Bedrock's `:0`, OpenRouter's `:thinking`).
_SUFFIXES = re.compile(rf"(?:@{_DAY})?(?::[a-z0-9]+){{0,2}}$", re.IGNORECASE)
_EIGHT = re.compile(r"(?<![0-9])[0-9]{8}(?![0-9])")  # a snapshot's place: only a date fits
_NUMBER_PART = re.compile(r"(?<![^-])[0-9]+(?:\.[0-9]+)?(?![^-])")
MAX_NUMBER_PARTS = 3
MAX_NUMBER_DIGITS = 6
MAX_DIGITS = 12


def model_crosses(name: str, reveal: frozenset[str] = frozenset()) -> bool:
    """Whether a model name may leave as written (SPEC §6.1 allows model names, not free text):
    a name the contract reveals (an identifier, checked when the contract is read), or a known
    family's id: a model id's shape, a version digit, and after the family only versions,
    dates and the words model ids are made of (`_PART`)."""
    if name == SYNTHETIC_MODEL or name in reveal:
        return True
    if len(name) > 64 or _MODEL.fullmatch(name) is None or _DIGIT.search(name) is None:
        return False
    family = _FAMILY.match(name)
    if family is None:
        return False
    rest = name[family.end() :]
    suffix = _SUFFIXES.search(rest)  # always matches, possibly empty: `@date`, `:0`, `:thinking`
    body = rest[: suffix.start()] if suffix is not None else rest
    tail = rest[len(body) :]
    if _AFTER_FAMILY.fullmatch(body) is None:
        return False
    return _digits_fit(body, tail)


def _digits_fit(body: str, tail: str) -> bool:
    """Whether the digits after a family are those of a model id: one real snapshot date (the
    `@` one if any), then few numbers (`MAX_NUMBER_PARTS`, `MAX_NUMBER_DIGITS`, `MAX_DIGITS`,
    counted over the suffixes too) and no second date or other 8-digit number."""
    if tail.startswith("@"):
        tail = tail[len("@") + 8 :]  # its date is the one (`_SUFFIXES` took a real one)
    else:
        body = _DATE.sub("", body, count=1)
    numbers = _NUMBER_PART.findall(body)
    return (
        _DATE.search(body) is None
        and _EIGHT.search(body + tail) is None
        and len(numbers) <= MAX_NUMBER_PARTS
        and len(_DIGIT.findall("".join(numbers))) <= MAX_NUMBER_DIGITS
        and len(_DIGIT.findall(body + tail)) <= MAX_DIGITS
    )


# Names a diagnostic may show (SPEC §6.4): what could cross the firewall as written, a keyed
# pseudonym (task-, tool-, model-, x-<hex>), a server tool priced per request, a billing-context
# key. A name a contract's author typed is shown only if it is one of these.
_PSEUDONYM = re.compile(
    r"(?:task|event|agent|file|tool|agent-type|model|run|edge)-[0-9a-f]{12}|x-[0-9a-f]{8}"
)
# Billing-context values that cross as written (`service_tier`, `speed`, `inference_geo`); any
# other value crosses as `x-<8 hex>`.
KNOWN_CONTEXT_VALUES = frozenset(
    {"", "standard", "priority", "batch", "flex", "fast", "not_available", "global", "us", "eu"}
)
# A context key as the template writes one: each of its three parts a known value, `absent`,
# `empty` or a keyed `x-<8 hex>`. Three free words joined by `|` are text, not a key.
_CONTEXT_PART = re.compile(r"x-[0-9a-f]{8}|absent|empty")


def _context_key(text: str) -> bool:
    parts = text.split("|")
    return len(parts) == 3 and all(
        (p in KNOWN_CONTEXT_VALUES and p != "") or _CONTEXT_PART.fullmatch(p) for p in parts
    )


def crossed_as(kind: str, name: str, reveal: frozenset[str]) -> bool:
    """Whether `name` is one the firewall writes for a model, tool, agent type or billing
    context (`context`: its key): as written (a known model id, a built-in tool or agent type,
    a known billing value, a revealed name) or as its keyed pseudonym. A bundle holding any
    other name was not written by this firewall (or edited)."""
    if kind == "context":  # a billing context's key: known values, or keyed `x-<8 hex>`
        return _context_key(name)
    pseudonym = re.fullmatch(re.escape(kind) + r"-[0-9a-f]{12}", name) is not None
    if kind == "model":
        return pseudonym or model_crosses(name, reveal)
    # `hidden`: the agent of calls only provider bodies show (firewall/view.py)
    builtin = BUILTIN_TOOLS if kind == "tool" else BUILTIN_AGENT_TYPES | {"main", HIDDEN}
    revealed = name in reveal and _PUBLIC_NAME.fullmatch(name) is not None
    return pseudonym or name in builtin or revealed


def may_name(text: str) -> bool:
    return (
        text in BUILTIN_TOOLS
        or text in SERVER_TOOLS
        or _PSEUDONYM.fullmatch(text) is not None
        or _context_key(text)
        or model_crosses(text)
    )


def schema_field_names(schema: Any) -> frozenset[str]:
    """Every property name anywhere in a JSON schema: a document's own field names, which a
    diagnostic may name where a key typed into it is masked."""
    names: set[str] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            names.update(node.get("properties", {}))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return frozenset(names)


def masked_path(
    loc: tuple[Any, ...] | list[Any],
    fields: frozenset[str],
    *,
    last_is_key: bool = False,
    places: Mapping[tuple[Any, ...], int] | None = None,
) -> str:
    """A document path a diagnostic may show: indices, the document's own `fields` and names
    `may_name` allows as written; anything else (a key the user typed) is `<key>`, or, given
    the document's `places` (`key_places`), `<key #N>`: the key's place in its object, counting
    from 1, so that one mistyped id among many can be found without the message quoting it.
    `last_is_key`: the last part is a key the schema does not have: always masked. pydantic's
    `[key]` after a mapping's key (the key itself is what is wrong, not its value) is said as
    `(the key)`: `claims/outcomes/<key> (the key)`, not a second `<key>`."""
    parts = []
    for index, part in enumerate(loc):
        text = str(part)
        if isinstance(part, int):
            parts.append(text)
        elif text == "[key]" and parts and index == len(loc) - 1:
            parts[-1] += " (the key)"
        elif (last_is_key and index == len(loc) - 1) or not (text in fields or may_name(text)):
            place = places.get(tuple(loc[: index + 1])) if places else None
            parts.append("<key>" if place is None else f"<key #{place}>")
        else:
            parts.append(text)
    return "/".join(parts)


def key_places(doc: Any) -> dict[tuple[Any, ...], int]:
    """Each key of a JSON document as written (objects as dicts, arrays as lists or tuples),
    by its path: its 1-based place in its object. One walk, no recursion on input depth."""
    places: dict[tuple[Any, ...], int] = {}
    stack: list[tuple[tuple[Any, ...], Any]] = [((), doc)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            for place, (key, value) in enumerate(node.items(), 1):
                places[(*path, key)] = place
                if isinstance(value, dict | list | tuple):
                    stack.append(((*path, key), value))
        elif isinstance(node, list | tuple):
            stack.extend(
                ((*path, i), item)
                for i, item in enumerate(node)
                if isinstance(item, dict | list | tuple)
            )
    return places
