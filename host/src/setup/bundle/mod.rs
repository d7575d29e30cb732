//! The Claude Code plugin bundle in the repository (`.claude-plugin/marketplace.json` and
//! `configs/claude-code/plugin/`), rendered from the claude-code adapter's setup plan: the
//! same events, matchers and served `ctx_hook` entries `cm setup` writes, with `cm`
//! reached through the plugin's launcher (`scripts/cm`, ADR 38; its Windows twin
//! `scripts/cm.cmd`, ADR 43) and the served hooks
//! naming the server as Claude Code registers a plugin's (`plugin:<plugin>:<server>`).
//! Also the Gemini CLI and Qwen Code extensions at the repository root (ADR 39), from the
//! gemini-cli and qwen-code adapters' plans, reaching `cm` through the same launcher;
//! the Codex, Copilot CLI, Cursor and Antigravity CLI plugins in their own files.
//! Test-only: the tests below fail when a file in the repository differs from what the
//! plan gives, and `UPDATE_GOLDEN=1` rewrites them.

mod antigravity;
mod copilot;
mod cursor;

use serde_json::{Map, Value, json};

use crate::model::{EditKind, MCP_SERVER_NAME, SERVED_HOOK_TOOL, SetupPlan};

/// The marketplace's and the plugin's name (`claude plugin install context-mode@context-mode`).
pub const PLUGIN: &str = "context-mode";
/// The plugin's folder, from the repository root.
pub const PLUGIN_DIR: &str = "configs/claude-code/plugin";
/// Where Claude Code 2.1.332 finds a plugin's own files, with the launcher's path.
const LAUNCHER: &str = "${CLAUDE_PLUGIN_ROOT}/scripts/cm";
/// The first Claude Code release with `mcp_tool` hooks: the plan for it is the bundle's,
/// and the plugin says it needs it (`engines`).
pub const SINCE: &str = "2.1.197";

/// The server name Claude Code gives the plugin's MCP server.
pub fn plugin_server() -> String {
    format!("plugin:{PLUGIN}:{MCP_SERVER_NAME}")
}

/// Every generated file: (path from the repository root, contents).
pub fn render(plan: &SetupPlan, version: &str) -> Result<Vec<(String, String)>, String> {
    let edit = |kind: EditKind| {
        plan.edits
            .iter()
            .find(|e| e.kind == kind)
            .ok_or(format!("the plan has no {kind:?} edit"))
    };
    let parse = |text: &str| serde_json::from_str::<Value>(text).map_err(|e| e.to_string());
    let hooks = parse(&edit(EditKind::Hooks)?.content)?;
    let hooks = plugin_hooks(
        hooks.get("hooks").ok_or("the hooks edit has no hooks")?,
        plugin_handler,
    )?;
    let servers = parse(&edit(EditKind::McpServer)?.content)?;
    let server = servers["mcpServers"][MCP_SERVER_NAME].clone();
    let routing = &edit(EditKind::Instructions)?.content;
    let (marketplace, mut manifest) = listing("Claude's", "Claude Code", PLUGIN_DIR, version);
    manifest["engines"] = json!({"claude-code": format!(">={SINCE}")});
    let mcp = json!({"mcpServers": {MCP_SERVER_NAME: launcher_server_entry(&server, LAUNCHER)?}});
    let hooks = json!({
        "description": "context-mode's hooks, as `cm setup` writes them for Claude Code (generated from the claude-code adapter's setup plan)",
        "hooks": hooks,
    });
    let skill = routing_skill(routing);
    let pretty = |v: &Value| serde_json::to_string_pretty(v).map(|t| t + "\n");
    Ok(vec![
        (
            ".claude-plugin/marketplace.json".to_owned(),
            pretty(&marketplace).map_err(|e| e.to_string())?,
        ),
        (
            format!("{PLUGIN_DIR}/.claude-plugin/plugin.json"),
            pretty(&manifest).map_err(|e| e.to_string())?,
        ),
        (
            format!("{PLUGIN_DIR}/.mcp.json"),
            pretty(&mcp).map_err(|e| e.to_string())?,
        ),
        (
            format!("{PLUGIN_DIR}/hooks/hooks.json"),
            pretty(&hooks).map_err(|e| e.to_string())?,
        ),
        (format!("{PLUGIN_DIR}/skills/context-mode/SKILL.md"), skill),
    ])
}

