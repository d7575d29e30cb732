"""`{{id}}`: a context-mode platform adapter, for an agent host that runs a command on
each of its hook events with a JSON object on stdin and reads a JSON reply from
stdout. context-mode runs `cm hook {{id}} <event>`; this adapter turns the host's
JSON into context-mode's normalized event (`parse`) and context-mode's verdict back
into the host's reply (`render`), and says which config file registers the hooks
and the MCP server (`setup`).

Out of the box it speaks for the made-up host README.md describes: change EVENTS,
parse, render and setup to your host's event names, payloads, reply and config file.
It runs sandboxed: no files, no environment beyond `env_vars`, no network, no clock.
The contract is wit/plugin.wit, world `adapter-plugin`; componentize-py generates the
`wit_world` bindings from it at build time.
"""

import json
import re
from typing import Optional

from componentize_py_types import Err
from wit_world import exports
from wit_world.exports.adapter import (
    Capabilities,
    ConfigEdit,
    ConfigFormat,
    Descriptor,
    EditKind,
    EventBinding,
    ParseError_BadInput,
    ParseError_UnknownEvent,
    ParseInput,
    Rendered,
    Reply,
    SetupInput,
    SetupPlan,
    Verdict,
)
from wit_world.imports.types import (
    EventKind,
    NormalizedEvent,
    SessionSource,
    ToolCall,
    ToolKind,
    ToolResult,
)

# The host's id: `cm hook {{id}} <event>`, `cm setup --agents {{id}}`.
ADAPTER_ID = "{{id}}"
# How this host names MCP tools: `mcp__<server>__<tool>`.
MCP_PREFIX = "mcp__"

# What the host's reply to each event can do. context-mode never asks for more:
# a redirect on an event that cannot block is dropped, not sent.
EVENTS = [
    # The one event that can stop a call: redirects to ctx_* tools and denials need it.
    EventBinding("pre-tool", EventKind.PRE_TOOL_USE,
                 Capabilities.BLOCK | Capabilities.ASK | Capabilities.INJECT_CONTEXT),
    # Lets context-mode record what a tool did (errors, edited files) for the session.
    EventBinding("post-tool", EventKind.POST_TOOL_USE, Capabilities.INJECT_CONTEXT),
    # Where context-mode tells the model how to use its tools.
    EventBinding("session-start", EventKind.SESSION_START, Capabilities.INJECT_CONTEXT),
    # The end of a turn: closes what the session journal has open.
    EventBinding("stop", EventKind.STOP, Capabilities(0)),
]

# The host's tool names, by what they do.
TOOL_KINDS = {
    "shell": ToolKind.SHELL,
    "read_file": ToolKind.READ,
    "grep": ToolKind.GREP,
    "edit_file": ToolKind.EDIT,
    "fetch": ToolKind.WEB_FETCH,
}
SOURCES = {
    "startup": SessionSource.STARTUP,
    "resume": SessionSource.RESUME,
    "clear": SessionSource.CLEAR,
    "compact": SessionSource.COMPACT,
}


class Adapter(exports.Adapter):
    def describe(self) -> Descriptor:
        return Descriptor(
            id=ADAPTER_ID,
            display_name="{{id}}",
            version="0.1.0",
            # The `clientInfo.name` the host sends when it starts `cm serve`.
            client_names=[ADAPTER_ID],
            # Variables set in the processes the host starts (none known for this host).
            env_markers=[],
            # `cm setup` without `--agents` sets up the hosts whose marker exists.
            file_markers=[f"~/.{ADAPTER_ID}"],
            events=EVENTS,
            # The variables `parse` is given (only host markers and directories are
            # allowed: see docs/PLUGINS.md). This host passes everything on stdin.
            env_vars=[],
        )

    def ctx_tool_name(self, server_name: str, tool: str) -> str:
        """The name the host shows its model for one of context-mode's MCP tools."""
        return f"{MCP_PREFIX}{server_name}__{tool}"

    def parse(self, input: ParseInput) -> NormalizedEvent:
        return parse(input)

    def render(self, reply: Reply) -> Rendered:
        return render(reply)

    def setup(self, input: SetupInput) -> SetupPlan:
        return setup(input)

    def host_version_command(self) -> Optional[str]:
        """The program whose `--version` names the installed host's version, when the
        plan depends on it (a bare name on PATH); this plan does not."""
        return None

    def setup_for_version(self, input: SetupInput, host_version: str) -> SetupPlan:
        return setup(input)


def bad_input(why: str) -> Err:
    return Err(ParseError_BadInput(why))


