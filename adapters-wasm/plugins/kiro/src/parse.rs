//! Kiro CLI hook stdin → normalized event.
//!
//! **Verified (docs + Q CLI source)**: a hook gets `{hook_event_name, cwd}`; tool hooks
//! add `tool_name` and `tool_input`, `postToolUse` adds `tool_response` (for built-in
//! tools `{success, result: [...]}`). No session id, no transcript: the session is the
//! agent's pid. MCP tools are named `@<server>/<tool>`.
//!
//! Built-in tools (**verified (source)** for the `fs_read` / `execute_bash` /
//! `fs_write` / `use_aws` names and inputs; **reference** for the newer aliases
//! `read` / `shell` / `write` / `aws`, accepted the same way):
//! - `execute_bash {command, summary}`;
//! - `fs_read {operations: [{mode: Line|Directory|Search|Image, path, start_line,
//!   end_line, pattern, …}]}`: the first operation is the call (a `Search` is a grep, a
//!   `Directory` a listing, a `Line` read with a start or end line a ranged read);
//! - `fs_write {command: create|str_replace|insert|append, path, …}` (an edit: its
//!   `command` is no shell command);
//! - `use_aws`: an AWS API call, `other`.
//!
//! **Unverified**: whether Kiro CLI still sends the `fs_*` names or the aliases in
//! hooks, and whether a flat `fs_read {path}` (no `operations`) occurs; both parse.

use context_mode_sdk::json::{get_str, non_empty};
use context_mode_sdk::serde_json::{Map, Value};
use context_mode_sdk::{
    EventKind, NormalizedEvent, ToolCall, ToolKind, ToolResult, build_tool_call, input_object,
    pid_session_id, tool_output,
};

use crate::describe::EVENTS;
use context_mode_sdk::adapter::{ParseError, ParseInput};
use context_mode_sdk::{HostEvent, event_and_payload, event_tool_call};

pub fn parse(input: &ParseInput) -> Result<NormalizedEvent, ParseError> {
    let (event, payload) = event_and_payload(EVENTS, input)?;
    let mut normalized = NormalizedEvent {
        project_dir: non_empty(get_str(&payload, "cwd")),
        ..NormalizedEvent::new(
            event.kind,
            &input.native_event,
            pid_session_id(input.parent_pid),
        )
    };
    normalized.tool = Some(tool_call(&payload, event)?);
    if event.kind == EventKind::PostToolUse {
        normalized.outcome = Some(tool_result(&payload));
    }
    Ok(normalized)
}

fn tool_call(payload: &Map<String, Value>, event: &HostEvent) -> Result<ToolCall, ParseError> {
    let mut call = event_tool_call(payload, event)?;
    // `@<server>/<tool>`: the SDK knows it for our server only; any other is an MCP tool.
    if call.kind == ToolKind::Other
        && let Some((server, tool)) = call.name.strip_prefix('@').and_then(|r| r.split_once('/'))
        && !server.is_empty()
        && !tool.is_empty()
    {
        call.kind = ToolKind::Mcp;
        call.mcp_server = Some(server.to_owned());
        call.mcp_tool = Some(tool.to_owned());
    }
    if !matches!(call.name.as_str(), "fs_read" | "read") {
        return Ok(call);
    }
    let input = input_object(payload.get("tool_input").unwrap_or(&Value::Null));
    let Some(first) = input
        .get("operations")
        .and_then(Value::as_array)
        .and_then(|operations| operations.first())
        .and_then(Value::as_object)
    else {
        return Ok(call);
    };
    Ok(read_operation(call, first))
}

/// The call an `fs_read` operation stands for, keeping the whole input as sent.
fn read_operation(call: ToolCall, operation: &Map<String, Value>) -> ToolCall {
    let mode = get_str(operation, "mode").unwrap_or("Line");
    let flat = build_tool_call(&call.name, &Value::Object(operation.clone()));
    let mut read = ToolCall {
        input_json: call.input_json,
        ..flat
    };
    match mode {
        "Search" | "Directory" => {
            read.kind = ToolKind::Grep;
            read.pattern = get_str(operation, "pattern").map(str::to_owned);
            read.path = None;
            read.has_range = false;
        }
        "Line" => {
            read.has_range = ["start_line", "end_line"]
                .iter()
                .any(|key| operation.get(*key).is_some_and(|v| !v.is_null()));
        }
        _ => {}
    }
    read
}

