//! Platform detection by a real `cm serve`: the MCP client's `clientInfo.name`, else an
//! environment marker; `CONTEXT_MODE_PLATFORM` wins over both. The server logs the host it
//! detected (`CM_LOG=info`) on the first tool call, when detection runs.

use crate::common;

use std::process::Stdio;

use common::{McpClient, Sandbox};

/// Starts `cm serve` as `client_name` with `env`, makes one tool call, and returns the
/// agent host the server logged, if any.
fn detected(client_name: &str, env: &[(&str, &str)]) -> Option<String> {
    let sandbox = Sandbox::new();
    let log_path = sandbox.root.join("serve.log");
    let log = std::fs::File::create(&log_path).expect("log file");
    let mut command = sandbox.cm();
    command.env("CM_LOG", "info");
    for (name, value) in env {
        command.env(name, value);
    }
    let mut client =
        McpClient::spawn_with_stderr(command.arg("serve"), client_name, Stdio::from(log));
    let (text, _) = client.call_tool("ctx_search", serde_json::json!({"queries": ["anything"]}));
    assert!(!text.is_empty());
    assert!(client.close().success());
    let log = std::fs::read_to_string(&log_path).expect("read log");
    log.lines().find_map(|line| {
        let rest = &line[line.find("agent host ")? + "agent host ".len()..];
        rest.split_whitespace().next().map(str::to_string)
    })
}

#[test]
fn client_names_of_each_host() {
    for (client, platform) in [
        ("gemini-cli-mcp-client", "gemini-cli"),
        ("cursor-vscode", "cursor"),
        ("Codex", "codex"),
        ("codex-mcp-client", "codex"),
        ("claude-code", "claude-code"),
        // Zed's context_server client; the MCP-only hosts are found by nothing else.
        ("Zed", "zed"),
        ("antigravity-client", "antigravity"),
        ("agy", "antigravity-cli"),
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

/// `CONTEXT_MODE_PLATFORM` forces the host (upstream pins it in an agent's MCP entry):
/// over the client's name and the markers; one naming no adapter is ignored.
#[test]
fn the_override_wins_over_client_name_and_markers() {
    assert_eq!(
        detected("some-mcp-client", &[("CONTEXT_MODE_PLATFORM", "cursor")]).as_deref(),
        Some("cursor")
    );
    assert_eq!(
        detected(
            "claude-code",
            &[("CONTEXT_MODE_PLATFORM", "codex"), ("GEMINI_CLI", "1")]
        )
        .as_deref(),
        Some("codex")
    );
    assert_eq!(
        detected("claude-code", &[("CONTEXT_MODE_PLATFORM", "nonesuch")]).as_deref(),
        Some("claude-code")
    );
    assert_eq!(detected("some-mcp-client", &[]), None);
}

/// The stateless protocol (MCP 2026-07-28, spoken by Copilot CLI 1.0.102) has no
/// `initialize`: the client names itself in every request's `_meta`. Detection reads it
/// from there, so the hints name our tools as that host shows them.
#[test]
fn a_stateless_client_is_detected_from_the_request_meta() {
    use std::io::{BufRead, BufReader, Write};
    let sandbox = Sandbox::new();
    let log_path = sandbox.root.join("serve.log");
    let log = std::fs::File::create(&log_path).expect("log file");
    let mut child = sandbox
        .cm()
        .arg("serve")
        .env("CM_LOG", "info")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(log))
        .spawn()
        .expect("spawn cm serve");
    let meta = serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "gemini-cli-mcp-client", "version": "1"}
    });
    let requests = [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
            "params": {"_meta": meta}}),
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"_meta": meta, "name": "ctx_search",
                       "arguments": {"queries": ["anything"]}}}),
    ];
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    for request in &requests {
        writeln!(stdin, "{request}").expect("write request");
        stdin.flush().expect("flush");
        let mut line = String::new();
        stdout.read_line(&mut line).expect("read reply");
        let reply: serde_json::Value = serde_json::from_str(&line).expect("JSON reply");
        assert_eq!(reply["id"], request["id"], "{line}");
        assert!(reply.get("result").is_some(), "{line}");
    }
    drop(stdin);
    assert!(child.wait().expect("wait").success());
    let log = std::fs::read_to_string(&log_path).expect("read log");
    assert!(
        log.contains("agent host gemini-cli"),
        "stateless client not detected: {log}"
    );
}
