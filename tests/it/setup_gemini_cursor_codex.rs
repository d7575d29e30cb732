//! `cm setup` for Gemini CLI, Cursor and Codex CLI, driven like a user would: a temp
//! HOME holding the user's own config (comments, other MCP servers, other hooks), the
//! real `cm`, and the files compared before, after, on a second run and after `--remove`.

use crate::common;
use crate::common::setup_files::{
    Round, assert_ours_once, assert_serve, hook_command, jsonc, read, setup, stdout, write,
};

use std::path::{Path, PathBuf};

use common::Sandbox;
use serde_json::json;

const GEMINI_SETTINGS: &str = r#"{
  // Picked in /theme.
  "theme": "GitHub",
  "mcpServers": {
    // The user's own server stays first.
    "github": {"command": "gh-mcp", "args": ["--stdio"]}
  },
  "hooks": {
    "BeforeTool": [
      {"matcher": "write_file", "hooks": [{"name": "guard", "type": "command", "command": "./guard.sh"}]}
    ]
  }
}
"#;

const CURSOR_MCP: &str = r#"{
  "mcpServers": {
    "linear": {"url": "https://mcp.linear.app/sse"}
  }
}
"#;

const CURSOR_HOOKS: &str = r#"{
  "version": 1,
  "hooks": {
    "afterFileEdit": [{"command": "./format.sh"}],
    "stop": [{"command": "./notify.sh"}]
  }
}
"#;

const CODEX_CONFIG: &str = r#"# Codex settings, kept by hand.
model = "gpt-5-codex"

# Issue tracker.
[mcp_servers.github]
command = "gh-mcp"
args = ["--stdio"] # read-only token

[features]
web_search_request = true
"#;

const CODEX_HOOKS: &str = r#"{
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "./say-done.sh"}]}]
  }
}
"#;

const USER_AGENTS_MD: &str = "# Team rules\n\nRun `make check` before every commit.\n";

const CODEX_EVENTS: [(&str, &str); 6] = [
    ("PreToolUse", "pretooluse"),
    ("PostToolUse", "posttooluse"),
    ("PreCompact", "precompact"),
    ("SessionStart", "sessionstart"),
    ("UserPromptSubmit", "userpromptsubmit"),
    ("Stop", "stop"),
];

#[test]
fn gemini_cli_keeps_the_users_jsonc_and_removes_to_the_same_bytes() {
    let sandbox = Sandbox::new();
    let settings = sandbox.home.join(".gemini/settings.json");
    let routing = sandbox.home.join(".gemini/context-mode.md");
    write(&settings, GEMINI_SETTINGS);
    let round = Round {
        sandbox: &sandbox,
        env: Vec::new(),
        display: "Gemini CLI (gemini-cli)",
        files: vec![
            (settings.clone(), Some(GEMINI_SETTINGS.to_owned())),
            (routing.clone(), None),
        ],
    };
    // Detected from ~/.gemini: no --agents.
    round.apply(&["--routing"]);

    let text = read(&settings);
    assert!(text.contains("// Picked in /theme."), "{text}");
    assert!(
        text.contains("// The user's own server stays first."),
        "{text}"
    );
    let doc = jsonc(&settings);
    assert_eq!(doc["theme"], "GitHub");
    assert_eq!(doc["mcpServers"]["github"]["args"], json!(["--stdio"]));
    assert_serve(&doc["mcpServers"]["context-mode"]);
    let hooks = &doc["hooks"];
    assert_eq!(hooks["BeforeTool"][0]["hooks"][0]["command"], "./guard.sh");
    for (event, cli) in [
        ("BeforeTool", "beforetool"),
        ("AfterTool", "aftertool"),
        ("PreCompress", "precompress"),
        ("SessionStart", "sessionstart"),
    ] {
        assert_ours_once(hooks, event, &hook_command("gemini-cli", cli));
    }
    assert_eq!(doc["hooksConfig"]["enabled"], true);
    assert_eq!(
        doc["context"]["fileName"],
        json!(["GEMINI.md", "context-mode.md"])
    );
    assert!(read(&routing).contains("mcp_context-mode_ctx_"));

    round.second_run_changes_nothing(&["--routing"]);
    round.remove_restores_everything();
}

