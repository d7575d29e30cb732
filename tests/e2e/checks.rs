//! What a scripted session must show, read from the recorded requests (and, for Claude
//! Code, its stream-json output): (a) the hook redirected the shell `curl`; (b)
//! `ctx_execute` under the offered name returned the command's output; (c) `ctx_search`
//! found what `ctx_index` indexed; (d) the tool our redirect names is offered and works;
//! (e) the routing block reached the model and names only offered tools; (f) a
//! compaction brings the state block back.

use std::collections::BTreeSet;

use crate::agents::PROMPT;
use crate::http::Request;
use crate::model::{FIXTURE_BODY, Provider};
use crate::script;
use crate::wire::Exchange;

/// The first words of the routing block our SessionStart hook adds.
const ROUTING_MARK: &str = "context-mode is active";

pub struct Check {
    pub name: &'static str,
    pub failure: Option<String>,
}

/// Every model request, read.
fn read_all(requests: &[Request]) -> Vec<Exchange> {
    requests
        .iter()
        .filter_map(|r| Some((Provider::of(r)?, r.json()?)))
        .map(|(provider, body)| provider.read(&body))
        .collect()
}

/// (f) After a compaction the model gets our state block back: a request after the
/// agent's compaction request carries the session's last request (`Last request …:
/// <prompt>`), which the compacted history no longer holds.
pub fn compaction_check(requests: &[Request]) -> Check {
    let name = "a compaction brings the state block back";
    let exchanges = read_all(requests);
    let Some(at) = exchanges.iter().position(script::is_compaction) else {
        return Check {
            name,
            failure: Some("the agent never asked the model to compact".to_owned()),
        };
    };
    let after: Vec<&Exchange> = exchanges[at + 1..]
        .iter()
        .filter(|e| e.context.contains(script::COMPACT_SUMMARY))
        .collect();
    let failure = match after.last() {
        None => Some("no request after the compaction carries the compacted history".to_owned()),
        Some(_) if after.iter().any(|e| carries_state_block(&e.context)) => None,
        Some(e) => Some(format!(
            "no request after the compaction carries the state block (\"Last request …: {PROMPT}\"); the last one's context ends: {}",
            excerpt(
                &e.context
                    .chars()
                    .rev()
                    .take(600)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect::<String>()
            )
        )),
    };
    Check { name, failure }
}

/// Claude Code reports each hook it ran (`system`/`hook_response` in stream-json) with
/// its outcome: every one must be a success it accepted.
pub fn hook_replies_check(stdout: &[u8]) -> Check {
    let name = "Claude Code accepts every hook reply";
    let replies: Vec<serde_json::Value> = String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["subtype"] == "hook_response")
        .collect();
    let bad: Vec<String> = replies
        .iter()
        .filter(|v| v["outcome"] != "success" || v["exit_code"] != 0)
        .map(|v| {
            format!(
                "{} outcome={} exit={} stderr={}",
                v["hook_name"], v["outcome"], v["exit_code"], v["stderr"]
            )
        })
        .collect();
    let failure = match (replies.is_empty(), bad.is_empty()) {
        (true, _) => Some("the stream shows no hook reply at all".to_owned()),
        (false, true) => None,
        (false, false) => Some(bad.join("; ")),
    };
    Check { name, failure }
}

/// The agent's own MCP listing after `cm setup`: a line naming `context-mode` that
/// contains `expect` (Qwen Code's `Connected`; Copilot CLI lists configuration only).
pub fn mcp_list_check(
    bin: &str,
    args: &[&str],
    expect: &str,
    listing: &std::process::Output,
) -> Check {
    let name = "the agent's MCP listing shows context-mode";
    let stdout = String::from_utf8_lossy(&listing.stdout);
    let found = stdout
        .lines()
        .any(|l| l.contains("context-mode") && l.contains(expect));
    let failure = (!found || !listing.status.success()).then(|| {
        format!(
            "`{bin} {}` ({}) has no line with context-mode and {expect:?}: {}{}",
            args.join(" "),
            listing.status,
            excerpt(&stdout),
            excerpt(&String::from_utf8_lossy(&listing.stderr))
        )
    });
    Check { name, failure }
}

/// The agent's own session output says our server connected: Qwen Code's stream-json
/// `system`/`init` line (`mcp_servers: [{"name": "context-mode", "status":
/// "connected"}]`), Copilot CLI's JSONL `session.mcp_server_status_changed` event
/// (`serverName: "context-mode", status: "connected"`).
pub fn session_mcp_check(stdout: &[u8]) -> Check {
    let name = "the agent's session output reports context-mode connected";
    let connected = |v: &serde_json::Value| v["status"] == "connected";
    let found = String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .any(|v| {
            let qwen = v["type"] == "system"
                && v["mcp_servers"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|s| s["name"] == "context-mode" && connected(s));
            let copilot = v["type"] == "session.mcp_server_status_changed"
                && v["data"]["serverName"] == "context-mode"
                && connected(&v["data"]);
            qwen || copilot
        });
    let failure = (!found).then(|| "no line of the agent's output says so".to_owned());
    Check { name, failure }
}

