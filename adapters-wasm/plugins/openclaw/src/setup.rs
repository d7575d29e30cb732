//! The config edits that register context-mode with OpenClaw (**verified** on
//! 2026.9.6: its plugin loader, `openclaw plugins inspect`, real `agent --local` runs):
//!
//! - MCP server: `mcp.servers.context-mode` in `openclaw.json` (`{command, args}`, a
//!   stdio server; the tools show as `context-mode__ctx_*`). OpenClaw reads
//!   `$OPENCLAW_STATE_DIR/openclaw.json`, by default `~/.openclaw/openclaw.json`;
//!   `OPENCLAW_CONFIG_PATH`, which moves the file alone, is not followed;
//! - hooks: the plugin, three files under `extensions/context-mode/` of the state dir,
//!   a root OpenClaw discovers by itself: `package.json` (`openclaw.extensions` names
//!   the entry), `openclaw.plugin.json` (the manifest every plugin needs: id, an empty
//!   config schema, loaded at startup and for hooks) and `index.js`, the shim, with
//!   the cm command written in; and in `openclaw.json` `plugins.entries.context-mode`
//!   enabled, with `hooks.allowConversationAccess`, without which OpenClaw drops a
//!   non-bundled plugin's `before_prompt_build`, the one hook that reaches the model.
//!   Setup adds no `plugins.allow`: where the user has none, one would disable every
//!   other plugin; where they have one, they decide (setup prints nothing about it);
//! - instructions (optional): `AGENTS.md`, which OpenClaw loads from the agent's
//!   workspace: the project's, or the default workspace `<state dir>/workspace/`.

use context_mode_sdk::JsonObject;
use context_mode_sdk::json::to_pretty;
use context_mode_sdk::serde_json::{self, Value};
use context_mode_sdk::setup::cm_command;

use context_mode_sdk::adapter::{ConfigEdit, ConfigFormat, EditKind, SetupInput, SetupPlan};

const STATE_DIR: &str = "{env:OPENCLAW_STATE_DIR|~/.openclaw}";
const PLUGIN_ID: &str = "context-mode";
const MCP_SERVER: &str = "context-mode";
const SHIM: &str = include_str!("../../../../configs/openclaw/index.js");
const PACKAGE_JSON: &str = include_str!("../../../../configs/openclaw/package.json");
const MANIFEST: &str = include_str!("../../../../configs/openclaw/openclaw.plugin.json");
const ROUTING_TEXT: &str = include_str!("../../../../configs/openclaw/AGENTS.md");
/// The shim's line that names the cm command; setup writes the real one in.
const CM_LINE: &str = "const CM_COMMAND = \"cm\";";

pub fn plan(input: &SetupInput) -> SetupPlan {
    let cm = cm_command(&input.cm_command);
    SetupPlan {
        edits: vec![
            mcp_edit(cm),
            plugin_file("package.json", ConfigFormat::Json, PACKAGE_JSON.to_owned()),
            plugin_file(
                "openclaw.plugin.json",
                ConfigFormat::Json,
                MANIFEST.to_owned(),
            ),
            plugin_file("index.js", ConfigFormat::Text, shim(cm)),
            enable_edit(),
            routing_edit(input.project_dir.is_some()),
        ],
    }
}

fn config_file() -> String {
    format!("{STATE_DIR}/openclaw.json")
}

fn mcp_edit(cm: &str) -> ConfigEdit {
    let server = JsonObject::new()
        .put("command", cm)
        .put("args", Value::Array(vec![Value::from("serve")]));
    let servers = JsonObject::new().put(MCP_SERVER, server);
    ConfigEdit {
        kind: EditKind::McpServer,
        file: config_file(),
        format: ConfigFormat::Json,
        content: to_pretty(
            &JsonObject::new()
                .put("mcp", JsonObject::new().put("servers", servers))
                .into_value(),
        ),
        summary: "Register the context-mode MCP server (cm serve) with OpenClaw".to_owned(),
        optional: false,
    }
}

/// The shim with the cm command as a JS string literal (JSON's string syntax is JS's).
pub fn shim(cm: &str) -> String {
    let literal = serde_json::to_string(cm).unwrap_or_else(|_| "\"cm\"".to_owned());
    SHIM.replacen(CM_LINE, &format!("const CM_COMMAND = {literal};"), 1)
}

fn plugin_file(name: &str, format: ConfigFormat, content: String) -> ConfigEdit {
    ConfigEdit {
        kind: EditKind::Hooks,
        file: format!("{STATE_DIR}/extensions/{PLUGIN_ID}/{name}"),
        format,
        content,
        summary: format!("Install context-mode's OpenClaw plugin ({name})"),
        optional: false,
    }
}

