//! The Copilot IDE hook wire protocol, shared by the VS Code Copilot and JetBrains
//! Copilot adapters: the events, stdin → normalized event, reply → stdout, the MCP tool
//! naming, and the hooks file both IDEs read. It lives in the SDK (as `claude_wire`,
//! `pi_wire` and `opencode_wire` do for their families) so the protocol is written once
//! and each adapter still builds its own component (a crate dependency on the other
//! adapter would link its component exports in).
//!
//! Where the facts come from:
//! - **Verified against VS Code's hook documentation** (microsoft/vscode-docs
//!   `docs/copilot/customization/hooks.md`, `docs/agents/reference/hooks-reference.md`)
//!   **and the Copilot Chat source** (microsoft/vscode-copilot-chat
//!   `src/extension/chat/vscode-node/chatHookService.ts`,
//!   `src/platform/chat/common/chatHookService.ts`; microsoft/vscode's
//!   `hooksExecutionService`): the eight events and their PascalCase names; the common
//!   fields `timestamp`, `cwd`, `sessionId` (camelCase), `hookEventName` (camelCase),
//!   `transcript_path` (snake_case); the tool fields `tool_name`, `tool_input`,
//!   `tool_use_id`, `tool_response` (snake_case, the response a string); `prompt`,
//!   `source` (always `"new"`), `trigger`, `agent_id`/`agent_type`; the PreToolUse
//!   reply `hookSpecificOutput {hookEventName, permissionDecision (allow|deny|ask),
//!   permissionDecisionReason, updatedInput, additionalContext}` — the wrapped form,
//!   not the flat one of the reference's "Blocking a Tool" table; the PostToolUse
//!   reply `hookSpecificOutput.additionalContext` (plus `decision: "block"`), with no
//!   field that replaces the output; SessionStart and SubagentStart replies carrying
//!   `hookSpecificOutput.additionalContext`; UserPromptSubmit and PreCompact reading
//!   only the common output (`continue`, `stopReason`, `systemMessage`).
//! - **Deviation from the reference's matrix**: it says VS Code "can modify output";
//!   the documented PostToolUse reply and `IPostToolUseHookResult` have no output
//!   field, so PostToolUse here can inject context but not rewrite output (a large MCP
//!   result is left as it is; see the `posttooluse-mcp-large` golden).
//! - **Defensive, unverified**: `transcript_path` is typed `vscode.Uri` in the Copilot
//!   Chat source, so it may arrive as a URI object (`fsPath`/`path`); so may a per-hook
//!   `cwd`. camelCase spellings (`toolName`, `toolInput`, `toolArgs`, `toolResponse`,
//!   `session_id`) are accepted too, and a prompt given as a list of content parts.
//!   JetBrains Copilot's payloads are assumed to be VS Code's (the reference says it
//!   "shares the same hook wire protocol"); no JetBrains payload was seen.
//! - **Tool naming**: VS Code names an MCP tool `mcp_<server>_<tool>` (microsoft/vscode
//!   `McpPrefixGenerator`: `mcp_` + the lower-cased server label with runs outside
//!   `[a-z0-9_.-]` turned into `_`, cut to 13 characters, + `_`). The reference's
//!   `f1e_` prefix is an older per-server prefix; the SDK still parses `f1e_<tool>`,
//!   so both spellings are recognised as ours, and [`ctx_tool_name`] gives the
//!   documented current one.

use crate::adapter::{
    Capabilities, ConfigEdit, ConfigFormat, EditKind, ParseError, ParseInput, Rendered, Reply,
    Verdict,
};
use crate::json::{first_str, get_str, non_empty, to_pretty};
use crate::reply::updated_input;
use crate::reply::{context_reply, hook_event};
use crate::reply::{hook_specific_output, non_blank};
use crate::serde_json::{Map, Value};
use crate::setup::hook_command;
use crate::{
    EventKind, HostEvent, JsonObject, NormalizedEvent, SessionSource, ToolCall, ToolKind,
    ToolResult, build_tool_call, env_value, event_and_payload, input_object, pid_session_id,
    session_id_from_transcript, session_source, tool_output,
};

