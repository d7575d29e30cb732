//! Antigravity CLI (`agy`) hook stdin → normalized event.
//!
//! The event comes from the command line only (`cm hook antigravity-cli <event>`, set
//! per event in `hooks.json`); a payload's own event name, if it ever has one, is not
//! read (**reference**). The payload is protojson, camelCase:
//! - `toolCall: {name, args}`: **third-party live test** (`run_command` with
//!   `args.CommandLine`); `args` as a JSON string is accepted too (**unverified**).
//!   Tools: `run_command` (`CommandLine`), `view_file` (`AbsolutePath`, `StartLine`,
//!   `EndLine`), `grep_search` (`Query`), `list_dir`, `read_url_content` / `web_fetch`
//!   (`Url`), `search_web` (**reference** mapping; argument names **unverified**);
//! - the project: `workspace.current_dir` first (**reference**, the one refs-backed
//!   field), then `workspacePaths[0]` (**third-party live test**). Never the process
//!   cwd and never a `cwd` field: agy runs hooks in `~/.gemini/config` (issue 16);
//! - the session: `conversationId` (**unverified**, named by the reference and seen by
//!   the live test), else the agent's pid;
//! - `transcriptPath` (**third-party live test**), `stepIdx`, `modelName` (unused);
//! - PostToolUse: no tool output (**reference**); `error` marks a failed call
//!   (**unverified** shape: a string or an object with a `message`).

use context_mode_sdk::json::non_empty;
use context_mode_sdk::serde_json::{Map, Value};
use context_mode_sdk::{
    EventKind, NormalizedEvent, ToolCall, ToolResult, build_tool_call, pid_session_id, tool_output,
};

use crate::describe::EVENTS;
use context_mode_sdk::HostEvent;
use context_mode_sdk::adapter::{ParseError, ParseInput};
use context_mode_sdk::event_and_payload;

pub fn parse(input: &ParseInput) -> Result<NormalizedEvent, ParseError> {
    let (event, payload) = event_and_payload(EVENTS, input)?;
    let session_id = text_at(&payload, &["conversationId"])
        .or_else(|| text_at(&payload, &["conversation_id"]))
        .unwrap_or_else(|| pid_session_id(input.parent_pid));
    let mut normalized = NormalizedEvent {
        project_dir: project_dir(&payload),
        transcript_path: text_at(&payload, &["transcriptPath"]),
        ..NormalizedEvent::new(event.kind, &input.native_event, session_id)
    };
    match event.kind {
        EventKind::PreToolUse => normalized.tool = Some(tool_call(&payload, event)?),
        EventKind::PostToolUse => {
            normalized.tool = Some(tool_call(&payload, event)?);
            normalized.outcome = Some(tool_result(&payload));
        }
        _ => {}
    }
    Ok(normalized)
}

/// `workspace.current_dir`, else the first of `workspacePaths`.
fn project_dir(payload: &Map<String, Value>) -> Option<String> {
    text_at(payload, &["workspace", "current_dir"])
        .or_else(|| text_at(payload, &["workspace", "currentDir"]))
        .or_else(|| {
            payload
                .get("workspacePaths")
                .and_then(Value::as_array)
                .and_then(|paths| paths.iter().find_map(Value::as_str))
                .and_then(|path| non_empty(Some(path)))
        })
}

/// The non-blank string at a path of object keys.
fn text_at(payload: &Map<String, Value>, path: &[&str]) -> Option<String> {
    let (first, rest) = path.split_first()?;
    let mut value = payload.get(*first)?;
    for key in rest {
        value = value.get(*key)?;
    }
    non_empty(value.as_str())
}

fn tool_call(payload: &Map<String, Value>, event: &HostEvent) -> Result<ToolCall, ParseError> {
    let call = payload.get("toolCall").and_then(Value::as_object);
    let name = call
        .and_then(|call| call.get("name"))
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .ok_or_else(|| {
            ParseError::BadInput(format!(
                "{} stdin has no \"toolCall.name\" string",
                event.name
            ))
        })?;
    let args = call
        .and_then(|call| call.get("args"))
        .unwrap_or(&Value::Null);
    Ok(build_tool_call(name, args))
}

