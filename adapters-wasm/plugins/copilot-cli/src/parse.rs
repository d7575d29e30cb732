//! Copilot CLI hook stdin → normalized event.
//!
//! Hooks registered under camelCase event names (what setup writes) get camelCase
//! payloads (GitHub's hooks reference): every event `sessionId`, `timestamp` (ms),
//! `cwd` (the project, unless the hook's `COPILOT_PROJECT_DIR` names one); preToolUse `toolName` + `toolArgs`; postToolUse adds `toolResult`
//! `{resultType, textResultForLlm}`; postToolUseFailure adds `error`;
//! userPromptSubmitted `prompt`; sessionStart `source` (`startup|resume|new`) and
//! `initialPrompt`; preCompact and agentStop `transcriptPath`, preCompact `trigger`.
//!
//! Parsed defensively (**unverified** variants): `toolArgs` as an object (newer
//! releases) or as a JSON string (older ones); the snake_case fields of the PascalCase
//! ("VS Code compatible") payload — `session_id`, `tool_name`, `tool_input`,
//! `tool_result {result_type, text_result_for_llm}`, `transcript_path` — as fallbacks;
//! a `toolResult` that is a plain string.

use context_mode_sdk::json::{first_str, get_str, get_u64, non_empty};
use context_mode_sdk::serde_json::{Map, Value};
use context_mode_sdk::{
    CTX_TOOLS, EventKind, NormalizedEvent, ToolCall, ToolKind, ToolResult, build_tool_call,
    env_value, pid_session_id, session_source, tool_output,
};

use crate::describe::{ENV_PROJECT_DIR, EVENTS};
use context_mode_sdk::adapter::{ParseError, ParseInput};
use context_mode_sdk::event_and_payload;