/// Claude Code's project variable, which the reference says VS Code sets for hooks too
/// (unverified): the project when the payload's `cwd` is empty.
pub const ENV_PROJECT_DIR: &str = "CLAUDE_PROJECT_DIR";

/// The adapter whose `cm hook` command the shared hooks file runs (see [`hooks_edit`]).
pub const HOOK_PLATFORM: &str = "vscode-copilot";

/// The hooks file: VS Code and JetBrains Copilot load every `.github/hooks/*.json` of
/// the project.
pub const HOOKS_FILE: &str = "{project}/.github/hooks/context-mode.json";

/// The instructions file both IDEs' Copilot read for every chat in the project.
pub const INSTRUCTIONS_FILE: &str = "{project}/.github/copilot-instructions.md";

pub const COPILOT_EVENTS: &[HostEvent] = &[
    HostEvent {
        cli: "pretooluse",
        name: "PreToolUse",
        kind: EventKind::PreToolUse,
        capabilities: Capabilities::BLOCK
            .union(Capabilities::ASK)
            .union(Capabilities::REWRITE_INPUT)
            .union(Capabilities::INJECT_CONTEXT),
    },
    HostEvent {
        cli: "posttooluse",
        name: "PostToolUse",
        kind: EventKind::PostToolUse,
        capabilities: Capabilities::INJECT_CONTEXT,
    },
    HostEvent {
        cli: "userpromptsubmit",
        name: "UserPromptSubmit",
        kind: EventKind::UserPrompt,
        capabilities: Capabilities::empty(),
    },
    HostEvent {
        cli: "precompact",
        name: "PreCompact",
        kind: EventKind::PreCompact,
        capabilities: Capabilities::empty(),
    },
    HostEvent {
        cli: "sessionstart",
        name: "SessionStart",
        kind: EventKind::SessionStart,
        capabilities: Capabilities::INJECT_CONTEXT,
    },
    // A sub-agent's conversation starts: its reply's context goes into that
    // conversation, so it is a session start (the sub-agent learns the ctx tools).
    HostEvent {
        cli: "subagentstart",
        name: "SubagentStart",
        kind: EventKind::SessionStart,
        capabilities: Capabilities::INJECT_CONTEXT,
    },
    // Can keep the sub-agent going (`decision: "block"`), which context-mode never
    // wants: journalled only.
    HostEvent {
        cli: "subagentstop",
        name: "SubagentStop",
        kind: EventKind::Stop,
        capabilities: Capabilities::empty(),
    },
    HostEvent {
        cli: "stop",
        name: "Stop",
        kind: EventKind::Stop,
        capabilities: Capabilities::empty(),
    },
];

/// VS Code's name for an MCP tool of `server`: `mcp_` + the server's label lower-cased,
/// every run of characters outside `[a-z0-9_.-]` one `_`, cut to 13 characters, then
/// `_` + the tool (`mcp_context-mode_ctx_execute`).
pub fn ctx_tool_name(server: &str, tool: &str) -> String {
    let mut safe = String::new();
    let mut in_run = false;
    for c in server.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() || "_.-".contains(c) {
            safe.push(c);
            in_run = false;
        } else if !in_run {
            safe.push('_');
            in_run = true;
        }
    }
    let prefix: String = safe.chars().take(13).collect();
    format!("mcp_{prefix}_{tool}")
}

pub fn parse_copilot_payload(input: &ParseInput) -> Result<NormalizedEvent, ParseError> {
    let (event, payload) = event_and_payload(COPILOT_EVENTS, input)?;
    let transcript_path = path_field(&payload, &["transcript_path", "transcriptPath"]);
    let session_id = session_id(&payload, transcript_path.as_deref(), input.parent_pid);
    let mut normalized = NormalizedEvent {
        project_dir: path_field(&payload, &["cwd"])
            .or_else(|| env_value(&input.env, ENV_PROJECT_DIR).map(str::to_owned)),
        transcript_path,
        ..NormalizedEvent::new(event.kind, &input.native_event, session_id)
    };
    match event.kind {
        EventKind::PreToolUse => normalized.tool = Some(tool_call(&payload, event)?),
        EventKind::PostToolUse => {
            normalized.tool = Some(tool_call(&payload, event)?);
            normalized.outcome = Some(tool_result(&payload));
        }
        EventKind::UserPrompt => normalized.prompt = prompt_text(&payload),
        EventKind::SessionStart => {
            normalized.source = Some(if event.cli == "subagentstart" {
                SessionSource::Startup
            } else {
                session_source(get_str(&payload, "source").unwrap_or_default())
            });
        }
        EventKind::PreCompact => normalized.trigger = non_empty(get_str(&payload, "trigger")),
        EventKind::Stop => {}
    }
    Ok(normalized)
}