/// Our state block's line for the session's last request.
fn carries_state_block(context: &str) -> bool {
    context
        .lines()
        .any(|line| line.contains("Last request") && line.contains(PROMPT))
}

/// The result the agent sent for the model's call `id`, from the fullest history.
pub fn result_of_call(requests: &[Request], id: &str) -> Result<String, String> {
    let every = read_all(requests);
    let last = every
        .iter()
        .max_by_key(|e| e.calls.len())
        .ok_or("no model request was recorded")?;
    let call = last
        .call(id)
        .ok_or_else(|| format!("the model's {id} call is not in the history"))?;
    call.result
        .clone()
        .ok_or_else(|| format!("the agent sent no result for {id} ({})", call.name))
}

/// Every tool name the agent offered in a main-loop request.
pub fn offered_names(requests: &[Request]) -> BTreeSet<String> {
    let exchanges: Vec<Exchange> = read_all(requests)
        .into_iter()
        .filter(|e| script::shell_tool(e).is_some())
        .collect();
    offered(&exchanges)
}

/// The ctx tools are offered only as `<prefix>…`, and the redirect names one of them:
/// how an agent names the server of a plugin or an extension.
pub fn tool_prefix_checks(requests: &[Request], prefix: &str) -> Vec<Check> {
    let offered = offered_names(requests);
    let ours: Vec<&String> = offered.iter().filter(|n| n.contains("ctx_")).collect();
    let shell = result_of_call(requests, script::SHELL);
    vec![
        Check {
            name: "the ctx tools are offered under the plugin's or extension's server only",
            failure: (ours.is_empty() || ours.iter().any(|n| !n.starts_with(prefix)))
                .then(|| format!("ctx tools offered (expected {prefix}…): {ours:?}")),
        },
        Check {
            name: "the redirect names the plugin's or extension's ctx tool",
            failure: match &shell {
                Ok(text) if text.contains(&format!("redirected to {prefix}")) => None,
                Ok(text) => Some(format!(
                    "no \"redirected to {prefix}…\" in: {}",
                    excerpt(text)
                )),
                Err(e) => Some(e.clone()),
            },
        },
    ]
}

/// The context of every main-loop request.
pub fn contexts(requests: &[Request]) -> Vec<String> {
    read_all(requests)
        .into_iter()
        .filter(|e| script::shell_tool(e).is_some())
        .map(|e| e.context)
        .collect()
}

/// Our routing block as the first main-loop request carrying it has it: from its first
/// words to its last line (`- Small reads…`).
pub fn routing_block(requests: &[Request]) -> Option<String> {
    let context = contexts(requests)
        .into_iter()
        .find(|c| c.contains(ROUTING_MARK))?;
    let block = &context[context.find(ROUTING_MARK)?..];
    let end = block.find("- Small reads").unwrap_or(block.len());
    Some(block[..end].to_owned())
}

