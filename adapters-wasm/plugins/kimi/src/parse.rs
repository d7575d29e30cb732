//! Kimi Code CLI hook stdin → normalized event.
//!
//! **Verified** in Kimi Code's source (`externalHooks/internal/matchHooks.ts`,
//! `agent/agentExternalHooksService.ts`, `session/sessionExternalHooksService.ts`):
//! every hook gets `hook_event_name`, `session_id`, `cwd` (the session's project
//! directory, also the hook's working directory), `client_type` (`kimi_code_cli`) and
//! `session_title` once the session has one, keys snake_case at the top level only.
//! PreToolUse adds `tool_name`, `tool_input`, `tool_call_id`; PostToolUse `tool_output`
//! (the text, cut to 2,000 characters); PostToolUseFailure `error` instead;
//! UserPromptSubmit `prompt` as the message's content parts (`[{type: "text", text},
//! {type: "image_url", …}]`) and `is_steer`; SessionStart `source`
//! (`startup`/`resume`), `model` (the alias), `profile`; PreCompact `trigger`,
//! `token_count`; Stop `stop_hook_active`. Built-in tools are `Bash` (`command`),
//! `Read` (`path`, `line_offset`, `n_lines`), `Grep`, `Glob`, `Write`, `Edit`,
//! `FetchURL` (`url`), `WebSearch`, `Agent` (`prompt`); MCP tools
//! `mcp__<server>__<tool>`.
//!
//! **Seen from Kimi Code 2.1.0** (a `kimi -p` session, `tests/e2e/kimi.rs`): exactly
//! these fields, `session_id` as `session_<uuid>`, no `session_title` in a fresh `-p`
//! session, `profile: "agent"`, Bash's `tool_input` with `command` and `description`,
//! and PostToolUseFailure's `error` as `{code, message, retryable}` (`message` is what
//! the model saw).
//!
//! **Defensive** (the shape could change, older kimi-cli sends other spellings): a
//! prompt given as a plain string is taken as is, `tool_response` is read when
//! `tool_output` is absent, and a missing `session_id` falls back to the parent pid.

use context_mode_sdk::json::{get_str, non_empty};
use context_mode_sdk::serde_json::{Map, Value};
use context_mode_sdk::{
    EventKind, NormalizedEvent, ToolCall, ToolKind, ToolResult, pid_session_id, session_source,
    tool_output,
};

use crate::describe::EVENTS;
use context_mode_sdk::adapter::{ParseError, ParseInput};
use context_mode_sdk::{HostEvent, event_and_payload, event_tool_call};

pub fn parse(input: &ParseInput) -> Result<NormalizedEvent, ParseError> {
    let (event, payload) = event_and_payload(EVENTS, input)?;

    let session_id = non_empty(get_str(&payload, "session_id"))
        .unwrap_or_else(|| pid_session_id(input.parent_pid));
    let mut normalized = NormalizedEvent {
        project_dir: non_empty(get_str(&payload, "cwd")),
        transcript_path: non_empty(get_str(&payload, "transcript_path")),
        ..NormalizedEvent::new(event.kind, &input.native_event, session_id)
    };

    match event.kind {
        EventKind::PreToolUse => normalized.tool = Some(tool_call(&payload, event)?),
        EventKind::PostToolUse => {
            normalized.tool = Some(tool_call(&payload, event)?);
            normalized.outcome = Some(tool_result(&payload, event));
        }
        EventKind::UserPrompt => {
            let prompt = payload.get("prompt").and_then(prompt_text).ok_or_else(|| {
                ParseError::BadInput(
                    "UserPromptSubmit stdin has no \"prompt\" (text or content parts)".to_owned(),
                )
            })?;
            normalized.prompt = Some(prompt);
        }
        EventKind::SessionStart => {
            normalized.source = Some(session_source(
                get_str(&payload, "source").unwrap_or_default(),
            ));
        }
        EventKind::PreCompact => normalized.trigger = non_empty(get_str(&payload, "trigger")),
        EventKind::Stop => {}
    }
    Ok(normalized)
}

fn tool_call(payload: &Map<String, Value>, event: &HostEvent) -> Result<ToolCall, ParseError> {
    let mut call = event_tool_call(payload, event)?;
    if call.kind == ToolKind::Read && !call.has_range {
        // Kimi's Read takes a window as `line_offset` / `n_lines`.
        call.has_range = ["line_offset", "n_lines"].iter().any(|key| {
            context_mode_sdk::input_object(payload.get("tool_input").unwrap_or(&Value::Null))
                .get(*key)
                .is_some_and(|value| !value.is_null())
        });
    }
    Ok(call)
}

/// The text of a prompt: a string, or the `text` of its `text` content parts joined
/// with a blank line (images and other parts carry no text).
fn prompt_text(prompt: &Value) -> Option<String> {
    match prompt {
        Value::String(text) => Some(text.clone()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter(|part| {
                    part.get("type")
                        .and_then(Value::as_str)
                        .is_none_or(|kind| kind == "text")
                })
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .collect();
            Some(texts.join("\n\n"))
        }
        _ => None,
    }
}