fn tool_result(payload: &Map<String, Value>) -> ToolResult {
    let response = payload.get("tool_response").unwrap_or(&Value::Null);
    let mut output = tool_output(response);
    // Built-in tools answer `{success, result: [<text>, …]}`.
    if let Some(parts) = response.get("result").and_then(Value::as_array) {
        let texts: Vec<String> = parts
            .iter()
            .map(|part| match part {
                Value::String(text) => text.clone(),
                other => tool_output(other).text,
            })
            .collect();
        output.text = texts.join("\n");
    }
    output.into_result(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(native: &str, stdin: &str) -> ParseInput {
        ParseInput {
            native_event: native.to_owned(),
            stdin: stdin.to_owned(),
            env: Vec::new(),
            parent_pid: 4321,
        }
    }

    fn pre(tool: &str, tool_input: &str) -> NormalizedEvent {
        let stdin = format!(
            r#"{{"hook_event_name":"preToolUse","cwd":"/home/dev/app","tool_name":"{tool}","tool_input":{tool_input}}}"#
        );
        parse(&input("pretooluse", &stdin)).unwrap()
    }

    #[test]
    fn shell_under_both_names_and_the_pid_session() {
        for name in ["execute_bash", "shell"] {
            let event = pre(
                name,
                r#"{"command":"curl https://example.com","summary":"fetch"}"#,
            );
            assert_eq!(event.session_id, "pid-4321");
            assert_eq!(event.project_dir.as_deref(), Some("/home/dev/app"));
            let tool = event.tool.unwrap();
            assert_eq!(tool.kind, ToolKind::Shell, "{name}");
            assert_eq!(tool.command.as_deref(), Some("curl https://example.com"));
        }
    }

    #[test]
    fn fs_read_operations() {
        let whole = pre(
            "fs_read",
            r#"{"operations":[{"mode":"Line","path":"/home/dev/app/big.txt"}]}"#,
        )
        .tool
        .unwrap();
        assert_eq!(
            (whole.kind, whole.path.as_deref(), whole.has_range),
            (ToolKind::Read, Some("/home/dev/app/big.txt"), false)
        );
        assert!(whole.input_json.contains("operations"));
        let ranged = pre(
            "read",
            r#"{"operations":[{"mode":"Line","path":"a.rs","start_line":10,"end_line":40}]}"#,
        )
        .tool
        .unwrap();
        assert!(ranged.has_range);
        let search = pre(
            "fs_read",
            r#"{"operations":[{"mode":"Search","path":"src","pattern":"TODO"}]}"#,
        )
        .tool
        .unwrap();
        assert_eq!(
            (search.kind, search.pattern.as_deref()),
            (ToolKind::Grep, Some("TODO"))
        );
        let flat = pre("fs_read", r#"{"path":"x.txt"}"#).tool.unwrap();
        assert_eq!(
            (flat.kind, flat.path.as_deref()),
            (ToolKind::Read, Some("x.txt"))
        );
    }

    #[test]
    fn writes_aws_and_mcp_tools() {
        let write = pre(
            "fs_write",
            r#"{"command":"create","path":"a.txt","file_text":"x"}"#,
        )
        .tool
        .unwrap();
        assert_eq!(
            (write.kind, write.path.as_deref(), write.command.as_deref()),
            (ToolKind::Edit, Some("a.txt"), None)
        );
        assert_eq!(pre("use_aws", "{}").tool.unwrap().kind, ToolKind::Other);
        assert_eq!(
            pre("@context-mode/ctx_execute", "{}").tool.unwrap().kind,
            ToolKind::Ctx
        );
        assert_eq!(
            pre("@postgres/query", r#"{"sql":"select 1"}"#)
                .tool
                .unwrap()
                .kind,
            ToolKind::Mcp
        );
    }

    #[test]
    fn post_tool_use_result_list() {
        let stdin = r#"{"hook_event_name":"postToolUse","cwd":"/p","tool_name":"fs_read","tool_input":{"operations":[{"mode":"Line","path":"/p/a.md"}]},"tool_response":{"success":true,"result":["Hooks","more"]}}"#;
        let outcome = parse(&input("posttooluse", stdin))
            .unwrap()
            .outcome
            .unwrap();
        assert_eq!(outcome.output, "Hooks\nmore");
        assert!(!outcome.is_error);
        let failed = r#"{"hook_event_name":"postToolUse","cwd":"/p","tool_name":"execute_bash","tool_input":{"command":"false"},"tool_response":{"success":false,"result":["exit status: 1"]}}"#;
        assert!(
            parse(&input("posttooluse", failed))
                .unwrap()
                .outcome
                .unwrap()
                .is_error
        );
    }

    #[test]
    fn bad_input_and_unknown_events() {
        for stdin in ["", "[]", r#"{"cwd":"/p"}"#] {
            match parse(&input("pretooluse", stdin)) {
                Err(ParseError::BadInput(message)) => assert!(!message.contains('\n')),
                other => panic!("{stdin:?}: {other:?}"),
            }
        }
        assert_eq!(
            parse(&input("agentSpawn", "{}")).unwrap_err(),
            ParseError::UnknownEvent("agentSpawn".into())
        );
    }
}
