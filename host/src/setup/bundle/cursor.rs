//! The Cursor plugin: `.cursor-plugin/plugin.json` at the repository root, so the
//! checkout itself is the plugin (`ln -s <checkout> ~/.cursor/plugins/local/context-mode`,
//! or the marketplace's install of the repository), rendered from the cursor adapter's
//! setup plan. Its parts live under `configs/cursor/plugin/` and the manifest names each
//! one: a Cursor manifest's `hooks`, `mcpServers` and `rules` replace the default
//! discovery, which would otherwise take the Gemini extension's `hooks/hooks.json` at the
//! root for Cursor's. `cm` is reached through the shared launcher: Cursor substitutes
//! `${CURSOR_PLUGIN_ROOT}` in a plugin's MCP entries and exports it to its hooks.
//! No Cursor runs here: the tests check the files against the plan and against the
//! manifest schema Cursor publishes (cursor/plugins `schemas/plugin.schema.json`).

use serde_json::{Value, json};

use super::{LAUNCHER_FILE, PLUGIN, launcher_server_entry, plan_json, pretty_json};
use crate::model::{EditKind, MCP_SERVER_NAME, SetupPlan};

/// The plugin's parts, from the repository root (the plugin root).
pub const CURSOR_PLUGIN_DIR: &str = "configs/cursor/plugin";
/// The manifest, where Cursor looks for a Cursor-format plugin.
pub const CURSOR_MANIFEST: &str = ".cursor-plugin/plugin.json";
/// The routing rule the cursor adapter writes (`alwaysApply: true`), shipped as it is.
pub const CURSOR_RULE: &str = "configs/cursor/context-mode.mdc";

/// The shared launcher as a Cursor plugin command reaches it.
fn launcher() -> String {
    format!("${{CURSOR_PLUGIN_ROOT}}/{LAUNCHER_FILE}")
}

/// The plugin's generated files: (path from the repository root, contents).
pub fn render_cursor(plan: &SetupPlan, version: &str) -> Result<Vec<(String, String)>, String> {
    let mut hooks = plan_json(plan, EditKind::Hooks)?;
    for entries in hooks["hooks"]
        .as_object_mut()
        .ok_or("the hooks edit has no hooks")?
        .values_mut()
    {
        for entry in entries.as_array_mut().ok_or("an event's entries")? {
            cursor_handler(entry)?;
        }
    }
    let servers = plan_json(plan, EditKind::McpServer)?;
    let server = launcher_server_entry(&servers["mcpServers"][MCP_SERVER_NAME], &launcher())?;
    let manifest = json!({
        "name": PLUGIN,
        "displayName": "context-mode",
        "version": version,
        "description": "Keeps tool output out of the agent's context window (ctx_* MCP tools, routing hooks) and rebuilds the working state after a summary.",
        "author": {"name": "context-mode"},
        "license": "MIT",
        "keywords": ["context", "mcp", "hooks", "sandbox"],
        "hooks": format!("./{CURSOR_PLUGIN_DIR}/hooks.json"),
        "mcpServers": format!("./{CURSOR_PLUGIN_DIR}/mcp.json"),
        "rules": format!("./{CURSOR_RULE}"),
    });
    let mcp = json!({"mcpServers": {MCP_SERVER_NAME: server}});
    Ok(vec![
        (CURSOR_MANIFEST.to_owned(), pretty_json(&manifest)?),
        (
            format!("{CURSOR_PLUGIN_DIR}/hooks.json"),
            pretty_json(&hooks)?,
        ),
        (format!("{CURSOR_PLUGIN_DIR}/mcp.json"), pretty_json(&mcp)?),
    ])
}

