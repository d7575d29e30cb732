//! Platform detection by a real `cm serve`: the MCP client's `clientInfo.name`, else an
//! environment marker, else `CONTEXT_MODE_PLATFORM`. The detected platform is recorded
//! on the server's session row in the project store.

mod common;

use std::path::PathBuf;

use common::{McpClient, Sandbox};

fn project_database(sandbox: &Sandbox) -> PathBuf {
    std::fs::read_dir(sandbox.root.join("projects"))
        .expect("projects dir")
        .flatten()
        .map(|d| d.path().join("context.db"))
        .find(|p| p.is_file())
        .expect("a project database")
}

/// Starts `cm serve` as `client_name` with `env`, makes one tool call (detection runs
/// on the first call), and returns the platform recorded for the session.
fn detected(client_name: &str, env: &[(&str, &str)]) -> Option<String> {
    let sandbox = Sandbox::new();
    let mut command = sandbox.cm();
    for (name, value) in env {
        command.env(name, value);
    }
    let mut client = McpClient::spawn_as(command.arg("serve"), client_name);
    let (text, _) = client.call_tool("ctx_search", serde_json::json!({"queries": ["anything"]}));
    assert!(!text.is_empty());
    assert!(client.close().success());
    let db = rusqlite::Connection::open(project_database(&sandbox)).expect("open store");
    db.query_row("SELECT platform FROM sessions", [], |row| row.get(0))
        .ok()
}

#[test]
fn client_names_of_each_host() {
    for (client, platform) in [
        ("gemini-cli-mcp-client", "gemini-cli"),
        ("cursor-vscode", "cursor"),
        ("Codex", "codex"),
        ("codex-mcp-client", "codex"),
        ("claude-code", "claude-code"),
    ] {
        assert_eq!(detected(client, &[]).as_deref(), Some(platform), "{client}");
    }
}

#[test]
fn environment_markers_when_the_client_name_is_unknown() {
    for (marker, platform) in [
        ("GEMINI_CLI", "gemini-cli"),
        ("CURSOR_TRACE_ID", "cursor"),
        ("CODEX_THREAD_ID", "codex"),
    ] {
        assert_eq!(
            detected("some-mcp-client", &[(marker, "1")]).as_deref(),
            Some(platform),
            "{marker}"
        );
    }
}

#[test]
fn the_override_names_the_platform_when_nothing_else_does() {
    assert_eq!(
        detected("some-mcp-client", &[("CONTEXT_MODE_PLATFORM", "cursor")]).as_deref(),
        Some("cursor")
    );
    assert_eq!(detected("some-mcp-client", &[]), None);
}