fn tool_result(payload: &Map<String, Value>) -> ToolResult {
    let mut output = ["output", "result", "toolResult"]
        .iter()
        .find_map(|key| payload.get(*key).filter(|v| !v.is_null()))
        .map(tool_output)
        .unwrap_or_default();
    match payload.get("error") {
        Some(Value::String(error)) if !error.trim().is_empty() => {
            output.is_error = true;
            if output.text.is_empty() {
                output.text = error.clone();
            }
        }
        Some(Value::Object(error)) if !error.is_empty() => {
            output.is_error = true;
            if output.text.is_empty() {
                output.text = error
                    .get("message")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .unwrap_or_else(|| tool_output(&Value::Object(error.clone())).text);
            }
        }
        _ => {}
    }
    output.into_result(None)
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
            parent_pid: 555,
        }
    }

    fn payload(tool_call: &str, extra: &str) -> String {
        format!(
            r#"{{"conversationId":"c0ffee00-1111-4222-8333-444455556666","stepIdx":3,"toolCall":{tool_call},"workspacePaths":["/home/dev/other"],"workspace":{{"current_dir":"/home/dev/app"}},"transcriptPath":"/home/dev/.gemini/antigravity-cli/t.jsonl","cwd":"/home/dev/.gemini/config"{extra}}}"#
        )
    }

    #[test]
    fn run_command_with_workspace_dir_first_and_never_cwd() {
        let stdin = payload(
            r#"{"name":"run_command","args":{"CommandLine":"curl https://example.com","Cwd":"/home/dev/app"}}"#,
            "",
        );
        let event = parse(&input("pretooluse", &stdin)).unwrap();
        assert_eq!(event.session_id, "c0ffee00-1111-4222-8333-444455556666");
        assert_eq!(event.project_dir.as_deref(), Some("/home/dev/app"));
        assert_eq!(
            event.transcript_path.as_deref(),
            Some("/home/dev/.gemini/antigravity-cli/t.jsonl")
        );
        let tool = event.tool.unwrap();
        assert_eq!(tool.kind, ToolKind::Shell);
        assert_eq!(tool.command.as_deref(), Some("curl https://example.com"));

        let paths_only = r#"{"toolCall":{"name":"run_command","args":{"CommandLine":"ls"}},"workspacePaths":["/w"],"cwd":"/home/dev/.gemini/config"}"#;
        let event = parse(&input("pretooluse", paths_only)).unwrap();
        assert_eq!(event.project_dir.as_deref(), Some("/w"));
        assert_eq!(event.session_id, "pid-555");
        let neither = r#"{"toolCall":{"name":"run_command","args":{"CommandLine":"ls"}},"cwd":"/home/dev/.gemini/config"}"#;
        assert_eq!(
            parse(&input("pretooluse", neither)).unwrap().project_dir,
            None
        );
    }

    #[test]
    fn agy_tools_and_args_as_a_string() {
        for (call, kind) in [
            (
                r#"{"name":"view_file","args":{"AbsolutePath":"/a/big.txt"}}"#,
                ToolKind::Read,
            ),
            (
                r#"{"name":"grep_search","args":{"Query":"TODO","SearchPath":"/a"}}"#,
                ToolKind::Grep,
            ),
            (
                r#"{"name":"read_url_content","args":{"Url":"https://x.io"}}"#,
                ToolKind::WebFetch,
            ),
            (r#"{"name":"search_web","args":{}}"#, ToolKind::WebSearch),
            (r#"{"name":"list_dir","args":{}}"#, ToolKind::Grep),
            (
                r#"{"name":"context-mode/ctx_execute","args":{}}"#,
                ToolKind::Ctx,
            ),
            (
                r#"{"name":"run_command","args":"{\"CommandLine\":\"make\"}"}"#,
                ToolKind::Shell,
            ),
        ] {
            let tool = parse(&input("pretooluse", &payload(call, "")))
                .unwrap()
                .tool
                .unwrap();
            assert_eq!(tool.kind, kind, "{call}");
        }
        let ranged = payload(
            r#"{"name":"view_file","args":{"AbsolutePath":"/a/big.txt","StartLine":1,"EndLine":40}}"#,
            "",
        );
        let tool = parse(&input("pretooluse", &ranged)).unwrap().tool.unwrap();
        assert_eq!(
            (tool.path.as_deref(), tool.has_range),
            (Some("/a/big.txt"), true)
        );
        let url = payload(
            r#"{"name":"read_url_content","args":{"Url":"https://x.io/doc"}}"#,
            "",
        );
        let tool = parse(&input("pretooluse", &url)).unwrap().tool.unwrap();
        assert_eq!(tool.url.as_deref(), Some("https://x.io/doc"));
    }

    #[test]
    fn post_tool_use_error_and_stop() {
        let ok = payload(
            r#"{"name":"run_command","args":{"CommandLine":"ls"}}"#,
            r#","error":"""#,
        );
        let outcome = parse(&input("posttooluse", &ok)).unwrap().outcome.unwrap();
        assert!(!outcome.is_error && outcome.output.is_empty());
        let failed = payload(
            r#"{"name":"run_command","args":{"CommandLine":"false"}}"#,
            r#","error":{"message":"exit status 1"}"#,
        );
        let outcome = parse(&input("posttooluse", &failed))
            .unwrap()
            .outcome
            .unwrap();
        assert!(outcome.is_error);
        assert_eq!(outcome.output, "exit status 1");
        let stop = parse(&input("stop", r#"{"conversationId":"c1"}"#)).unwrap();
        assert_eq!(
            (stop.kind, stop.session_id.as_str()),
            (EventKind::Stop, "c1")
        );
    }

    #[test]
    fn bad_input_is_one_line() {
        for stdin in ["", "[]", r#"{"toolCall":{}}"#, r#"{"toolCall":"x"}"#] {
            match parse(&input("pretooluse", stdin)) {
                Err(ParseError::BadInput(message)) => assert!(!message.contains('\n')),
                other => panic!("{stdin:?}: {other:?}"),
            }
        }
        assert_eq!(
            parse(&input("PreInvocation", "{}")).unwrap_err(),
            ParseError::UnknownEvent("PreInvocation".into())
        );
    }
}
