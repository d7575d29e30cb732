//! What registers context-mode with JetBrains Copilot:
//!
//! - hooks: `{project}/.github/hooks/context-mode.json` (reference: JetBrains Copilot
//!   reads `.github/hooks/*.json`). It is the very file, with the very entries, VS Code
//!   Copilot's setup writes ([`context_mode_sdk::copilot_wire::hooks_edit`]): both
//!   IDEs load every `.github/hooks/*.json`, so a file of JetBrains' own beside VS
//!   Code's would make each IDE run every hook twice in a project used from both (a
//!   team repository).
//!   The entries run `cm hook vscode-copilot <event>`, the same protocol.
//! - MCP server: JetBrains keeps MCP servers in its settings, not in a project file, so
//!   the edit names no file and `cm setup` prints its steps. The GitHub Copilot plugin
//!   lists them under Settings > Tools > GitHub Copilot > Model Context Protocol (MCP),
//!   whose Configure button opens its `mcp.json` (`servers`, VS Code's shape); the
//!   reference's Settings > Tools > AI Assistant > Model Context Protocol (MCP) is the
//!   page of JetBrains AI Assistant (where Copilot can also run as an agent). Both are
//!   given.
//! - routing instructions (optional): the marked block in
//!   `{project}/.github/copilot-instructions.md`, the same text as VS Code's so the
//!   block stays one block whichever IDE set it up.

use context_mode_sdk::adapter::{ConfigEdit, ConfigFormat, EditKind, SetupInput, SetupPlan};
use context_mode_sdk::serde_json::Value;
use context_mode_sdk::setup::cm_command;

use context_mode_sdk::copilot_wire::{hooks_edit, instructions_edit};

pub const ROUTING_TEXT: &str =
    include_str!("../../../../configs/jetbrains-copilot/copilot-instructions.md");

pub fn plan(input: &SetupInput) -> SetupPlan {
    let cm = cm_command(&input.cm_command);
    SetupPlan {
        edits: vec![
            hooks_edit(
                cm,
                "Register context-mode hooks for JetBrains Copilot in the project's .github/hooks/context-mode.json (the file VS Code Copilot reads too: one set of entries serves both IDEs)",
            ),
            mcp_steps(cm),
            instructions_edit(ROUTING_TEXT),
        ],
    }
}

/// The MCP registration the user makes in the IDE's settings.
fn mcp_steps(cm: &str) -> ConfigEdit {
    let command = Value::from(cm).to_string();
    let content = [
        format!(
            "GitHub Copilot plugin: Settings > Tools > GitHub Copilot > Model Context Protocol (MCP) > Configure, then add under \"servers\" in the mcp.json it opens: \"context-mode\": {{\"type\": \"stdio\", \"command\": {command}, \"args\": [\"serve\"]}}"
        ),
        format!(
            "JetBrains AI Assistant: Settings > Tools > AI Assistant > Model Context Protocol (MCP) > Add, name context-mode, command {cm}, arguments serve"
        ),
        "Then restart the chat so the IDE starts the server.".to_owned(),
    ]
    .join("\n");
    ConfigEdit {
        kind: EditKind::McpServer,
        file: String::new(),
        format: ConfigFormat::Text,
        content,
        summary: "register the context-mode MCP server (cm serve) in the JetBrains IDE's settings; JetBrains keeps MCP servers there, not in a project file".to_owned(),
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
    fn hooks_file_and_routing_are_vscodes_and_the_server_is_a_manual_step() {
        let plan = plan(&input("/Users/Jane Doe/bin/cm"));
        let kinds: Vec<EditKind> = plan.edits.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            [EditKind::Hooks, EditKind::McpServer, EditKind::Instructions]
        );
        let hooks = &plan.edits[0];
        assert_eq!(hooks.file, "{project}/.github/hooks/context-mode.json");
        assert_eq!(
            hooks.content,
            context_mode_sdk::copilot_wire::hooks_edit("/Users/Jane Doe/bin/cm", "").content,
            "the same entries as VS Code's setup writes"
        );
        let doc = parse_object(&hooks.content).unwrap();
        assert_eq!(
            doc["hooks"]["Stop"][0]["command"],
            r#""/Users/Jane Doe/bin/cm" hook vscode-copilot stop"#
        );

        let mcp = &plan.edits[1];
        assert!(mcp.file.is_empty(), "nothing to write: {}", mcp.file);
        assert!(!mcp.optional);
        assert!(mcp.content.contains(
            "Settings > Tools > GitHub Copilot > Model Context Protocol (MCP) > Configure"
        ));
        assert!(
            mcp.content
                .contains(r#""command": "/Users/Jane Doe/bin/cm", "args": ["serve"]"#)
        );
        assert!(mcp.content.contains(
            "Settings > Tools > AI Assistant > Model Context Protocol (MCP) > Add, name context-mode, command /Users/Jane Doe/bin/cm, arguments serve"
        ));

        let routing = &plan.edits[2];
        assert!(routing.optional);
        assert_eq!(routing.file, "{project}/.github/copilot-instructions.md");
    }

    #[test]
    fn routing_text_is_byte_for_byte_vscodes() {
        // One marked block in .github/copilot-instructions.md, whichever IDE's setup
        // wrote it: a different text would make the two setups replace each other's.
        let vscode = include_str!("../../../../configs/vscode-copilot/copilot-instructions.md");
        assert_eq!(ROUTING_TEXT, vscode);
    }
}