pub fn checks(requests: &[Request]) -> Vec<Check> {
    let every = read_all(requests);
    // The main loop: the requests that offer a shell tool.
    let exchanges: Vec<Exchange> = every
        .iter()
        .filter(|e| script::shell_tool(e).is_some())
        .cloned()
        .collect();
    let mut checks = Vec::new();
    let mut check =
        |name: &'static str, failure: Option<String>| checks.push(Check { name, failure });
    if exchanges.is_empty() {
        check(
            "the agent asked the scripted model for its main loop",
            Some(format!(
                "no request offered a shell tool ({} requests in all)",
                requests.len()
            )),
        );
        return checks;
    }
    // The fullest history: a compaction request can be the only one holding the last result.
    let Some(last) = every.iter().max_by_key(|e| e.calls.len()) else {
        return checks;
    };
    let result_of = |id: &str| -> Result<(String, bool), String> {
        let call = last
            .call(id)
            .ok_or_else(|| format!("the model's {id} call is not in the history"))?;
        let result = call
            .result
            .clone()
            .ok_or_else(|| format!("the agent sent no result for {} ({})", id, call.name))?;
        Ok((result, call.is_error))
    };

    // (a) The shell call was redirected by our PreToolUse hook.
    check(
        "the hook redirects the shell curl",
        match result_of(script::SHELL) {
            Ok((text, _)) if text.contains("redirected to") => None,
            Ok((text, _)) => Some(format!(
                "the shell result is not our redirect: {}",
                excerpt(&text)
            )),
            Err(e) => Some(e),
        },
    );
    // A plain shell command the hooks let through runs (and fires PostToolUse).
    check(
        "a shell command the hooks let through runs",
        returned(result_of(script::PLAIN_SHELL), script::PLAIN_SHELL_OUTPUT),
    );
    // (b) ctx_execute under the offered name.
    let offered_names = offered(&exchanges);
    check(
        "ctx_execute is offered",
        match offered_names.iter().find(|n| n.ends_with("ctx_execute")) {
            Some(_) => None,
            None => Some(format!(
                "no tool named *ctx_execute among {} offered (MCP server not connected?)",
                offered_names.len()
            )),
        },
    );
    check(
        "ctx_execute returns the command's output",
        returned(result_of(script::EXECUTE), script::EXECUTE_OUTPUT),
    );
    // (c) ctx_index + ctx_search.
    check(
        "ctx_index succeeds",
        match result_of(script::INDEX) {
            Ok((_, false)) => None,
            Ok((text, true)) => Some(excerpt(&text)),
            Err(e) => Some(e),
        },
    );
    check(
        "ctx_search finds what ctx_index indexed",
        returned(result_of(script::SEARCH), script::SEARCH_FINDS),
    );
    // (d) The redirect, followed literally, works.
    let redirect = last
        .call(script::SHELL)
        .and_then(|c| c.result.as_deref())
        .and_then(script::redirect_target);
    check(
        "the tool our redirect names is one the agent offers",
        match &redirect {
            Some((name, _)) if offered_names.contains(name) => None,
            Some((name, _)) => Some(format!(
                "the redirect names {name}; the agent offers {}",
                ctx_names(&offered_names)
            )),
            None => Some("no redirect text to follow".to_owned()),
        },
    );
    check(
        "calling the tool the redirect names succeeds",
        returned(result_of(script::REDIRECT), FIXTURE_BODY.trim()),
    );
    // (e) SessionStart/routing context reached the model, naming tools that exist.
    let context = exchanges
        .iter()
        .map(|e| e.context.as_str())
        .find(|c| c.contains(ROUTING_MARK));
    check(
        "our SessionStart routing block reaches the model",
        match context {
            Some(_) => None,
            None => Some(format!(
                "no main-loop request carries \"{ROUTING_MARK}\" ({} main-loop requests)",
                exchanges.len()
            )),
        },
    );
    if let Some(context) = context {
        let wrong: BTreeSet<String> = mentioned_tools(context)
            .into_iter()
            .filter(|name| !offered_names.contains(name))
            .collect();
        check(
            "every tool the routing block names is offered",
            match wrong.is_empty() {
                true => None,
                false => Some(format!(
                    "named but not offered: {}; offered: {}",
                    wrong.into_iter().collect::<Vec<_>>().join(", "),
                    ctx_names(&offered_names)
                )),
            },
        );
    }
    checks
}

/// `None` when the call succeeded and its result contains `needle`, else why not.
fn returned(result: Result<(String, bool), String>, needle: &str) -> Option<String> {
    match result {
        Ok((text, false)) if text.contains(needle) => None,
        Ok((text, error)) => Some(format!(
            "error={error}, expected {needle:?} in: {}",
            excerpt(&text)
        )),
        Err(e) => Some(e),
    }
}

/// Every name the agent offered the model in any main-loop request, deferred ones too.
fn offered(exchanges: &[Exchange]) -> BTreeSet<String> {
    exchanges
        .iter()
        .flat_map(|e| {
            e.offered
                .iter()
                .map(|o| o.name.clone())
                .chain(e.deferred.iter().cloned())
        })
        .collect()
}

fn ctx_names(names: &BTreeSet<String>) -> String {
    let ctx: Vec<&str> = names
        .iter()
        .filter(|n| n.contains("ctx_"))
        .map(String::as_str)
        .collect();
    if ctx.is_empty() {
        "no ctx_* tool".to_owned()
    } else {
        ctx.join(", ")
    }
}

/// Tool names in a text: words starting with `mcp` (or `context-mode-`, Copilot CLI's
/// prefix, or `context-mode_`, OpenCode's) that contain `ctx_`, but not a prefix such as
/// the `mcp_context-mode_ctx_` of `mcp_context-mode_ctx_*` (Gemini CLI's routing file).
fn mentioned_tools(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .filter(|w| {
            ["mcp", "context-mode-", "context-mode_"]
                .iter()
                .any(|prefix| w.starts_with(prefix))
                && w.contains("ctx_")
                && !w.ends_with('_')
        })
        .map(str::to_owned)
        .collect()
}

pub fn excerpt(text: &str) -> String {
    let one_line = text.replace('\n', "⏎");
    match one_line.char_indices().nth(400) {
        Some((at, _)) => format!("{}…", &one_line[..at]),
        None => one_line,
    }
}
