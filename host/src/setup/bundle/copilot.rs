//! The GitHub Copilot CLI plugin (ADR 40): `configs/copilot-cli/`, rendered from the
//! copilot-cli adapter's setup plan, and the marketplace at `.github/plugin/marketplace.json`
//! that lists it. What Copilot CLI 1.0.102 does with a plugin (its runtime, then the real
//! client):
//! - the manifest is the first of `.plugin/plugin.json`, `plugin.json`,
//!   `.github/plugin/plugin.json`, `.claude-plugin/plugin.json`; `hooks.json` (the
//!   `~/.copilot/hooks/*.json` shape) and `.mcp.json` are read from the plugin's root;
//! - `copilot plugin install <folder>` (and `owner/repo:<folder>`) copies only that folder
//!   to `~/.copilot/installed-plugins/_direct/<folder name>/`; from a git marketplace,
//!   `installed-plugins/<marketplace>/<plugin>/`; a local marketplace's plugin is loaded
//!   where it is. So the launcher is copied into the bundle (`scripts/cm`);
//! - hooks run through bash in the plugin's folder with `PLUGIN_ROOT` (also
//!   `COPILOT_PLUGIN_ROOT`, `CLAUDE_PLUGIN_ROOT`) and the project in `COPILOT_PROJECT_DIR`
//!   and `CLAUDE_PROJECT_DIR`; an entry's `bash` runs on Linux and macOS, its `powershell`
//!   on Windows (GitHub's hooks reference; the runtime's `hookSelectShellScript(bash,
//!   powershell, isWindows)`), so each entry carries both: `sh` and the launcher, and
//!   PowerShell calling the launcher's `cm.cmd` twin (ADR 43);
//! - the MCP server starts in the plugin's folder too, with `PLUGIN_ROOT` but no project
//!   variable; `${NAME}` in its strings is replaced from Copilot's own environment. So the
//!   entry names the project as `${PWD}` (the folder the user started `copilot` in, which
//!   a shell exports); without it the server would keep a store for the plugin's folder.

use serde_json::{Value, json};

use super::{
    Launchers, listing, plan_json, plan_text, plugin_server_entry, pretty_json, routing_skill,
};
use crate::model::{EditKind, MCP_SERVER_NAME, SetupPlan};

/// The plugin's folder, from the repository root (`copilot plugin install
/// <owner>/<repo>:configs/copilot-cli`).
pub const COPILOT_PLUGIN_DIR: &str = "configs/copilot-cli";
/// The marketplace Copilot CLI reads before `.claude-plugin/marketplace.json` (which
/// lists the Claude Code plugin): `copilot plugin marketplace add <repo>` then finds ours.
pub const COPILOT_MARKETPLACE: &str = ".github/plugin/marketplace.json";
/// The launcher as a plugin's hooks and MCP entry reach it.
const LAUNCHER: &str = "${PLUGIN_ROOT}/scripts/cm";
/// Its Windows twin as a PowerShell hook reaches it (`PLUGIN_ROOT` is in the hook's
/// environment; `${PLUGIN_ROOT}` would be a PowerShell variable).
const CMD_LAUNCHER: &str = "$env:PLUGIN_ROOT\\scripts\\cm.cmd";