/// `sessionId` (documented), `session_id`, the UUID of the transcript file, else the
/// agent process.
fn session_id(payload: &Map<String, Value>, transcript: Option<&str>, parent_pid: u32) -> String {
    non_empty(first_str(payload, &["sessionId", "session_id"]))
        .or_else(|| transcript.and_then(session_id_from_transcript))
        .unwrap_or_else(|| pid_session_id(parent_pid))
}

/// A path field given as a string, or as a serialized `vscode.Uri` (`fsPath`, `path`).
fn path_field(payload: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|key| match payload.get(*key)? {
        Value::String(text) => non_empty(Some(text)),
        Value::Object(uri) => non_empty(first_str(uri, &["fsPath", "path"])),
        _ => None,
    })
}

fn tool_call(payload: &Map<String, Value>, event: &HostEvent) -> Result<ToolCall, ParseError> {
    let name = first_str(payload, &["tool_name", "toolName"])
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .ok_or_else(|| {
            ParseError::BadInput(format!("{} stdin has no \"tool_name\" string", event.name))
        })?;
    let input = ["tool_input", "toolInput", "toolArgs"]
        .iter()
        .find_map(|key| payload.get(*key))
        .unwrap_or(&Value::Null);
    let mut call = build_tool_call(name, input);
    // `fetch_webpage` takes a list of `urls`: the first one names the fetch.
    if call.kind == ToolKind::WebFetch && call.url.is_none() {
        call.url = input_object(input)
            .get("urls")
            .and_then(Value::as_array)
            .and_then(|urls| urls.iter().find_map(Value::as_str))
            .and_then(|url| non_empty(Some(url)));
    }
    Ok(call)
}

fn tool_result(payload: &Map<String, Value>) -> ToolResult {
    let response = ["tool_response", "toolResponse", "tool_result", "toolResult"]
        .iter()
        .find_map(|key| payload.get(*key))
        .unwrap_or(&Value::Null);
    tool_output(response).into_result(None)
}

