//! `cm setup` for OpenClaw, driven like a user would: a temp HOME holding the user's own
//! `openclaw.json` (a comment, a provider, another plugin, another MCP server), the real
//! `cm`, the files compared before, after, on a second run and after `--remove`, and
//! `cm doctor`'s rows. Then the plugin setup wrote is run in Node the way OpenClaw calls
//! it (register, then each hook handler): what it hands `cm` reaches the real `cm hook
//! openclaw`, the reply comes back as the hook's result, and every failure of `cm` (not
//! there, crashing, hanging, answering garbage) leaves the hook returning nothing with
//! one log line. That OpenClaw itself loads the plugin is `tests/e2e/openclaw.rs`.

use crate::common;
use crate::common::setup_files::{Round, assert_serve, cm_path, jsonc, read, stdout, write};

use std::path::Path;
use std::process::Command;

use common::Sandbox;
use serde_json::{Value, json};

const USER_CONFIG: &str = r#"{
  // OpenClaw reads JSON5; the user's comments stay.
  "models": {"providers": {"local": {"baseUrl": "http://127.0.0.1:11434/v1", "api": "openai-completions"}}},
  "plugins": {"entries": {"voice-call": {"enabled": true, "config": {"provider": "twilio"}}}},
  "mcp": {"servers": {"docs": {"url": "https://mcp.example.com/mcp", "transport": "streamable-http"}}}
}
"#;

fn plugin_files(state: &Path) -> Vec<std::path::PathBuf> {
    let dir = state.join("extensions/context-mode");
    ["package.json", "openclaw.plugin.json", "index.js"]
        .iter()
        .map(|name| dir.join(name))
        .collect()
}

fn doctor_statuses(sandbox: &Sandbox, env: &[(&str, &Path)]) -> Vec<(String, String)> {
    let mut command = sandbox.cm();
    command
        .env("CONTEXT_MODE_DOCTOR_BUDGET_MS", "60000")
        .args(["doctor", "--json", "--agents", "openclaw"]);
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
            let name = row["name"].as_str()?.strip_prefix("openclaw ")?;
            Some((name.to_owned(), row["status"].as_str()?.to_owned()))
        })
        .collect()
}

#[test]
fn openclaw_gets_the_plugin_and_the_server_and_keeps_the_users_config() {
    let sandbox = Sandbox::new();
    let state = sandbox.home.join(".openclaw");
    let config = state.join("openclaw.json");
    let agents_md = state.join("workspace/AGENTS.md");
    write(&config, USER_CONFIG);
    let mut files = vec![(config.clone(), Some(USER_CONFIG.to_owned()))];
    files.extend(plugin_files(&state).into_iter().map(|p| (p, None)));
    files.push((agents_md.clone(), None));
    let round = Round {
        sandbox: &sandbox,
        env: Vec::new(),
        display: "OpenClaw (openclaw)",
        files,
    };
    // Detected from ~/.openclaw: no --agents.
    round.apply(&["--routing"]);

    assert!(read(&config).contains("// OpenClaw reads JSON5"));
    let doc = jsonc(&config);
    assert_eq!(
        doc["models"]["providers"]["local"]["api"],
        "openai-completions"
    );
    assert_eq!(
        doc["plugins"]["entries"]["voice-call"]["config"]["provider"],
        "twilio"
    );
    assert_eq!(
        doc["mcp"]["servers"]["docs"]["transport"],
        "streamable-http"
    );
    assert_serve(&doc["mcp"]["servers"]["context-mode"]);
    assert_eq!(
        doc["plugins"]["entries"]["context-mode"],
        json!({"enabled": true, "hooks": {"allowConversationAccess": true}})
    );
    // An allowlist would switch off every plugin the user did not list.
    assert!(doc["plugins"].get("allow").is_none());

    let [package, manifest, shim] = <[_; 3]>::try_from(plugin_files(&state)).unwrap();
    assert_eq!(
        jsonc(&package)["openclaw"]["extensions"],
        json!(["./index.js"])
    );
    assert_eq!(jsonc(&manifest)["id"], "context-mode");
    let literal = serde_json::to_string(&cm_path()).unwrap();
    assert!(read(&shim).contains(&format!("const CM_COMMAND = {literal};")));
    assert!(read(&agents_md).contains("context-mode__ctx_execute"));

    let rows = doctor_statuses(&sandbox, &[]);
    for name in ["mcp-server", "hooks"] {
        assert!(
            rows.iter().any(|(n, s)| n == name && s == "PASS"),
            "openclaw {name} not PASS: {rows:?}"
        );
    }
    round.second_run_changes_nothing(&["--routing"]);
    round.remove_restores_everything();
}

