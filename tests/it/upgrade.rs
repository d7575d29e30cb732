//! `cm upgrade` and `ctx_upgrade`: the versions, the update commands of the channel the
//! binary was installed by (each channel tested with a copy of the built `cm` placed
//! where that channel puts it), the refresh of the agents already set up and the
//! pruning of stale plugin cache entries.

use crate::common;

use common::setup_files::cm_at;
use common::{McpClient, Sandbox};

fn cm_path() -> String {
    std::path::Path::new(common::CM)
        .canonicalize()
        .unwrap()
        .display()
        .to_string()
}

#[test]
fn upgrade_reports_versions_refreshes_set_up_agents_and_prunes_the_cache() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.home.join(".claude")).unwrap();
    // Registered by an older cm at another path.
    let old = "/opt/old-cm/bin/cm";
    let settings = serde_json::json!({"hooks": {"Stop": [{"matcher": "", "hooks": [
        {"type": "command", "command": format!("{old} hook claude-code stop")}]}]}});
    std::fs::write(
        sandbox.home.join(".claude/settings.json"),
        settings.to_string(),
    )
    .unwrap();
    std::fs::write(
        sandbox.home.join(".claude.json"),
        serde_json::json!({"mcpServers": {"context-mode": {"type": "stdio", "command": old, "args": ["serve"]}}}).to_string(),
    )
    .unwrap();
    let cache = sandbox.root.join("cache/cwasm");
    std::fs::create_dir_all(&cache).unwrap();
    let stale = cache.join(format!("{}-0123456789abcdef.cwasm", "cd".repeat(32)));
    std::fs::write(&stale, b"stale").unwrap();

    let out = sandbox.cm().arg("upgrade").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains(&format!("installed: cm {}", env!("CARGO_PKG_VERSION"))),
        "{text}"
    );
    // The test's cm is `<checkout>/target/debug/cm`: a source build.
    let repo = common::repo_root();
    assert!(
        text.contains(&format!(
            "channel: source build (debug profile of {})",
            repo.display()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("source: {}", repo.display())),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "cargo build --locked -p cm --manifest-path {}/Cargo.toml",
            repo.display()
        )),
        "{text}"
    );
    assert!(
        text.contains("Claude Code (claude-code): refreshing"),
        "{text}"
    );
    assert!(
        text.contains("plugin cache: 1 stale entry removed"),
        "{text}"
    );
    assert!(!stale.exists());

    let settings: serde_json::Value =
        serde_json::from_slice(&std::fs::read(sandbox.home.join(".claude/settings.json")).unwrap())
            .unwrap();
    let stop = settings["hooks"]["Stop"].as_array().unwrap();
    assert_eq!(stop.len(), 1, "{settings}");
    assert_eq!(
        stop[0]["hooks"][0]["command"],
        format!("{} hook claude-code stop", cm_path())
    );
    let claude: serde_json::Value =
        serde_json::from_slice(&std::fs::read(sandbox.home.join(".claude.json")).unwrap()).unwrap();
    assert_eq!(claude["mcpServers"]["context-mode"]["command"], cm_path());

    // Nothing left to refresh the second time.
    let again = sandbox.cm().arg("upgrade").output().unwrap();
    let text = String::from_utf8_lossy(&again.stdout);
    assert!(text.contains("up to date, no changes"), "{text}");
    assert!(
        text.contains("plugin cache: 0 stale entries removed"),
        "{text}"
    );
}

#[test]
fn ctx_upgrade_returns_the_commands_and_runs_nothing() {
    let sandbox = Sandbox::new();
    let mut client = McpClient::spawn(sandbox.cm());
    let tools = client.request("tools/list", serde_json::json!({}));
    let tool = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "ctx_upgrade")
        .cloned()
        .expect("ctx_upgrade is listed");
    assert_eq!(tool["annotations"]["readOnlyHint"], true);
    assert_eq!(tool["annotations"]["destructiveHint"], false);
    assert_eq!(tool["annotations"]["idempotentHint"], true);
    assert_eq!(tool["annotations"]["openWorldHint"], false);
    let (text, is_error) = client.call_tool("ctx_upgrade", serde_json::json!({}));
    assert!(!is_error, "{text}");
    assert!(text.contains("cargo build --locked -p cm "), "{text}");
    assert!(text.contains("cm upgrade"), "{text}");
    assert!(!sandbox.root.join("backups").exists());
    client.close();
}

