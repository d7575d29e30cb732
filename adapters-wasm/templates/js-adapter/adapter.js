// `{{id}}`: a context-mode platform adapter, for an agent host that runs a command on
// each of its hook events with a JSON object on stdin and reads a JSON reply from
// stdout. context-mode runs `cm hook {{id}} <event>`; this adapter turns the host's
// JSON into context-mode's normalized event (`parse`) and context-mode's verdict back
// into the host's reply (`render`), and says which config file registers the hooks
// and the MCP server (`setup`).
//
// Out of the box it speaks for the made-up host README.md describes: change EVENTS,
// parse, render and setup to your host's event names, payloads, reply and config file.
// It runs sandboxed: no files, no environment beyond `envVars`, no network, no clock.
//
// The contract is wit/plugin.wit, world `adapter-plugin`. The QuickJS backend maps its
// types to JavaScript as: records are objects with camelCase fields, enums are their
// WIT names as strings, flags are objects of booleans, variants are `{ tag, val }`, an
// absent option is `null`, and a `result` is returned (ok) or thrown (err).

/** The host's id: `cm hook {{id}} <event>`, `cm setup --agents {{id}}`. */
const ADAPTER_ID = "{{id}}";
/** How this host names MCP tools: `mcp__<server>__<tool>`. */
const MCP_PREFIX = "mcp__";

// What the host's reply to each event can do. context-mode never asks for more:
// a redirect on an event that cannot block is dropped, not sent.
const EVENTS = [
  // The one event that can stop a call: redirects to ctx_* tools and denials need it.
  { native: "pre-tool", kind: "pre-tool-use", capabilities: { block: true, ask: true, injectContext: true } },
  // Lets context-mode record what a tool did (errors, edited files) for the session.
  { native: "post-tool", kind: "post-tool-use", capabilities: { injectContext: true } },
  // Where context-mode tells the model how to use its tools.
  { native: "session-start", kind: "session-start", capabilities: { injectContext: true } },
  // The end of a turn: closes what the session journal has open.
  { native: "stop", kind: "stop", capabilities: {} },
];

// The host's tool names, by what they do.
const TOOL_KINDS = { shell: "shell", read_file: "read", grep: "grep", edit_file: "edit", fetch: "web-fetch" };

function describe() {
  return {
    id: ADAPTER_ID,
    displayName: "{{id}}",
    version: "0.1.0",
    // The `clientInfo.name` the host sends when it starts `cm serve`.
    clientNames: [ADAPTER_ID],
    // Variables set in the processes the host starts (none known for this host).
    envMarkers: [],
    // `cm setup` without `--agents` sets up the hosts whose marker exists.
    fileMarkers: [`~/.${ADAPTER_ID}`],
    events: EVENTS,
    // The variables `parse` is given (only host markers and directories are allowed:
    // see docs/PLUGINS.md). This host passes everything on stdin.
    envVars: [],
  };
}

/** The name the host shows its model for one of context-mode's MCP tools. */
function ctxToolName(serverName, tool) {
  return `${MCP_PREFIX}${serverName}__${tool}`;
}

const badInput = (why) => ({ tag: "bad-input", val: why });

// The host's stdin: {"session_id", "cwd", "source", "tool": {"name", "input"},
// "output", "is_error"}. Anything else is refused with bad-input: the hook then fails
// open (the host gets render's no-opinion reply), so never guess.
function parse(input) {
  const event = EVENTS.find((e) => e.native.toLowerCase() === input.nativeEvent.toLowerCase());
  if (!event) throw { tag: "unknown-event", val: input.nativeEvent };
  let payload;
  try {
    payload = JSON.parse(input.stdin);
  } catch (e) {
    throw badInput(`stdin is not JSON: ${e.message}`);
  }
  if (!payload || typeof payload !== "object" || Array.isArray(payload)) {
    throw badInput("stdin is not a JSON object");
  }
  const text = (key) => (typeof payload[key] === "string" ? payload[key] : null);
  const toolEvent = event.kind === "pre-tool-use" || event.kind === "post-tool-use";
  const sources = ["startup", "resume", "clear", "compact"];
  return {
    kind: event.kind,
    nativeEvent: input.nativeEvent,
    // The session keys context-mode's journal; the agent's pid is the next best key.
    sessionId: text("session_id") ?? `pid-${input.parentPid}`,
    projectDir: text("cwd"),
    transcriptPath: null,
    tool: toolEvent ? toolCall(payload) : null,
    outcome: event.kind === "post-tool-use"
      ? { output: text("output") ?? "", isError: payload.is_error === true, exitCode: null, durationMs: null }
      : null,
    prompt: null,
    source: event.kind === "session-start" ? (sources.includes(text("source")) ? text("source") : "unknown") : null,
    trigger: null,
  };
}

