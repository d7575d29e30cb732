//! `cm setup` for OpenCode and KiloCode, driven like a user would: a temp HOME holding
//! the user's own config (a provider, another MCP server, a comment), the real `cm`, the
//! files compared before, after, on a second run and after `--remove`, and `cm doctor`'s
//! rows. Then the plugin setup installed is loaded the way both hosts load it (an ES
//! module whose export gets the plugin context) under Node, and its hooks are called
//! with the hosts' argument shapes: the real `cm` answers, and a `cm` that is missing
//! or fails leaves the event untouched with one log line. tests/e2e runs the same
//! plugin inside the real OpenCode and KiloCode.

use crate::common;
use crate::common::setup_files::{Round, cm_path, jsonc, read, write};

use std::path::{Path, PathBuf};

use common::Sandbox;
use serde_json::{Value, json};

const OPENCODE_CONFIG: &str = r#"{
  // The user's own provider and servers.
  "$schema": "https://opencode.ai/config.json",
  "model": "anthropic/claude-sonnet-4-5",
  "mcp": {
    "github": {"type": "remote", "url": "https://api.githubcopilot.com/mcp/"}
  }
}
"#;

const KILO_CONFIG: &str = r#"{
  "$schema": "https://app.kilo.ai/config.json",
  "permission": {"bash": "allow"}
}
"#;

/// `cm doctor --json --agents <id>`: each of the host's rows with its status.
fn doctor_rows(sandbox: &Sandbox, env: &[(&str, &Path)], id: &str) -> Vec<(String, String)> {
    let mut command = sandbox.cm();
    command
        .env("CONTEXT_MODE_DOCTOR_BUDGET_MS", "60000")
        .args(["doctor", "--json", "--agents", id]);
    for (name, value) in env {
        command.env(name, value);
    }
    let out = command.output().expect("cm doctor");
    let report: Value = serde_json::from_slice(&out.stdout).expect("doctor json");
    report["checks"]
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|row| {
            let name = row["name"].as_str()?;
            name.starts_with(&format!("{id} ")).then(|| {
                (
                    name.to_owned(),
                    row["status"].as_str().unwrap_or_default().to_owned(),
                )
            })
        })
        .collect()
}

fn assert_registered(config: &Value, plugin: &Path, platform: &str) {
    assert_eq!(
        config["mcp"]["context-mode"],
        json!({"type": "local", "command": [cm_path(), "serve"], "enabled": true}),
        "{config}"
    );
    let shim = read(plugin);
    assert!(
        shim.contains(&format!("const CM = {};", json!(cm_path()))),
        "{shim}"
    );
    assert!(shim.contains(&format!("const PLATFORM = \"{platform}\";")));
    assert!(!shim.contains("__CM_"), "placeholders left in the plugin");
}

#[test]
fn opencode_gets_an_mcp_entry_and_its_plugin_beside_the_users_config() {
    let sandbox = Sandbox::new();
    let dir = sandbox.home.join(".config/opencode");
    let config = dir.join("opencode.json");
    let plugin = dir.join("plugins/context-mode.js");
    let agents_md = dir.join("AGENTS.md");
    write(&config, OPENCODE_CONFIG);
    let round = Round {
        sandbox: &sandbox,
        env: Vec::new(),
        display: "OpenCode (opencode)",
        files: vec![
            (config.clone(), Some(OPENCODE_CONFIG.to_owned())),
            (plugin.clone(), None),
            (agents_md.clone(), None),
        ],
    };
    round.apply(&["--agents", "opencode", "--routing"]);

    let text = read(&config);
    assert!(
        text.contains("// The user's own provider and servers."),
        "{text}"
    );
    let doc = jsonc(&config);
    assert_eq!(doc["model"], "anthropic/claude-sonnet-4-5");
    assert_eq!(doc["mcp"]["github"]["type"], "remote");
    assert_registered(&doc, &plugin, "opencode");
    assert!(read(&agents_md).contains("context-mode_ctx_execute"));
    let rows = doctor_rows(&sandbox, &[], "opencode");
    for name in ["opencode mcp-server", "opencode hooks"] {
        assert!(
            rows.iter().any(|(n, s)| n == name && s == "PASS"),
            "{name} not PASS: {rows:?}"
        );
    }

    round.second_run_changes_nothing(&["--agents", "opencode", "--routing"]);
    round.remove_restores_everything();
}

#[test]
fn kilocode_follows_xdg_config_home() {
    let sandbox = Sandbox::new();
    let xdg = sandbox.home.join("xdg");
    let config = xdg.join("kilo/kilo.json");
    let plugin = xdg.join("kilo/plugins/context-mode.js");
    write(&config, KILO_CONFIG);
    let env = vec![("XDG_CONFIG_HOME", xdg.as_path())];
    let round = Round {
        sandbox: &sandbox,
        env: env.clone(),
        display: "KiloCode (kilo)",
        files: vec![
            (config.clone(), Some(KILO_CONFIG.to_owned())),
            (plugin.clone(), None),
        ],
    };
    round.apply(&["--agents", "kilo"]);
    assert!(!sandbox.home.join(".config/kilo").exists());
    let doc = jsonc(&config);
    assert_eq!(doc["permission"]["bash"], "allow");
    assert_registered(&doc, &plugin, "kilo");
    let rows = doctor_rows(&sandbox, &env, "kilo");
    assert!(
        rows.iter().any(|(n, s)| n == "kilo hooks" && s == "PASS"),
        "{rows:?}"
    );
    round.second_run_changes_nothing(&["--agents", "kilo"]);
    round.remove_restores_everything();
}

