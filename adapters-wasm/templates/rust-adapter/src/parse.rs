//! The host's hook stdin → context-mode's normalized event. This host sends
//!
//! ```json
//! {"session_id": "…", "cwd": "/abs/project", "source": "startup",
//!  "tool": {"name": "shell", "input": {"command": "ls"}},
//!  "output": "…", "is_error": false}
//! ```
//!
//! with `tool` on the tool events, `output`/`is_error` after a tool ran and `source`
//! when a session starts. Anything else is refused with `bad-input`: the hook then
//! fails open (the host gets `render`'s no-opinion reply), so never guess.

use serde_json::{Map, Value};

use crate::context_mode::plugin::types::{
    EventKind, NormalizedEvent, SessionSource, ToolCall, ToolKind, ToolResult,
};
use crate::describe::EVENTS;
use crate::exports::context_mode::plugin::adapter::{ParseError, ParseInput};

/// How this host names MCP tools: `mcp__<server>__<tool>`.
const MCP_PREFIX: &str = "mcp__";

pub fn parse(input: &ParseInput) -> Result<NormalizedEvent, ParseError> {
    let event = EVENTS
        .iter()
        .find(|event| event.name.eq_ignore_ascii_case(&input.native_event))
        .ok_or_else(|| ParseError::UnknownEvent(input.native_event.clone()))?;
    let payload: Value = serde_json::from_str(&input.stdin)
        .map_err(|e| ParseError::BadInput(format!("stdin is not JSON: {e}")))?;
    let payload = payload
        .as_object()
        .ok_or_else(|| ParseError::BadInput("stdin is not a JSON object".into()))?;
    let text = |key: &str| payload.get(key).and_then(Value::as_str).map(str::to_owned);
    let tool = match event.kind {
        EventKind::PreToolUse | EventKind::PostToolUse => Some(tool_call(payload)?),
        _ => None,
    };
    let outcome = (event.kind == EventKind::PostToolUse).then(|| ToolResult {
        output: text("output").unwrap_or_default(),
        is_error: payload.get("is_error").and_then(Value::as_bool) == Some(true),
        exit_code: None,
        duration_ms: None,
    });
    let source = (event.kind == EventKind::SessionStart).then(|| match text("source").as_deref() {
        Some("startup") => SessionSource::Startup,
        Some("resume") => SessionSource::Resume,
        Some("clear") => SessionSource::Clear,
        Some("compact") => SessionSource::Compact,
        _ => SessionSource::Unknown,
    });
    Ok(NormalizedEvent {
        kind: event.kind,
        native_event: input.native_event.clone(),
        // The session keys context-mode's journal; the agent's pid is the next best key.
        session_id: text("session_id").unwrap_or_else(|| format!("pid-{}", input.parent_pid)),
        project_dir: text("cwd"),
        transcript_path: None,
        tool,
        outcome,
        prompt: None,
        source,
        trigger: None,
    })
}

/// `tool` of the payload. The normalized fields (`command`, `path`, …) are what the
/// policies read, so each of the host's tools fills the ones its input has.
fn tool_call(payload: &Map<String, Value>) -> Result<ToolCall, ParseError> {
    let tool = payload.get("tool").and_then(Value::as_object);
    let name = tool
        .and_then(|tool| tool.get("name"))
        .and_then(Value::as_str)
        .ok_or_else(|| ParseError::BadInput("a tool event without tool.name".into()))?;
    let input = match tool.and_then(|tool| tool.get("input")) {
        Some(Value::Object(input)) => input.clone(),
        Some(_) => return Err(ParseError::BadInput("tool.input is not an object".into())),
        None => Map::new(),
    };
    let field = |key: &str| input.get(key).and_then(Value::as_str).map(str::to_owned);
    let mcp = name
        .strip_prefix(MCP_PREFIX)
        .and_then(|rest| rest.split_once("__"));
    let kind = match (name, mcp) {
        ("shell", _) => ToolKind::Shell,
        ("read_file", _) => ToolKind::Read,
        ("grep", _) => ToolKind::Grep,
        ("edit_file", _) => ToolKind::Edit,
        ("fetch", _) => ToolKind::WebFetch,
        // context-mode's own tools are never redirected.
        (_, Some((_, tool))) if tool.starts_with("ctx_") => ToolKind::Ctx,
        (_, Some(_)) => ToolKind::Mcp,
        _ => ToolKind::Other,
    };
    Ok(ToolCall {
        name: name.into(),
        kind,
        command: field("command").filter(|_| kind == ToolKind::Shell),
        path: field("path").filter(|_| matches!(kind, ToolKind::Read | ToolKind::Edit)),
        has_range: kind == ToolKind::Read
            && (input.contains_key("offset") || input.contains_key("limit")),
        url: field("url").filter(|_| kind == ToolKind::WebFetch),
        prompt: None,
        pattern: field("pattern").filter(|_| kind == ToolKind::Grep),
        mcp_server: mcp.map(|(server, _)| server.into()),
        mcp_tool: mcp.map(|(_, tool)| tool.into()),
        // Kept whole: `render` builds an updated input from it.
        input_json: Value::Object(input).to_string(),
    })
}
