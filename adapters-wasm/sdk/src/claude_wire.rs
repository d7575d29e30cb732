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

/// The key that marks a payload Claude Code rebuilt by interpolation for an `mcp_tool`
/// hook (ADR 27), and its value.
pub const PAYLOAD_FORM_KEY: &str = "cm_payload";
pub const PAYLOAD_FORM_INTERPOLATED: &str = "interpolated";

/// The fields Claude Code's interpolation turns from JSON objects into JSON text.
const OBJECT_FIELDS: &[&str] = &["tool_input", "tool_response", "tool_output"];
/// The fields it turns from numbers into text.
const NUMBER_FIELDS: &[&str] = &["duration_ms"];

/// Turns a payload Claude Code interpolated into an `mcp_tool` hook's input back into the
/// one a command hook reads: every `${field}` became a string, "" when the field was
/// absent, an object its JSON text. A payload without the mark is left as it is.
pub fn uninterpolate(payload: &mut Map<String, Value>) {
    if payload.get(PAYLOAD_FORM_KEY).and_then(Value::as_str) != Some(PAYLOAD_FORM_INTERPOLATED) {
        return;
    }
    payload.remove(PAYLOAD_FORM_KEY);
    payload.retain(|_, value| value.as_str() != Some(""));
    for field in OBJECT_FIELDS {
        let parsed = payload
            .get(*field)
            .and_then(Value::as_str)
            .and_then(|text| serde_json::from_str::<Value>(text).ok())
            .filter(|value| value.is_object() || value.is_array());
        if let Some(value) = parsed {
            payload.insert((*field).to_owned(), value);
        }
    }
    for field in NUMBER_FIELDS {
        let number = payload
            .get(*field)
            .and_then(Value::as_str)
            .and_then(|text| text.parse::<u64>().ok());
        if let Some(number) = number {
            payload.insert((*field).to_owned(), Value::from(number));
        }
    }
}

/// Parses a Claude-shaped payload. The project is `project_env`, else `cwd`;
/// `session_id(payload, transcript_path)` gives the host's own order of session sources.
pub fn parse_claude_payload(
    input: &ParseInput,
    events: &'static [HostEvent],
    project_env: &str,
    session_id: impl FnOnce(&Map<String, Value>, Option<&str>) -> String,
) -> Result<NormalizedEvent, ParseError> {
    let (event, mut payload) = event_and_payload(events, input)?;
    uninterpolate(&mut payload);

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

#[cfg(test)]
mod interpolation_tests {
    use super::*;

    fn object(json: &str) -> Map<String, Value> {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn an_interpolated_payload_becomes_the_command_hooks_payload() {
        let mut payload = object(
            r#"{"cm_payload":"interpolated","hook_event_name":"PostToolUse","session_id":"s1",
                "agent_id":"","tool_name":"Bash","tool_input":"{\"command\":\"ls\"}",
                "tool_response":"{\"stdout\":\"a\",\"stderr\":\"\"}","duration_ms":"12",
                "error":""}"#,
        );
        uninterpolate(&mut payload);
        assert_eq!(
            Value::Object(payload),
            serde_json::json!({"hook_event_name":"PostToolUse","session_id":"s1",
                "tool_name":"Bash","tool_input":{"command":"ls"},
                "tool_response":{"stdout":"a","stderr":""},"duration_ms":12})
        );
    }

    #[test]
    fn text_that_is_not_an_object_stays_text() {
        let mut payload = object(
            r#"{"cm_payload":"interpolated","tool_response":"plain output","tool_input":"7"}"#,
        );
        uninterpolate(&mut payload);
        assert_eq!(payload["tool_response"], "plain output");
        assert_eq!(payload["tool_input"], "7");
    }

    #[test]
    fn an_unmarked_payload_is_untouched() {
        let json = r#"{"tool_input":"{\"command\":\"ls\"}","error":""}"#;
        let mut payload = object(json);
        uninterpolate(&mut payload);
        assert_eq!(payload, object(json));
    }
}
