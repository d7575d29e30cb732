//! The shim's event JSON → normalized event (the payload is described in `opencode_wire`).
//!
//! - session: `input.sessionID` (**verified**; KiloCode's title request says
//!   `title-<session>`, a session of its own);
//! - project: the plugin context's `directory` (**verified**: the directory OpenCode
//!   runs in), else its `worktree` (`/` outside a git repository, so only a fallback);
//! - tools: OpenCode's own names and inputs (`bash {command}`, `read {filePath,
//!   offset, limit}`, `grep {pattern}`, `webfetch {url}`, `task {prompt}`, MCP tools as
//!   `<server>_<tool>`); before the call the input is `output.args`, after it
//!   `input.args`, and the result `output.output` with the shell's exit code in
//!   `output.metadata.exit` (**verified** for `bash`);
//! - prompt: the text parts of `chat.message`'s `output.parts` the user wrote (not the
//!   `synthetic` ones the host adds).

use serde_json::{Map, Value};

use super::OPENCODE_EVENTS;
use crate::adapter::{ParseError, ParseInput};
use crate::json::{get_i64, get_str, non_empty};
use crate::{
    EventKind, NormalizedEvent, SessionSource, ToolResult, build_tool_call, event_and_payload,
    input_object,
};

pub fn parse_opencode_payload(input: &ParseInput) -> Result<NormalizedEvent, ParseError> {
    let (event, payload) = event_and_payload(OPENCODE_EVENTS, input)?;
    let hook_input = input_object(payload.get("input").unwrap_or(&Value::Null));
    let output = input_object(payload.get("output").unwrap_or(&Value::Null));
    let session = non_empty(get_str(&hook_input, "sessionID")).ok_or_else(|| {
        ParseError::BadInput(format!(
            "{} stdin has no input.sessionID string",
            event.name
        ))
    })?;
    let mut normalized = NormalizedEvent {
        project_dir: non_empty(get_str(&payload, "directory"))
            .or_else(|| non_empty(get_str(&payload, "worktree"))),
        ..NormalizedEvent::new(event.kind, &input.native_event, session)
    };
    match event.kind {
        EventKind::PreToolUse | EventKind::PostToolUse => {
            let name = non_empty(get_str(&hook_input, "tool")).ok_or_else(|| {
                ParseError::BadInput(format!("{} stdin has no input.tool string", event.name))
            })?;
            let args = if event.kind == EventKind::PreToolUse {
                output.get("args")
            } else {
                hook_input.get("args")
            };
            normalized.tool = Some(build_tool_call(&name, args.unwrap_or(&Value::Null)));
            if event.kind == EventKind::PostToolUse {
                normalized.outcome = Some(tool_result(&output));
            }
        }
        EventKind::UserPrompt => normalized.prompt = prompt(&output),
        EventKind::SessionStart => normalized.source = Some(SessionSource::Startup),
        EventKind::PreCompact | EventKind::Stop => {}
    }
    Ok(normalized)
}

fn tool_result(output: &Map<String, Value>) -> ToolResult {
    let text = match output.get("output") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    };
    let metadata = input_object(output.get("metadata").unwrap_or(&Value::Null));
    ToolResult {
        output: text,
        // A call that fails throws in the host and never reaches this event.
        is_error: false,
        exit_code: get_i64(&metadata, "exit").and_then(|code| i32::try_from(code).ok()),
        duration_ms: None,
    }
}

