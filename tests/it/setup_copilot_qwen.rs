//! `cm setup` for GitHub Copilot CLI and Qwen Code, driven like a user would: a temp
//! HOME (or `COPILOT_HOME`) holding the user's own config, the real `cm`, the files
//! compared after setup, on a second run and after `--remove`, and `cm doctor`'s rows.
//! Plus the one Copilot CLI reply no golden can pin (its digest names the time): a
//! large result of another MCP server comes back as a `modifiedResult`.

use crate::common;
use crate::common::setup_files::{assert_ours_once, cm_path, hook_command, jsonc, read, write};

use std::path::{Path, PathBuf};
use std::process::Output;

use common::Sandbox;
use serde_json::{Value, json};

const COPILOT_MCP: &str = r#"{
  "mcpServers": {
    "playwright": {
      "type": "local",
      "command": "npx",
      "args": ["@playwright/mcp@latest"],
      "tools": ["*"]
    }
  }
}
"#;

/// A hook file of the user's own, next to ours: setup never touches it.
const COPILOT_USER_HOOKS: &str = r#"{
  "version": 1,
  "hooks": {
    "sessionEnd": [{"type": "command", "bash": "./log-session.sh"}]
  }
}
"#;

const USER_INSTRUCTIONS: &str = "# My Copilot rules\n\nPrefer small commits.\n";

const QWEN_SETTINGS: &str = r#"{
  // Picked in /theme.
  "ui": {"theme": "Qwen Dark"},
  "mcpServers": {
    // The user's own server stays first.
    "github": {"command": "gh-mcp", "args": ["--stdio"]}
  },
  "hooks": {
    "PreToolUse": [
      {"matcher": "^write_file$", "hooks": [{"type": "command", "command": "./guard.sh"}]}
    ]
  }
}
"#;

const USER_QWEN_MD: &str = "# Team rules\n\nRun `make check` before every commit.\n";

const COPILOT_EVENTS: [(&str, &str); 7] = [
    ("preToolUse", "pretooluse"),
    ("postToolUse", "posttooluse"),
    ("postToolUseFailure", "posttoolusefailure"),
    ("userPromptSubmitted", "userpromptsubmit"),
    ("preCompact", "precompact"),
    ("sessionStart", "sessionstart"),
    ("agentStop", "stop"),
];

const QWEN_EVENTS: [(&str, &str); 7] = [
    ("PreToolUse", "pretooluse"),
    ("PostToolUse", "posttooluse"),
    ("PostToolUseFailure", "posttoolusefailure"),
    ("UserPromptSubmit", "userpromptsubmit"),
    ("PreCompact", "precompact"),
    ("SessionStart", "sessionstart"),
    ("Stop", "stop"),
];

fn run(sandbox: &Sandbox, env: &[(&str, &Path)], args: &[&str]) -> Output {
    let mut command = sandbox.cm();
    command.args(args);
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("run cm")
}