#[test]
fn cursor_global_keeps_the_users_servers_and_hooks() {
    let sandbox = Sandbox::new();
    let mcp = sandbox.home.join(".cursor/mcp.json");
    let hooks_file = sandbox.home.join(".cursor/hooks.json");
    write(&mcp, CURSOR_MCP);
    write(&hooks_file, CURSOR_HOOKS);
    let round = Round {
        sandbox: &sandbox,
        env: Vec::new(),
        display: "Cursor (cursor)",
        files: vec![
            (mcp.clone(), Some(CURSOR_MCP.to_owned())),
            (hooks_file.clone(), Some(CURSOR_HOOKS.to_owned())),
        ],
    };
    round.apply(&["--agents", "cursor"]);

    let servers = jsonc(&mcp);
    assert_eq!(
        servers["mcpServers"]["linear"]["url"],
        "https://mcp.linear.app/sse"
    );
    assert_serve(&servers["mcpServers"]["context-mode"]);
    let doc = jsonc(&hooks_file);
    assert_eq!(doc["version"], 1);
    let hooks = &doc["hooks"];
    assert_eq!(hooks["afterFileEdit"], json!([{"command": "./format.sh"}]));
    assert_eq!(hooks["stop"][0]["command"], "./notify.sh");
    for event in ["preToolUse", "postToolUse", "stop"] {
        assert_ours_once(hooks, event, &hook_command("cursor", &event.to_lowercase()));
    }

    round.second_run_changes_nothing(&["--agents", "cursor"]);
    round.remove_restores_everything();
}

#[test]
fn cursor_project_files_go_to_the_project() {
    let sandbox = Sandbox::new();
    let dir = sandbox.project.join(".cursor");
    let mcp = dir.join("mcp.json");
    write(&mcp, CURSOR_MCP);
    let project = sandbox.project.to_str().unwrap().to_owned();
    let args = ["--agents", "cursor", "--project", &project, "--routing"];
    let round = Round {
        sandbox: &sandbox,
        env: Vec::new(),
        display: "Cursor (cursor)",
        files: vec![
            (mcp.clone(), Some(CURSOR_MCP.to_owned())),
            (dir.join("hooks.json"), None),
            (dir.join("rules/context-mode.mdc"), None),
        ],
    };
    round.apply(&args);
    assert!(!sandbox.home.join(".cursor").exists());
    assert_serve(&jsonc(&mcp)["mcpServers"]["context-mode"]);
    let hooks = jsonc(&dir.join("hooks.json"));
    assert_ours_once(
        &hooks["hooks"],
        "preToolUse",
        &hook_command("cursor", "pretooluse"),
    );
    let rules = read(&dir.join("rules/context-mode.mdc"));
    assert!(
        rules.starts_with("---\n") && rules.contains("alwaysApply: true"),
        "{rules}"
    );

    round.second_run_changes_nothing(&args);
    round.remove_restores_everything();
}

/// The user's Codex files in `dir` (their `~/.codex` or `$CODEX_HOME`).
fn codex_home(dir: &Path) -> (PathBuf, PathBuf) {
    let config = dir.join("config.toml");
    let hooks = dir.join("hooks.json");
    write(&config, CODEX_CONFIG);
    write(&hooks, CODEX_HOOKS);
    (config, hooks)
}

fn assert_codex_registered(config: &Path, hooks_file: &Path) {
    let text = read(config);
    for comment in [
        "# Codex settings, kept by hand.",
        "# Issue tracker.",
        "# read-only token",
    ] {
        assert!(text.contains(comment), "{text}");
    }
    let doc: toml::Table = toml::from_str(&text).expect("valid TOML");
    let doc = serde_json::to_value(doc).unwrap();
    assert_eq!(doc["model"], "gpt-5-codex");
    assert_eq!(
        doc["mcp_servers"]["github"],
        json!({"command": "gh-mcp", "args": ["--stdio"]})
    );
    assert_serve(&doc["mcp_servers"]["context-mode"]);
    assert_eq!(
        doc["features"],
        json!({"web_search_request": true, "hooks": true})
    );
    let hooks = jsonc(hooks_file);
    assert_eq!(
        hooks["hooks"]["Stop"][0]["hooks"][0]["command"],
        "./say-done.sh"
    );
    for (event, cli) in CODEX_EVENTS {
        assert_ours_once(&hooks["hooks"], event, &hook_command("codex", cli));
    }
}

