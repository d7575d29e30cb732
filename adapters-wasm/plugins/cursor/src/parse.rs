//! Cursor hook stdin → normalized event.
//!
//! Every agent hook gets `hook_event_name`, `conversation_id`, `generation_id`,
//! `workspace_roots` (and, depending on the version, `model`, `cursor_version`,
//! `user_email`, `transcript_path`); preToolUse adds `tool_name` (`Shell`, `Read`,
//! `Grep`, `MCP:<tool>`, …), `tool_input` and `tool_use_id`; postToolUse adds
//! `tool_output` and `duration`; stop adds `status` and `loop_count`.

use context_mode_sdk::json::{get_str, get_u64, non_empty};
use context_mode_sdk::serde_json::{Map, Value};
use context_mode_sdk::{
    EventKind, NormalizedEvent, ToolResult, env_value, pid_session_id, tool_output,
};

use crate::describe::{ENV_TRACE_ID, EVENTS};
use context_mode_sdk::adapter::{ParseError, ParseInput};
use context_mode_sdk::{event_and_payload, event_tool_call};

pub fn parse(input: &ParseInput) -> Result<NormalizedEvent, ParseError> {
    let (event, payload) = event_and_payload(EVENTS, input)?;

    let mut normalized = NormalizedEvent {
        project_dir: project_dir(&payload),
        transcript_path: non_empty(get_str(&payload, "transcript_path")),
        ..NormalizedEvent::new(event.kind, &input.native_event, session_id(&payload, input))
    };
    match event.kind {
        // Cursor sends MCP arguments as a JSON string; `build_tool_call` reads both.
        EventKind::PreToolUse => normalized.tool = Some(event_tool_call(&payload, event)?),
        EventKind::PostToolUse => {
            normalized.tool = Some(event_tool_call(&payload, event)?);
            normalized.outcome = Some(tool_result(&payload));
        }
        _ => {}
    }
    Ok(normalized)
}

/// `conversation_id` lives as long as the chat; without it, Cursor's trace id; then the pid.
fn session_id(payload: &Map<String, Value>, input: &ParseInput) -> String {
    non_empty(get_str(payload, "conversation_id"))
        .or_else(|| env_value(&input.env, ENV_TRACE_ID).map(str::to_owned))
        .unwrap_or_else(|| pid_session_id(input.parent_pid))
}

/// The first workspace root (the folder the chat works in), else `cwd`.
fn project_dir(payload: &Map<String, Value>) -> Option<String> {
    payload
        .get("workspace_roots")
        .and_then(Value::as_array)
        .and_then(|roots| roots.iter().find_map(|root| non_empty(root.as_str())))
        .or_else(|| non_empty(get_str(payload, "cwd")))
}

fn tool_result(payload: &Map<String, Value>) -> ToolResult {
    let response = payload
        .get("tool_output")
        .or_else(|| payload.get("output"))
        .unwrap_or(&Value::Null);
    tool_output(response).into_result(get_u64(payload, "duration"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::ToolKind;

    fn input(native: &str, stdin: &str) -> ParseInput {
        ParseInput {
            native_event: native.to_owned(),
            stdin: stdin.to_owned(),
            env: Vec::new(),
            parent_pid: 31337,
        }
    }

    fn common(extra: &str) -> String {
        format!(
            r#"{{"conversation_id":"c0ffee00-1111-4222-8333-444455556666","generation_id":"gen-1","workspace_roots":["/home/dev/app"],"model":"gpt-5","cursor_version":"2.1.0",{extra}}}"#
        )
    }

    #[test]
    fn shell_call_with_conversation_and_workspace() {
        let stdin = common(
            r#""hook_event_name":"preToolUse","tool_name":"Shell","tool_input":{"command":"curl https://example.com","cwd":"/home/dev/app"},"tool_use_id":"tool_1""#,
        );
        let event = parse(&input("pretooluse", &stdin)).unwrap();
        assert_eq!(event.session_id, "c0ffee00-1111-4222-8333-444455556666");
        assert_eq!(event.project_dir.as_deref(), Some("/home/dev/app"));
        let tool = event.tool.unwrap();
        assert_eq!(tool.kind, ToolKind::Shell);
        assert_eq!(tool.command.as_deref(), Some("curl https://example.com"));
    }

    #[test]
    fn mcp_tools_arrive_with_string_arguments() {
        let ours = common(
            r#""tool_name":"MCP:ctx_execute","tool_input":"{\"language\":\"shell\",\"code\":\"ls\"}""#,
        );
        let tool = parse(&input("pretooluse", &ours)).unwrap().tool.unwrap();
        assert_eq!(tool.kind, ToolKind::Ctx);
        assert_eq!(tool.input_json, r#"{"language":"shell","code":"ls"}"#);
        let other = common(r#""tool_name":"MCP:list_issues","tool_input":{}"#);
        assert_eq!(
            parse(&input("pretooluse", &other))
                .unwrap()
                .tool
                .unwrap()
                .kind,
            ToolKind::Mcp
        );
    }

    #[test]
    fn session_falls_back_to_trace_id_then_pid_and_project_to_cwd() {
        let bare = r#"{"hook_event_name":"stop","status":"completed","cwd":"/p"}"#;
        let mut traced = input("stop", bare);
        traced.env = vec![("CURSOR_TRACE_ID".into(), "trace-1".into())];
        let event = parse(&traced).unwrap();
        assert_eq!(event.session_id, "trace-1");
        assert_eq!(event.project_dir.as_deref(), Some("/p"));
        assert_eq!(parse(&input("stop", bare)).unwrap().session_id, "pid-31337");
    }

    #[test]
    fn post_tool_use_output_and_duration() {
        let stdin = common(
            r#""hook_event_name":"postToolUse","tool_name":"Shell","tool_input":{"command":"ls"},"tool_output":"a.txt\nb.txt","duration":42"#,
        );
        let outcome = parse(&input("posttooluse", &stdin))
            .unwrap()
            .outcome
            .unwrap();
        assert_eq!(outcome.output, "a.txt\nb.txt");
        assert_eq!(outcome.duration_ms, Some(42));
    }

    #[test]
    fn bad_input_and_unknown_events() {
        assert!(matches!(
            parse(&input("pretooluse", "{")),
            Err(ParseError::BadInput(_))
        ));
        assert!(matches!(
            parse(&input("posttooluse", r#"{"conversation_id":"c"}"#)),
            Err(ParseError::BadInput(_))
        ));
        assert_eq!(
            parse(&input("sessionStart", "{}")).unwrap_err(),
            ParseError::UnknownEvent("sessionStart".into())
        );
    }
}
