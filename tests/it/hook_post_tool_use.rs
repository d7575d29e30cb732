//! PostToolUse output replacement: a large result of another MCP server is indexed whole
//! and replaced by a digest; built-in tools and small results are left alone.

use crate::common;

use common::{Sandbox, repo_root};

const SESSION: &str = "5d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6";

fn fixture(name: &str) -> String {
    let dir = std::env::var_os("CM_FIXTURES_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| repo_root().join("tests/fixtures"));
    std::fs::read_to_string(dir.join(name)).expect("fixture")
}

fn post_tool_use(sandbox: &Sandbox, tool: &str, response: serde_json::Value) -> serde_json::Value {
    let payload = serde_json::json!({
        "session_id": SESSION,
        "transcript_path": format!("/tmp/{SESSION}.jsonl"),
        "cwd": sandbox.project,
        "hook_event_name": "PostToolUse",
        "tool_name": tool,
        "tool_input": { "repo": "facebook/react", "state": "open" },
        "tool_response": response
    });
    let output = sandbox.hook("claude-code", "posttooluse", payload.to_string().as_bytes());
    assert_eq!(output.status.code(), Some(0));
    assert!(
        sandbox.hook_errors().is_empty(),
        "{:?}",
        sandbox.hook_errors()
    );
    if output.stdout.is_empty() {
        return serde_json::Value::Null;
    }
    serde_json::from_slice(&output.stdout).expect("JSON reply")
}

fn prompt(sandbox: &Sandbox, text: &str) {
    let payload = serde_json::json!({
        "session_id": SESSION,
        "transcript_path": format!("/tmp/{SESSION}.jsonl"),
        "cwd": sandbox.project,
        "hook_event_name": "UserPromptSubmit",
        "prompt": text
    });
    let output = sandbox.hook(
        "claude-code",
        "userpromptsubmit",
        payload.to_string().as_bytes(),
    );
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn a_large_mcp_result_is_replaced_by_the_parts_matching_the_last_request() {
    let sandbox = Sandbox::new();
    prompt(&sandbox, "which open issues mention useDeferredValue?");
    let issues = fixture("github-issues.json");
    assert!(issues.len() > 40_000);
    let reply = post_tool_use(
        &sandbox,
        "mcp__github__list_issues",
        serde_json::json!([{ "type": "text", "text": issues }]),
    );
    let replaced = reply["hookSpecificOutput"]["updatedMCPToolOutput"]
        .as_str()
        .unwrap_or_else(|| panic!("no replacement in {reply}"));
    assert!(replaced.len() <= 16_384, "{} B", replaced.len());
    assert!(
        replaced.len() * 4 < issues.len(),
        "the replacement must be much smaller"
    );
    assert!(
        replaced.contains("indexed as source \"mcp__github__list_issues output"),
        "{replaced}"
    );
    assert!(replaced.contains("Parts matching"), "{replaced}");
    assert!(replaced.contains("useDeferredValue"), "{replaced}");
    assert_eq!(
        replaced
            .matches("More: mcp__context-mode__ctx_search(")
            .count(),
        1,
        "{replaced}"
    );

    // The whole result stays searchable.
    let mut client = sandbox.live_server();
    let (found, is_error) = client.call_tool(
        "ctx_search",
        serde_json::json!({ "queries": ["useDeferredValue"], "source": "mcp__github__list_issues" }),
    );
    assert!(!is_error, "{found}");
    assert!(found.contains("useDeferredValue"), "{found}");
}

#[test]
fn built_in_tools_and_small_results_are_left_alone() {
    let sandbox = Sandbox::new();
    let big = "x".repeat(20_000);
    let reply = post_tool_use(
        &sandbox,
        "Bash",
        serde_json::json!({ "stdout": big, "stderr": "", "interrupted": false }),
    );
    assert!(
        reply
            .pointer("/hookSpecificOutput/updatedMCPToolOutput")
            .is_none(),
        "{reply}"
    );
    let reply = post_tool_use(
        &sandbox,
        "mcp__github__get_issue",
        serde_json::json!([{ "type": "text", "text": "a short answer" }]),
    );
    assert!(
        reply
            .pointer("/hookSpecificOutput/updatedMCPToolOutput")
            .is_none(),
        "{reply}"
    );
}

#[test]
fn a_failed_tool_reaches_the_state_block_through_post_tool_use_failure() {
    let sandbox = Sandbox::new();
    prompt(&sandbox, "make the test suite pass");
    let base = |event: &str| {
        serde_json::json!({
            "session_id": SESSION,
            "transcript_path": format!("/tmp/{SESSION}.jsonl"),
            "cwd": sandbox.project,
            "hook_event_name": event,
        })
    };
    let mut failure = base("PostToolUseFailure");
    failure["tool_name"] = "Bash".into();
    failure["tool_input"] = serde_json::json!({ "command": "npm test" });
    failure["error"] = "Command failed with exit code 1: TypeError: cannot read properties of undefined (reading 'zone')".into();
    let output = sandbox.hook(
        "claude-code",
        "posttoolusefailure",
        failure.to_string().as_bytes(),
    );
    assert_eq!(output.status.code(), Some(0));

    let mut compact = base("PreCompact");
    compact["trigger"] = "auto".into();
    assert_eq!(
        sandbox
            .hook("claude-code", "precompact", compact.to_string().as_bytes())
            .status
            .code(),
        Some(0)
    );
    let mut start = base("SessionStart");
    start["source"] = "compact".into();
    let output = sandbox.hook("claude-code", "sessionstart", start.to_string().as_bytes());
    let reply: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON reply");
    let block = reply["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .expect("state block");
    assert!(block.contains("reading 'zone'"), "{block}");
    assert!(
        sandbox.hook_errors().is_empty(),
        "{:?}",
        sandbox.hook_errors()
    );
}

/// Claude Code hands an MCP result to PostToolUse as the JSON string of `{"result": …}`.
/// What gets indexed is the text the tool returned, with its real newlines; the hook's
/// saving is a row of the per-tool table; and a server of the same agent, told no
/// session, counts both as this session's (ADR 0021).
#[test]
fn an_encoded_mcp_result_is_indexed_as_its_text_and_counted_in_this_session() {
    let sandbox = Sandbox::new();
    prompt(&sandbox, "which open issues mention useDeferredValue?");
    let text: String = (1..=400)
        .map(|n| format!("issue line: #{n} useDeferredValue stays stale after render {n}\n"))
        .collect();
    let encoded = serde_json::json!({ "result": text }).to_string();
    assert!(encoded.contains("\\n"), "the payload carries JSON escapes");
    let reply = post_tool_use(
        &sandbox,
        "mcp__github__list_issues",
        serde_json::Value::String(encoded),
    );
    assert!(
        reply
            .pointer("/hookSpecificOutput/updatedMCPToolOutput")
            .is_some(),
        "{reply}"
    );

    let mut client = sandbox.live_server();
    let (found, is_error) = client.call_tool(
        "ctx_search",
        serde_json::json!({ "queries": ["useDeferredValue"], "source": "mcp__github__list_issues" }),
    );
    assert!(!is_error, "{found}");
    assert!(found.contains("issue line:"), "{found}");
    assert!(
        !found.contains("\\n") && !found.contains(r#"{"result""#),
        "the chunk is the tool's text, not its JSON: {found}"
    );
    assert!(found.contains("this session"), "{found}");
    assert!(!found.contains("earlier session"), "{found}");

    let (stats, _) = client.call_tool("ctx_stats", serde_json::json!({}));
    let session_part = stats.split("This project, all time").next().unwrap_or("");
    assert!(
        session_part.contains(&format!("This session · {SESSION}")),
        "{stats}"
    );
    assert!(
        session_part.contains("mcp__github__list_issues (hook)"),
        "the hook's saving is in this session's table: {stats}"
    );
}
