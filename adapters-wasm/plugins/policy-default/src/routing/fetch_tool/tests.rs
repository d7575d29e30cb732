use super::*;
use context_mode_sdk::tool_name::parse_tool_name;
use serde_json::json;

fn call(name: &str) -> ToolCall {
    let parsed = parse_tool_name(name);
    let mut call = ToolCall::new(name, parsed.kind);
    call.mcp_server = parsed.mcp_server;
    call.mcp_tool = parsed.mcp_tool;
    call
}

fn url_of(name: &str, input: Value) -> Option<String> {
    fetch_tool_url(&call(name), &input)
}

#[test]
fn fetch_tools_of_other_servers_with_a_url_are_caught() {
    for name in [
        "mcp_web_fetch",
        "mcp_fetch_tool",
        "mcp__fetch__fetch",
        "mcp__web-tools__fetch_url",
        "MCP:fetch",
        "mcp:browser:web-fetch",
    ] {
        assert_eq!(
            url_of(name, json!({ "url": "https://docs.rs/serde" })).as_deref(),
            Some("https://docs.rs/serde"),
            "{name}"
        );
    }
    assert_eq!(
        url_of("mcp_web_fetch", json!({ "URL": " http://x.dev/a " })).as_deref(),
        Some("http://x.dev/a")
    );
}

#[test]
fn ours_and_fetch_tools_without_a_web_url_pass() {
    let page = json!({ "url": "https://docs.rs/serde" });
    for name in [
        "mcp__context-mode__ctx_fetch_and_index",
        "mcp__plugin_context-mode_context-mode__ctx_fetch_and_index",
        "ctx_fetch_and_index",
        "mcp__other__ctx_fetch_and_index",
        "mcp__github__get_issue",
        "mcp__prefetcher__warm",
        "WebFetch",
        "Bash",
    ] {
        assert_eq!(url_of(name, page.clone()), None, "{name}");
    }
    for input in [
        json!({}),
        json!({ "remote": "origin" }),
        json!({ "url": "git@github.com:x/y.git" }),
        json!({ "url": "file:///etc/passwd" }),
        json!({ "url": 42 }),
        Value::Null,
    ] {
        assert_eq!(url_of("mcp__git__fetch", input.clone()), None, "{input}");
    }
}