#[test]
fn codex_keeps_the_users_toml_and_hooks() {
    let sandbox = Sandbox::new();
    let (config, hooks) = codex_home(&sandbox.home.join(".codex"));
    let round = Round {
        sandbox: &sandbox,
        env: Vec::new(),
        display: "Codex CLI (codex)",
        files: vec![
            (config.clone(), Some(CODEX_CONFIG.to_owned())),
            (hooks.clone(), Some(CODEX_HOOKS.to_owned())),
        ],
    };
    round.apply(&[]);
    assert_codex_registered(&config, &hooks);
    round.second_run_changes_nothing(&[]);
    round.remove_restores_everything();
}

#[test]
fn codex_home_moves_every_codex_file() {
    let sandbox = Sandbox::new();
    let moved = sandbox.home.join("elsewhere/codex");
    let (config, hooks) = codex_home(&moved);
    let agents_md = moved.join("AGENTS.md");
    let round = Round {
        sandbox: &sandbox,
        env: vec![("CODEX_HOME", moved.as_path())],
        display: "Codex CLI (codex)",
        files: vec![
            (config.clone(), Some(CODEX_CONFIG.to_owned())),
            (hooks.clone(), Some(CODEX_HOOKS.to_owned())),
            (agents_md.clone(), None),
        ],
    };
    // Detected through $CODEX_HOME (there is no ~/.codex).
    round.apply(&["--routing"]);
    assert!(!sandbox.home.join(".codex").exists());
    assert_codex_registered(&config, &hooks);
    assert!(read(&agents_md).contains("mcp__context_mode__ctx_"));
    round.second_run_changes_nothing(&["--routing"]);
    round.remove_restores_everything();
}

#[test]
fn codex_routing_goes_in_a_marked_block_of_the_users_agents_md() {
    let sandbox = Sandbox::new();
    let (config, hooks) = codex_home(&sandbox.home.join(".codex"));
    let agents_md = sandbox.project.join("AGENTS.md");
    write(&agents_md, USER_AGENTS_MD);
    let project = sandbox.project.to_str().unwrap().to_owned();
    let args = ["--agents", "codex", "--routing", "--project", &project];
    let round = Round {
        sandbox: &sandbox,
        env: Vec::new(),
        display: "Codex CLI (codex)",
        files: vec![
            (agents_md.clone(), Some(USER_AGENTS_MD.to_owned())),
            (config, Some(CODEX_CONFIG.to_owned())),
            (hooks, Some(CODEX_HOOKS.to_owned())),
        ],
    };
    round.apply(&args);
    let routing = read(&common::repo_root().join("configs/codex/AGENTS.md"));
    let block = format!("<!-- context-mode:begin -->\n{routing}<!-- context-mode:end -->\n");
    assert_eq!(read(&agents_md), format!("{USER_AGENTS_MD}\n{block}"));
    round.second_run_changes_nothing(&args);
    round.remove_restores_everything();

    // Edited by the user after setup: remove takes out only the block.
    round.apply(&args);
    let edited = read(&agents_md).replace("# Team rules\n", "# Team rules\n\nNo force pushes.\n");
    std::fs::write(&agents_md, &edited).unwrap();
    let out = setup(&sandbox, &[], &["--remove"]);
    assert!(
        stdout(&out).contains("(context-mode block)"),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        read(&agents_md),
        USER_AGENTS_MD.replace("# Team rules\n", "# Team rules\n\nNo force pushes.\n")
    );
}