fn tool_result(payload: &Map<String, Value>, event: &HostEvent) -> ToolResult {
    let failed = event.name == "PostToolUseFailure";
    let response = ["tool_output", "tool_response", "error"]
        .iter()
        .find_map(|key| payload.get(*key).filter(|value| !value.is_null()))
        .unwrap_or(&Value::Null);
    let mut output = tool_output(response);
    if failed {
        output.is_error = true;
        // Kimi's error payload is `{code, message, retryable}` (2.1.0): the message is
        // what the model saw.
        if let Some(message) = response.get("message").and_then(Value::as_str) {
            output.text = message.to_owned();
        }
    }
    output.into_result(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::SessionSource;

    fn input(native: &str, stdin: &str) -> ParseInput {
        ParseInput {
            native_event: native.to_owned(),
            stdin: stdin.to_owned(),
            env: Vec::new(),
            parent_pid: 77,
        }
    }

    fn common(extra: &str) -> String {
        format!(
            r#"{{"hook_event_name":"PreToolUse","session_id":"session_8f2c","session_title":"Fix the build","client_type":"kimi_code_cli","cwd":"/home/dev/app",{extra}}}"#
        )
    }

    #[test]
    fn bash_read_fetch_and_mcp_tools() {
        let stdin = common(
            r#""tool_name":"Bash","tool_input":{"command":"curl https://example.com"},"tool_call_id":"call_1""#,
        );
        let event = parse(&input("pretooluse", &stdin)).unwrap();
        assert_eq!(event.session_id, "session_8f2c");
        assert_eq!(event.project_dir.as_deref(), Some("/home/dev/app"));
        let tool = event.tool.unwrap();
        assert_eq!(tool.kind, ToolKind::Shell);
        assert_eq!(tool.command.as_deref(), Some("curl https://example.com"));

        let read = common(r#""tool_name":"Read","tool_input":{"path":"src/main.rs","n_lines":40}"#);
        let tool = parse(&input("pretooluse", &read)).unwrap().tool.unwrap();
        assert_eq!(
            (tool.kind, tool.path.as_deref(), tool.has_range),
            (ToolKind::Read, Some("src/main.rs"), true)
        );
        let whole = common(r#""tool_name":"Read","tool_input":{"path":"a.txt"}"#);
        assert!(
            !parse(&input("pretooluse", &whole))
                .unwrap()
                .tool
                .unwrap()
                .has_range
        );

        for (name, kind) in [
            ("FetchURL", ToolKind::WebFetch),
            ("Grep", ToolKind::Grep),
            ("Agent", ToolKind::Agent),
            ("mcp__context-mode__ctx_execute", ToolKind::Ctx),
            ("mcp__github__create_issue", ToolKind::Mcp),
        ] {
            let stdin = common(&format!(r#""tool_name":"{name}","tool_input":{{}}"#));
            let tool = parse(&input("pretooluse", &stdin)).unwrap().tool.unwrap();
            assert_eq!(tool.kind, kind, "{name}");
        }
    }

    #[test]
    fn prompts_as_content_parts_or_text() {
        let parts = common(
            r#""prompt":[{"type":"text","text":"fix the build"},{"type":"image_url","image_url":{"url":"data:x"}},{"type":"text","text":"then run the tests"}],"is_steer":false"#,
        );
        assert_eq!(
            parse(&input("userpromptsubmit", &parts))
                .unwrap()
                .prompt
                .as_deref(),
            Some("fix the build\n\nthen run the tests")
        );
        let text = common(r#""prompt":"just text""#);
        assert_eq!(
            parse(&input("userpromptsubmit", &text))
                .unwrap()
                .prompt
                .as_deref(),
            Some("just text")
        );
        assert!(matches!(
            parse(&input("userpromptsubmit", &common(r#""prompt":7"#))),
            Err(ParseError::BadInput(_))
        ));
    }

    #[test]
    fn post_tool_use_output_and_failure() {
        let post = common(
            r#""tool_name":"Bash","tool_input":{"command":"ls"},"tool_call_id":"c","tool_output":"a.txt\nb.txt""#,
        );
        let outcome = parse(&input("posttooluse", &post))
            .unwrap()
            .outcome
            .unwrap();
        assert_eq!(outcome.output, "a.txt\nb.txt");
        assert!(!outcome.is_error);
        let failed = common(
            r#""tool_name":"Bash","tool_input":{"command":"false"},"error":{"code":"internal","message":"exit code 1","retryable":false}"#,
        );
        let outcome = parse(&input("posttoolusefailure", &failed))
            .unwrap()
            .outcome
            .unwrap();
        assert_eq!(outcome.output, "exit code 1");
        assert!(outcome.is_error);
    }

    #[test]
    fn session_start_compact_stop_and_pid_fallback() {
        let start = common(r#""source":"resume","model":"kimi-k2","profile":"default""#);
        assert_eq!(
            parse(&input("sessionstart", &start)).unwrap().source,
            Some(SessionSource::Resume)
        );
        let compact = common(r#""trigger":"auto","token_count":120000"#);
        assert_eq!(
            parse(&input("precompact", &compact))
                .unwrap()
                .trigger
                .as_deref(),
            Some("auto")
        );
        let stop = parse(&input("stop", r#"{"cwd":"/p","stop_hook_active":false}"#)).unwrap();
        assert_eq!(stop.session_id, "pid-77");
    }

    #[test]
    fn bad_input_is_one_line() {
        for (native, stdin) in [("pretooluse", "nope"), ("posttooluse", "{}")] {
            match parse(&input(native, stdin)) {
                Err(ParseError::BadInput(message)) => assert!(!message.contains('\n')),
                other => panic!("{native}: {other:?}"),
            }
        }
        assert_eq!(
            parse(&input("SessionEnd", "{}")).unwrap_err(),
            ParseError::UnknownEvent("SessionEnd".into())
        );
    }
}
