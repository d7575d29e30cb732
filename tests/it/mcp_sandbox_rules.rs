//! The user's permission rules inside the sandbox, through the real MCP server:
//! `ctx_execute_file` confinement to the project, `Read(...)` allow and deny rules, and
//! `Bash(...)` deny rules applied to shell code, to shell calls embedded in other
//! languages and to batch commands — proving with marker files that denied code never ran.

use crate::common;

use common::Sandbox;
use serde_json::json;

const COUNT_LINES: &str = "wc -l < \"$FILE_CONTENT_PATH\"";

fn assert_refused_naming_read_rule(text: &str, is_error: bool, outside: &std::path::Path) {
    assert!(is_error, "{text}");
    assert!(text.starts_with("denied by security policy"), "{text}");
    assert!(text.contains("outside the project"), "{text}");
    let rule = format!("Read({})", outside.display());
    assert!(
        text.contains(&rule),
        "the refusal names the rule to add, {rule}: {text}"
    );
    assert_eq!(text.lines().count(), 1, "{text}");
}

#[test]
fn execute_file_is_confined_to_the_project_until_a_read_rule_opens_one_path() {
    let sandbox = Sandbox::new();
    // Outside the project: HOME is a sibling directory of it.
    let secret = sandbox.home.join("secret.txt");
    std::fs::write(&secret, "line one\nline two\nline three\n").expect("write");
    let other = sandbox.home.join("other.txt");
    std::fs::write(&other, "x\n").expect("write");
    std::os::unix::fs::symlink(&secret, sandbox.project.join("innocent-link.txt"))
        .expect("symlink");
    sandbox.write("inside.txt", b"a\nb\n");
    let mut client = sandbox.live_server();

    let (text, is_error) = client.call_tool(
        "ctx_execute_file",
        json!({"path": "inside.txt", "language": "shell", "code": COUNT_LINES}),
    );
    assert!(!is_error, "{text}");
    assert_eq!(text.trim(), "2");

    let absolute = secret.to_string_lossy().into_owned();
    let traversal = "../home/secret.txt";
    for path in [absolute.as_str(), traversal, "innocent-link.txt"] {
        let (text, is_error) = client.call_tool(
            "ctx_execute_file",
            json!({"path": path, "language": "shell", "code": COUNT_LINES}),
        );
        assert_refused_naming_read_rule(&text, is_error, &secret);
    }

    // The rule the refusal named opens exactly that path, by every spelling of it.
    sandbox.project_permissions(json!({"allow": [format!("Read({})", secret.display())]}));
    for path in [absolute.as_str(), traversal, "innocent-link.txt"] {
        let (text, is_error) = client.call_tool(
            "ctx_execute_file",
            json!({"path": path, "language": "shell", "code": COUNT_LINES}),
        );
        assert!(!is_error, "{path}: {text}");
        assert_eq!(text.trim(), "3", "{path}");
    }
    let (text, is_error) = client.call_tool(
        "ctx_execute_file",
        json!({"path": other.to_string_lossy(), "language": "shell", "code": COUNT_LINES}),
    );
    assert_refused_naming_read_rule(&text, is_error, &other);
}

#[test]
fn a_read_deny_rule_refuses_env_files_inside_the_project() {
    let sandbox = Sandbox::new();
    sandbox.write("app/.env", b"API_KEY=sk-live-123\n");
    sandbox.project_permissions(json!({"deny": ["Read(**/.env)"]}));
    let mut client = sandbox.live_server();
    let (text, is_error) = client.call_tool(
        "ctx_execute_file",
        json!({"path": "app/.env", "language": "shell", "code": "touch env-script-ran; cat \"$FILE_CONTENT_PATH\""}),
    );
    assert!(is_error, "{text}");
    assert!(text.starts_with("denied by security policy"), "{text}");
    assert!(text.contains("Read(**/.env)"), "cites the rule: {text}");
    assert!(!text.contains("sk-live-123"), "{text}");
    assert!(
        !sandbox.project.join("env-script-ran").exists(),
        "the script never ran"
    );
}