/// The Copilot CLI plugin bundle: (path from the repository root, contents). `launchers`
/// are the Claude Code plugin's, copied.
pub fn render_copilot(
    plan: &SetupPlan,
    version: &str,
    launchers: &Launchers,
) -> Result<Vec<(String, String)>, String> {
    // The plan's document as it is (`version: 1`, flat entries), each `cm …` through the launcher.
    let mut hooks = plan_json(plan, EditKind::Hooks)?;
    for (event, entries) in hooks["hooks"]
        .as_object_mut()
        .ok_or("the hooks edit has no hooks")?
    {
        for entry in entries
            .as_array_mut()
            .ok_or(format!("{event} is not a list"))?
        {
            let command = entry["command"].as_str().unwrap_or_default();
            let rest = command
                .strip_prefix("cm ")
                .ok_or(format!("a hook that is not `cm …`: {entry}"))?
                .to_owned();
            let entry = entry
                .as_object_mut()
                .ok_or(format!("{event} holds an entry that is not an object"))?;
            entry.remove("command");
            entry.insert(
                "bash".to_owned(),
                Value::from(format!("sh \"{LAUNCHER}\" {rest}")),
            );
            // PowerShell's own exit status is $? of the last command, not the program's code.
            entry.insert(
                "powershell".to_owned(),
                Value::from(format!("& \"{CMD_LAUNCHER}\" {rest}; exit $LASTEXITCODE")),
            );
        }
    }
    let servers = plan_json(plan, EditKind::McpServer)?;
    let mut server = plugin_server_entry(&servers["mcpServers"][MCP_SERVER_NAME], LAUNCHER)?;
    let env = server
        .as_object_mut()
        .ok_or("the server entry is not an object")?
        .entry("env")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or("the server's env is not an object")?;
    env.insert(crate::env::PROJECT_DIR.to_owned(), Value::from("${PWD}"));
    let routing = plan_text(plan, EditKind::Instructions)?;
    let (marketplace, manifest) = listing(
        "Copilot's",
        "GitHub Copilot CLI",
        COPILOT_PLUGIN_DIR,
        version,
    );
    let skill = routing_skill(routing);
    let dir = COPILOT_PLUGIN_DIR;
    Ok(vec![
        (COPILOT_MARKETPLACE.to_owned(), pretty_json(&marketplace)?),
        (
            format!("{dir}/.github/plugin/plugin.json"),
            pretty_json(&manifest)?,
        ),
        (
            format!("{dir}/.mcp.json"),
            pretty_json(&json!({"mcpServers": {MCP_SERVER_NAME: server}}))?,
        ),
        (format!("{dir}/hooks.json"), pretty_json(&hooks)?),
        (format!("{dir}/skills/context-mode/SKILL.md"), skill),
        (format!("{dir}/scripts/cm"), launchers.sh.clone()),
        (format!("{dir}/scripts/cm.cmd"), launchers.cmd.clone()),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setup::bundle::tests::{launcher_bundle, repo};

    /// The Copilot CLI bundle in the repository is what the copilot-cli adapter's plan
    /// gives, its launcher the Claude Code plugin's, byte for byte; `UPDATE_GOLDEN=1`
    /// rewrites it.
    #[test]
    fn copilot_bundle_is_the_adapters_setup_plan() {
        let (files, hooks) = launcher_bundle("copilot-cli", "1.0.102", render_copilot);
        // The plan's `version: 1` document, as Copilot CLI reads `~/.copilot/hooks/*.json`.
        assert_eq!(hooks["version"], 1);
        let pre = &hooks["hooks"]["preToolUse"][0];
        assert_eq!(
            pre["bash"],
            "sh \"${PLUGIN_ROOT}/scripts/cm\" hook copilot-cli pretooluse"
        );
        assert_eq!(
            pre["powershell"],
            "& \"$env:PLUGIN_ROOT\\scripts\\cm.cmd\" hook copilot-cli pretooluse; exit $LASTEXITCODE"
        );
        assert!(pre.get("command").is_none(), "{pre}");
        let mcp: Value = serde_json::from_str(&files[2].1).expect("JSON");
        let server = &mcp["mcpServers"][MCP_SERVER_NAME];
        assert_eq!(server["args"], json!([LAUNCHER, "serve"]));
        assert_eq!(server["env"]["CONTEXT_MODE_PLATFORM"], "copilot-cli");
        assert_eq!(server["env"]["CONTEXT_MODE_PROJECT_DIR"], "${PWD}");
        // The skill is the routing text `cm setup` writes to copilot-instructions.md.
        let routing = std::fs::read_to_string(
            repo()
                .join(COPILOT_PLUGIN_DIR)
                .join("copilot-instructions.md"),
        )
        .expect("routing");
        assert!(files[4].1.ends_with(&routing));
    }
}