/// A marketplace listing the one plugin at `dir`, and that plugin's manifest: the shape
/// Claude Code and Copilot CLI both read. `window` is whose context window it keeps
/// small (`Claude's`), `host` the agent's name.
fn listing(window: &str, host: &str, dir: &str, version: &str) -> (Value, Value) {
    let description = format!(
        "Keeps tool output out of {window} context window (ctx_* MCP tools, routing hooks) and rebuilds the working state after compaction."
    );
    let author = json!({"name": "context-mode"});
    let marketplace = json!({
        "name": PLUGIN,
        "description": format!("context-mode for {host}: the cm MCP server, its hooks and the routing skill"),
        "owner": author,
        "plugins": [{
            "name": PLUGIN,
            "source": format!("./{dir}"),
            "description": description,
            "version": version,
        }],
    });
    let manifest = json!({
        "name": PLUGIN,
        "version": version,
        "description": description,
        "author": author,
    });
    (marketplace, manifest)
}

/// The routing skill a plugin carries: the plan's routing text under the frontmatter
/// that names the skill and says when it applies.
fn routing_skill(routing: &str) -> String {
    format!(
        "---\nname: context-mode\ndescription: When to route tool output through context-mode's ctx_* tools (long shell output, file analysis, web pages, earlier output and session history).\n---\n\n{routing}"
    )
}

/// The Codex plugin's folder, from the repository root.
pub const CODEX_PLUGIN_DIR: &str = "configs/codex/plugin";
/// The Claude Code plugin's launcher, the one source of the Codex plugin's copy.
pub const LAUNCHER_FILE: &str = "configs/claude-code/plugin/scripts/cm";
/// Its Windows twin (ADR 43): cmd.exe runs it, and a host that resolves a command through
/// PATHEXT (cross-spawn, the `which` crate) takes it for `scripts/cm`.
pub const LAUNCHER_CMD_FILE: &str = "configs/claude-code/plugin/scripts/cm.cmd";
/// The plugin launchers a bundle copies: the POSIX `scripts/cm` and its `cm.cmd` twin.
pub struct Launchers {
    pub sh: String,
    pub cmd: String,
}

/// Where Codex 0.171.0 reads a marketplace first (before `.claude-plugin/marketplace.json`).
pub const CODEX_MARKETPLACE: &str = ".agents/plugins/marketplace.json";
/// The plugin's hooks file, relative to the plugin: part of the key Codex trusts its hooks by.
pub const CODEX_HOOKS: &str = "hooks/hooks.json";