fn enable_edit() -> ConfigEdit {
    let entry = JsonObject::new().put("enabled", true).put(
        "hooks",
        JsonObject::new().put("allowConversationAccess", true),
    );
    let plugins = JsonObject::new().put("entries", JsonObject::new().put(PLUGIN_ID, entry));
    ConfigEdit {
        kind: EditKind::Hooks,
        file: config_file(),
        format: ConfigFormat::Json,
        content: to_pretty(&JsonObject::new().put("plugins", plugins).into_value()),
        summary: "Enable the context-mode plugin, its prompt hook included".to_owned(),
        optional: false,
    }
}

fn routing_edit(for_project: bool) -> ConfigEdit {
    let (file, scope) = if for_project {
        ("{project}/AGENTS.md".to_owned(), "this project")
    } else {
        (
            format!("{STATE_DIR}/workspace/AGENTS.md"),
            "OpenClaw's default workspace",
        )
    };
    ConfigEdit {
        kind: EditKind::Instructions,
        file,
        format: ConfigFormat::Text,
        content: ROUTING_TEXT.to_owned(),
        summary: format!("Add context-mode routing instructions to AGENTS.md of {scope}"),
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
    fn every_edit_has_a_kind_and_a_file() {
        let plan = plan(&input("cm", None));
        let kinds: Vec<(EditKind, &str, bool)> = plan
            .edits
            .iter()
            .map(|e| (e.kind, e.file.as_str(), e.optional))
            .collect();
        let state = "{env:OPENCLAW_STATE_DIR|~/.openclaw}";
        assert_eq!(
            kinds,
            [
                (
                    EditKind::McpServer,
                    &*format!("{state}/openclaw.json"),
                    false
                ),
                (
                    EditKind::Hooks,
                    &*format!("{state}/extensions/context-mode/package.json"),
                    false
                ),
                (
                    EditKind::Hooks,
                    &*format!("{state}/extensions/context-mode/openclaw.plugin.json"),
                    false
                ),
                (
                    EditKind::Hooks,
                    &*format!("{state}/extensions/context-mode/index.js"),
                    false
                ),
                (EditKind::Hooks, &*format!("{state}/openclaw.json"), false),
                (
                    EditKind::Instructions,
                    &*format!("{state}/workspace/AGENTS.md"),
                    true
                ),
            ]
        );
        let project = super::plan(&input("cm", Some("/home/dev/app")));
        assert_eq!(project.edits[5].file, "{project}/AGENTS.md");
    }

    #[test]
    fn the_config_names_the_server_and_enables_the_plugin() {
        let plan = plan(&input("/opt/cm", None));
        let mcp = parse_object(&plan.edits[0].content).unwrap();
        assert_eq!(mcp["mcp"]["servers"]["context-mode"]["command"], "/opt/cm");
        assert_eq!(mcp["mcp"]["servers"]["context-mode"]["args"][0], "serve");
        let enable = parse_object(&plan.edits[4].content).unwrap();
        let entry = &enable["plugins"]["entries"]["context-mode"];
        assert_eq!(entry["enabled"], true);
        assert_eq!(entry["hooks"]["allowConversationAccess"], true);
        assert!(enable["plugins"].get("allow").is_none());
    }

    #[test]
    fn the_plugin_files_agree_on_the_id_and_the_entry() {
        let plan = plan(&input("cm", None));
        let package = parse_object(&plan.edits[1].content).unwrap();
        assert_eq!(package["openclaw"]["extensions"][0], "./index.js");
        assert_eq!(package["type"], "module");
        let manifest = parse_object(&plan.edits[2].content).unwrap();
        assert_eq!(manifest["id"], PLUGIN_ID);
        assert_eq!(manifest["activation"]["onStartup"], true);
        assert!(manifest["configSchema"].is_object());
        assert!(plan.edits[3].content.contains("id: PLUGIN_ID"));
        assert!(
            plan.edits[3]
                .content
                .contains("const PLUGIN_ID = \"context-mode\";")
        );
    }

    #[test]
    fn the_shim_gets_the_cm_command_as_a_string_literal() {
        assert!(SHIM.contains(CM_LINE), "the template's cm line moved");
        let shim = shim(r#"/Users/Jane "J" Doe/bin/cm"#);
        assert!(shim.contains(r#"const CM_COMMAND = "/Users/Jane \"J\" Doe/bin/cm";"#));
        assert!(!shim.contains(CM_LINE));
        assert_eq!(super::shim("cm"), SHIM);
        let plan = plan(&input("", None));
        assert!(plan.edits[3].content.contains(CM_LINE));
    }

    #[test]
    fn routing_names_openclaws_tool_spelling() {
        let plan = plan(&input("cm", None));
        assert!(plan.edits[5].content.contains("context-mode__ctx_execute"));
        assert!(plan.edits[5].content.contains("tool_call"));
    }
}