pub fn parse(input: &ParseInput) -> Result<NormalizedEvent, ParseError> {
    let (event, payload) = event_and_payload(EVENTS, input)?;

    let session_id = non_empty(first_str(&payload, &["sessionId", "session_id"]))
        .unwrap_or_else(|| pid_session_id(input.parent_pid));
    let mut normalized = NormalizedEvent {
        project_dir: env_value(&input.env, ENV_PROJECT_DIR)
            .map(str::to_owned)
            .or_else(|| non_empty(get_str(&payload, "cwd"))),
        transcript_path: non_empty(first_str(&payload, &["transcriptPath", "transcript_path"])),
        ..NormalizedEvent::new(event.kind, &input.native_event, session_id)
    };

    match event.kind {
        EventKind::PreToolUse => normalized.tool = Some(tool_call(&payload, event.name)?),
        EventKind::PostToolUse => {
            normalized.tool = Some(tool_call(&payload, event.name)?);
            normalized.outcome = Some(if event.cli == "posttoolusefailure" {
                failure(&payload)
            } else {
                tool_result(&payload)
            });
        }
        EventKind::UserPrompt => {
            let prompt = get_str(&payload, "prompt").ok_or_else(|| {
                ParseError::BadInput("userPromptSubmitted stdin has no \"prompt\" string".into())
            })?;
            normalized.prompt = Some(prompt.to_owned());
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

/// `toolName` + `toolArgs` (or the snake_case pair), classified with Copilot CLI's
/// own tool names.
fn tool_call(payload: &Map<String, Value>, event: &str) -> Result<ToolCall, ParseError> {
    let name = first_str(payload, &["toolName", "tool_name"])
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .ok_or_else(|| ParseError::BadInput(format!("{event} stdin has no \"toolName\" string")))?;
    let args = payload
        .get("toolArgs")
        .or_else(|| payload.get("tool_input"))
        .unwrap_or(&Value::Null);
    let mut call = build_tool_call(name, args);
    classify(&mut call);
    Ok(call)
}

/// Copilot CLI's names the SDK does not know: `powershell` runs a command like `bash`,
/// `str_replace_editor` edits, and an MCP tool is `<server>-<tool>` (built-in tools
/// never hold a `-`). Ours (`context-mode-ctx_execute`) is a ctx tool; another
/// server's is split at its last `-`, which is right unless the tool's own name holds
/// one.
fn classify(call: &mut ToolCall) {
    let name = call.name.clone();
    match name.to_ascii_lowercase().as_str() {
        "powershell" => {
            let rebuilt = build_tool_call("bash", &parsed_input(call));
            call.kind = ToolKind::Shell;
            call.command = rebuilt.command;
            return;
        }
        "str_replace_editor" => {
            let rebuilt = build_tool_call("edit", &parsed_input(call));
            call.kind = ToolKind::Edit;
            call.path = rebuilt.path;
            return;
        }
        _ => {}
    }
    if !matches!(call.kind, ToolKind::Other | ToolKind::Mcp) || !name.contains('-') {
        return;
    }
    let (server, tool) = match ours(&name) {
        Some(split) => split,
        None => match name.rsplit_once('-') {
            Some((server, tool)) if !server.is_empty() && !tool.is_empty() => (server, tool),
            _ => return,
        },
    };
    let is_ctx = tool.starts_with("ctx_") && is_our_server(server);
    call.kind = if is_ctx { ToolKind::Ctx } else { ToolKind::Mcp };
    call.mcp_server = Some(server.to_owned());
    call.mcp_tool = Some(tool.to_owned());
}

/// `<server>-ctx_<tool>` where the server is ours: split before `ctx_`.
fn ours(name: &str) -> Option<(&str, &str)> {
    let at = name.find("-ctx_")?;
    let (server, tool) = (&name[..at], &name[at + 1..]);
    (is_our_server(server) && (CTX_TOOLS.contains(&tool) || tool.starts_with("ctx_")))
        .then_some((server, tool))
}

fn is_our_server(server: &str) -> bool {
    let lower = server.to_ascii_lowercase();
    lower.contains("context-mode") || lower.contains("context_mode")
}

fn parsed_input(call: &ToolCall) -> Value {
    context_mode_sdk::serde_json::from_str(&call.input_json).unwrap_or(Value::Null)
}

/// `toolResult.textResultForLlm` is what the model saw; a `resultType` other than
/// `success` (`failure`, `denied`, `error` in the snake_case form) marks an error.
fn tool_result(payload: &Map<String, Value>) -> ToolResult {
    let duration = get_u64(payload, "durationMs").or_else(|| get_u64(payload, "duration_ms"));
    let result = payload
        .get("toolResult")
        .or_else(|| payload.get("tool_result"))
        .unwrap_or(&Value::Null);
    let Some(object) = result.as_object() else {
        return tool_output(result).into_result(duration);
    };
    let text = first_str(object, &["textResultForLlm", "text_result_for_llm"]);
    let result_type = first_str(object, &["resultType", "result_type"]).unwrap_or("success");
    let is_error = !result_type.eq_ignore_ascii_case("success");
    match text {
        Some(text) => ToolResult {
            output: text.to_owned(),
            is_error,
            exit_code: None,
            duration_ms: duration,
        },
        None => {
            let mut out = tool_output(result).into_result(duration);
            out.is_error |= is_error;
            out
        }
    }
}

/// postToolUseFailure carries the failure's text as `error` (a string; an object's
/// `message` taken defensively).
fn failure(payload: &Map<String, Value>) -> ToolResult {
    let error = match payload.get("error") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Object(object)) => get_str(object, "message").unwrap_or_default().to_owned(),
        _ => String::new(),
    };
    ToolResult {
        output: error,
        is_error: true,
        exit_code: None,
        duration_ms: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::SessionSource;

    const SESSION: &str = "7c1e9a52-3b0d-4f6e-8a21-9d4c5b6e7f80";

    fn input(native: &str, stdin: &str) -> ParseInput {
        ParseInput {
            native_event: native.to_owned(),
            stdin: stdin.to_owned(),
            env: Vec::new(),
            parent_pid: 4242,
        }
    }

    fn common(extra: &str) -> String {
        format!(
            r#"{{"sessionId":"{SESSION}","timestamp":1764651600000,"cwd":"/home/dev/app",{extra}}}"#
        )
    }

    fn tool(native: &str, extra: &str) -> ToolCall {
        parse(&input(native, &common(extra))).unwrap().tool.unwrap()
    }

    #[test]
    fn bash_with_object_or_string_args() {
        let object = tool(
            "pretooluse",
            r#""toolName":"bash","toolArgs":{"command":"curl https://example.com","description":"d"}"#,
        );
        assert_eq!(object.kind, ToolKind::Shell);
        assert_eq!(object.command.as_deref(), Some("curl https://example.com"));
        let string = tool(
            "pretooluse",
            r#""toolName":"bash","toolArgs":"{\"command\":\"curl https://example.com\",\"description\":\"d\"}""#,
        );
        assert_eq!(string.command, object.command);
        assert_eq!(string.input_json, object.input_json);
        let event = parse(&input(
            "pretooluse",
            &common(r#""toolName":"bash","toolArgs":{}"#),
        ))
        .unwrap();
        assert_eq!(event.session_id, SESSION);
        assert_eq!(event.project_dir.as_deref(), Some("/home/dev/app"));
        let mut with_env = input("pretooluse", &common(r#""toolName":"bash","toolArgs":{}"#));
        with_env.env = vec![("COPILOT_PROJECT_DIR".into(), "/proj".into())];
        assert_eq!(
            parse(&with_env).unwrap().project_dir.as_deref(),
            Some("/proj")
        );
    }

    #[test]
    fn copilot_tool_names_are_classified() {
        let view = tool(
            "pretooluse",
            r#""toolName":"view","toolArgs":{"path":"/a/b.rs","view_range":[1,20]}"#,
        );
        assert_eq!(
            (view.kind, view.path.as_deref(), view.has_range),
            (ToolKind::Read, Some("/a/b.rs"), true)
        );
        let pwsh = tool(
            "pretooluse",
            r#""toolName":"powershell","toolArgs":{"command":"iwr https://x"}"#,
        );
        assert_eq!(
            (pwsh.kind, pwsh.command.as_deref()),
            (ToolKind::Shell, Some("iwr https://x"))
        );
        for (name, kind) in [
            ("web_fetch", ToolKind::WebFetch),
            ("grep", ToolKind::Grep),
            ("glob", ToolKind::Grep),
            ("task", ToolKind::Agent),
            ("create", ToolKind::Edit),
            ("edit", ToolKind::Edit),
            ("str_replace_editor", ToolKind::Edit),
            ("ask_user", ToolKind::Other),
        ] {
            let call = tool(
                "posttooluse",
                &format!(
                    r#""toolName":"{name}","toolArgs":{{}},"toolResult":{{"resultType":"success","textResultForLlm":""}}"#
                ),
            );
            assert_eq!(call.kind, kind, "{name}");
        }
    }

    #[test]
    fn mcp_tools_are_server_dash_tool() {
        let ours = tool(
            "pretooluse",
            r#""toolName":"context-mode-ctx_execute","toolArgs":{"language":"shell","code":"ls"}"#,
        );
        assert_eq!(ours.kind, ToolKind::Ctx);
        assert_eq!(ours.mcp_server.as_deref(), Some("context-mode"));
        assert_eq!(ours.mcp_tool.as_deref(), Some("ctx_execute"));
        let github = tool(
            "pretooluse",
            r#""toolName":"github-mcp-server-search_code","toolArgs":{"query":"x"}"#,
        );
        assert_eq!(github.kind, ToolKind::Mcp);
        assert_eq!(github.mcp_server.as_deref(), Some("github-mcp-server"));
        assert_eq!(github.mcp_tool.as_deref(), Some("search_code"));
        let odd = tool("pretooluse", r#""toolName":"-","toolArgs":{}"#);
        assert_eq!(odd.kind, ToolKind::Other);
    }

    #[test]
    fn post_tool_use_result_and_failure() {
        let ok = parse(&input(
            "posttooluse",
            &common(r#""toolName":"bash","toolArgs":{"command":"ls"},"toolResult":{"resultType":"success","textResultForLlm":"a\nb"}"#),
        ))
        .unwrap()
        .outcome
        .unwrap();
        assert_eq!((ok.output.as_str(), ok.is_error), ("a\nb", false));
        let snake = parse(&input(
            "posttooluse",
            r#"{"hook_event_name":"PostToolUse","session_id":"s","cwd":"/p","tool_name":"bash","tool_input":{"command":"false"},"tool_result":{"result_type":"failure","text_result_for_llm":"exit 1"}}"#,
        ))
        .unwrap();
        assert_eq!(snake.session_id, "s");
        let outcome = snake.outcome.unwrap();
        assert_eq!(
            (outcome.output.as_str(), outcome.is_error),
            ("exit 1", true)
        );
        let failed = parse(&input(
            "posttoolusefailure",
            &common(
                r#""toolName":"bash","toolArgs":{"command":"nope"},"error":"command not found""#,
            ),
        ))
        .unwrap()
        .outcome
        .unwrap();
        assert_eq!(
            (failed.output.as_str(), failed.is_error),
            ("command not found", true)
        );
    }

    #[test]
    fn lifecycle_events() {
        let start = parse(&input(
            "sessionstart",
            &common(r#""source":"new","initialPrompt":"hi""#),
        ))
        .unwrap();
        assert_eq!(start.source, Some(SessionSource::Startup));
        let resume = parse(&input("sessionstart", &common(r#""source":"resume""#))).unwrap();
        assert_eq!(resume.source, Some(SessionSource::Resume));
        let prompt = parse(&input("userpromptsubmit", &common(r#""prompt":"fix it""#))).unwrap();
        assert_eq!(prompt.prompt.as_deref(), Some("fix it"));
        assert!(parse(&input("userpromptsubmit", &common(r#""prompt":3"#))).is_err());
        let compact = parse(&input(
            "precompact",
            &common(r#""transcriptPath":"/t.jsonl","trigger":"auto","customInstructions":"""#),
        ))
        .unwrap();
        assert_eq!(compact.trigger.as_deref(), Some("auto"));
        assert_eq!(compact.transcript_path.as_deref(), Some("/t.jsonl"));
        let stop = parse(&input("stop", r#"{"stopReason":"end_turn"}"#)).unwrap();
        assert_eq!(stop.session_id, "pid-4242");
        assert_eq!(stop.project_dir, None);
    }

    #[test]
    fn bad_input_and_unknown_events() {
        assert!(matches!(
            parse(&input("pretooluse", "{")),
            Err(ParseError::BadInput(_))
        ));
        assert!(matches!(
            parse(&input("pretooluse", &common(r#""toolArgs":{}"#))),
            Err(ParseError::BadInput(_))
        ));
        assert_eq!(
            parse(&input("sessionEnd", "{}")).unwrap_err(),
            ParseError::UnknownEvent("sessionEnd".into())
        );
    }
}
