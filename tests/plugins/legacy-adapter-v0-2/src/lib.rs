//! An adapter built for contract 0.2.0 (the frozen `wit/plugin@0.2.0` snapshot), for a
//! made-up host `legacy`: stdin is the shell command itself, and the reply is the
//! verdict and reason as JSON. Proves a 0.2.0 adapter still parses, gets decisions and
//! renders after the contract moved on, and that its `ctx-tool-prefix` reaches policies.

wit_bindgen::generate!({ world: "adapter-plugin", path: "../../../wit/plugin@0.2.0" });

use context_mode::plugin::types::{EventKind, NormalizedEvent, ToolCall, ToolKind};
use exports::context_mode::plugin::adapter::{
    Capabilities, Descriptor, EventBinding, Guest, ParseError, ParseInput, Rendered, Reply,
    SetupInput, SetupPlan, Verdict,
};

struct Legacy;

impl Guest for Legacy {
    fn describe() -> Descriptor {
        Descriptor {
            id: "legacy".into(),
            display_name: "Legacy host (contract 0.2.0)".into(),
            version: "0.2.0".into(),
            client_names: vec!["legacy".into()],
            env_markers: Vec::new(),
            file_markers: Vec::new(),
            events: vec![EventBinding {
                native: "pretooluse".into(),
                kind: EventKind::PreToolUse,
                capabilities: Capabilities::BLOCK | Capabilities::ASK,
            }],
            env_vars: Vec::new(),
            ctx_tool_prefix: "mcp__legacy__".into(),
        }
    }

    fn parse(input: ParseInput) -> Result<NormalizedEvent, ParseError> {
        let command = input.stdin.trim().to_string();
        if command.is_empty() {
            return Err(ParseError::BadInput("empty".into()));
        }
        Ok(NormalizedEvent {
            kind: EventKind::PreToolUse,
            native_event: input.native_event,
            session_id: "legacy-session".into(),
            project_dir: None,
            transcript_path: None,
            tool: Some(ToolCall {
                name: "Bash".into(),
                kind: ToolKind::Shell,
                input_json: format!("{{\"command\":{}}}", json_string(&command)),
                command: Some(command),
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
        let verdict = match reply.verdict {
            Verdict::NoOpinion => "no-opinion",
            Verdict::Allow => "allow",
            Verdict::Redirect => "redirect",
            Verdict::Deny => "deny",
            Verdict::Ask => "ask",
        };
        let reason = reply.reason.as_deref().map_or("null".to_string(), json_string);
        Rendered {
            stdout: format!("{{\"verdict\":\"{verdict}\",\"reason\":{reason}}}"),
            stderr: String::new(),
            exit_code: 0,
        }
    }

    fn setup(_input: SetupInput) -> SetupPlan {
        SetupPlan { edits: Vec::new() }
    }
}

/// A JSON string literal (the test plugins carry no JSON library).
fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

export!(Legacy);