// The normalized fields (`command`, `path`, …) are what the policies read, so each of
// the host's tools fills the ones its input has.
function toolCall(payload) {
  const tool = payload.tool;
  if (!tool || typeof tool.name !== "string") throw badInput("a tool event without tool.name");
  const input = tool.input ?? {};
  if (typeof input !== "object" || Array.isArray(input)) throw badInput("tool.input is not an object");
  const field = (key) => (typeof input[key] === "string" ? input[key] : null);
  const mcp = tool.name.startsWith(MCP_PREFIX) ? tool.name.slice(MCP_PREFIX.length).split("__") : null;
  const mcpServer = mcp && mcp.length > 1 ? mcp[0] : null;
  const mcpTool = mcp && mcp.length > 1 ? mcp.slice(1).join("__") : null;
  // context-mode's own tools are never redirected.
  const kind = TOOL_KINDS[tool.name] ?? (mcpTool == null ? "other" : mcpTool.startsWith("ctx_") ? "ctx" : "mcp");
  return {
    name: tool.name,
    kind,
    // Kept whole: render builds an updated input from it.
    inputJson: JSON.stringify(input),
    command: kind === "shell" ? field("command") : null,
    path: kind === "read" || kind === "edit" ? field("path") : null,
    hasRange: kind === "read" && ("offset" in input || "limit" in input),
    url: kind === "web-fetch" ? field("url") : null,
    prompt: null,
    pattern: kind === "grep" ? field("pattern") : null,
    mcpServer,
    mcpTool,
  };
}

// The host reads {"decision": "allow" | "block" | "ask", "reason", "context"} and `{}`
// as "no opinion". The exit code stays 0: a failing hook must never stop the agent.
function render(reply) {
  const out = {};
  if (reply.event === "pre-tool-use") {
    // A redirect stops the call; its reason tells the model which ctx_* tool to call.
    const decision = { allow: "allow", redirect: "block", deny: "block", ask: "ask" }[reply.verdict];
    if (decision) out.decision = decision;
    if (decision && decision !== "allow") out.reason = reply.reason ?? "stopped by context-mode";
  }
  // Only set on events whose capabilities include injectContext.
  if (reply.additionalContext != null) out.context = reply.additionalContext;
  return { stdout: JSON.stringify(out), stderr: "", exitCode: 0 };
}

/** The `cm` path as one word of a shell command line: bare when safe, else double-quoted. */
function shellWord(word) {
  if (/^[A-Za-z0-9\-_./:=@%+,~]+$/.test(word)) return word;
  return `"${word.replace(/["\\$`]/g, (c) => `\\${c}`)}"`;
}

// `cm setup --agents {{id}}` merges these into ~/.{{id}}/config.json (key by key, backed
// up first, removable with `cm setup --remove`); `cm doctor` checks they are in place.
function setup(input) {
  const cm = input.cmCommand.trim() || "cm";
  const file = `~/.${ADAPTER_ID}/config.json`;
  const hooks = Object.fromEntries(EVENTS.map((e) => [e.native, [`${shellWord(cm)} hook ${ADAPTER_ID} ${e.native}`]]));
  return {
    edits: [
      {
        kind: "hooks",
        file,
        format: "json",
        content: JSON.stringify({ hooks }),
        summary: `Register context-mode's hooks with ${ADAPTER_ID}`,
        optional: false,
      },
      {
        // The server name is what ctxToolName gets as `serverName`.
        kind: "mcp-server",
        file,
        format: "json",
        content: JSON.stringify({ mcpServers: { "context-mode": { command: cm, args: ["serve"] } } }),
        summary: `Register the context-mode MCP server (cm serve) with ${ADAPTER_ID}`,
        optional: false,
      },
    ],
  };
}

// A plan that depends on the installed host's version names the program whose
// `--version` prints it (a bare name on PATH) and plans per version; this one does not.
function hostVersionCommand() {
  return undefined;
}

function setupForVersion(input, _hostVersion) {
  return setup(input);
}

export const adapter = { describe, ctxToolName, parse, render, setup, hostVersionCommand, setupForVersion };