/// Codex runs only hooks whose hash is trusted in config.toml, and Gemini CLI starts
/// no MCP server in an untrusted folder: setup records both, and `cm doctor --agents`
/// reports a missing trust as WARN with the fix (ADR 19).
#[test]
fn setup_records_codex_hook_trust_and_gemini_folder_trust() {
    let sandbox = crate::common::Sandbox::new();
    std::fs::create_dir_all(sandbox.home.join(".codex")).expect("mkdir");
    std::fs::create_dir_all(sandbox.home.join(".gemini")).expect("mkdir");
    let out = sandbox
        .cm()
        .args([
            "setup",
            "--agents",
            "codex,gemini-cli",
            "--yes",
            "--project",
            ".",
        ])
        .output()
        .expect("cm setup");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let config = std::fs::read_to_string(sandbox.home.join(".codex/config.toml")).expect("config");
    let hooks_path = sandbox.home.join(".codex/hooks.json");
    assert!(
        config.contains(&format!("{}:pre_tool_use:0:0", hooks_path.display()))
            && config.contains("trusted_hash = \"sha256:"),
        "{config}"
    );
    let folders =
        std::fs::read_to_string(sandbox.home.join(".gemini/trustedFolders.json")).expect("folders");
    let folders: serde_json::Value = serde_json::from_str(&folders).expect("json");
    assert_eq!(
        folders[sandbox.project.display().to_string()],
        "TRUST_FOLDER"
    );

    let doctor = |agents: &str| {
        let out = sandbox
            .cm()
            .env("CONTEXT_MODE_DOCTOR_BUDGET_MS", "60000")
            .args(["doctor", "--json", "--agents", agents])
            .output()
            .expect("cm doctor");
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("doctor json")
    };
    let row = |report: &serde_json::Value, name: &str| {
        report["checks"]
            .as_array()
            .and_then(|rows| rows.iter().find(|r| r["name"] == name).cloned())
            .unwrap_or_else(|| panic!("no {name} row in {report}"))
    };
    let report = doctor("codex,gemini-cli");
    assert_eq!(
        row(&report, "codex hook trust")["status"],
        "PASS",
        "{report}"
    );
    assert_eq!(
        row(&report, "gemini-cli folder trust")["status"],
        "PASS",
        "{report}"
    );
    let names: Vec<&str> = report["checks"]
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|r| r["name"].as_str())
        .filter(|n| n.starts_with("claude-code") || n.starts_with("cursor"))
        .collect();
    assert!(names.is_empty(), "only the named agents: {names:?}");

    // Trust taken away: WARN, with the command that records it again.
    let untrusted: String = config
        .lines()
        .filter(|l| !l.starts_with("trusted_hash"))
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(sandbox.home.join(".codex/config.toml"), untrusted).expect("write");
    std::fs::write(sandbox.home.join(".gemini/trustedFolders.json"), "{}").expect("write");
    let report = doctor("codex,gemini-cli");
    let codex = row(&report, "codex hook trust");
    assert_eq!(codex["status"], "WARN", "{report}");
    assert_eq!(codex["fix"], "cm setup --agents codex", "{report}");
    assert_eq!(
        row(&report, "gemini-cli folder trust")["status"],
        "WARN",
        "{report}"
    );
    let unknown = doctor("nope");
    assert_eq!(row(&unknown, "agents")["status"], "FAIL", "{unknown}");
}

#[test]
fn gemini_setup_without_project_says_the_folder_is_untrusted_and_trusts_nothing() {
    let sandbox = crate::common::Sandbox::new();
    std::fs::create_dir_all(sandbox.home.join(".gemini")).expect("mkdir");
    let out = sandbox
        .cm()
        .args(["setup", "--agents", "gemini-cli", "--yes"])
        .output()
        .expect("cm setup");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!(
            "{} is not trusted: `cm setup --agents gemini-cli --project` trusts it",
            sandbox.project.display()
        )),
        "{stdout}"
    );
    assert!(!sandbox.home.join(".gemini/trustedFolders.json").exists());

    // Once trusted, the note is gone.
    let again = sandbox
        .cm()
        .args(["setup", "--agents", "gemini-cli", "--yes", "--project"])
        .output()
        .expect("cm setup --project");
    assert!(again.status.success());
    let third = sandbox
        .cm()
        .args(["setup", "--agents", "gemini-cli", "--dry-run"])
        .output()
        .expect("cm setup --dry-run");
    let third = String::from_utf8_lossy(&third.stdout);
    assert!(!third.contains("is not trusted"), "{third}");
}
