//! The project files that register context-mode with VS Code Copilot. Every file is
//! the project's (VS Code's user-level MCP file lives in an OS-specific profile
//! directory, and its user-level hook locations are `~/.copilot/hooks`, which Copilot
//! CLI reads too, and `~/.claude/settings.json`, Claude Code's), so setup needs
//! `--project`:
//!
//! - hooks: `{project}/.github/hooks/context-mode.json`, VS Code's documented format
//!   (`{"hooks": {"PreToolUse": [{"type": "command", "command": …}], …}}`, docs
//!   "Hook configuration format"), shared with JetBrains Copilot
//!   ([`context_mode_sdk::copilot_wire::hooks_edit`]);
//! - MCP server: `{project}/.vscode/mcp.json` under `servers`
//!   (`{"type": "stdio", "command": <cm>, "args": ["serve"]}`, docs "MCP servers");
//! - routing instructions (optional): a marked block in
//!   `{project}/.github/copilot-instructions.md`, which Copilot reads for every chat.

use context_mode_sdk::JsonObject;
use context_mode_sdk::adapter::{ConfigEdit, ConfigFormat, EditKind, SetupInput, SetupPlan};
use context_mode_sdk::json::to_pretty;
use context_mode_sdk::serde_json::Value;
use context_mode_sdk::setup::cm_command;

use context_mode_sdk::copilot_wire::{hooks_edit, instructions_edit};

pub const ROUTING_TEXT: &str =
    include_str!("../../../../configs/vscode-copilot/copilot-instructions.md");

pub const MCP_FILE: &str = "{project}/.vscode/mcp.json";

pub fn plan(input: &SetupInput) -> SetupPlan {
    let cm = cm_command(&input.cm_command);
    SetupPlan {
        edits: vec![
            hooks_edit(
                cm,
                "Register context-mode hooks for VS Code Copilot's tool, prompt, compaction, session, sub-agent and stop events (the file JetBrains Copilot reads too)",
            ),
            mcp_edit(cm),
            instructions_edit(ROUTING_TEXT),
        ],
    }
}

fn mcp_edit(cm: &str) -> ConfigEdit {
    let server = JsonObject::new()
        .put("type", "stdio")
        .put("command", cm)
        .put("args", Value::Array(vec![Value::from("serve")]));
    let document = JsonObject::new().put("servers", JsonObject::new().put("context-mode", server));
    ConfigEdit {
        kind: EditKind::McpServer,
        file: MCP_FILE.to_owned(),
        format: ConfigFormat::Json,
        content: to_pretty(&document.into_value()),
        summary:
            "Register the context-mode MCP server (cm serve) in the project's VS Code MCP servers"
                .to_owned(),
        optional: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::parse_object;

    fn input(cm: &str) -> SetupInput {
        SetupInput {
            cm_command: cm.to_owned(),
            project_dir: Some("/home/dev/app".to_owned()),
        }
    }

    #[test]
    fn three_project_files() {
        let plan = plan(&input("/opt/cm/bin/cm"));
        let files: Vec<(&str, EditKind, bool)> = plan
            .edits
            .iter()
            .map(|e| (e.file.as_str(), e.kind, e.optional))
            .collect();
        assert_eq!(
            files,
            [
                (
                    "{project}/.github/hooks/context-mode.json",
                    EditKind::Hooks,
                    false
                ),
                ("{project}/.vscode/mcp.json", EditKind::McpServer, false),
                (
                    "{project}/.github/copilot-instructions.md",
                    EditKind::Instructions,
                    true
                ),
            ]
        );
        let mcp = parse_object(&plan.edits[1].content).unwrap();
        let server = &mcp["servers"]["context-mode"];
        assert_eq!(server["type"], "stdio");
        assert_eq!(server["command"], "/opt/cm/bin/cm");
        assert_eq!(server["args"][0], "serve");
        let hooks = parse_object(&plan.edits[0].content).unwrap();
        assert_eq!(
            hooks["hooks"]["PreToolUse"][0]["command"],
            "/opt/cm/bin/cm hook vscode-copilot pretooluse"
        );
        assert!(plan.edits[2].content.contains("`mcp_context-mode_ctx_*`"));
        assert!(plan.edits[2].content.contains("run_in_terminal"));
    }

    #[test]
    fn blank_cm_is_cm_and_plans_are_deterministic() {
        let a = plan(&input(" "));
        let b = plan(&input(" "));
        let mcp = parse_object(&a.edits[1].content).unwrap();
        assert_eq!(mcp["servers"]["context-mode"]["command"], "cm");
        let contents = |p: &SetupPlan| {
            p.edits
                .iter()
                .map(|e| e.content.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(contents(&a), contents(&b));
    }
}
