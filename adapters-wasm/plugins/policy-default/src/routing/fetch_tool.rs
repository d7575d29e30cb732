//! Another MCP server's fetch tool (`mcp__fetch__fetch`, Cursor's `mcp_web_fetch`
//! and `mcp_fetch_tool`): it puts a whole page into the context just as WebFetch
//! does, so it takes the same redirect to `ctx_fetch_and_index`.

use serde_json::Value;

use context_mode_sdk::policy::{ToolCall, ToolKind};

/// The input fields a fetch tool takes its address in: `url` (the reference fetch
/// server, Cursor's aliases) and Antigravity's capitalised `URL`.
const URL_FIELDS: &[&str] = &["url", "URL"];

/// The URL another server's fetch tool is asked to load, when `call` is one:
/// an MCP tool (not ours) whose name has the word `fetch` and whose input
/// carries an `http(s)` URL. A tool named like fetch without one (a git fetch,
/// a record fetched by id) is someone else's business.
pub fn fetch_tool_url(call: &ToolCall, input: &Value) -> Option<String> {
    if call.kind != ToolKind::Mcp || !named_fetch(call) {
        return None;
    }
    URL_FIELDS
        .iter()
        .find_map(|field| input.get(*field).and_then(Value::as_str))
        .map(str::trim)
        .filter(|url| is_web_url(url))
        .map(str::to_string)
}

/// `fetch` as a whole word of the host's name, the server or the tool, split where
/// hosts join words (`mcp_web_fetch`, `mcp__fetch__fetch`, `fetch-url`). A `ctx_`
/// tool on another server is a copy of ours, never a page fetch.
fn named_fetch(call: &ToolCall) -> bool {
    let tool = call.mcp_tool.as_deref().unwrap_or(&call.name);
    if tool.starts_with("ctx_") {
        return false;
    }
    let names = [
        call.name.as_str(),
        call.mcp_server.as_deref().unwrap_or(""),
        tool,
    ];
    names.iter().any(|name| {
        name.split(['_', '-', ':', '/', '.', '@'])
            .any(|word| word.eq_ignore_ascii_case("fetch"))
    })
}

fn is_web_url(url: &str) -> bool {
    let scheme = url.split_once("://").map(|(scheme, _)| scheme);
    scheme.is_some_and(|s| s.eq_ignore_ascii_case("http") || s.eq_ignore_ascii_case("https"))
}

#[cfg(test)]
mod tests;