/// `cm upgrade` run from `cm` with `env`: its output, which must succeed.
fn upgrade_with(
    sandbox: &Sandbox,
    cm: &std::path::Path,
    env: &[(&str, &std::path::Path)],
) -> String {
    let mut command = sandbox.command(cm);
    command.arg("upgrade");
    for (name, value) in env {
        command.env(name, value);
    }
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

const PLATFORM_PACKAGE: &str = "node_modules/@context-mode/cm-linux-x64/bin";

#[test]
fn an_npm_global_install_says_npm_and_moves_the_agents_to_it() {
    let sandbox = Sandbox::new();
    // Set up by some other cm first: the upgrade must move the agents to this one.
    let setup = sandbox
        .cm()
        .args(["setup", "--yes", "--agents", "claude-code"])
        .output()
        .unwrap();
    assert!(setup.status.success());
    let prefix = sandbox
        .root
        .join("npm-prefix/lib/node_modules/context-mode");
    let cm = cm_at(&prefix.join(PLATFORM_PACKAGE));
    let text = upgrade_with(&sandbox, &cm, &[]);
    assert!(
        text.contains("channel: npm, global install (@context-mode/cm-linux-x64)"),
        "{text}"
    );
    assert!(
        text.contains("\n  npm install -g context-mode@latest\n"),
        "{text}"
    );
    assert!(!text.contains("cargo "), "{text}");
    assert!(!text.contains("source:"), "{text}");
    assert!(
        text.contains("Claude Code (claude-code): refreshing"),
        "{text}"
    );
    let claude: serde_json::Value =
        serde_json::from_slice(&std::fs::read(sandbox.home.join(".claude.json")).unwrap()).unwrap();
    assert_eq!(
        claude["mcpServers"]["context-mode"]["command"],
        cm.display().to_string()
    );
}

#[test]
fn an_npx_cache_says_npx_fetches_it() {
    let sandbox = Sandbox::new();
    let cache = sandbox.home.join(".npm/_npx/8f3a9c1d2e4b5a6f");
    let text = upgrade_with(&sandbox, &cm_at(&cache.join(PLATFORM_PACKAGE)), &[]);
    assert!(
        text.contains("channel: npx cache (@context-mode/cm-linux-x64)"),
        "{text}"
    );
    assert!(text.contains("nothing to upgrade in place"), "{text}");
    assert!(
        text.contains("  npx -y context-mode@latest setup"),
        "{text}"
    );
    assert!(!text.contains("npm install -g"), "{text}");
}

#[test]
fn a_cargo_install_says_cargo_install_from_the_recorded_source() {
    let sandbox = Sandbox::new();
    let cargo_home = sandbox.root.join("cargo-home");
    let cm = cm_at(&cargo_home.join("bin"));
    let text = upgrade_with(&sandbox, &cm, &[("CARGO_HOME", &cargo_home)]);
    let repo = common::repo_root();
    assert!(text.contains("channel: cargo install ("), "{text}");
    assert!(
        text.contains(&format!(
            "cargo install --locked --path {}/host",
            repo.display()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("  {} upgrade", cm.display())),
        "{text}"
    );
}

#[test]
fn a_binary_anywhere_else_is_an_archive_and_nothing_is_downloaded() {
    let sandbox = Sandbox::new();
    let cm = cm_at(&sandbox.root.join("opt/cm-0.4.0-x86_64-unknown-linux-gnu"));
    let text = upgrade_with(&sandbox, &cm, &[]);
    assert!(text.contains("channel: a release archive"), "{text}");
    assert!(text.contains("cargo xtask dist"), "{text}");
    assert!(text.contains("cm-<version>-<target>.tar.gz"), "{text}");
    assert!(
        text.contains(&format!("replace {} with the new cm", cm.display())),
        "{text}"
    );
    assert!(!text.contains("npm install"), "{text}");
}

#[test]
fn installed_claude_code_and_codex_plugins_get_their_update_lines() {
    let sandbox = Sandbox::new();
    let plugins = sandbox.home.join(".claude/plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    std::fs::write(
        plugins.join("installed_plugins.json"),
        r#"{"version": 2, "plugins": {"context-mode@context-mode": [{"scope": "user",
            "installPath": "/x/cache/context-mode/context-mode/1.0.0", "version": "1.0.0"}]}}"#,
    )
    .unwrap();
    // What Codex 0.171.0 writes for `codex plugin marketplace add <repo>` + `codex plugin
    // add context-mode@context-mode`.
    std::fs::create_dir_all(sandbox.home.join(".codex")).unwrap();
    std::fs::write(
        sandbox.home.join(".codex/config.toml"),
        "[marketplaces.context-mode]\nsource_type = \"git\"\nsource = \"https://github.com/x/context-mode\"\n\n[plugins.\"context-mode@context-mode\"]\nenabled = true\n",
    )
    .unwrap();
    let text = upgrade_with(&sandbox, std::path::Path::new(common::CM), &[]);
    assert!(
        text.contains("Claude Code plugin installed; update it with:\n  claude plugin update context-mode@context-mode"),
        "{text}"
    );
    assert!(
        text.contains("Codex plugin installed; update it with:\n  codex plugin marketplace upgrade context-mode"),
        "{text}"
    );
}
