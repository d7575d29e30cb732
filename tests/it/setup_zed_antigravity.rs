//! `cm setup`, `cm doctor` and `cm hook` for the two MCP-only hosts, Zed and the
//! Antigravity IDE, driven like a user would: a temp HOME with the host's own settings
//! (Zed's JSONC with comments and a server of the user's), the real `cm`, the files
//! compared before, after, on a second run and after `--remove`.
//!
//! Neither is installable here (desktop apps, no npm package): the written files are
//! checked against the formats the reference and the hosts' docs give (Zed's
//! `context_servers` custom-server shape, Antigravity's `mcpServers` in
//! `~/.gemini/antigravity/mcp_config.json`), not loaded by the real client.

use crate::common;
use crate::common::setup_files::{Round, assert_serve, doctor_rows, jsonc, read, stdout, write};

use common::Sandbox;

const ZED_SETTINGS: &str = r#"// Zed settings
//
// For information on how to configure Zed, see the Zed documentation.
{
  "theme": "One Dark", // keep my theme
  "context_servers": {
    "postgres": {
      "command": "pg-mcp",
      "args": ["--read-only"],
      "env": {},
    },
  },
}
"#;
const USER_AGENTS_MD: &str = "# House rules\n\nRun the tests before every commit.\n";

fn rows(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[test]
fn zed_gets_a_context_server_in_its_jsonc_settings_and_the_project_rules() {
    let sandbox = Sandbox::new();
    let settings = sandbox.home.join(".config/zed/settings.json");
    let agents_md = sandbox.project.join("AGENTS.md");
    write(&settings, ZED_SETTINGS);
    write(&agents_md, USER_AGENTS_MD);
    let round = Round {
        sandbox: &sandbox,
        env: Vec::new(),
        display: "Zed (zed)",
        files: vec![
            (settings.clone(), Some(ZED_SETTINGS.to_owned())),
            (agents_md.clone(), Some(USER_AGENTS_MD.to_owned())),
        ],
    };
    let args = ["--agents", "zed", "--routing", "--project"];
    round.apply(&args);

    let text = read(&settings);
    assert!(text.starts_with("// Zed settings\n"), "{text}");
    assert!(
        text.contains("\"theme\": \"One Dark\", // keep my theme"),
        "{text}"
    );
    let doc = jsonc(&settings);
    assert_eq!(doc["context_servers"]["postgres"]["command"], "pg-mcp");
    let ours = &doc["context_servers"]["context-mode"];
    assert_serve(ours);
    assert_eq!(ours["env"], serde_json::json!({}));
    let rules = read(&agents_md);
    assert!(rules.starts_with(USER_AGENTS_MD), "{rules}");
    assert!(
        rules.contains("`ctx_execute` instead of the `terminal` tool"),
        "{rules}"
    );

    // Registered, and still a warning: nothing intercepts Zed's tool calls.
    assert_eq!(
        doctor_rows(&sandbox, &[], "zed"),
        rows(&[("zed mcp-server", "PASS"), ("zed hooks", "WARN")])
    );
    round.second_run_changes_nothing(&args);
    round.remove_restores_everything();
}

#[test]
fn zed_without_a_project_prints_where_the_rules_go() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.home.join(".config/zed")).unwrap();
    // Detected from ~/.config/zed: no --agents.
    let out = stdout(&common::setup_files::setup(
        &sandbox,
        &[],
        &["--routing", "--yes"],
    ));
    assert!(out.contains("Zed (zed)"), "{out}");
    assert!(
        out.contains("Zed reads routing rules only from a project"),
        "{out}"
    );
    assert!(!sandbox.project.join("AGENTS.md").exists());
    let doc = jsonc(&sandbox.home.join(".config/zed/settings.json"));
    assert_serve(&doc["context_servers"]["context-mode"]);
}

#[test]
fn zed_on_windows_is_found_and_set_up_in_appdata() {
    // Windows sets APPDATA (Zed keeps `%APPDATA%\Zed\settings.json` there); the same
    // plan reads it on any OS, so the Windows path is exercised here.
    let sandbox = Sandbox::new();
    let appdata = sandbox.home.join("AppData/Roaming");
    std::fs::create_dir_all(appdata.join("zed")).unwrap();
    let env = [("APPDATA", appdata.as_path())];
    let out = stdout(&common::setup_files::setup(&sandbox, &env, &["--yes"]));
    assert!(out.contains("Zed (zed)"), "detected from %APPDATA%: {out}");
    let doc = jsonc(&appdata.join("zed/settings.json"));
    assert_serve(&doc["context_servers"]["context-mode"]);
    assert!(!sandbox.home.join(".config/zed").exists());
}

#[test]
fn antigravity_ide_registers_in_its_own_mcp_config_not_agys() {
    let sandbox = Sandbox::new();
    let ide = sandbox.home.join(".gemini/antigravity");
    std::fs::create_dir_all(&ide).unwrap();
    let mcp_config = ide.join("mcp_config.json");
    let gemini_md = sandbox.home.join(".gemini/GEMINI.md");
    let round = Round {
        sandbox: &sandbox,
        env: Vec::new(),
        display: "Antigravity IDE (antigravity)",
        files: vec![(mcp_config.clone(), None), (gemini_md.clone(), None)],
    };
    let args = ["--agents", "antigravity", "--routing"];
    round.apply(&args);
    let doc = jsonc(&mcp_config);
    assert_serve(&doc["mcpServers"]["context-mode"]);
    assert!(read(&gemini_md).contains("`ctx_execute` instead of `run_command`"));
    // agy's global profile and Gemini CLI's settings are other hosts' files.
    assert!(!sandbox.home.join(".gemini/config").exists());
    assert!(!sandbox.home.join(".gemini/settings.json").exists());
    assert_eq!(
        doctor_rows(&sandbox, &[], "antigravity"),
        rows(&[
            ("antigravity mcp-server", "PASS"),
            ("antigravity hooks", "WARN")
        ])
    );
    round.second_run_changes_nothing(&args);
    round.remove_restores_everything();
}

#[test]
fn a_hook_entry_for_an_mcp_only_host_fails_open_with_one_line() {
    let sandbox = Sandbox::new();
    for platform in ["zed", "antigravity"] {
        let stdin = br#"{"tool_name":"Bash","tool_input":{"command":"curl https://example.com"}}"#;
        let output = sandbox.hook(platform, "pretooluse", stdin);
        assert_eq!(output.status.code(), Some(0), "{platform}");
        assert!(output.stdout.is_empty(), "{platform}: {:?}", output.stdout);
    }
    let log = sandbox.hook_errors();
    assert_eq!(log.len(), 2, "{log:?}");
    assert!(
        log[0].contains("zed has no hook events (an MCP-only host)"),
        "{log:?}"
    );
    assert!(log[1].contains("antigravity has no hook events"), "{log:?}");
}