#[test]
fn openclaw_state_dir_moves_config_and_plugin() {
    let sandbox = Sandbox::new();
    let state = sandbox.home.join("srv/openclaw-state");
    std::fs::create_dir_all(&state).unwrap();
    let env = vec![("OPENCLAW_STATE_DIR", state.as_path())];
    let mut files = vec![(state.join("openclaw.json"), None)];
    files.extend(plugin_files(&state).into_iter().map(|p| (p, None)));
    let round = Round {
        sandbox: &sandbox,
        env: env.clone(),
        display: "OpenClaw (openclaw)",
        files,
    };
    round.apply(&[]);
    assert!(!sandbox.home.join(".openclaw").exists());
    let rows = doctor_statuses(&sandbox, &env);
    assert!(
        rows.iter().any(|(n, s)| n == "hooks" && s == "PASS"),
        "{rows:?}"
    );
    round.second_run_changes_nothing(&[]);
    round.remove_restores_everything();
}

/// Runs the plugin setup wrote in Node: `register(api)` with an `api` recording what it
/// registers and logs, then `calls` (`[hook, event, ctx]`) through the handlers, in
/// order; prints `{registered, results, logs}` as JSON.
const DRIVER: &str = r#"
const [shim, callsJson] = process.argv.slice(2);
const plugin = (await import(shim)).default;
const handlers = new Map(), internal = new Map(), logs = [];
const log = (line) => logs.push(String(line));
const api = {
  logger: { warn: log, info: log },
  on: (name, handler) => handlers.set(name, handler),
  registerHook: (name, handler, options) => internal.set(name, { handler, options }),
};
const back = plugin.register(api);
const results = [];
for (const [hook, event, ctx] of JSON.parse(callsJson)) {
  const handler = handlers.get(hook) ?? internal.get(hook)?.handler;
  results.push((await handler(event, ctx)) ?? null);
}
console.log(JSON.stringify({
  id: plugin.id, sync: back === undefined, typed: [...handlers.keys()],
  internal: [...internal.keys()], results, logs,
}));
"#;