/// A cursor plan hook (flat `{command, matcher}`) in plugin form: `cm …` runs the launcher.
fn cursor_handler(entry: &mut Value) -> Result<(), String> {
    let command = entry["command"].as_str().unwrap_or_default();
    let rest = command
        .strip_prefix("cm ")
        .ok_or(format!("a hook that is not `cm …`: {entry}"))?;
    entry["command"] = Value::from(format!("sh \"{}\" {rest}", launcher()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::tests::{adapter_plan, repo, stale_files};
    use super::*;

    /// The manifest fields Cursor's published schema allows (`additionalProperties:
    /// false`): a field outside it makes Cursor reject the plugin.
    const SCHEMA_FIELDS: &[&str] = &[
        "name",
        "displayName",
        "description",
        "version",
        "author",
        "publisher",
        "homepage",
        "repository",
        "license",
        "logo",
        "keywords",
        "category",
        "tags",
        "commands",
        "agents",
        "skills",
        "rules",
        "hooks",
        "variables",
        "mcpServers",
    ];

    fn files() -> Vec<(String, String)> {
        render_cursor(&adapter_plan("cursor", "1.7.0"), env!("CARGO_PKG_VERSION")).expect("render")
    }

    /// The plugin in the repository is what the cursor adapter's plan gives;
    /// `UPDATE_GOLDEN=1` rewrites it.
    #[test]
    fn cursor_plugin_is_the_adapters_setup_plan() {
        let stale = stale_files(&files());
        assert!(
            stale.is_empty(),
            "the Cursor plugin differs from the cursor adapter's setup plan in {stale:?} (UPDATE_GOLDEN=1 cargo test -p cm --lib setup::bundle rewrites it)"
        );
    }

    /// The manifest keeps to Cursor's schema, and every part it names is a file of
    /// this checkout, inside the plugin root.
    #[test]
    fn cursor_manifest_keeps_to_the_schema_and_names_files_that_exist() {
        let files = files();
        let manifest: Value = serde_json::from_str(&files[0].1).expect("JSON");
        let fields = manifest.as_object().expect("object");
        for key in fields.keys() {
            assert!(
                SCHEMA_FIELDS.contains(&key.as_str()),
                "{key} is not in Cursor's schema"
            );
        }
        let name = manifest["name"].as_str().expect("name");
        assert!(
            name.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.')
        );
        for part in ["hooks", "mcpServers", "rules"] {
            let path = manifest[part].as_str().expect("a path");
            let relative = path
                .strip_prefix("./")
                .expect("relative to the plugin root");
            assert!(!relative.contains(".."), "{part} leaves the plugin: {path}");
            assert!(
                repo().join(relative).is_file(),
                "{part}: {path} is not a file"
            );
        }
    }

    /// Every event the plan registers stays, with its matcher; each command runs the
    /// launcher from the plugin root, the server too.
    #[test]
    fn cursor_hooks_and_server_run_the_launcher() {
        let plan = adapter_plan("cursor", "1.7.0");
        let planned = plan_json(&plan, EditKind::Hooks).expect("hooks");
        let files = files();
        let hooks: Value = serde_json::from_str(&files[1].1).expect("JSON");
        assert_eq!(hooks["version"], 1);
        let events = |v: &Value| v.as_object().map(|m| m.keys().cloned().collect::<Vec<_>>());
        assert_eq!(events(&hooks["hooks"]), events(&planned["hooks"]));
        assert_eq!(
            hooks["hooks"]["preToolUse"][0]["matcher"],
            planned["hooks"]["preToolUse"][0]["matcher"]
        );
        assert_eq!(
            hooks["hooks"]["preToolUse"][0]["command"],
            "sh \"${CURSOR_PLUGIN_ROOT}/configs/claude-code/plugin/scripts/cm\" hook cursor pretooluse"
        );
        let mcp: Value = serde_json::from_str(&files[2].1).expect("JSON");
        assert_eq!(
            mcp["mcpServers"]["context-mode"]["command"],
            "${CURSOR_PLUGIN_ROOT}/configs/claude-code/plugin/scripts/cm"
        );
        assert_eq!(mcp["mcpServers"]["context-mode"]["args"], json!(["serve"]));
    }
}