/// Loads a plugin file the way OpenCode does (import, call the export with the plugin
/// context) and calls its hooks with the arguments OpenCode passes; prints what the
/// hooks left in their `output` arguments, what they threw and what they logged.
const DRIVER: &str = r#"
import { pathToFileURL } from "node:url";
const [plugin, project] = process.argv.slice(2);
const logs = [];
const mod = await import(pathToFileURL(plugin).href);
const hooks = await mod.ContextMode({
  directory: project,
  worktree: "/",
  client: { app: { log: async ({ body }) => { logs.push(body); return true; } } },
});
const session = { sessionID: "ses_it_shim" };
const out = { hooks: Object.keys(hooks).sort() };
const system = { system: ["You are opencode."] };
await hooks["experimental.chat.system.transform"]({ ...session, model: { id: "m" } }, system);
out.system = system.system;
const curl = { args: { command: "curl -s https://example.com/data.json", description: "fetch" } };
try {
  await hooks["tool.execute.before"]({ ...session, tool: "bash", callID: "c1" }, curl);
  out.curl = { ran: curl.args };
} catch (err) {
  out.curl = { threw: err.message };
}
const status = { args: { command: "git status", description: "status" } };
await hooks["tool.execute.before"]({ ...session, tool: "bash", callID: "c2" }, status);
out.status = status.args;
const result = { title: "ls", output: "a\nb\n", metadata: { exit: 0 } };
await hooks["tool.execute.after"]({ ...session, tool: "bash", callID: "c2", args: status.args }, result);
out.after = result.output;
const message = { message: { role: "user" }, parts: [{ type: "text", text: "list the files" }] };
await hooks["chat.message"]({ ...session, agent: "build" }, message);
out.parts = message.parts.length;
out.logs = logs;
process.stdout.write(JSON.stringify(out));
"#;

fn node() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("node"))
        .find(|candidate| candidate.is_file())
}

/// Runs the driver on `plugin` under Node, in the sandbox's environment.
fn drive(sandbox: &Sandbox, node: &Path, plugin: &Path) -> Value {
    let driver = sandbox.root.join("drive-plugin.mjs");
    std::fs::write(&driver, DRIVER).expect("write driver");
    let out = sandbox
        .command(node)
        .arg(&driver)
        .arg(plugin)
        .arg(&sandbox.project)
        .output()
        .expect("run node");
    assert!(
        out.status.success(),
        "driver failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "driver printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

#[test]
fn the_installed_plugin_carries_events_to_cm_and_fails_open() {
    let Some(node) = node() else {
        eprintln!("skipped: no node on PATH to load the plugin with");
        return;
    };
    let sandbox = Sandbox::new();
    let out = sandbox
        .cm()
        .args(["setup", "--agents", "opencode", "--yes"])
        .output()
        .expect("cm setup");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plugin = sandbox
        .home
        .join(".config/opencode/plugins/context-mode.js");
    let _server = sandbox.live_server();

    let seen = drive(&sandbox, &node, &plugin);
    assert_eq!(
        seen["hooks"],
        json!([
            "chat.message",
            "experimental.chat.system.transform",
            "experimental.session.compacting",
            "tool.execute.after",
            "tool.execute.before"
        ])
    );
    let system = seen["system"].as_array().expect("system entries");
    assert_eq!(system.len(), 2, "{system:?}");
    assert!(
        system[1].as_str().is_some_and(
            |s| s.contains("context-mode is active") && s.contains("context-mode_ctx_")
        ),
        "{system:?}"
    );
    let threw = seen["curl"]["threw"]
        .as_str()
        .expect("curl must be stopped");
    assert!(
        threw.contains("redirected to context-mode_ctx_") && !threw.contains('\n'),
        "{threw}"
    );
    assert_eq!(seen["status"]["command"], "git status");
    assert_eq!(seen["after"], "a\nb\n");
    assert_eq!(seen["parts"], 1);
    assert_eq!(seen["logs"], json!([]));
    assert!(
        sandbox.hook_errors().is_empty(),
        "{:?}",
        sandbox.hook_errors()
    );

    // A cm that is gone, and one that fails: every event proceeds untouched, and each
    // says so in one line of the host's log.
    let text = read(&plugin);
    for (label, cm) in [("missing", "/nonexistent/cm"), ("failing", "/bin/false")] {
        let broken = sandbox.root.join(format!("{label}.js"));
        let replaced = text.replace(
            &format!("const CM = {};", json!(cm_path())),
            &format!("const CM = {};", json!(cm)),
        );
        assert_ne!(replaced, text);
        std::fs::write(&broken, replaced).expect("write broken plugin");
        let seen = drive(&sandbox, &node, &broken);
        assert_eq!(seen["system"], json!(["You are opencode."]), "{label}");
        assert_eq!(
            seen["curl"]["ran"]["command"], "curl -s https://example.com/data.json",
            "{label}"
        );
        assert_eq!(seen["after"], "a\nb\n", "{label}");
        let logs = seen["logs"].as_array().expect("logs");
        assert_eq!(logs.len(), 5, "{label}: one line per event: {logs:?}");
        for entry in logs {
            let message = entry["message"].as_str().unwrap_or_default();
            assert!(
                message.starts_with("context-mode: ") && !message.contains('\n'),
                "{label}: {entry}"
            );
            assert_eq!(entry["level"], "warn");
        }
    }
}
