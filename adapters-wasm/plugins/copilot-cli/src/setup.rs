//! The config edits that register context-mode with GitHub Copilot CLI. Copilot CLI
//! keeps its user configuration under `~/.copilot`, moved by `COPILOT_HOME`, so every
//! file is named `{env:COPILOT_HOME|~/.copilot}/…`:
//!
//! - hooks: `hooks/context-mode.json`, a file of our own (Copilot CLI loads every
//!   `*.json` in that folder, changelog 0.0.422): `"version": 1` and, per camelCase
//!   event, one flat `{type: "command", command}` entry. GitHub's hooks reference
//!   documents `bash` / `powershell`; `command` is their cross-platform alias since
//!   1.0.2, and the key seen firing on the real 1.0.102. No `matcher`: every tool's
//!   call feeds the journal, and our own tools pass untouched;
//! - MCP server: `mcp-config.json` `mcpServers.context-mode` =
//!   `{type: "local", command, args: ["serve"], tools: ["*"]}` (GitHub's "Adding MCP
//!   servers" page; seen working on 1.0.102), with `CONTEXT_MODE_PLATFORM=copilot-cli`
//!   in its `env`: the docs say Copilot CLI hands a server only `PATH` and the
//!   variables its entry names, and its client name travels only in the stateless
//!   protocol's `_meta`, so the server is told which host it serves;
//! - instructions (optional): `copilot-instructions.md` in the Copilot home (every
//!   project) or `{project}/.github/copilot-instructions.md` (this project), both read
//!   by Copilot CLI (its runtime names "Home copilot-instructions.md").

use context_mode_sdk::JsonObject;
use context_mode_sdk::json::to_pretty;
use context_mode_sdk::serde_json::Value;
use context_mode_sdk::setup::{cm_command, hook_command};

use crate::ADAPTER_ID;
use crate::describe::EVENTS;
use context_mode_sdk::adapter::{ConfigEdit, ConfigFormat, EditKind, SetupInput, SetupPlan};

const HOME: &str = "{env:COPILOT_HOME|~/.copilot}";
const ROUTING_TEXT: &str = include_str!("../../../../configs/copilot-cli/copilot-instructions.md");
/// The name setup registers the MCP server under.
pub const MCP_SERVER: &str = "context-mode";

pub fn plan(input: &SetupInput) -> SetupPlan {
    let cm = cm_command(&input.cm_command);
    SetupPlan {
        edits: vec![
            hooks_edit(cm),
            mcp_edit(cm),
            routing_edit(input.project_dir.is_some()),
        ],
    }
}

fn hooks_edit(cm: &str) -> ConfigEdit {
    let hooks = EVENTS.iter().fold(JsonObject::new(), |hooks, event| {
        let entry = JsonObject::new()
            .put("type", "command")
            .put("command", hook_command(cm, ADAPTER_ID, event.cli));
        hooks.put(event.name, Value::Array(vec![entry.into()]))
    });
    let document = JsonObject::new().put("version", 1).put("hooks", hooks);
    ConfigEdit {
        kind: EditKind::Hooks,
        file: format!("{HOME}/hooks/context-mode.json"),
        format: ConfigFormat::Json,
        content: to_pretty(&document.into_value()),
        summary: "Register context-mode hooks for Copilot CLI's preToolUse, postToolUse, postToolUseFailure, userPromptSubmitted, preCompact, sessionStart and agentStop events".to_owned(),
        optional: false,
    }
}

fn mcp_edit(cm: &str) -> ConfigEdit {
    let server = JsonObject::new()
        .put("type", "local")
        .put("command", cm)
        .put("args", Value::Array(vec![Value::from("serve")]))
        .put(
            "env",
            JsonObject::new().put("CONTEXT_MODE_PLATFORM", ADAPTER_ID),
        )
        .put("tools", Value::Array(vec![Value::from("*")]));
    let document = JsonObject::new().put("mcpServers", JsonObject::new().put(MCP_SERVER, server));
    ConfigEdit {
        kind: EditKind::McpServer,
        file: format!("{HOME}/mcp-config.json"),
        format: ConfigFormat::Json,
        content: to_pretty(&document.into_value()),
        summary:
            "Register the context-mode MCP server (cm serve) with Copilot CLI for every project"
                .to_owned(),
        optional: false,
    }
}

