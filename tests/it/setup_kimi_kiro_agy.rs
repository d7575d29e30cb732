//! `cm setup` for Kimi Code, Kiro CLI and Antigravity CLI (`agy`), driven like a user
//! would: a temp HOME holding the user's own config (comments, other MCP servers, other
//! hooks), the real `cm`, and the files compared before, after, on a second run and
//! after `--remove`; then `cm doctor` shows each host's registration rows. None of the
//! three hosts installs here: the files are the ones their docs, source or upstream's
//! reference name (see each adapter's `setup.rs`).

use crate::common;
use crate::common::setup_files::{
    Round, assert_serve, doctor_rows, hook_command, jsonc, read, write,
};

use std::path::Path;

use common::Sandbox;
use serde_json::{Value, json};

const KIMI_CONFIG: &str = r#"# Kimi Code settings, kept by hand.
default_model = "kimi-for-coding"

# Lint after edits.
[[hooks]]
event = "PostToolUse"
matcher = "Write|Edit"
command = "./lint.sh" # fast
"#;

const KIMI_MCP: &str = r#"{
  "mcpServers": {
    "linear": {"url": "https://mcp.linear.app/mcp"}
  }
}
"#;

const KIRO_MCP: &str = r#"{
  // Kiro's own servers.
  "mcpServers": {
    "aws-docs": {"command": "uvx", "args": ["awslabs.aws-documentation-mcp-server@latest"]}
  }
}
"#;

const AGY_MCP: &str = r#"{
  "mcpServers": {
    "github": {"command": "gh-mcp", "args": ["--stdio"]}
  }
}
"#;

const AGY_HOOKS: &str = r#"{
  "lint-checker": {
    "PostToolUse": [{"matcher": "run_command", "hooks": [{"type": "command", "command": "./lint.sh"}]}]
  }
}
"#;

const KIMI_EVENTS: [(&str, &str); 7] = [
    ("PreToolUse", "pretooluse"),
    ("PostToolUse", "posttooluse"),
    ("PostToolUseFailure", "posttoolusefailure"),
    ("PreCompact", "precompact"),
    ("SessionStart", "sessionstart"),
    ("UserPromptSubmit", "userpromptsubmit"),
    ("Stop", "stop"),
];

fn assert_doctor_passes(sandbox: &Sandbox, env: &[(&str, &Path)], id: &str) {
    let rows = doctor_rows(sandbox, env, id);
    for name in ["mcp-server", "hooks"] {
        let wanted = format!("{id} {name}");
        assert!(
            rows.iter().any(|(n, s)| *n == wanted && s == "PASS"),
            "{wanted} not PASS: {rows:?}"
        );
    }
}

