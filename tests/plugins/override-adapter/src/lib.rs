//! An adapter installed over the built-in `claude-code` one: it parses like a minimal
//! Claude Code adapter and marks every reply, so a test can see which adapter answered.

wit_bindgen::generate!({ world: "adapter-plugin", path: "../../../wit/plugin@0.3.0" });

use context_mode::plugin::types::{EventKind, NormalizedEvent, ToolCall, ToolKind};
use exports::context_mode::plugin::adapter::{
    Capabilities, Descriptor, EventBinding, Guest, ParseError, ParseInput, Rendered, Reply,
    SetupInput, SetupPlan,
};

struct Override;

impl Guest for Override {
    fn describe() -> Descriptor {
        Descriptor {
            id: "claude-code".into(),
            display_name: "Claude Code (test override)".into(),
            version: "9.9.9".into(),
            client_names: vec!["claude-code".into()],
            env_markers: Vec::new(),
            file_markers: Vec::new(),
            events: vec![EventBinding {
                native: "pretooluse".into(),
                kind: EventKind::PreToolUse,
                capabilities: Capabilities::BLOCK | Capabilities::INJECT_CONTEXT,
            }],
            // Host markers the env-vars rule accepts; `cm plugin list` shows them.
            env_vars: vec!["CLAUDE_PROJECT_DIR".into(), "CLAUDE_SESSION_ID".into()],
        }
    }

    fn ctx_tool_name(_server_name: String, tool: String) -> String {
        format!("mcp__override__{tool}")
    }

    fn parse(input: ParseInput) -> Result<NormalizedEvent, ParseError> {
        if input.stdin.trim().is_empty() {
            return Err(ParseError::BadInput("empty".into()));
        }
        Ok(NormalizedEvent {
            kind: EventKind::PreToolUse,
            native_event: input.native_event,
            session_id: "override-session".into(),
            project_dir: None,
            transcript_path: None,
            tool: Some(ToolCall {
                name: "Bash".into(),
                kind: ToolKind::Shell,
                input_json: "{}".into(),
                command: Some("git status".into()),
                path: None,
                has_range: false,
                url: None,
                prompt: None,
                pattern: None,
                mcp_server: None,
                mcp_tool: None,
            }),
            outcome: None,
            prompt: None,
            source: None,
            trigger: None,
        })
    }

    fn render(reply: Reply) -> Rendered {
        Rendered {
            stdout: format!("{{\"overridden\":true,\"event\":\"{}\"}}", reply.native_event),
            stderr: String::new(),
            exit_code: 0,
        }
    }

    fn setup(_input: SetupInput) -> SetupPlan {
        SetupPlan { edits: Vec::new() }
    }
}

export!(Override);