def parse(input: ParseInput) -> NormalizedEvent:
    """The host's stdin: {"session_id", "cwd", "source", "tool": {"name", "input"},
    "output", "is_error"}. Anything else is refused with bad-input: the hook then fails
    open (the host gets render's no-opinion reply), so never guess."""
    event = next((e for e in EVENTS if e.native.lower() == input.native_event.lower()), None)
    if event is None:
        raise Err(ParseError_UnknownEvent(input.native_event))
    try:
        payload = json.loads(input.stdin)
    except ValueError as e:
        raise bad_input(f"stdin is not JSON: {e}")
    if not isinstance(payload, dict):
        raise bad_input("stdin is not a JSON object")

    def text(key):
        value = payload.get(key)
        return value if isinstance(value, str) else None

    tool_event = event.kind in (EventKind.PRE_TOOL_USE, EventKind.POST_TOOL_USE)
    outcome = None
    if event.kind == EventKind.POST_TOOL_USE:
        outcome = ToolResult(output=text("output") or "", is_error=payload.get("is_error") is True,
                             exit_code=None, duration_ms=None)
    source = None
    if event.kind == EventKind.SESSION_START:
        source = SOURCES.get(text("source"), SessionSource.UNKNOWN)
    return NormalizedEvent(
        kind=event.kind,
        native_event=input.native_event,
        # The session keys context-mode's journal; the agent's pid is the next best key.
        session_id=text("session_id") or f"pid-{input.parent_pid}",
        project_dir=text("cwd"),
        transcript_path=None,
        tool=tool_call(payload) if tool_event else None,
        outcome=outcome,
        prompt=None,
        source=source,
        trigger=None,
    )


def tool_call(payload: dict) -> ToolCall:
    """The normalized fields (`command`, `path`, …) are what the policies read, so each
    of the host's tools fills the ones its input has."""
    tool = payload.get("tool")
    if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
        raise bad_input("a tool event without tool.name")
    name = tool["name"]
    tool_input = tool.get("input", {})
    if not isinstance(tool_input, dict):
        raise bad_input("tool.input is not an object")

    def field(key):
        value = tool_input.get(key)
        return value if isinstance(value, str) else None

    server, _, mcp_tool = name[len(MCP_PREFIX):].partition("__") if name.startswith(MCP_PREFIX) else ("", "", "")
    kind = TOOL_KINDS.get(name)
    if kind is None:
        # context-mode's own tools are never redirected.
        kind = ToolKind.OTHER if not mcp_tool else ToolKind.CTX if mcp_tool.startswith("ctx_") else ToolKind.MCP
    return ToolCall(
        name=name,
        kind=kind,
        # Kept whole: render builds an updated input from it.
        input_json=json.dumps(tool_input),
        command=field("command") if kind == ToolKind.SHELL else None,
        path=field("path") if kind in (ToolKind.READ, ToolKind.EDIT) else None,
        has_range=kind == ToolKind.READ and ("offset" in tool_input or "limit" in tool_input),
        url=field("url") if kind == ToolKind.WEB_FETCH else None,
        prompt=None,
        pattern=field("pattern") if kind == ToolKind.GREP else None,
        mcp_server=server if mcp_tool else None,
        mcp_tool=mcp_tool or None,
    )


DECISIONS = {
    Verdict.ALLOW: "allow",
    # A redirect stops the call; its reason tells the model which ctx_* tool to call.
    Verdict.REDIRECT: "block",
    Verdict.DENY: "block",
    Verdict.ASK: "ask",
}


def render(reply: Reply) -> Rendered:
    """The host reads {"decision": "allow" | "block" | "ask", "reason", "context"} and
    `{}` as "no opinion". The exit code stays 0: a failing hook must never stop the agent."""
    out = {}
    if reply.event == EventKind.PRE_TOOL_USE:
        decision = DECISIONS.get(reply.verdict)
        if decision is not None:
            out["decision"] = decision
        if decision is not None and decision != "allow":
            out["reason"] = reply.reason or "stopped by context-mode"
    # Only set on events whose capabilities include inject-context.
    if reply.additional_context is not None:
        out["context"] = reply.additional_context
    return Rendered(stdout=json.dumps(out, separators=(",", ":")), stderr="", exit_code=0)


def shell_word(word: str) -> str:
    """The `cm` path as one word of a shell command line: bare when safe, else double-quoted."""
    if re.fullmatch(r"[A-Za-z0-9\-_./:=@%+,~]+", word):
        return word
    return '"' + re.sub(r'(["\\$`])', r"\\\1", word) + '"'


def setup(input: SetupInput) -> SetupPlan:
    """`cm setup --agents {{id}}` merges these into ~/.{{id}}/config.json (key by key,
    backed up first, removable with `cm setup --remove`); `cm doctor` checks them."""
    cm = input.cm_command.strip() or "cm"
    file = f"~/.{ADAPTER_ID}/config.json"
    hooks = {e.native: [f"{shell_word(cm)} hook {ADAPTER_ID} {e.native}"] for e in EVENTS}
    return SetupPlan(edits=[
        ConfigEdit(
            kind=EditKind.HOOKS,
            file=file,
            format=ConfigFormat.JSON,
            content=json.dumps({"hooks": hooks}),
            summary=f"Register context-mode's hooks with {ADAPTER_ID}",
            optional=False,
        ),
        ConfigEdit(
            # The server name is what ctx_tool_name gets as `server_name`.
            kind=EditKind.MCP_SERVER,
            file=file,
            format=ConfigFormat.JSON,
            content=json.dumps({"mcpServers": {"context-mode": {"command": cm, "args": ["serve"]}}}),
            summary=f"Register the context-mode MCP server (cm serve) with {ADAPTER_ID}",
            optional=False,
        ),
    ])
