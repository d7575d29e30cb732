//! `cm upgrade` and `ctx_upgrade`: the versions, the rebuild commands, the refresh of the
//! agents already set up and the pruning of stale plugin cache entries.

use crate::common;

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
    let repo = common::repo_root();
    assert!(
        text.contains(&format!("source: {}", repo.display())),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "cargo install --locked --path {}/host",
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
    assert!(text.contains("cargo install --locked --path "), "{text}");
    assert!(text.contains("cm upgrade"), "{text}");
    assert!(!sandbox.root.join("backups").exists());
    client.close();
}