/// The Codex plugin bundle: (path from the repository root, contents). `launcher` is the
/// Claude Code plugin's launcher, copied. Codex 0.171.0 sets `PLUGIN_ROOT` for a plugin's
/// hooks (and runs them through the shell), but substitutes nothing in an MCP entry and
/// passes it neither `PLUGIN_ROOT` nor the session's `PWD`; a relative `cwd` is resolved
/// against the plugin's folder, but a server started there works for that folder, not
/// the project. So the server entry runs the launcher where `codex plugin add` copies this
/// version of the plugin: `$CODEX_HOME/plugins/cache/<marketplace>/<plugin>/<version>/`.
pub fn render_codex(
    plan: &SetupPlan,
    version: &str,
    launcher: &str,
) -> Result<Vec<(String, String)>, String> {
    let edit = |kind: EditKind| {
        plan.edits
            .iter()
            .find(|e| e.kind == kind)
            .ok_or(format!("the plan has no {kind:?} edit"))
    };
    let hooks = plan_json(plan, EditKind::Hooks)?;
    let hooks = plugin_hooks(
        hooks.get("hooks").ok_or("the hooks edit has no hooks")?,
        codex_handler,
    )?;
    let server = codex_server(&edit(EditKind::McpServer)?.content, version)?;
    let description = "Keeps tool output out of Codex's context window (ctx_* MCP tools, routing hooks) and rebuilds the working state after compaction.";
    let marketplace = json!({
        "name": PLUGIN,
        "interface": {"displayName": "context-mode"},
        "plugins": [{
            "name": PLUGIN,
            "source": {"source": "local", "path": format!("./{CODEX_PLUGIN_DIR}")},
            "policy": {"installation": "AVAILABLE", "authentication": "ON_INSTALL"},
            "category": "Productivity",
        }],
    });
    let manifest = json!({
        "name": PLUGIN,
        "version": version,
        "description": description,
        "author": {"name": "context-mode"},
        "mcpServers": "./.mcp.json",
        "hooks": format!("./{CODEX_HOOKS}"),
    });
    let mcp = json!({"mcpServers": {MCP_SERVER_NAME: server}});
    let hooks = json!({"hooks": hooks});
    let pretty = |v: &Value| {
        serde_json::to_string_pretty(v)
            .map(|t| t + "\n")
            .map_err(|e| e.to_string())
    };
    Ok(vec![
        (CODEX_MARKETPLACE.to_owned(), pretty(&marketplace)?),
        (
            format!("{CODEX_PLUGIN_DIR}/.codex-plugin/plugin.json"),
            pretty(&manifest)?,
        ),
        (format!("{CODEX_PLUGIN_DIR}/.mcp.json"), pretty(&mcp)?),
        (format!("{CODEX_PLUGIN_DIR}/{CODEX_HOOKS}"), pretty(&hooks)?),
        (
            format!("{CODEX_PLUGIN_DIR}/scripts/cm"),
            launcher.to_owned(),
        ),
    ])
}