#[test]
fn a_bash_deny_rule_applies_to_shell_code_embedded_calls_and_batch_commands() {
    let sandbox = Sandbox::new();
    sandbox.project_permissions(json!({"deny": ["Bash(sudo *)"]}));
    let mut client = sandbox.live_server();

    let denied = |text: &str, is_error: bool| {
        assert!(is_error, "{text}");
        assert!(text.starts_with("denied by security policy"), "{text}");
        assert!(text.contains("Bash(sudo *)"), "cites the rule: {text}");
    };

    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": "touch marker-shell; echo ok && sudo ls"}),
    );
    denied(&text, is_error);
    assert!(
        !sandbox.project.join("marker-shell").exists(),
        "denied shell code never ran"
    );

    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "python", "code": "import os\nopen('marker-python', 'w').close()\nos.system(\"sudo ls\")"}),
    );
    denied(&text, is_error);
    assert!(
        !sandbox.project.join("marker-python").exists(),
        "denied python code never ran"
    );

    let (text, is_error) = client.call_tool(
        "ctx_batch_execute",
        json!({"commands": [
            {"label": "fine", "command": "echo fine"},
            {"label": "escalate", "command": "touch marker-batch && sudo ls"}
        ]}),
    );
    denied(&text, is_error);
    assert!(
        !sandbox.project.join("marker-batch").exists(),
        "denied batch command never ran"
    );

    // Commands the rule does not match still run.
    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": "touch marker-allowed && echo ran-fine"}),
    );
    assert!(!is_error, "{text}");
    assert_eq!(text.trim(), "ran-fine");
    assert!(sandbox.project.join("marker-allowed").exists());
}

/// The refusal is worded for the client: Claude Code's users know `.claude/settings.json`
/// as their own file; Gemini CLI's are told it is where context-mode reads its rules.
#[test]
fn the_outside_project_refusal_is_worded_for_the_client() {
    let sandbox = Sandbox::new();
    let secret = sandbox.home.join("secret.txt");
    std::fs::write(&secret, "x\n").expect("write");
    let args = json!({"path": secret.to_string_lossy(), "language": "shell", "code": COUNT_LINES});
    let mut claude = common::McpClient::spawn_as(sandbox.cm().arg("serve"), "claude-code");
    let (text, is_error) = claude.call_tool("ctx_execute_file", args.clone());
    assert_refused_naming_read_rule(&text, is_error, &secret);
    assert!(
        text.ends_with("to permissions.allow in .claude/settings.json"),
        "{text}"
    );
    let mut gemini =
        common::McpClient::spawn_as(sandbox.cm().arg("serve"), "gemini-cli-mcp-client");
    let (text, is_error) = gemini.call_tool("ctx_execute_file", args);
    assert_refused_naming_read_rule(&text, is_error, &secret);
    assert!(
        text.contains("context-mode reads its permission rules from Claude Code's settings files, whichever agent runs it"),
        "{text}"
    );
}

/// The server names its own tools as the client registered it (ADR 19), so a deny rule
/// on the tool's real name under a user's own server entry applies inside the server too.
#[test]
fn a_deny_rule_on_our_tool_under_the_users_server_name_applies() {
    let sandbox = Sandbox::new();
    std::fs::write(
        sandbox.home.join(".claude.json"),
        r#"{"mcpServers":{"my-ctx":{"type":"stdio","command":"cm","args":["serve"]}}}"#,
    )
    .expect("write ~/.claude.json");
    sandbox.project_permissions(json!({"deny": ["mcp__my-ctx__ctx_execute"]}));
    let mut client = common::McpClient::spawn_as(sandbox.cm().arg("serve"), "claude-code");
    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": "echo ran"}),
    );
    assert!(is_error, "{text}");
    assert!(text.starts_with("denied by security policy"), "{text}");
    assert!(text.contains("mcp__my-ctx__ctx_execute"), "{text}");
}
