//! What the OpenClaw shim hands over → normalized event.
//!
//! The shim's stdin is `{hook_event_name, event, ctx, workspaceDir, cwd}`: OpenClaw's
//! event and context objects as the hook got them (functions, abort signals, the config
//! and bootstrap files left out, `messages` replaced by its length), the workspace the
//! session's events named last, and the gateway's working directory.
//!
//! **Verified** payloads (OpenClaw 2026.9.6, recorded from real `agent --local` runs):
//! - `before_tool_call`: `event {toolName, params, toolCallId, runId}`, `ctx {sessionKey,
//!   sessionId, agentId, toolName, …}`; a call made through the Tool Search bridge fires
//!   twice, as `tool_call {id, args}` and as the tool itself;
//! - `after_tool_call`: the same plus `result {content: [{type: "text", text}], details}`
//!   (`exec`: `details.exitCode`, `status`), `error` when the call failed or was blocked,
//!   `durationMs`;
//! - `before_prompt_build`: `event {prompt, messages}`, `ctx {sessionKey, sessionId,
//!   workspaceDir, …}`;
//! - `session_start`: `event {sessionId, sessionKey, resumedFrom?}` (gateway only; the
//!   shim sends one with `firstTurn: true` for a session's first prompt);
//! - compaction hooks: `event {messageCount, compactedCount?}`, `ctx {sessionKey}` alone
//!   on some paths; `command:new`: `{type, action, sessionKey, context {workspaceDir,
//!   sessionEntry, …}}`.
//!
//! The session is OpenClaw's session key (`agent:main:main`): every hook carries it,
//! compaction hooks carry nothing else, and it outlives the transcript id a compaction
//! or `/new` replaces. The tools: `exec` (shell; Code Mode's outer `exec`, which takes
//! JavaScript, says `toolKind: "code_mode_exec"`), `read`, `write`, `edit`, `apply_patch`,
//! `ls`, `web_fetch`, `web_search`, and MCP tools as `<server>__<tool>`. Pi-Agent
//! sessions name their shell `Bash` (reference), which the shared table knows.

use context_mode_sdk::json::{get_str, non_empty};
use context_mode_sdk::serde_json::{Map, Value};
use context_mode_sdk::{
    EventKind, NormalizedEvent, SessionSource, ToolCall, ToolKind, ToolOutput, ToolResult,
    build_tool_call, pid_session_id, tool_output,
};

use crate::describe::EVENTS;
use context_mode_sdk::adapter::{ParseError, ParseInput};
use context_mode_sdk::{HostEvent, event_and_payload};

/// Code Mode's outer `exec` runs JavaScript against the tool bridge, not a shell.
const CODE_MODE_EXEC: &str = "code_mode_exec";
/// `details.status` values of a call that did not succeed.
const FAILED_STATUSES: &[&str] = &["error", "failed", "blocked", "timeout", "killed"];

pub fn parse(input: &ParseInput) -> Result<NormalizedEvent, ParseError> {
    let (binding, payload) = event_and_payload(EVENTS, input)?;
    let event = object(&payload, "event");
    let ctx = object(&payload, "ctx");
    let session_id = session_key(&event, &ctx).unwrap_or_else(|| pid_session_id(input.parent_pid));
    let mut normalized = NormalizedEvent {
        project_dir: project_dir(&payload, &event, &ctx),
        ..NormalizedEvent::new(binding.kind, &input.native_event, session_id)
    };
    match binding.kind {
        EventKind::PreToolUse => normalized.tool = Some(tool_call(&event, &ctx, binding)?),
        EventKind::PostToolUse => {
            normalized.tool = Some(tool_call(&event, &ctx, binding)?);
            normalized.outcome = Some(tool_result(&event));
        }
        EventKind::UserPrompt => normalized.prompt = non_empty(get_str(&event, "prompt")),
        EventKind::SessionStart => normalized.source = Some(source(binding)),
        EventKind::PreCompact | EventKind::Stop => {}
    }
    Ok(normalized)
}

fn object(payload: &Map<String, Value>, key: &str) -> Map<String, Value> {
    match payload.get(key) {
        Some(Value::Object(map)) => map.clone(),
        _ => Map::new(),
    }
}

fn session_key(event: &Map<String, Value>, ctx: &Map<String, Value>) -> Option<String> {
    [
        (ctx, "sessionKey"),
        (event, "sessionKey"),
        (ctx, "sessionId"),
        (event, "sessionId"),
    ]
    .iter()
    .find_map(|(object, key)| non_empty(get_str(object, key)))
}

fn project_dir(
    payload: &Map<String, Value>,
    event: &Map<String, Value>,
    ctx: &Map<String, Value>,
) -> Option<String> {
    let from_context = event.get("context").and_then(Value::as_object);
    non_empty(get_str(payload, "workspaceDir"))
        .or_else(|| non_empty(get_str(ctx, "workspaceDir")))
        .or_else(|| from_context.and_then(|c| non_empty(get_str(c, "workspaceDir"))))
        .or_else(|| non_empty(get_str(payload, "cwd")))
}

