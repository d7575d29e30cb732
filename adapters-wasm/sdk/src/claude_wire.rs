//! Claude Code's hook payload, which Qwen Code sends unchanged: every event
//! `session_id`, `transcript_path`, `cwd`, `hook_event_name`; tool events `tool_name`,
//! `tool_input`, PostToolUse `tool_response` (or `tool_output`) and `duration_ms`,
//! PostToolUseFailure `error`; UserPromptSubmit `prompt`; SessionStart `source`;
//! PreCompact `trigger`. The hosts differ in where the session id comes from first.

use serde_json::{Map, Value};

use crate::adapter::{ParseError, ParseInput};
use crate::json::{get_str, get_u64, non_empty};
use crate::{
    EventKind, HostEvent, NormalizedEvent, ToolResult, env_value, event_and_payload,
    event_tool_call, session_source, tool_output,
};

/// Parses a Claude-shaped payload. The project is `project_env`, else `cwd`;
/// `session_id(payload, transcript_path)` gives the host's own order of session sources.
pub fn parse_claude_payload(
    input: &ParseInput,
    events: &'static [HostEvent],
    project_env: &str,
    session_id: impl FnOnce(&Map<String, Value>, Option<&str>) -> String,
) -> Result<NormalizedEvent, ParseError> {
    let (event, payload) = event_and_payload(events, input)?;

    let transcript_path = non_empty(get_str(&payload, "transcript_path"));
    let session_id = session_id(&payload, transcript_path.as_deref());
    let mut normalized = NormalizedEvent {
        project_dir: env_value(&input.env, project_env)
            .map(str::to_owned)
            .or_else(|| non_empty(get_str(&payload, "cwd"))),
        transcript_path,
        ..NormalizedEvent::new(event.kind, &input.native_event, session_id)
    };

    match event.kind {
        EventKind::PreToolUse => {
            normalized.tool = Some(event_tool_call(&payload, event)?);
        }
        EventKind::PostToolUse => {
            normalized.tool = Some(event_tool_call(&payload, event)?);
            let mut outcome = claude_tool_result(&payload);
            if event.cli == "posttoolusefailure" {
                // The failure's text comes as a top-level `error`, not a tool_response.
                if let Some(error) = non_empty(get_str(&payload, "error")) {
                    outcome.output = error;
                }
                outcome.is_error = true;
            }
            normalized.outcome = Some(outcome);
        }
        EventKind::UserPrompt => {
            let prompt = get_str(&payload, "prompt").ok_or_else(|| {
                ParseError::BadInput("UserPromptSubmit stdin has no \"prompt\" string".to_owned())
            })?;
            normalized.prompt = Some(prompt.to_owned());
        }
        EventKind::SessionStart => {
            normalized.source = Some(session_source(
                get_str(&payload, "source").unwrap_or_default(),
            ));
        }
        EventKind::PreCompact => {
            normalized.trigger = non_empty(get_str(&payload, "trigger"));
        }
        EventKind::Stop => {}
    }
    Ok(normalized)
}

/// A Claude-shaped tool result: `tool_response` (or `tool_output`), with its duration.
pub fn claude_tool_result(payload: &Map<String, Value>) -> ToolResult {
    let response = payload
        .get("tool_response")
        .or_else(|| payload.get("tool_output"))
        .unwrap_or(&Value::Null);
    tool_output(response).into_result(get_u64(payload, "duration_ms").or_else(|| {
        response
            .as_object()
            .and_then(|object| get_u64(object, "durationMs"))
    }))
}