/// The `[[hooks]]` tables of a Kimi config.toml as (event, command).
fn kimi_hooks(config: &Path) -> Vec<(String, String)> {
    let doc: toml::Table = toml::from_str(&read(config)).expect("valid TOML");
    let doc = serde_json::to_value(doc).unwrap();
    doc["hooks"]
        .as_array()
        .expect("[[hooks]]")
        .iter()
        .map(|hook| {
            let keys: Vec<&str> = hook
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            for key in &keys {
                assert!(
                    ["event", "matcher", "command", "timeout"].contains(key),
                    "Kimi refuses a [[hooks]] key {key}"
                );
            }
            (
                hook["event"].as_str().unwrap().to_owned(),
                hook["command"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn kimi_code_keeps_the_users_toml_and_mcp_json() {
    let sandbox = Sandbox::new();
    let config = sandbox.home.join(".kimi-code/config.toml");
    let mcp = sandbox.home.join(".kimi-code/mcp.json");
    let agents_md = sandbox.home.join(".kimi-code/AGENTS.md");
    write(&config, KIMI_CONFIG);
    write(&mcp, KIMI_MCP);
    let round = Round {
        sandbox: &sandbox,
        env: Vec::new(),
        display: "Kimi Code (kimi)",
        files: vec![
            (config.clone(), Some(KIMI_CONFIG.to_owned())),
            (mcp.clone(), Some(KIMI_MCP.to_owned())),
            (agents_md.clone(), None),
        ],
    };
    // Detected from ~/.kimi-code: no --agents.
    round.apply(&["--routing"]);

    let text = read(&config);
    for comment in [
        "# Kimi Code settings, kept by hand.",
        "# Lint after edits.",
        "# fast",
    ] {
        assert!(text.contains(comment), "{text}");
    }
    let hooks = kimi_hooks(&config);
    assert_eq!(hooks[0], ("PostToolUse".to_owned(), "./lint.sh".to_owned()));
    for (event, cli) in KIMI_EVENTS {
        let ours = (event.to_owned(), hook_command("kimi", cli));
        assert_eq!(
            hooks.iter().filter(|h| **h == ours).count(),
            1,
            "{event}: {hooks:?}"
        );
    }
    let servers = jsonc(&mcp);
    assert_eq!(
        servers["mcpServers"]["linear"]["url"],
        "https://mcp.linear.app/mcp"
    );
    assert_serve(&servers["mcpServers"]["context-mode"]);
    assert!(read(&agents_md).contains("mcp__context-mode__ctx_"));
    assert_doctor_passes(&sandbox, &[], "kimi");

    round.second_run_changes_nothing(&["--routing"]);
    round.remove_restores_everything();
}

#[test]
fn kimi_code_home_moves_every_kimi_file() {
    let sandbox = Sandbox::new();
    let moved = sandbox.home.join("elsewhere/kimi");
    std::fs::create_dir_all(&moved).unwrap();
    let env = vec![("KIMI_CODE_HOME", moved.as_path())];
    let round = Round {
        sandbox: &sandbox,
        env: env.clone(),
        display: "Kimi Code (kimi)",
        files: vec![
            (moved.join("config.toml"), None),
            (moved.join("mcp.json"), None),
        ],
    };
    round.apply(&[]);
    assert!(!sandbox.home.join(".kimi-code").exists());
    assert_doctor_passes(&sandbox, &env, "kimi");
    round.second_run_changes_nothing(&[]);
    round.remove_restores_everything();
}

#[test]
fn kiro_gets_its_own_agent_and_keeps_the_users_servers() {
    let sandbox = Sandbox::new();
    let mcp = sandbox.home.join(".kiro/settings/mcp.json");
    let agent = sandbox.home.join(".kiro/agents/context-mode.json");
    let steering = sandbox.home.join(".kiro/steering/context-mode.md");
    write(&mcp, KIRO_MCP);
    let round = Round {
        sandbox: &sandbox,
        env: Vec::new(),
        display: "Kiro CLI (kiro)",
        files: vec![
            (mcp.clone(), Some(KIRO_MCP.to_owned())),
            (agent.clone(), None),
            (steering.clone(), None),
        ],
    };
    let out = round.apply(&["--agents", "kiro", "--routing"]);
    // The step Kiro needs from the user: run the agent, or make it the default.
    assert!(
        out.contains("kiro-cli settings chat.defaultAgent context-mode"),
        "{out}"
    );

    assert!(read(&mcp).contains("// Kiro's own servers."));
    let servers = jsonc(&mcp);
    assert_eq!(servers["mcpServers"]["aws-docs"]["command"], "uvx");
    assert_serve(&servers["mcpServers"]["context-mode"]);
    let doc = jsonc(&agent);
    assert_eq!(doc["name"], "context-mode");
    assert_eq!(doc["tools"], json!(["*"]));
    // Kiro matches by glob: `*`, one entry per hook (the policy picks the tools).
    assert_eq!(
        doc["hooks"]["preToolUse"],
        json!([{"matcher": "*", "command": hook_command("kiro", "pretooluse")}])
    );
    assert_eq!(
        doc["hooks"]["postToolUse"],
        json!([{"matcher": "*", "command": hook_command("kiro", "posttooluse")}])
    );
    assert!(read(&steering).contains("@context-mode/ctx_"));
    assert_doctor_passes(&sandbox, &[], "kiro");

    round.second_run_changes_nothing(&["--agents", "kiro", "--routing"]);
    round.remove_restores_everything();
}

#[test]
fn antigravity_cli_adds_a_named_hook_set_beside_the_users() {
    let sandbox = Sandbox::new();
    let config = sandbox.home.join(".gemini/config");
    let mcp = config.join("mcp_config.json");
    let hooks = config.join("hooks.json");
    let rule = config.join("rules/context-mode.md");
    write(&mcp, AGY_MCP);
    write(&hooks, AGY_HOOKS);
    let round = Round {
        sandbox: &sandbox,
        env: Vec::new(),
        display: "Antigravity CLI (antigravity-cli)",
        files: vec![
            (mcp.clone(), Some(AGY_MCP.to_owned())),
            (hooks.clone(), Some(AGY_HOOKS.to_owned())),
            (rule.clone(), None),
        ],
    };
    round.apply(&["--agents", "antigravity-cli", "--routing"]);

    let servers = jsonc(&mcp);
    assert_eq!(servers["mcpServers"]["github"]["args"], json!(["--stdio"]));
    assert_serve(&servers["mcpServers"]["context-mode"]);
    let doc = jsonc(&hooks);
    assert_eq!(
        doc["lint-checker"]["PostToolUse"][0]["hooks"][0]["command"],
        "./lint.sh"
    );
    let ours = &doc["context-mode"];
    assert_eq!(
        ours["PreToolUse"][0]["matcher"],
        "^(run_command|view_file|grep_search|web_fetch|read_url_content)$"
    );
    assert_eq!(ours["PostToolUse"][0]["matcher"], "*");
    assert!(ours["Stop"][0].get("matcher").is_none());
    for (event, cli) in [
        ("PreToolUse", "pretooluse"),
        ("PostToolUse", "posttooluse"),
        ("Stop", "stop"),
    ] {
        assert_eq!(
            ours[event][0]["hooks"][0]["command"],
            hook_command("antigravity-cli", cli),
            "{event}"
        );
    }
    assert!(read(&rule).contains("context-mode/ctx_"));
    assert_doctor_passes(&sandbox, &[], "antigravity-cli");

    round.second_run_changes_nothing(&["--agents", "antigravity-cli", "--routing"]);
    round.remove_restores_everything();
}