/// The prompt as a string, or the text of its content parts.
fn prompt_text(payload: &Map<String, Value>) -> Option<String> {
    match payload.get("prompt")? {
        Value::String(text) => Some(text.clone()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|part| match part {
                    Value::String(text) => Some(text.as_str()),
                    Value::Object(part) => get_str(part, "text"),
                    _ => None,
                })
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

/// Every reply exits 0 (exit 2 would be an error shown to the model); "nothing to say"
/// is empty stdout, which the IDE takes as no result.
pub fn render_copilot_reply(reply: &Reply) -> Rendered {
    let stdout = match reply.event {
        EventKind::PreToolUse => pre_tool_use(reply),
        EventKind::PostToolUse | EventKind::SessionStart => context_reply(COPILOT_EVENTS, reply),
        EventKind::UserPrompt | EventKind::PreCompact | EventKind::Stop => None,
    };
    Rendered {
        stdout: stdout.unwrap_or_default(),
        stderr: String::new(),
        exit_code: 0,
    }
}

fn pre_tool_use(reply: &Reply) -> Option<String> {
    // The deny reason becomes the cancelled call's message the model reads
    // ("Denied by PreToolUse hook: …"), which is what a redirect needs.
    let decision = match reply.verdict {
        Verdict::NoOpinion => None,
        Verdict::Allow => Some("allow"),
        Verdict::Redirect | Verdict::Deny => Some("deny"),
        Verdict::Ask => Some("ask"),
    };
    let stops_call = matches!(reply.verdict, Verdict::Redirect | Verdict::Deny);
    let updated_input = if stops_call {
        None
    } else {
        updated_input(reply)
    };
    let context = non_blank(&reply.additional_context);
    if decision.is_none() && updated_input.is_none() && context.is_none() {
        return None;
    }
    let specific = hook_event(COPILOT_EVENTS, reply)
        .put_opt("permissionDecision", decision)
        .put_opt(
            "permissionDecisionReason",
            decision.and(non_blank(&reply.reason)),
        )
        .put_opt("updatedInput", updated_input)
        .put_opt("additionalContext", context);
    Some(hook_specific_output(specific))
}

/// The IDE's name for the event answered (it skips a reply naming another event).
/// The hooks file, the same for both IDEs: `{"hooks": {"<Event>": [{"type": "command",
/// "command": "<cm> hook vscode-copilot <event>"}]}}` — VS Code's documented format (no
/// `matcher`: the IDE ignores matchers and runs every hook on every tool).
///
/// Both IDEs load every `.github/hooks/*.json`, so a project used from both would run
/// two sets of entries in each IDE (every call hooked twice). One file with one set of
/// entries, written the same by either adapter's setup, runs once in each; the command
/// names the VS Code adapter because both speak the same protocol.
pub fn hooks_edit(cm: &str, summary: &str) -> ConfigEdit {
    let hooks = COPILOT_EVENTS
        .iter()
        .fold(JsonObject::new(), |hooks, event| {
            let handler = JsonObject::new()
                .put("type", "command")
                .put("command", hook_command(cm, HOOK_PLATFORM, event.cli));
            hooks.put(event.name, Value::Array(vec![handler.into()]))
        });
    ConfigEdit {
        kind: EditKind::Hooks,
        file: HOOKS_FILE.to_owned(),
        format: ConfigFormat::Json,
        content: to_pretty(&JsonObject::new().put("hooks", hooks).into_value()),
        summary: summary.to_owned(),
        optional: false,
    }
}

/// The routing instructions, as a marked block of the project's
/// `.github/copilot-instructions.md` (or that file, when the project has none).
pub fn instructions_edit(text: &str) -> ConfigEdit {
    ConfigEdit {
        kind: EditKind::Instructions,
        file: INSTRUCTIONS_FILE.to_owned(),
        format: ConfigFormat::Text,
        content: text.to_owned(),
        summary: "Add context-mode routing instructions to the project's Copilot instructions"
            .to_owned(),
        optional: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serde_json::json;
    use crate::{event_by_cli_name, parse_object};

    fn input(native: &str, stdin: &str) -> ParseInput {
        ParseInput {
            native_event: native.to_owned(),
            stdin: stdin.to_owned(),
            env: Vec::new(),
            parent_pid: 4242,
        }
    }

    fn common(event: &str, extra: &str) -> String {
        format!(
            r#"{{"timestamp":"2026-11-30T10:30:00.000Z","cwd":"/home/dev/app","sessionId":"4b3c9f0e-session","hookEventName":"{event}","transcript_path":"/home/dev/.config/Code/User/workspaceStorage/ab12/GitHub.copilot-chat/transcripts/4b3c9f0e.jsonl"{extra}}}"#
        )
    }

    fn reply(event: EventKind, native: &str, verdict: Verdict) -> Reply {
        Reply::new(event, native, verdict)
    }

    fn out(reply: &Reply) -> String {
        let rendered = render_copilot_reply(reply);
        assert_eq!(rendered.exit_code, 0);
        assert_eq!(rendered.stderr, "");
        rendered.stdout
    }

    #[test]
    fn eight_events_with_the_documented_capabilities() {
        let names: Vec<&str> = COPILOT_EVENTS.iter().map(|e| e.name).collect();
        assert_eq!(
            names,
            [
                "PreToolUse",
                "PostToolUse",
                "UserPromptSubmit",
                "PreCompact",
                "SessionStart",
                "SubagentStart",
                "SubagentStop",
                "Stop"
            ]
        );
        let caps = |cli: &str| event_by_cli_name(COPILOT_EVENTS, cli).map(|e| e.capabilities);
        assert_eq!(
            caps("pretooluse"),
            Some(
                Capabilities::BLOCK
                    | Capabilities::ASK
                    | Capabilities::REWRITE_INPUT
                    | Capabilities::INJECT_CONTEXT
            )
        );
        assert_eq!(caps("posttooluse"), Some(Capabilities::INJECT_CONTEXT));
        assert_eq!(caps("SubagentStart"), Some(Capabilities::INJECT_CONTEXT));
        for cli in ["userpromptsubmit", "precompact", "subagentstop", "stop"] {
            assert_eq!(caps(cli), Some(Capabilities::empty()), "{cli}");
        }
    }

    #[test]
    fn tool_names_follow_vscode_prefix_rule() {
        assert_eq!(
            ctx_tool_name("context-mode", "ctx_execute"),
            "mcp_context-mode_ctx_execute"
        );
        assert_eq!(
            ctx_tool_name("My Context  Server!", "ctx_search"),
            "mcp_my_context_se_ctx_search"
        );
        assert_eq!(ctx_tool_name("ctx.v2", "ctx_stats"), "mcp_ctx.v2_ctx_stats");
        for name in [
            "mcp_context-mode_ctx_execute",
            "f1e_ctx_execute",
            "ctx_execute",
        ] {
            let stdin = common(
                "PreToolUse",
                &format!(r#","tool_name":"{name}","tool_input":{{"code":"ls"}}"#),
            );
            let tool = parse_copilot_payload(&input("pretooluse", &stdin))
                .unwrap()
                .tool
                .unwrap();
            assert_eq!(tool.kind, ToolKind::Ctx, "{name}");
        }
    }

    #[test]
    fn pre_tool_use_reads_the_documented_fields() {
        let stdin = common(
            "PreToolUse",
            r#","tool_name":"run_in_terminal","tool_input":{"command":"curl -s https://example.com","explanation":"Fetch","isBackground":false},"tool_use_id":"call_1""#,
        );
        let event = parse_copilot_payload(&input("pretooluse", &stdin)).unwrap();
        assert_eq!(event.kind, EventKind::PreToolUse);
        assert_eq!(event.session_id, "4b3c9f0e-session");
        assert_eq!(event.project_dir.as_deref(), Some("/home/dev/app"));
        assert!(event.transcript_path.unwrap().ends_with("4b3c9f0e.jsonl"));
        let tool = event.tool.unwrap();
        assert_eq!(tool.kind, ToolKind::Shell);
        assert_eq!(tool.command.as_deref(), Some("curl -s https://example.com"));
    }

    #[test]
    fn camel_case_spellings_and_uri_objects_are_accepted() {
        let stdin = json!({
            "session_id": "snake-session",
            "cwd": {"$mid": 1, "fsPath": "/home/dev/app", "path": "/home/dev/app", "scheme": "file"},
            "transcript_path": {"path": "/t/0b6f8d2e-1c3a-4f5b-9e7d-2a4c6e8f0a1b.jsonl", "scheme": "file"},
            "toolName": "read_file",
            "toolArgs": "{\"filePath\":\"/home/dev/app/big.txt\",\"startLine\":1,\"endLine\":40}",
            "toolResponse": "line 1"
        })
        .to_string();
        let event = parse_copilot_payload(&input("posttooluse", &stdin)).unwrap();
        assert_eq!(event.session_id, "snake-session");
        assert_eq!(event.project_dir.as_deref(), Some("/home/dev/app"));
        let tool = event.tool.unwrap();
        assert_eq!(tool.kind, ToolKind::Read);
        assert_eq!(tool.path.as_deref(), Some("/home/dev/app/big.txt"));
        assert!(tool.has_range);
        assert_eq!(event.outcome.unwrap().output, "line 1");
        let no_session =
            json!({"transcript_path": {"fsPath": "/t/0b6f8d2e-1c3a-4f5b-9e7d-2a4c6e8f0a1b.jsonl"}});
        assert_eq!(
            parse_copilot_payload(&input("stop", &no_session.to_string()))
                .unwrap()
                .session_id,
            "0b6f8d2e-1c3a-4f5b-9e7d-2a4c6e8f0a1b"
        );
        assert_eq!(
            parse_copilot_payload(&input("stop", "{}"))
                .unwrap()
                .session_id,
            "pid-4242"
        );
    }

    #[test]
    fn project_falls_back_to_the_env_variable() {
        let mut with_env = input("stop", r#"{"sessionId":"s","cwd":""}"#);
        with_env.env = vec![(ENV_PROJECT_DIR.to_owned(), "/proj".to_owned())];
        assert_eq!(
            parse_copilot_payload(&with_env)
                .unwrap()
                .project_dir
                .as_deref(),
            Some("/proj")
        );
        assert_eq!(
            parse_copilot_payload(&input("stop", "{}"))
                .unwrap()
                .project_dir,
            None
        );
    }

    #[test]
    fn fetch_webpage_names_its_first_url_and_reads_are_whole_or_ranged() {
        let fetch = common(
            "PreToolUse",
            r#","tool_name":"fetch_webpage","tool_input":{"urls":["https://docs.rs/x","https://b"],"query":"q"}"#,
        );
        let tool = parse_copilot_payload(&input("pretooluse", &fetch))
            .unwrap()
            .tool
            .unwrap();
        assert_eq!(tool.kind, ToolKind::WebFetch);
        assert_eq!(tool.url.as_deref(), Some("https://docs.rs/x"));
        let whole = common(
            "PreToolUse",
            r#","tool_name":"read_file","tool_input":{"filePath":"/a/big.txt"}"#,
        );
        let tool = parse_copilot_payload(&input("pretooluse", &whole))
            .unwrap()
            .tool
            .unwrap();
        assert!(!tool.has_range);
        assert_eq!(tool.path.as_deref(), Some("/a/big.txt"));
        let agent = common(
            "PreToolUse",
            r#","tool_name":"runSubagent","tool_input":{"prompt":"find x","description":"d"}"#,
        );
        let tool = parse_copilot_payload(&input("pretooluse", &agent))
            .unwrap()
            .tool
            .unwrap();
        assert_eq!(tool.kind, ToolKind::Agent);
        assert_eq!(tool.prompt.as_deref(), Some("find x"));
    }

    #[test]
    fn non_tool_events() {
        let prompt = common("UserPromptSubmit", r#","prompt":"fix the build""#);
        assert_eq!(
            parse_copilot_payload(&input("userpromptsubmit", &prompt))
                .unwrap()
                .prompt
                .as_deref(),
            Some("fix the build")
        );
        let parts = common(
            "UserPromptSubmit",
            r#","prompt":[{"type":"text","text":"first"},{"type":"image"},"second"]"#,
        );
        assert_eq!(
            parse_copilot_payload(&input("userpromptsubmit", &parts))
                .unwrap()
                .prompt
                .as_deref(),
            Some("first\nsecond")
        );
        let start = common("SessionStart", r#","source":"new""#);
        assert_eq!(
            parse_copilot_payload(&input("sessionstart", &start))
                .unwrap()
                .source,
            Some(SessionSource::Startup)
        );
        let sub = common("SubagentStart", r#","agent_id":"a1","agent_type":"Plan""#);
        let event = parse_copilot_payload(&input("subagentstart", &sub)).unwrap();
        assert_eq!(event.kind, EventKind::SessionStart);
        assert_eq!(event.source, Some(SessionSource::Startup));
        let compact = common("PreCompact", r#","trigger":"auto""#);
        assert_eq!(
            parse_copilot_payload(&input("precompact", &compact))
                .unwrap()
                .trigger
                .as_deref(),
            Some("auto")
        );
        let stop = common("SubagentStop", r#","stop_hook_active":false"#);
        assert_eq!(
            parse_copilot_payload(&input("subagentstop", &stop))
                .unwrap()
                .kind,
            EventKind::Stop
        );
    }

    #[test]
    fn bad_input_is_one_line_and_unknown_events_are_typed() {
        for (native, stdin) in [
            ("pretooluse", ""),
            ("pretooluse", "not json"),
            ("pretooluse", "[]"),
            ("pretooluse", r#"{"tool_input":{}}"#),
            ("posttooluse", r#"{"tool_name":"  "}"#),
        ] {
            match parse_copilot_payload(&input(native, stdin)) {
                Err(ParseError::BadInput(message)) => {
                    assert!(!message.is_empty() && !message.contains('\n'), "{message}");
                }
                other => panic!("{native} {stdin:?} gave {other:?}"),
            }
        }
        assert_eq!(
            parse_copilot_payload(&input("notification", "{}")).unwrap_err(),
            ParseError::UnknownEvent("notification".to_owned())
        );
    }

    #[test]
    fn deny_and_redirect_are_wrapped_with_the_event_name() {
        let mut r = reply(EventKind::PreToolUse, "pretooluse", Verdict::Redirect);
        r.reason = Some("redirected to ctx_execute".to_owned());
        r.tool = Some(build_tool_call(
            "run_in_terminal",
            &json!({"command": "curl x"}),
        ));
        r.updated_command = Some("ignored".to_owned());
        assert_eq!(
            out(&r),
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"redirected to ctx_execute"}}"#
        );
        let mut ask = reply(EventKind::PreToolUse, "pretooluse", Verdict::Ask);
        ask.reason = Some("confirm".to_owned());
        assert!(
            out(&ask)
                .contains(r#""permissionDecision":"ask","permissionDecisionReason":"confirm""#)
        );
    }

    #[test]
    fn rewrites_echo_the_whole_input() {
        let mut r = reply(EventKind::PreToolUse, "pretooluse", Verdict::Allow);
        r.tool = Some(build_tool_call(
            "run_in_terminal",
            &json!({"command": "make", "explanation": "Build", "isBackground": false}),
        ));
        r.updated_command = Some("make 2>&1 | tail -30".to_owned());
        assert_eq!(
            out(&r),
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"make 2>&1 | tail -30","explanation":"Build","isBackground":false}}}"#
        );
        let mut sub = reply(EventKind::PreToolUse, "pretooluse", Verdict::NoOpinion);
        sub.tool = Some(build_tool_call(
            "runSubagent",
            &json!({"prompt": "p", "description": "d"}),
        ));
        sub.updated_prompt = Some("p\n\nblock".to_owned());
        assert_eq!(
            out(&sub),
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"prompt":"p\n\nblock","description":"d"}}}"#
        );
    }

    #[test]
    fn context_goes_where_the_ide_reads_it_and_nowhere_else() {
        for (kind, native, name) in [
            (EventKind::PreToolUse, "pretooluse", "PreToolUse"),
            (EventKind::PostToolUse, "posttooluse", "PostToolUse"),
            (EventKind::SessionStart, "sessionstart", "SessionStart"),
            (EventKind::SessionStart, "subagentstart", "SubagentStart"),
        ] {
            let mut r = reply(kind, native, Verdict::NoOpinion);
            r.additional_context = Some("tip".to_owned());
            assert_eq!(
                out(&r),
                format!(
                    r#"{{"hookSpecificOutput":{{"hookEventName":"{name}","additionalContext":"tip"}}}}"#
                )
            );
            r.additional_context = Some(" ".to_owned());
            assert_eq!(out(&r), "", "{native}");
        }
        let mut post = reply(EventKind::PostToolUse, "posttooluse", Verdict::NoOpinion);
        post.updated_output = Some("replacement".to_owned());
        assert_eq!(out(&post), "", "no output field to carry a replacement");
        for (kind, native) in [
            (EventKind::UserPrompt, "userpromptsubmit"),
            (EventKind::PreCompact, "precompact"),
            (EventKind::Stop, "stop"),
            (EventKind::Stop, "subagentstop"),
        ] {
            let mut r = reply(kind, native, Verdict::Deny);
            r.additional_context = Some("x".to_owned());
            r.reason = Some("y".to_owned());
            assert_eq!(out(&r), "", "{native}");
        }
    }

    #[test]
    fn hooks_file_lists_every_event_once_in_vscode_format() {
        let edit = hooks_edit("/Users/Jane Doe/bin/cm", "s");
        assert_eq!(edit.file, HOOKS_FILE);
        assert_eq!(edit.kind, EditKind::Hooks);
        assert!(!edit.optional);
        let doc = parse_object(&edit.content).unwrap();
        let hooks = doc["hooks"].as_object().unwrap();
        assert_eq!(hooks.len(), COPILOT_EVENTS.len());
        for event in COPILOT_EVENTS {
            assert_eq!(
                hooks[event.name],
                json!([{"type": "command", "command": format!("\"/Users/Jane Doe/bin/cm\" hook vscode-copilot {}", event.cli)}]),
                "{}",
                event.name
            );
        }
        let routing = instructions_edit("text");
        assert!(routing.optional);
        assert_eq!(routing.file, INSTRUCTIONS_FILE);
    }
}