/// Every session-start surrogate stands for one kind of start: the gateway's new
/// transcript (or the shim's first prompt) needs the routing block, a compaction the
/// state block, `/new` nothing of the old conversation.
fn source(binding: &HostEvent) -> SessionSource {
    match binding.cli {
        "after_compaction" => SessionSource::Compact,
        "command:new" => SessionSource::Clear,
        _ => SessionSource::Startup,
    }
}

fn tool_call(
    event: &Map<String, Value>,
    ctx: &Map<String, Value>,
    binding: &HostEvent,
) -> Result<ToolCall, ParseError> {
    let name = get_str(event, "toolName")
        .or_else(|| get_str(ctx, "toolName"))
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .ok_or_else(|| {
            ParseError::BadInput(format!("{} event has no \"toolName\" string", binding.name))
        })?;
    let params = event.get("params").unwrap_or(&Value::Null);
    let code_mode = [event, ctx]
        .iter()
        .any(|object| get_str(object, "toolKind") == Some(CODE_MODE_EXEC));
    let mut call = match name {
        _ if code_mode => ToolCall {
            kind: ToolKind::Other,
            ..build_tool_call(name, params)
        },
        // Classified under a name the shared table knows, reported under OpenClaw's own.
        "exec" => build_tool_call("bash", params),
        _ => match name.split_once("__") {
            Some((server, tool)) if !server.is_empty() && !tool.is_empty() => {
                build_tool_call(&format!("mcp__{server}__{tool}"), params)
            }
            _ => build_tool_call(name, params),
        },
    };
    call.name = name.to_owned();
    Ok(call)
}