fn node_available() -> bool {
    Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Drives the installed shim with `calls`, `cm` being `cm_command` (written into the
/// shim the way setup writes it).
fn drive(sandbox: &Sandbox, cm_command: &str, calls: Value) -> Value {
    let state = sandbox.home.join(".openclaw");
    setup_for_the_driver(sandbox);
    let shim = state.join("extensions/context-mode/index.js");
    let text = read(&shim).replace(
        &format!(
            "const CM_COMMAND = {};",
            serde_json::to_string(&cm_path()).unwrap()
        ),
        &format!(
            "const CM_COMMAND = {};",
            serde_json::to_string(cm_command).unwrap()
        ),
    );
    let driven = sandbox.home.join("driven-shim.mjs");
    write(&driven, &text);
    let script = sandbox.home.join("driver.mjs");
    write(&script, DRIVER);
    let out = Command::new("node")
        .arg(&script)
        .arg(&driven)
        .arg(calls.to_string())
        .env("HOME", &sandbox.home)
        .env("CONTEXT_MODE_DIR", &sandbox.root)
        .current_dir(&sandbox.project)
        .output()
        .expect("node");
    assert!(
        out.status.success(),
        "node: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout(&out).trim())
        .unwrap_or_else(|e| panic!("the driver's stdout ({e}): {}", stdout(&out)))
}

fn setup_for_the_driver(sandbox: &Sandbox) {
    if sandbox
        .home
        .join(".openclaw/extensions/context-mode/index.js")
        .is_file()
    {
        return;
    }
    let out = sandbox
        .cm()
        .args(["setup", "--agents", "openclaw", "--yes"])
        .output()
        .expect("cm setup");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn curl_call(project: &Path) -> Value {
    json!(["before_tool_call",
        {"toolName": "exec", "params": {"command": "curl -s https://example.com/api/items"}, "toolCallId": "call_0"},
        {"sessionKey": "agent:main:main", "sessionId": "s-1", "toolName": "exec",
         "abortSignal": {}, "requester": {"senderIsOwner": true}, "workspaceDir": project}])
}

#[test]
fn the_plugin_hands_events_to_cm_and_returns_its_replies() {
    if !node_available() {
        panic!("this test runs OpenClaw's plugin in Node, which is not on PATH");
    }
    let sandbox = Sandbox::new();
    let _server = sandbox.live_server();
    let prompt_ctx = json!({"sessionKey": "agent:main:main", "sessionId": "s-1",
                            "workspaceDir": sandbox.project, "hookInvocation": {}});
    let out = drive(
        &sandbox,
        &cm_path(),
        json!([
            ["before_prompt_build", {"prompt": "Fetch the page", "messages": []}, prompt_ctx],
            curl_call(&sandbox.project),
            ["before_tool_call", {"toolName": "exec", "params": {"command": "git status"}},
             {"sessionKey": "agent:main:main"}],
            ["after_tool_call", {"toolName": "exec", "params": {"command": "git status"},
              "result": {"content": [{"type": "text", "text": "clean"}], "details": {"exitCode": 0}}},
             {"sessionKey": "agent:main:main"}],
            ["command:new", {"type": "command", "action": "new", "sessionKey": "agent:main:main",
              "context": {"workspaceDir": sandbox.project, "cfg": {"secret": "never sent"}}, "messages": []}],
        ]),
    );
    assert_eq!(out["id"], "context-mode");
    assert_eq!(out["sync"], true, "register() must not return a promise");
    for hook in [
        "before_tool_call",
        "after_tool_call",
        "before_prompt_build",
        "session_start",
        "before_compaction",
        "after_compaction",
    ] {
        assert!(
            out["typed"].as_array().unwrap().contains(&json!(hook)),
            "{out}"
        );
    }
    assert_eq!(out["internal"], json!(["command:new"]));
    let results = out["results"].as_array().unwrap();
    // The session's first prompt: the routing block, from the session_start it stands for.
    let context = results[0]["prependContext"].as_str().unwrap_or_default();
    assert!(context.contains("context-mode is active"), "{out}");
    assert!(context.contains("context-mode__ctx_execute"), "{out}");
    assert_eq!(results[1]["block"], true, "{out}");
    let reason = results[1]["blockReason"].as_str().unwrap();
    assert!(
        reason.contains("redirected to context-mode__ctx_"),
        "{reason}"
    );
    assert_eq!(results[2], Value::Null, "{out}");
    assert_eq!(results[3], Value::Null, "{out}");
    assert_eq!(results[4], Value::Null, "{out}");
    assert_eq!(out["logs"], json!([]), "{out}");
    assert!(
        sandbox.hook_errors().is_empty(),
        "{:?}",
        sandbox.hook_errors()
    );
}

#[test]
fn the_plugin_fails_open_with_one_log_line() {
    if !node_available() {
        panic!("this test runs OpenClaw's plugin in Node, which is not on PATH");
    }
    let sandbox = Sandbox::new();
    let scripts = sandbox.home.join("fake");
    let fake = |name: &str, body: &str| {
        let path = scripts.join(name);
        write(&path, &format!("#!/bin/sh\n{body}\n"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        path.display().to_string()
    };
    let cases = [
        (
            "missing",
            scripts.join("no-such-cm").display().to_string(),
            "cannot run",
        ),
        (
            "crash",
            fake("crash", "cat >/dev/null; echo boom >&2; exit 3"),
            "exited with 3",
        ),
        (
            "garbage",
            fake("garbage", "cat >/dev/null; echo 'not json {'"),
            "not JSON",
        ),
        (
            "array",
            fake("array", "cat >/dev/null; echo '[1]'"),
            "not an object",
        ),
    ];
    for (label, cm, says) in cases {
        let out = drive(&sandbox, &cm, json!([curl_call(&sandbox.project)]));
        assert_eq!(out["results"], json!([null]), "{label}: {out}");
        let logs = out["logs"].as_array().unwrap();
        assert_eq!(logs.len(), 1, "{label}: {out}");
        let line = logs[0].as_str().unwrap();
        assert!(
            line.contains(says) && line.contains("before_tool_call"),
            "{label}: {line}"
        );
        assert!(!line.contains('\n'), "{label}: {line}");
    }
}