/// The codex plan's server (`mcp_servers = {"context-mode": {command = "cm", …}}`, TOML),
/// run by the launcher from the plugin's folder.
fn codex_server(content: &str, version: &str) -> Result<Value, String> {
    let table: toml::Table = toml::from_str(content).map_err(|e| e.to_string())?;
    let server = table
        .get("mcp_servers")
        .and_then(|s| s.get(MCP_SERVER_NAME))
        .ok_or("the plan registers no context-mode server")?;
    let server = serde_json::to_value(server).map_err(|e| e.to_string())?;
    if server["command"] != "cm" {
        return Err(format!("the plan's server does not run cm: {server}"));
    }
    let rest: Vec<&str> = server["args"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let script = format!(
        "exec sh \"${{CODEX_HOME:-$HOME/.codex}}/plugins/cache/{PLUGIN}/{PLUGIN}/{version}/scripts/cm\" {}",
        rest.join(" ")
    );
    let mut entry = server.as_object().cloned().unwrap_or_default();
    entry.insert("command".to_owned(), Value::from("sh"));
    entry.insert("args".to_owned(), json!(["-c", script]));
    entry.insert("env_vars".to_owned(), json!(["CODEX_HOME"]));
    Ok(Value::Object(entry))
}

/// A codex plan hook in plugin form: `cm …` runs the plugin's launcher (Codex sets
/// `PLUGIN_ROOT` for a plugin's hooks).
fn codex_handler(handler: &mut Value) -> Result<(), String> {
    let command = handler["command"].as_str().unwrap_or_default();
    let rest = command
        .strip_prefix("cm ")
        .ok_or(format!("a hook that is not `cm …`: {handler}"))?;
    handler["command"] = Value::from(format!("sh \"${{PLUGIN_ROOT}}/scripts/cm\" {rest}"));
    Ok(())
}

/// The plan's MCP server entry, its `cm` run by `sh launcher` (the Copilot CLI plugin's
/// copy of the launcher: Copilot's own spawn on Windows is not known, ADR 43).
fn plugin_server_entry(server: &Value, launcher: &str) -> Result<Value, String> {
    let mut entry = planned_server(server)?;
    let args: Vec<Value> = std::iter::once(Value::from(launcher))
        .chain(
            entry
                .get("args")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
        )
        .collect();
    entry.insert("command".to_owned(), Value::from("sh"));
    entry.insert("args".to_owned(), Value::Array(args));
    Ok(Value::Object(entry))
}

/// The plan's MCP server entry with `launcher` as its program, no `sh` (ADR 43): hosts that
/// spawn it through cross-spawn (Claude Code, Gemini CLI, Qwen Code) run the script by its
/// shebang on POSIX and, on Windows, resolve the extensionless name through PATHEXT to
/// `cm.cmd` beside it, which cmd.exe runs. `sh` is not on PATH with Git for Windows.
fn launcher_server_entry(server: &Value, launcher: &str) -> Result<Value, String> {
    let mut entry = planned_server(server)?;
    entry.insert("command".to_owned(), Value::from(launcher));
    Ok(Value::Object(entry))
}

/// The plan's server entry, which must run `cm`.
fn planned_server(server: &Value) -> Result<Map<String, Value>, String> {
    let entry = server
        .as_object()
        .cloned()
        .ok_or("the plan registers no context-mode server")?;
    if entry.get("command").and_then(Value::as_str) != Some("cm") {
        return Err(format!("the plan's server does not run cm: {server}"));
    }
    Ok(entry)
}

/// The plan's hooks with each handler in plugin form (`handler`; for Claude Code: a `cm …`
/// command runs the launcher, a served hook names the plugin's server).
fn plugin_hooks(
    hooks: &Value,
    handler: fn(&mut Value) -> Result<(), String>,
) -> Result<Value, String> {
    let mut out = Map::new();
    for (event, groups) in hooks.as_object().ok_or("hooks is not an object")? {
        let mut groups = groups.clone();
        for group in groups.as_array_mut().ok_or("an event's groups")? {
            for each in group["hooks"].as_array_mut().ok_or("a group's hooks")? {
                handler(each)?;
            }
        }
        out.insert(event.clone(), groups);
    }
    Ok(Value::Object(out))
}

fn plugin_handler(handler: &mut Value) -> Result<(), String> {
    match handler["type"].as_str() {
        Some("command") => {
            let command = handler["command"].as_str().unwrap_or_default();
            let rest = command
                .strip_prefix("cm ")
                .ok_or(format!("a hook command that is not `cm …`: {command}"))?;
            handler["command"] = Value::from(format!("sh \"{LAUNCHER}\" {rest}"));
        }
        Some("mcp_tool") if handler["server"] == MCP_SERVER_NAME => {
            if handler["tool"] != SERVED_HOOK_TOOL {
                return Err(format!("a served hook that is not ctx_hook: {handler}"));
            }
            handler["server"] = Value::from(plugin_server());
        }
        _ => return Err(format!("a hook the bundle cannot carry: {handler}")),
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The Gemini CLI extension (ADR 39): `gemini-extension.json` and `hooks/hooks.json` at the
// repository root, where `gemini extensions install <repo or checkout>` looks for them
// (0.61.0 reads both from the root of the clone or folder and copies that whole folder).
// The launcher is not copied: the extension runs the Claude Code plugin's `scripts/cm`
// through `${extensionPath}`, and the routing text is `configs/gemini-cli/context-mode.md`
// itself, the same file the gemini-cli adapter's plan writes (`contextFileName`).
// ---------------------------------------------------------------------------------------

/// The extension's name (`gemini extensions update|uninstall context-mode`).
pub const GEMINI_EXTENSION: &str = "context-mode";
/// The shared launcher as Gemini CLI and Qwen Code hydrate an extension's paths (`${/}`
/// is the separator).
const EXTENSION_LAUNCHER: &str =
    "${extensionPath}${/}configs${/}claude-code${/}plugin${/}scripts${/}cm";
/// The routing file the gemini-cli adapter writes, loaded as the extension's context file.
pub const GEMINI_CONTEXT_FILE: &str = "configs/gemini-cli/context-mode.md";

/// The extension's generated files: (path from the repository root, contents).
pub fn render_gemini(plan: &SetupPlan, version: &str) -> Result<Vec<(String, String)>, String> {
    let (manifest, hooks) = extension_manifest(plan, version, GEMINI_CONTEXT_FILE)?;
    let hooks = json!({
        "description": "context-mode's hooks, as `cm setup` writes them for Gemini CLI (generated from the gemini-cli adapter's setup plan)",
        "hooks": hooks,
    });
    Ok(vec![
        ("gemini-extension.json".to_owned(), pretty_json(&manifest)?),
        ("hooks/hooks.json".to_owned(), pretty_json(&hooks)?),
    ])
}

// The Qwen Code extension (ADR 39): `qwen-extension.json` at the repository root, which
// `qwen extensions install <repo>[:<plugin>]` 0.24.4 takes before a `gemini-extension.json`
// (converted, hooks/hooks.json then read as Qwen hooks) or `.claude-plugin/` (the
// `:<plugin>`). Its hooks are inline, so Qwen never reads the Gemini ones.

/// The routing file the qwen-code adapter writes, loaded as the extension's context file.
pub const QWEN_CONTEXT_FILE: &str = "configs/qwen-code/QWEN.md";

/// `qwen-extension.json`, from the qwen-code adapter's plan: (path, contents).
pub fn render_qwen(plan: &SetupPlan, version: &str) -> Result<(String, String), String> {
    let (mut manifest, hooks) = extension_manifest(plan, version, QWEN_CONTEXT_FILE)?;
    manifest["hooks"] = hooks;
    Ok(("qwen-extension.json".to_owned(), pretty_json(&manifest)?))
}

/// An extension manifest (name, version, the server through the launcher, the context
/// file) and the plan's hooks in extension form.
fn extension_manifest(
    plan: &SetupPlan,
    version: &str,
    context_file: &str,
) -> Result<(Value, Value), String> {
    let hooks = plan_json(plan, EditKind::Hooks)?;
    let hooks = plugin_hooks(
        hooks.get("hooks").ok_or("the hooks edit has no hooks")?,
        extension_handler,
    )?;
    let servers = plan_json(plan, EditKind::McpServer)?;
    let entry = launcher_server_entry(&servers["mcpServers"][MCP_SERVER_NAME], EXTENSION_LAUNCHER)?;
    let manifest = json!({
        "name": GEMINI_EXTENSION,
        "version": version,
        "description": "Keeps tool output out of the context window (ctx_* MCP tools, routing hooks) and rebuilds the working state after compression.",
        "mcpServers": {MCP_SERVER_NAME: entry},
        "contextFileName": context_file,
    });
    Ok((manifest, hooks))
}

fn pretty_json(value: &Value) -> Result<String, String> {
    serde_json::to_string_pretty(value)
        .map(|t| t + "\n")
        .map_err(|e| e.to_string())
}

/// The text of the plan's first `kind` edit.
fn plan_text(plan: &SetupPlan, kind: EditKind) -> Result<&str, String> {
    plan.edits
        .iter()
        .find(|e| e.kind == kind)
        .map(|e| e.content.as_str())
        .ok_or(format!("the plan has no {kind:?} edit"))
}

/// The JSON document of the plan's first `kind` edit.
fn plan_json(plan: &SetupPlan, kind: EditKind) -> Result<Value, String> {
    serde_json::from_str(plan_text(plan, kind)?).map_err(|e| e.to_string())
}

/// A plan hook in extension form: `cm …` runs the shared launcher.
fn extension_handler(handler: &mut Value) -> Result<(), String> {
    let command = handler["command"].as_str().unwrap_or_default();
    match (handler["type"].as_str(), command.strip_prefix("cm ")) {
        (Some("command"), Some(rest)) => {
            handler["command"] = Value::from(format!("sh \"{EXTENSION_LAUNCHER}\" {rest}"));
            Ok(())
        }
        _ => Err(format!("a hook the extension cannot carry: {handler}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::SetupInput;
    use crate::plugins::{Adapter, PluginEngine, PluginKind};
    use std::path::Path;

    fn adapter(id: &str) -> Adapter {
        let engine = PluginEngine::new(None).expect("engine");
        let builtin = crate::plugins::builtin(PluginKind::Adapter, id).expect("built in");
        let component = engine.load(builtin.bytes, builtin.sha256).expect("load");
        Adapter::instantiate(&engine, &component, &format!("adapter {id}")).expect("instantiate")
    }

    fn input() -> SetupInput {
        SetupInput {
            cm_command: "cm".into(),
            project_dir: None,
        }
    }

    fn plan_for(version: &str) -> SetupPlan {
        adapter("claude-code")
            .setup_plan_for_version(input(), version)
            .expect("plan")
    }

    pub(super) fn adapter_plan(id: &str, version: &str) -> SetupPlan {
        adapter(id)
            .setup_plan_for_version(input(), version)
            .expect("plan")
    }

    pub(super) fn repo() -> &'static Path {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("repository root")
    }

    /// The files that differ from `files` in the repository, or rewrites them all under
    /// `UPDATE_GOLDEN`.
    pub(super) fn stale_files(files: &[(String, String)]) -> Vec<String> {
        let update = std::env::var_os("UPDATE_GOLDEN").is_some();
        let mut stale = Vec::new();
        for (path, contents) in files {
            let at = repo().join(path);
            if update {
                std::fs::create_dir_all(at.parent().expect("parent")).expect("mkdir");
                std::fs::write(&at, contents).expect("write");
            } else if std::fs::read_to_string(&at).ok().as_deref() != Some(contents.as_str()) {
                stale.push(path.clone());
            }
        }
        stale
    }

    /// `render_codex`, `render_copilot`: (plan, version, launchers) to the bundle's files.
    type RenderWithLauncher =
        fn(&SetupPlan, &str, &Launchers) -> Result<Vec<(String, String)>, String>;

    /// The Claude Code plugin's launchers, as the repository has them.
    pub(super) fn launchers() -> Launchers {
        let read = |file: &str| std::fs::read_to_string(repo().join(file)).expect("launcher");
        Launchers {
            sh: read(LAUNCHER_FILE),
            cmd: read(LAUNCHER_CMD_FILE),
        }
    }

    /// A plugin bundle with the shared launcher copied in (`render` of the `id` adapter's
    /// plan for `version`), asserted equal to the repository's files (`UPDATE_GOLDEN=1`
    /// rewrites them) and carrying the plan's hook events; its files and hooks document.
    pub(super) fn launcher_bundle(
        id: &str,
        version: &str,
        render: RenderWithLauncher,
    ) -> (Vec<(String, String)>, Value) {
        let plan = adapter_plan(id, version);
        let files = render(&plan, env!("CARGO_PKG_VERSION"), &launchers()).expect("render");
        let stale = stale_files(&files);
        assert!(
            stale.is_empty(),
            "the {id} plugin bundle differs from the {id} adapter's setup plan (or its launcher from {LAUNCHER_FILE}) in {stale:?} (UPDATE_GOLDEN=1 cargo test -p cm --lib setup::bundle rewrites it)"
        );
        let (_, text) = files
            .iter()
            .find(|(path, _)| path.ends_with("hooks.json"))
            .expect("a hooks file");
        let hooks: Value = serde_json::from_str(text).expect("JSON");
        let planned = plan_json(&plan, EditKind::Hooks).expect("hooks edit");
        let events = |v: &Value| v.as_object().map(|m| m.keys().cloned().collect::<Vec<_>>());
        assert_eq!(events(&hooks["hooks"]), events(&planned["hooks"]));
        (files, hooks)
    }

    /// The Codex bundle in the repository is what the codex adapter's plan gives, its
    /// launcher the Claude Code plugin's, byte for byte; `UPDATE_GOLDEN=1` rewrites it.
    #[test]
    fn codex_bundle_is_the_adapters_setup_plan() {
        // Codex runs a plugin's hooks through cmd.exe on Windows and has no per-OS hook
        // field: its bundle carries only the POSIX launcher (ADR 43).
        let (_, hooks) = launcher_bundle("codex", "0.171.0", |plan, version, launchers| {
            render_codex(plan, version, &launchers.sh)
        });
        assert_eq!(
            hooks["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
            "sh \"${PLUGIN_ROOT}/scripts/cm\" hook codex pretooluse"
        );
    }

    /// The bundle in the repository is exactly what the adapter's plan gives; run with
    /// `UPDATE_GOLDEN=1` to rewrite it after the plan changed (and review the diff).
    #[test]
    fn claude_code_bundle_is_the_adapters_setup_plan() {
        let plan = plan_for(SINCE);
        let files = render(&plan, env!("CARGO_PKG_VERSION")).expect("render");
        let stale = stale_files(&files);
        assert!(
            stale.is_empty(),
            "the Claude Code plugin bundle differs from the claude-code adapter's setup plan in {stale:?} (UPDATE_GOLDEN=1 cargo test -p cm --lib setup::bundle rewrites it)"
        );
    }

    /// The bundle carries what `cm setup` writes for that version: served tool hooks on
    /// the plugin's server, every other event a launcher command, the same matchers.
    #[test]
    fn plugin_form_keeps_events_and_matchers_and_names_the_plugin_server() {
        let plan = plan_for(SINCE);
        let files = render(&plan, "0.0.0").expect("render");
        let file = |suffix: &str| -> Value {
            let (_, text) = files
                .iter()
                .find(|(p, _)| p.ends_with(suffix))
                .unwrap_or_else(|| panic!("no {suffix}"));
            serde_json::from_str(text).expect("JSON")
        };
        let hooks = file("hooks/hooks.json");
        let planned = plan_json(&plan, EditKind::Hooks).expect("hooks edit");
        let events = |v: &Value| v.as_object().map(|m| m.keys().cloned().collect::<Vec<_>>());
        assert_eq!(events(&hooks["hooks"]), events(&planned["hooks"]));
        for (event, groups) in planned["hooks"].as_object().expect("events") {
            assert_eq!(hooks["hooks"][event][0]["matcher"], groups[0]["matcher"]);
        }
        let pre = &hooks["hooks"]["PreToolUse"][0]["hooks"][0];
        let mcp = file(".mcp.json");
        // No `sh`: the launcher is the program, `cm.cmd` on Windows (ADR 43).
        assert_eq!(mcp["mcpServers"][MCP_SERVER_NAME]["command"], LAUNCHER);
        assert_eq!(mcp["mcpServers"][MCP_SERVER_NAME]["args"], json!(["serve"]));
        assert_eq!(pre["type"], "mcp_tool");
        assert_eq!(pre["server"], "plugin:context-mode:context-mode");
        assert_eq!(
            hooks["hooks"]["SessionStart"][0]["hooks"][0]["command"],
            "sh \"${CLAUDE_PLUGIN_ROOT}/scripts/cm\" hook claude-code sessionstart"
        );
        // An older plan (command hooks only) renders too, every hook through the launcher.
        let older = render(&plan_for("2.1.196"), "0.0.0").expect("render");
        assert!(!older.iter().any(|(_, text)| text.contains("mcp_tool")));
    }

    /// The Gemini CLI extension in the repository is what the gemini-cli adapter's plan
    /// gives (`UPDATE_GOLDEN=1` rewrites it), its launcher is the plugin's one file, and
    /// its context file is the routing text that plan writes.
    #[test]
    fn gemini_extension_is_the_adapters_setup_plan() {
        let plan = adapter("gemini-cli").setup_plan(input()).expect("plan");
        let files = render_gemini(&plan, env!("CARGO_PKG_VERSION")).expect("render");
        let stale = stale_files(&files);
        assert!(
            stale.is_empty(),
            "the Gemini CLI extension differs from the gemini-cli adapter's setup plan in {stale:?} (UPDATE_GOLDEN=1 cargo test -p cm --lib setup::bundle rewrites it)"
        );
        let launcher = EXTENSION_LAUNCHER
            .strip_prefix("${extensionPath}${/}")
            .expect("relative to the extension")
            .replace("${/}", "/");
        assert_eq!(launcher, format!("{PLUGIN_DIR}/scripts/cm"));
        assert!(repo().join(&launcher).is_file(), "{launcher} is missing");
        let routing = plan
            .edits
            .iter()
            .find(|e| e.kind == EditKind::Instructions && e.file.ends_with(".md"))
            .expect("the routing file edit");
        assert_eq!(
            std::fs::read_to_string(repo().join(GEMINI_CONTEXT_FILE)).expect("context file"),
            routing.content
        );
        let manifest: Value = serde_json::from_str(&files[0].1).expect("JSON");
        assert_eq!(manifest["contextFileName"], GEMINI_CONTEXT_FILE);
        assert_eq!(
            manifest["mcpServers"][MCP_SERVER_NAME]["command"],
            EXTENSION_LAUNCHER
        );
        assert_eq!(
            manifest["mcpServers"][MCP_SERVER_NAME]["args"],
            json!(["serve"])
        );
        let hooks: Value = serde_json::from_str(&files[1].1).expect("JSON");
        assert_eq!(
            hooks["hooks"]["BeforeTool"][0]["hooks"][0]["command"],
            format!("sh \"{EXTENSION_LAUNCHER}\" hook gemini-cli beforetool")
        );
    }

    /// The Windows launcher is the POSIX one's twin (ADR 43): beside it, so a host resolving
    /// `scripts/cm` through PATHEXT finds it; CRLF line ends (cmd reads labels and `goto`
    /// by lines); the same search (cm.exe on PATH, the npm platform package beside npm's
    /// `cm.cmd` shim or under `npm root -g`) and the same missing line. What it does is
    /// proven under Wine (`cargo test -p cm --test wine plugin_cmd_launcher`).
    #[test]
    fn cmd_launcher_twins_the_sh_launcher() {
        let Launchers { sh, cmd } = launchers();
        assert_eq!(
            Path::new(LAUNCHER_CMD_FILE).parent(),
            Path::new(LAUNCHER_FILE).parent()
        );
        assert!(
            cmd.split_inclusive('\n').all(|line| line.ends_with("\r\n")),
            "{LAUNCHER_CMD_FILE} has a line not ending in CRLF"
        );
        let missing_line = |text: &str, prefix: &str| {
            text.lines()
                .find_map(|line| line.trim_end().strip_prefix(prefix).map(str::to_owned))
                .expect("the missing line")
        };
        assert_eq!(
            missing_line(&sh, "missing=\""),
            missing_line(&cmd, "set \"missing=")
        );
        for part in [
            "(cm.exe) do set \"found=%%~$PATH:I\"",
            "(cm.cmd) do set \"shim=%%~$PATH:I\"",
            "'npm root -g 2^>nul'",
            "\\@context-mode\\cm-%platform%\\bin\\cm.exe",
            "\\context-mode\\node_modules\\@context-mode\\cm-%platform%\\bin\\cm.exe",
            "set \"platform=win32-x64\"",
            "\\hook-errors.log\"",
        ] {
            assert!(cmd.contains(part), "{LAUNCHER_CMD_FILE} lacks {part}");
        }
    }

    /// `qwen-extension.json` is what the qwen-code adapter's plan gives (`UPDATE_GOLDEN=1`
    /// rewrites it), and its context file is the routing text that plan writes.
    #[test]
    fn qwen_extension_is_the_adapters_setup_plan() {
        let plan = adapter("qwen-code").setup_plan(input()).expect("plan");
        let file = render_qwen(&plan, env!("CARGO_PKG_VERSION")).expect("render");
        let stale = stale_files(std::slice::from_ref(&file));
        assert!(
            stale.is_empty(),
            "qwen-extension.json differs from the qwen-code adapter's setup plan (UPDATE_GOLDEN=1 cargo test -p cm --lib setup::bundle rewrites it)"
        );
        let routing = plan
            .edits
            .iter()
            .find(|e| e.kind == EditKind::Instructions)
            .expect("the routing edit");
        let text = std::fs::read_to_string(repo().join(QWEN_CONTEXT_FILE)).expect("context file");
        assert!(
            routing.content.contains(text.trim()),
            "{QWEN_CONTEXT_FILE} is not the plan's routing text"
        );
        let manifest: Value = serde_json::from_str(&file.1).expect("JSON");
        assert_eq!(
            manifest["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
            format!("sh \"{EXTENSION_LAUNCHER}\" hook qwen-code pretooluse")
        );
    }
}