fn tool_result(event: &Map<String, Value>) -> ToolResult {
    let result = event.get("result").unwrap_or(&Value::Null);
    let details = result.get("details").and_then(Value::as_object);
    // What the model reads is `content`; `details` is metadata OpenClaw strips.
    let mut output = match result.get("content") {
        Some(Value::Array(blocks)) if blocks.is_empty() => ToolOutput::default(),
        Some(content) => tool_output(content),
        None => tool_output(result),
    };
    let error = non_empty(get_str(event, "error"));
    if output.text.trim().is_empty()
        && let Some(error) = &error
    {
        output.text = error.clone();
    }
    let exit_code = details
        .and_then(|d| d.get("exitCode"))
        .and_then(Value::as_i64)
        .and_then(|code| i32::try_from(code).ok());
    let failed_status = details
        .and_then(|d| get_str(d, "status"))
        .is_some_and(|status| FAILED_STATUSES.contains(&status));
    output.exit_code = exit_code.or(output.exit_code);
    output.is_error |= error.is_some() || failed_status || exit_code.is_some_and(|c| c != 0);
    let duration = event.get("durationMs").and_then(Value::as_u64).or_else(|| {
        details
            .and_then(|d| d.get("durationMs"))
            .and_then(Value::as_u64)
    });
    output.into_result(duration)
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::serde_json::json;

    fn input(native: &str, payload: Value) -> ParseInput {
        ParseInput {
            native_event: native.to_owned(),
            stdin: payload.to_string(),
            env: Vec::new(),
            parent_pid: 4321,
        }
    }

    fn hook(native: &str, event: Value, ctx: Value) -> NormalizedEvent {
        let payload = json!({"hook_event_name": native, "event": event, "ctx": ctx,
                             "workspaceDir": "/home/dev/app", "cwd": "/"});
        parse(&input(native, payload)).unwrap()
    }

    fn ctx() -> Value {
        json!({"sessionKey": "agent:main:main", "sessionId": "6885dc52", "agentId": "main"})
    }

    #[test]
    fn exec_is_the_shell_and_the_session_is_the_key() {
        let event = hook(
            "before_tool_call",
            json!({"toolName": "exec", "params": {"command": "curl -s http://x/y"}, "toolCallId": "call_0"}),
            ctx(),
        );
        assert_eq!(event.kind, EventKind::PreToolUse);
        assert_eq!(event.session_id, "agent:main:main");
        assert_eq!(event.project_dir.as_deref(), Some("/home/dev/app"));
        let tool = event.tool.unwrap();
        assert_eq!((tool.name.as_str(), tool.kind), ("exec", ToolKind::Shell));
        assert_eq!(tool.command.as_deref(), Some("curl -s http://x/y"));
    }

    #[test]
    fn code_mode_exec_mcp_tools_and_the_bridge() {
        let code = hook(
            "before_tool_call",
            json!({"toolName": "exec", "toolKind": "code_mode_exec", "params": {"code": "return 1"}}),
            ctx(),
        );
        assert_eq!(code.tool.unwrap().kind, ToolKind::Other);
        let ours = hook(
            "before_tool_call",
            json!({"toolName": "context-mode__ctx_execute", "params": {"language": "shell", "code": "ls"}}),
            ctx(),
        )
        .tool
        .unwrap();
        assert_eq!(
            (ours.name.as_str(), ours.kind, ours.mcp_tool.as_deref()),
            (
                "context-mode__ctx_execute",
                ToolKind::Ctx,
                Some("ctx_execute")
            )
        );
        let other = hook(
            "before_tool_call",
            json!({"toolName": "github__list_issues", "params": {}}),
            ctx(),
        )
        .tool
        .unwrap();
        assert_eq!(
            (other.kind, other.mcp_server.as_deref()),
            (ToolKind::Mcp, Some("github"))
        );
        let bridge = hook(
            "before_tool_call",
            json!({"toolName": "tool_call", "params": {"id": "context-mode__ctx_execute", "args": {}}}),
            ctx(),
        );
        assert_eq!(bridge.tool.unwrap().kind, ToolKind::Other);
        let read = hook(
            "before_tool_call",
            json!({"toolName": "read", "params": {"path": "big.log", "offset": 10}}),
            ctx(),
        )
        .tool
        .unwrap();
        assert_eq!((read.kind, read.has_range), (ToolKind::Read, true));
    }

    #[test]
    fn after_tool_call_results_and_failures() {
        let ok = hook(
            "after_tool_call",
            json!({"toolName": "exec", "params": {"command": "echo hi"}, "durationMs": 1570,
                   "result": {"content": [{"type": "text", "text": "hi"}],
                              "details": {"status": "completed", "exitCode": 0}}}),
            ctx(),
        )
        .outcome
        .unwrap();
        assert_eq!(
            (
                ok.output.as_str(),
                ok.is_error,
                ok.exit_code,
                ok.duration_ms
            ),
            ("hi", false, Some(0), Some(1570))
        );
        let blocked = hook(
            "after_tool_call",
            json!({"toolName": "exec", "params": {"command": "curl x"}, "error": "redirected to y",
                   "result": {"content": [], "details": {"status": "blocked"}}}),
            ctx(),
        )
        .outcome
        .unwrap();
        assert!(blocked.is_error);
        assert_eq!(blocked.output, "redirected to y");
        let failed = hook(
            "after_tool_call",
            json!({"toolName": "exec", "params": {"command": "false"},
                   "result": {"content": [{"type": "text", "text": ""}], "details": {"exitCode": 1}}}),
            ctx(),
        )
        .outcome
        .unwrap();
        assert_eq!((failed.is_error, failed.exit_code), (true, Some(1)));
    }

    #[test]
    fn prompts_session_starts_and_compactions() {
        let prompt = hook(
            "before_prompt_build",
            json!({"prompt": "Fetch the fixture", "messages": 0}),
            json!({"sessionKey": "agent:main:main", "workspaceDir": "/ws"}),
        );
        assert_eq!(prompt.kind, EventKind::UserPrompt);
        assert_eq!(prompt.prompt.as_deref(), Some("Fetch the fixture"));
        for (native, source) in [
            ("session_start", SessionSource::Startup),
            ("after_compaction", SessionSource::Compact),
            ("command:new", SessionSource::Clear),
        ] {
            let event = hook(
                native,
                json!({"sessionKey": "agent:main:main", "resumedFrom": "old"}),
                json!({}),
            );
            assert_eq!(
                (event.kind, event.source),
                (EventKind::SessionStart, Some(source))
            );
            assert_eq!(event.session_id, "agent:main:main");
        }
        let compact = hook(
            "before_compaction",
            json!({"messageCount": 40}),
            json!({"sessionKey": "agent:main:main"}),
        );
        assert_eq!(compact.kind, EventKind::PreCompact);
    }

    #[test]
    fn where_the_project_and_session_come_from() {
        let payload = json!({"hook_event_name": "command:new",
            "event": {"type": "command", "action": "new", "sessionKey": "agent:ops:main",
                      "context": {"workspaceDir": "/ws/ops"}},
            "ctx": {}, "cwd": "/srv"});
        let event = parse(&input("command:new", payload)).unwrap();
        assert_eq!(event.project_dir.as_deref(), Some("/ws/ops"));
        assert_eq!(event.session_id, "agent:ops:main");
        let bare = json!({"hook_event_name": "before_compaction", "event": {}, "cwd": "/srv"});
        let event = parse(&input("before_compaction", bare)).unwrap();
        assert_eq!(
            (event.session_id.as_str(), event.project_dir.as_deref()),
            ("pid-4321", Some("/srv"))
        );
    }

    #[test]
    fn bad_input_and_unknown_events() {
        for stdin in ["", "[]", r#"{"event":{"params":{}}}"#] {
            let input = ParseInput {
                native_event: "before_tool_call".into(),
                stdin: stdin.into(),
                env: Vec::new(),
                parent_pid: 1,
            };
            match parse(&input) {
                Err(ParseError::BadInput(message)) => assert!(!message.contains('\n')),
                other => panic!("{stdin:?}: {other:?}"),
            }
        }
        assert_eq!(
            parse(&input("tool_result_persist", json!({}))).unwrap_err(),
            ParseError::UnknownEvent("tool_result_persist".into())
        );
    }
}