fn routing_edit(for_project: bool) -> ConfigEdit {
    let (file, scope) = if for_project {
        (
            "{project}/.github/copilot-instructions.md".to_owned(),
            "this project",
        )
    } else {
        (format!("{HOME}/copilot-instructions.md"), "every project")
    };
    ConfigEdit {
        kind: EditKind::Instructions,
        file,
        format: ConfigFormat::Text,
        content: ROUTING_TEXT.to_owned(),
        summary: format!(
            "Add context-mode routing instructions to Copilot CLI's instructions for {scope}"
        ),
        optional: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::parse_object;

    fn input(cm: &str, project: Option<&str>) -> SetupInput {
        SetupInput {
            cm_command: cm.to_owned(),
            project_dir: project.map(str::to_owned),
        }
    }

    #[test]
    fn files_live_in_the_copilot_home() {
        let plan = plan(&input("/usr/local/bin/cm", None));
        let files: Vec<(EditKind, &str, bool)> = plan
            .edits
            .iter()
            .map(|e| (e.kind, e.file.as_str(), e.optional))
            .collect();
        assert_eq!(
            files,
            [
                (
                    EditKind::Hooks,
                    "{env:COPILOT_HOME|~/.copilot}/hooks/context-mode.json",
                    false
                ),
                (
                    EditKind::McpServer,
                    "{env:COPILOT_HOME|~/.copilot}/mcp-config.json",
                    false
                ),
                (
                    EditKind::Instructions,
                    "{env:COPILOT_HOME|~/.copilot}/copilot-instructions.md",
                    true
                ),
            ]
        );
        let project = super::plan(&input("cm", Some("/home/dev/app")));
        assert_eq!(
            project.edits[2].file,
            "{project}/.github/copilot-instructions.md"
        );
        assert!(
            project.edits[2]
                .content
                .contains("context-mode-ctx_execute")
        );
    }

    #[test]
    fn hooks_file_is_version_1_with_flat_camel_case_entries() {
        let plan = plan(&input("/usr/local/bin/cm", None));
        let doc = parse_object(&plan.edits[0].content).unwrap();
        assert_eq!(doc["version"], 1);
        let hooks = doc["hooks"].as_object().unwrap();
        let events: Vec<&str> = hooks.keys().map(String::as_str).collect();
        assert_eq!(
            events,
            [
                "preToolUse",
                "postToolUse",
                "postToolUseFailure",
                "userPromptSubmitted",
                "preCompact",
                "sessionStart",
                "agentStop"
            ]
        );
        let entry = hooks["preToolUse"][0].as_object().unwrap();
        assert_eq!(entry["type"], "command");
        assert_eq!(
            entry["command"],
            "/usr/local/bin/cm hook copilot-cli pretooluse"
        );
        assert_eq!(entry.len(), 2, "{entry:?}");
        assert_eq!(
            hooks["agentStop"][0]["command"],
            "/usr/local/bin/cm hook copilot-cli stop"
        );
    }

    #[test]
    fn paths_with_spaces_are_quoted_for_the_shell() {
        let plan = plan(&input("/Users/Jane Doe/cm", None));
        let doc = parse_object(&plan.edits[0].content).unwrap();
        assert_eq!(
            doc["hooks"]["sessionStart"][0]["command"],
            r#""/Users/Jane Doe/cm" hook copilot-cli sessionstart"#
        );
    }

    #[test]
    fn mcp_server_is_a_local_server_with_every_tool() {
        let plan = plan(&input("  ", None));
        let doc = parse_object(&plan.edits[1].content).unwrap();
        let server = &doc["mcpServers"]["context-mode"];
        assert_eq!(server["type"], "local");
        assert_eq!(server["command"], "cm");
        assert_eq!(server["args"][0], "serve");
        assert_eq!(server["tools"][0], "*");
        assert_eq!(server["env"]["CONTEXT_MODE_PLATFORM"], "copilot-cli");
    }
}