fn setup(sandbox: &Sandbox, env: &[(&str, &Path)], args: &[&str]) -> String {
    let mut all = vec!["setup"];
    all.extend_from_slice(args);
    let out = run(sandbox, env, &all);
    assert!(
        out.status.success(),
        "cm setup {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Applies (already done by the caller), checks a second run changes nothing, removes,
/// and checks every file is back to its original bytes or gone.
fn second_run_then_remove(
    sandbox: &Sandbox,
    env: &[(&str, &Path)],
    args: &[&str],
    display: &str,
    files: &[(PathBuf, Option<&str>)],
) {
    let before: Vec<String> = files.iter().map(|(p, _)| read(p)).collect();
    let out = setup(sandbox, env, args);
    assert!(out.contains(&format!("{display}: no changes")), "{out}");
    let after: Vec<String> = files.iter().map(|(p, _)| read(p)).collect();
    assert_eq!(before, after);

    let out = setup(sandbox, env, &["--remove"]);
    assert!(out.contains("removed context-mode from"), "{out}");
    for (path, original) in files {
        match original {
            Some(text) => assert_eq!(&read(path), text, "{}", path.display()),
            None => assert!(!path.exists(), "{} is still there", path.display()),
        }
    }
}

/// `cm doctor --json --agents <id>`: the status of each of the agent's rows by name.
fn doctor_rows(sandbox: &Sandbox, env: &[(&str, &Path)], id: &str) -> Vec<(String, String)> {
    let out = run(sandbox, env, &["doctor", "--json", "--agents", id]);
    let report: Value = serde_json::from_slice(&out.stdout).expect("doctor json");
    report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|row| row["name"].as_str().is_some_and(|n| n.starts_with(id)))
        .map(|row| {
            (
                row["name"].as_str().unwrap_or_default().to_owned(),
                row["status"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn assert_doctor_passes(sandbox: &Sandbox, env: &[(&str, &Path)], id: &str) {
    let rows = doctor_rows(sandbox, env, id);
    for kind in ["mcp-server", "hooks"] {
        let name = format!("{id} {kind}");
        assert!(
            rows.iter().any(|(n, s)| *n == name && s == "PASS"),
            "{name}: {rows:?}"
        );
    }
}

#[test]
fn copilot_cli_under_copilot_home_keeps_the_users_servers_hooks_and_instructions() {
    let sandbox = Sandbox::new();
    let moved = sandbox.home.join("elsewhere/copilot");
    let mcp = moved.join("mcp-config.json");
    let user_hooks = moved.join("hooks/mine.json");
    let ours = moved.join("hooks/context-mode.json");
    let instructions = moved.join("copilot-instructions.md");
    write(&mcp, COPILOT_MCP);
    write(&user_hooks, COPILOT_USER_HOOKS);
    write(&instructions, USER_INSTRUCTIONS);
    let env = [("COPILOT_HOME", moved.as_path())];

    // Detected from $COPILOT_HOME/mcp-config.json: no --agents, and no ~/.copilot.
    let out = setup(&sandbox, &env, &["--routing"]);
    assert!(out.contains("GitHub Copilot CLI: registered"), "{out}");
    assert!(!sandbox.home.join(".copilot").exists());

    let servers = jsonc(&mcp);
    assert_eq!(
        servers["mcpServers"]["playwright"]["args"],
        json!(["@playwright/mcp@latest"])
    );
    let server = &servers["mcpServers"]["context-mode"];
    assert_eq!(server["type"], "local");
    assert_eq!(server["command"], cm_path());
    assert_eq!(server["args"], json!(["serve"]));
    assert_eq!(server["tools"], json!(["*"]));
    assert_eq!(server["env"]["CONTEXT_MODE_PLATFORM"], "copilot-cli");

    let doc = jsonc(&ours);
    assert_eq!(doc["version"], 1);
    for (event, cli) in COPILOT_EVENTS {
        assert_ours_once(&doc["hooks"], event, &hook_command("copilot-cli", cli));
        assert_eq!(doc["hooks"][event][0]["type"], "command", "{event}");
    }
    assert_eq!(read(&user_hooks), COPILOT_USER_HOOKS);
    let text = read(&instructions);
    assert!(text.starts_with(USER_INSTRUCTIONS), "{text}");
    assert!(text.contains("context-mode-ctx_execute"), "{text}");

    assert_doctor_passes(&sandbox, &env, "copilot-cli");
    second_run_then_remove(
        &sandbox,
        &env,
        &["--routing"],
        "GitHub Copilot CLI (copilot-cli)",
        &[
            (mcp, Some(COPILOT_MCP)),
            (user_hooks, Some(COPILOT_USER_HOOKS)),
            (ours, None),
            (instructions, Some(USER_INSTRUCTIONS)),
        ],
    );
}

#[test]
fn copilot_cli_project_instructions_go_to_github_copilot_instructions() {
    let sandbox = Sandbox::new();
    let project = sandbox.project.to_str().unwrap().to_owned();
    let args = [
        "--agents",
        "copilot-cli",
        "--project",
        &project,
        "--routing",
    ];
    let out = setup(&sandbox, &[], &args);
    assert!(out.contains("registered"), "{out}");
    let copilot = sandbox.home.join(".copilot");
    let instructions = sandbox.project.join(".github/copilot-instructions.md");
    assert!(read(&instructions).contains("context-mode-ctx_search"));
    assert!(!copilot.join("copilot-instructions.md").exists());
    second_run_then_remove(
        &sandbox,
        &[],
        &args,
        "GitHub Copilot CLI (copilot-cli)",
        &[
            (copilot.join("mcp-config.json"), None),
            (copilot.join("hooks/context-mode.json"), None),
            (instructions, None),
        ],
    );
}

#[test]
fn qwen_code_keeps_the_users_jsonc_and_qwen_md() {
    let sandbox = Sandbox::new();
    let settings = sandbox.home.join(".qwen/settings.json");
    let qwen_md = sandbox.home.join(".qwen/QWEN.md");
    write(&settings, QWEN_SETTINGS);
    write(&qwen_md, USER_QWEN_MD);

    // Detected from ~/.qwen: no --agents.
    let out = setup(&sandbox, &[], &["--routing"]);
    assert!(out.contains("Qwen Code: registered"), "{out}");

    let text = read(&settings);
    assert!(text.contains("// Picked in /theme."), "{text}");
    assert!(
        text.contains("// The user's own server stays first."),
        "{text}"
    );
    let doc = jsonc(&settings);
    assert_eq!(doc["ui"]["theme"], "Qwen Dark");
    assert_eq!(doc["mcpServers"]["github"]["args"], json!(["--stdio"]));
    let server = &doc["mcpServers"]["context-mode"];
    assert_eq!(server["command"], cm_path());
    assert_eq!(server["args"], json!(["serve"]));
    let hooks = &doc["hooks"];
    assert_eq!(hooks["PreToolUse"][0]["hooks"][0]["command"], "./guard.sh");
    for (event, cli) in QWEN_EVENTS {
        assert_ours_once(hooks, event, &hook_command("qwen-code", cli));
    }
    let pre = hooks["PreToolUse"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|group| {
            group["matcher"]
                .as_str()
                .filter(|m| m.contains("run_shell_command"))
        })
        .expect("our PreToolUse matcher");
    assert!(pre.starts_with('^'), "{pre}");
    // No feature flag: Qwen Code 0.24.4 runs hooks unless disableAllHooks.
    assert!(doc.get("hooksConfig").is_none() && doc.get("disableAllHooks").is_none());
    let md = read(&qwen_md);
    assert!(md.starts_with(USER_QWEN_MD), "{md}");
    assert!(md.contains("mcp__context-mode__ctx_execute"), "{md}");

    assert_doctor_passes(&sandbox, &[], "qwen-code");
    second_run_then_remove(
        &sandbox,
        &[],
        &["--routing"],
        "Qwen Code (qwen-code)",
        &[
            (settings, Some(QWEN_SETTINGS)),
            (qwen_md, Some(USER_QWEN_MD)),
        ],
    );
}

#[test]
fn copilot_cli_gets_a_large_mcp_result_back_as_a_modified_result() {
    let sandbox = Sandbox::new();
    let session = "7c1e9a52-3b0d-4f6e-8a21-9d4c5b6e7f80";
    let base = |extra: Value| {
        let mut payload = json!({
            "sessionId": session,
            "timestamp": 1_764_651_600_000_u64,
            "cwd": sandbox.project,
        });
        for (key, value) in extra.as_object().unwrap() {
            payload[key] = value.clone();
        }
        payload.to_string()
    };
    let prompt = base(json!({"prompt": "which open issues mention useDeferredValue?"}));
    let out = sandbox.hook("copilot-cli", "userpromptsubmit", prompt.as_bytes());
    assert_eq!(out.status.code(), Some(0));

    let issues: String = (0..200)
        .map(|n| format!("#{n} useDeferredValue stalls when the list has {n} rows\n"))
        .collect();
    let post = base(json!({
        "toolName": "github-mcp-server-list_issues",
        "toolArgs": {"owner": "facebook", "repo": "react", "state": "open"},
        "toolResult": {"resultType": "success", "textResultForLlm": issues},
    }));
    let out = sandbox.hook("copilot-cli", "posttooluse", post.as_bytes());
    assert_eq!(out.status.code(), Some(0));
    assert!(
        sandbox.hook_errors().is_empty(),
        "{:?}",
        sandbox.hook_errors()
    );
    let reply: Value = serde_json::from_slice(&out.stdout).expect("JSON reply");
    let modified = &reply["modifiedResult"];
    assert_eq!(modified["resultType"], "success", "{reply}");
    let text = modified["textResultForLlm"]
        .as_str()
        .expect("replacement text");
    assert!(text.len() * 3 < issues.len(), "{} B: {text}", text.len());
    assert!(text.contains("useDeferredValue"), "{text}");
    // The digest names the search tool as Copilot shows it to the model.
    assert!(text.contains("More: context-mode-ctx_search("), "{text}");

    // A built-in tool's result is never replaced, however large.
    let bash = base(json!({
        "toolName": "bash",
        "toolArgs": {"command": "cat big.log"},
        "toolResult": {"resultType": "success", "textResultForLlm": issues},
    }));
    let out = sandbox.hook("copilot-cli", "posttooluse", bash.as_bytes());
    let reply: Value = serde_json::from_slice(&out.stdout).expect("JSON reply");
    assert!(reply.get("modifiedResult").is_none(), "{reply}");
}
