//! A hook call as host-independent data: the event, the tool call and its result.

/// What a tool does, normalized across agent hosts (`Bash`, `run_shell_command`,
/// `Shell`, `exec_command`, ... are all `Shell`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    Shell,
    Read,
    Grep,
    Edit,
    WebFetch,
    WebSearch,
    Agent,
    /// A tool of another MCP server.
    Mcp,
    /// One of context-mode's own `ctx_*` tools.
    Ctx,
    Other,
}

/// The normalized hook events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// Before a tool runs: the only event that can block or rewrite a call.
    PreToolUse,
    PostToolUse,
    UserPrompt,
    PreCompact,
    SessionStart,
    Stop,
}

/// Why a session started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionSource {
    Startup,
    Resume,
    Clear,
    Compact,
    Unknown,
}

/// One tool call, as the agent made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// The host's own name for the tool, e.g. `Bash` or `mcp__github__list_issues`.
    pub name: String,
    pub kind: ToolKind,
    /// The tool input exactly as the host sent it, as JSON text (an object).
    pub input_json: String,
    pub command: Option<String>,
    /// For `Read` and `Edit`: the path as given (may be relative to the project).
    pub path: Option<String>,
    /// For `Read`: the call asks for a line range, not the whole file.
    pub has_range: bool,
    pub url: Option<String>,
    /// For `Agent`: the prompt handed to the sub-agent.
    pub prompt: Option<String>,
    pub pattern: Option<String>,
    pub mcp_server: Option<String>,
    pub mcp_tool: Option<String>,
}

/// The result of a tool call, for post-tool-use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    /// The output text the agent will see.
    pub output: String,
    pub is_error: bool,
    pub exit_code: Option<i32>,
    pub duration_ms: Option<u64>,
}

/// A hook call turned into host-independent data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NormalizedEvent {
    pub kind: EventKind,
    /// The host's name for the event, as given on the `cm hook` command line.
    pub native_event: String,
    pub session_id: String,
    pub project_dir: Option<String>,
    pub transcript_path: Option<String>,
    pub tool: Option<ToolCall>,
    pub outcome: Option<ToolResult>,
    pub prompt: Option<String>,
    pub source: Option<SessionSource>,
    /// For pre-compact: `manual` or `auto`, when the host says.
    pub trigger: Option<String>,
}