fn prompt(output: &Map<String, Value>) -> Option<String> {
    let texts: Vec<&str> = output
        .get("parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .filter(|part| get_str(part, "type") == Some("text"))
        .filter(|part| part.get("synthetic").and_then(Value::as_bool) != Some(true))
        .filter_map(|part| get_str(part, "text"))
        .collect();
    non_empty(Some(texts.join("\n").trim()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolKind;

    fn parse_event(event: &str, input: &str, output: &str) -> Result<NormalizedEvent, ParseError> {
        let stdin = format!(
            r#"{{"hook_event_name":"{event}","directory":"/home/dev/app","worktree":"/","input":{input},"output":{output}}}"#
        );
        parse_opencode_payload(&ParseInput {
            native_event: event.to_owned(),
            stdin,
            env: Vec::new(),
            parent_pid: 7,
        })
    }

    #[test]
    fn a_shell_call_before_and_after() {
        let before = parse_event(
            "tool.execute.before",
            r#"{"tool":"bash","sessionID":"ses_1","callID":"c1"}"#,
            r#"{"args":{"command":"curl -s https://example.com","description":"fetch"}}"#,
        )
        .unwrap();
        assert_eq!(before.session_id, "ses_1");
        assert_eq!(before.project_dir.as_deref(), Some("/home/dev/app"));
        let tool = before.tool.unwrap();
        assert_eq!(tool.kind, ToolKind::Shell);
        assert_eq!(tool.command.as_deref(), Some("curl -s https://example.com"));
        let after = parse_event(
            "tool.execute.after",
            r#"{"tool":"bash","sessionID":"ses_1","callID":"c1","args":{"command":"false"}}"#,
            r#"{"title":"false","output":"boom\n","metadata":{"output":"boom\n","exit":1}}"#,
        )
        .unwrap();
        assert_eq!(after.tool.unwrap().command.as_deref(), Some("false"));
        let outcome = after.outcome.unwrap();
        assert_eq!(
            (outcome.output.as_str(), outcome.exit_code),
            ("boom\n", Some(1))
        );
    }

    #[test]
    fn reads_greps_and_our_mcp_tools() {
        let read = parse_event(
            "tool.execute.before",
            r#"{"tool":"read","sessionID":"s","callID":"c"}"#,
            r#"{"args":{"filePath":"/home/dev/app/big.log","offset":10,"limit":50}}"#,
        )
        .unwrap()
        .tool
        .unwrap();
        assert_eq!(read.kind, ToolKind::Read);
        assert_eq!(read.path.as_deref(), Some("/home/dev/app/big.log"));
        assert!(read.has_range);
        let ours = parse_event(
            "tool.execute.before",
            r#"{"tool":"context-mode_ctx_execute","sessionID":"s","callID":"c"}"#,
            r#"{"args":{"language":"shell","code":"ls"}}"#,
        )
        .unwrap()
        .tool
        .unwrap();
        assert_eq!(ours.kind, ToolKind::Ctx);
    }

    #[test]
    fn the_prompt_is_the_users_text_parts() {
        let event = parse_event(
            "chat.message",
            r#"{"sessionID":"s","agent":"build"}"#,
            r#"{"message":{"role":"user"},"parts":[{"type":"text","text":"fix the build"},{"type":"file","url":"x"},{"type":"text","text":"<env>","synthetic":true}]}"#,
        )
        .unwrap();
        assert_eq!(event.kind, EventKind::UserPrompt);
        assert_eq!(event.prompt.as_deref(), Some("fix the build"));
        let start = parse_event(
            "experimental.chat.system.transform",
            r#"{"sessionID":"s","model":{"id":"m"}}"#,
            r#"{"system":["You are OpenCode"]}"#,
        )
        .unwrap();
        assert_eq!(
            (start.kind, start.source),
            (EventKind::SessionStart, Some(SessionSource::Startup))
        );
    }

    #[test]
    fn bad_input_is_one_line() {
        for (event, input) in [
            ("tool.execute.before", r#"{"sessionID":"s"}"#),
            ("chat.message", r#"{}"#),
        ] {
            match parse_event(event, input, "{}") {
                Err(ParseError::BadInput(why)) => assert!(!why.contains('\n'), "{why}"),
                other => panic!("{event}: {other:?}"),
            }
        }
        assert!(matches!(
            parse_event("session.idle", r#"{"sessionID":"s"}"#, "{}"),
            Err(ParseError::UnknownEvent(_))
        ));
    }
}
