//! Quill's stdin: `{"conversation", "workspace", "action": {"type", "params"},
//! "result": {"text", "failed"}}`; the session falls back to `QUILL_SESSION_ID`.

use serde_json::{Map, Value};

use crate::context_mode::plugin::types::{
    EventKind, NormalizedEvent, ToolCall, ToolKind, ToolResult,
};
use crate::describe::EVENTS;
use crate::exports::context_mode::plugin::adapter::{ParseError, ParseInput};

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
    let from_env = input
        .env
        .iter()
        .find(|(name, _)| name == "QUILL_SESSION_ID")
        .map(|(_, value)| value.clone());
    let tool = match event.kind {
        EventKind::PreToolUse | EventKind::PostToolUse => Some(action(payload)?),
        _ => None,
    };
    let result = payload.get("result").and_then(Value::as_object);
    let outcome = (event.kind == EventKind::PostToolUse).then(|| ToolResult {
        output: result
            .and_then(|r| r.get("text"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        is_error: result
            .and_then(|r| r.get("failed"))
            .and_then(Value::as_bool)
            == Some(true),
        exit_code: None,
        duration_ms: None,
    });
    Ok(NormalizedEvent {
        kind: event.kind,
        native_event: input.native_event.clone(),
        session_id: text("conversation")
            .or(from_env)
            .ok_or_else(|| ParseError::BadInput("no conversation id".into()))?,
        project_dir: text("workspace"),
        transcript_path: None,
        tool,
        outcome,
        prompt: None,
        source: None,
        trigger: None,
    })
}

fn action(payload: &Map<String, Value>) -> Result<ToolCall, ParseError> {
    let action = payload
        .get("action")
        .and_then(Value::as_object)
        .ok_or_else(|| ParseError::BadInput("no action".into()))?;
    let name = action
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| ParseError::BadInput("no action.type".into()))?;
    let params = match action.get("params") {
        Some(Value::Object(params)) => params.clone(),
        _ => Map::new(),
    };
    let field = |key: &str| params.get(key).and_then(Value::as_str).map(str::to_owned);
    let mcp = name.split_once('/');
    let kind = match (name, mcp) {
        ("terminal", _) => ToolKind::Shell,
        ("open", _) => ToolKind::Read,
        ("web", _) => ToolKind::WebFetch,
        (_, Some((_, tool))) if tool.starts_with("ctx_") => ToolKind::Ctx,
        (_, Some(_)) => ToolKind::Mcp,
        _ => ToolKind::Other,
    };
    Ok(ToolCall {
        name: name.into(),
        kind,
        command: field("cmdline").filter(|_| kind == ToolKind::Shell),
        path: field("file").filter(|_| kind == ToolKind::Read),
        has_range: false,
        url: field("address").filter(|_| kind == ToolKind::WebFetch),
        prompt: None,
        pattern: None,
        mcp_server: mcp.map(|(server, _)| server.into()),
        mcp_tool: mcp.map(|(_, tool)| tool.into()),
        input_json: Value::Object(params).to_string(),
    })
}
