//! The Antigravity CLI plugin (`agy plugin install <repository>/tree/<branch>/configs/antigravity-cli`):
//! a folder with `plugin.json`, `mcp_config.json`, `hooks.json`, a routing rule and a
//! routing skill, rendered from the antigravity-cli adapter's setup plan. agy copies the
//! folder to `~/.gemini/config/plugins/context-mode/`. No plugin-root variable of agy is
//! documented, so the server and the hooks run `cm` from PATH as `cm setup` writes them
//! (`npm install -g context-mode` puts it there); the server entry pins the platform, as
//! the other Gemini-family hosts share `~/.gemini/`. No agy runs here: the tests check
//! the files against the plan.

use serde_json::{Value, json};

use super::{PLUGIN, plan_json, plan_text, pretty_json, routing_skill};
use crate::env;
use crate::model::{EditKind, MCP_SERVER_NAME, SetupPlan};

/// The plugin's folder, from the repository root.
pub const AGY_PLUGIN_DIR: &str = "configs/antigravity-cli";
/// The adapter id the server entry pins.
const ADAPTER: &str = "antigravity-cli";

/// The plugin's generated files: (path from the repository root, contents).
pub fn render_antigravity(
    plan: &SetupPlan,
    version: &str,
) -> Result<Vec<(String, String)>, String> {
    let hooks = plan_json(plan, EditKind::Hooks)?;
    let mut servers = plan_json(plan, EditKind::McpServer)?;
    let server = servers["mcpServers"]
        .get_mut(MCP_SERVER_NAME)
        .and_then(Value::as_object_mut)
        .ok_or("the plan registers no context-mode server")?;
    server.insert("env".to_owned(), json!({env::PLATFORM: ADAPTER}));
    let routing = plan_text(plan, EditKind::Instructions)?;
    let manifest = json!({
        "name": PLUGIN,
        "version": version,
        "description": "Keeps tool output out of the context window (ctx_* MCP tools, bounded routing hooks, a routing rule and skill).",
    });
    let at = |file: &str| format!("{AGY_PLUGIN_DIR}/{file}");
    Ok(vec![
        (at("plugin.json"), pretty_json(&manifest)?),
        (at("mcp_config.json"), pretty_json(&servers)?),
        (at("hooks.json"), pretty_json(&hooks)?),
        (at("rules/context-mode.md"), routing.to_owned()),
        (at("skills/context-mode/SKILL.md"), routing_skill(routing)),
    ])
}

#[cfg(test)]
mod tests {
    use super::super::tests::{adapter_plan, stale_files};
    use super::*;

    fn plan() -> SetupPlan {
        adapter_plan(ADAPTER, "1.0.10")
    }

    /// The plugin in the repository is what the antigravity-cli adapter's plan gives;
    /// `UPDATE_GOLDEN=1` rewrites it.
    #[test]
    fn antigravity_plugin_is_the_adapters_setup_plan() {
        let files = render_antigravity(&plan(), env!("CARGO_PKG_VERSION")).expect("render");
        let stale = stale_files(&files);
        assert!(
            stale.is_empty(),
            "the Antigravity CLI plugin differs from the antigravity-cli adapter's setup plan in {stale:?} (UPDATE_GOLDEN=1 cargo test -p cm --lib setup::bundle rewrites it)"
        );
    }

    /// The hook set is the one `cm setup` writes (same name, events, matchers and
    /// commands); the server is `cm serve` pinned to the adapter.
    #[test]
    fn antigravity_plugin_carries_the_planned_hooks_and_a_pinned_server() {
        let plan = plan();
        let files = render_antigravity(&plan, "0.0.0").expect("render");
        let hooks: Value = serde_json::from_str(&files[2].1).expect("JSON");
        assert_eq!(hooks, plan_json(&plan, EditKind::Hooks).expect("hooks"));
        assert_eq!(
            hooks[PLUGIN]["PreToolUse"][0]["hooks"][0]["command"],
            "cm hook antigravity-cli pretooluse"
        );
        let mcp: Value = serde_json::from_str(&files[1].1).expect("JSON");
        let server = &mcp["mcpServers"][MCP_SERVER_NAME];
        assert_eq!(server["command"], "cm");
        assert_eq!(server["args"], json!(["serve"]));
        assert_eq!(server["env"][env::PLATFORM], ADAPTER);
        assert!(files[4].1.starts_with("---\nname: context-mode\n"));
    }
}
