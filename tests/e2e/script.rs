//! The model's side of the scripted session. Every turn is decided from the request
//! alone (which calls the conversation already holds, which tools it offers), so a
//! retried or replayed request gets the same answer and no state is kept between
//! requests. The steps, in order:
//! 1. the agent's own shell tool runs `curl` against this server (the hook should
//!    redirect it), then a plain `echo` the hooks let through (its PostToolUse fires);
//! 2. when `ctx_*` tools are only listed as deferred, the agent's tool search loads them,
//!    as a model would (Claude Code's `ToolSearch`, Qwen Code's `tool_search`);
//! 3. `ctx_execute` under the name offered, 4. `ctx_index`, 5. `ctx_search`;
//! 6. the tool named in the redirect text of step 1 is called literally, with the
//!    arguments the text gives (loaded through the tool search first when it is
//!    deferred);
//! 7. a closing text.

use serde_json::{Value, json};

use crate::wire::{Exchange, Turn};

/// Call ids name their step, so the checks find each call in the history.
pub const SHELL: &str = "e2e_shell";
pub const PLAIN_SHELL: &str = "e2e_plain_shell";
pub const LOAD: &str = "e2e_load";
pub const EXECUTE: &str = "e2e_execute";
pub const INDEX: &str = "e2e_index";
pub const SEARCH: &str = "e2e_search";
pub const REDIRECT_LOAD: &str = "e2e_redirect_load";
pub const REDIRECT: &str = "e2e_redirect";

/// What the plain shell call runs, and what its output must contain (no `$(`: Gemini CLI
/// refuses command substitution).
pub const PLAIN_SHELL_CODE: &str = "expr 6 '*' 7 | sed 's/^/cm-e2e-plain-/'";
pub const PLAIN_SHELL_OUTPUT: &str = "cm-e2e-plain-42";
/// What `ctx_execute` runs, and what its output must contain (computed, so the
/// arguments echoed back cannot satisfy the check).
pub const EXECUTE_CODE: &str = "echo cm-e2e-exec-$((6*7))";
pub const EXECUTE_OUTPUT: &str = "cm-e2e-exec-42";
/// What `ctx_index` indexes and `ctx_search` must find.
pub const INDEX_SOURCE: &str = "e2e-notes";
pub const INDEX_CONTENT: &str = "# Frobnicator calibration\n\nThe zorblatt frobnicator is calibrated at 7713 hertz before every release.\n\n# Unrelated\n\nNothing to see here.\n";
pub const SEARCH_QUERY: &str = "zorblatt frobnicator calibrated";
pub const SEARCH_FINDS: &str = "7713 hertz";
/// The closing text.
pub const DONE: &str = "cm-e2e scripted session done";
/// The prompt of Claude Code's run after `/compact`.
pub const AFTER_COMPACTION_PROMPT: &str = "cm-e2e: carry on after the compaction";
/// The summary the scripted model writes when asked to compact.
pub const COMPACT_SUMMARY: &str = "cm-e2e compaction summary: nothing else to keep.";

/// The tools that load deferred tools by `select:<names>`: Claude Code's, Qwen Code's.
const SEARCH_TOOLS: &[&str] = &["ToolSearch", "tool_search"];
/// Qwen Code's bridge that runs a deferred tool (`{"name": …, "arguments": {…}}`), the way
/// its reminder says to call one (its deferred tools are never declared to the model).
const BRIDGE_TOOL: &str = "tool_call";

/// Shell tools by host, and how each takes its command.
const SHELL_TOOLS: &[&str] = &[
    "Bash",
    // Copilot CLI.
    "bash",
    "run_shell_command",
    "exec_command",
    "shell_command",
    "shell",
    // OpenClaw.
    "exec",
];

/// The shell tool this request offers, if any: what makes it the agent's main loop
/// rather than a side request (titles, routing, summaries).
pub fn shell_tool(exchange: &Exchange) -> Option<&str> {
    SHELL_TOOLS
        .iter()
        .copied()
        .find(|name| exchange.offers(name).is_some())
}

/// The model's answer: its turn, and whether to report a prompt so large that the agent
/// compacts before its next request.
pub struct Answer {
    pub turn: Turn,
    pub compact_next: bool,
}

/// The next turn of the main loop. The last tool call of the script is answered with a
/// usage that makes the agent compact once its result is in; after the compaction
/// (our summary is in the conversation) the model closes.
pub fn answer(exchange: &Exchange, fixture_url: &str) -> Answer {
    if exchange.context.contains(COMPACT_SUMMARY) {
        return Answer {
            turn: Turn::Text(DONE.to_owned()),
            compact_next: false,
        };
    }
    let turn = next_turn(exchange, fixture_url);
    let last_call = match &turn {
        Turn::Call { id, .. } if id == REDIRECT => true,
        Turn::Call { id, .. } if id == SEARCH => exchange
            .call(SHELL)
            .and_then(|c| c.result.as_deref())
            .and_then(redirect_target)
            .is_none(),
        _ => false,
    };
    Answer {
        turn,
        compact_next: last_call,
    }
}

fn next_turn(exchange: &Exchange, fixture_url: &str) -> Turn {
    let done = |id: &str| exchange.call(id).is_some();
    if let Some(shell) = shell_tool(exchange)
        && !done(SHELL)
    {
        let args = shell_args(exchange, shell, &format!("curl -s {fixture_url}"));
        return Turn::call(SHELL, shell, exchange, args);
    }
    if let Some(shell) = shell_tool(exchange)
        && !done(PLAIN_SHELL)
    {
        let args = shell_args(exchange, shell, PLAIN_SHELL_CODE);
        return Turn::call(PLAIN_SHELL, shell, exchange, args);
    }
    let wanted = ["ctx_execute", "ctx_index", "ctx_search"];
    if exchange.ctx_tool("ctx_execute").is_none() && search_tool(exchange).is_some() && !done(LOAD)
    {
        let names: Vec<&str> = wanted
            .iter()
            .filter_map(|t| exchange.deferred_ctx_tool(t))
            .collect();
        if !names.is_empty() {
            return tool_search(LOAD, exchange, &names);
        }
    }
    let steps = [
        (
            EXECUTE,
            "ctx_execute",
            json!({"language": "shell", "code": EXECUTE_CODE}),
        ),
        (
            INDEX,
            "ctx_index",
            json!({"content": INDEX_CONTENT, "source": INDEX_SOURCE}),
        ),
        (
            SEARCH,
            "ctx_search",
            json!({"queries": [SEARCH_QUERY], "source": INDEX_SOURCE}),
        ),
    ];
    for (id, tool, args) in steps {
        if done(id) {
            continue;
        }
        if let Some(offered) = exchange.ctx_tool(tool) {
            let name = offered.name.clone();
            return Turn::call(id, &name, exchange, args);
        }
        if exchange.offers(BRIDGE_TOOL).is_some()
            && let Some(name) = exchange.deferred_ctx_tool(tool)
        {
            return bridged(id, name, exchange, args);
        }
    }
    if !done(REDIRECT)
        && let Some((name, args)) = exchange
            .call(SHELL)
            .and_then(|c| c.result.as_deref())
            .and_then(redirect_target)
    {
        let deferred = exchange.offers(&name).is_none();
        if deferred && search_tool(exchange).is_some() && !done(REDIRECT_LOAD) {
            return tool_search(REDIRECT_LOAD, exchange, &[&name]);
        }
        // Literally, even where the tool stays undeclared: Qwen Code 0.24.4 runs a
        // deferred tool called by its name too (steps 3–5 take its `tool_call` bridge).
        return Turn::call(REDIRECT, &name, exchange, args);
    }
    Turn::Text(DONE.to_owned())
}

/// A request asking the model to summarise the conversation: Claude Code's compaction
/// prompt, Gemini CLI's `<state_snapshot>` request, Codex's checkpoint compaction, Kimi
/// Code's handoff summary.
pub fn is_compaction(exchange: &Exchange) -> bool {
    let text = exchange.last_user_text.to_lowercase();
    [
        "detailed summary of the conversation",
        "<state_snapshot>",
        "context checkpoint compaction",
        "create a handoff summary",
    ]
    .iter()
    .any(|sign| text.contains(sign))
}

/// A request of Kimi Code's main loop (its system prompt's first words).
pub fn is_kimi(exchange: &Exchange) -> bool {
    exchange.context.starts_with("You are Kimi Code CLI")
}

fn search_tool(exchange: &Exchange) -> Option<&'static str> {
    SEARCH_TOOLS
        .iter()
        .copied()
        .find(|name| exchange.offers(name).is_some())
}

/// A deferred tool run through Qwen Code's bridge.
fn bridged(id: &str, name: &str, exchange: &Exchange, args: Value) -> Turn {
    Turn::call(
        id,
        BRIDGE_TOOL,
        exchange,
        json!({"name": name, "arguments": args}),
    )
}

fn tool_search(id: &str, exchange: &Exchange, names: &[&str]) -> Turn {
    let query = format!("select:{}", names.join(","));
    Turn::call(
        id,
        search_tool(exchange).unwrap_or("ToolSearch"),
        exchange,
        json!({"query": query, "max_results": names.len().max(5)}),
    )
}

/// The shell tool's arguments, shaped by its schema: `cmd` (Codex's `exec_command`),
/// `command` as an argv array (Codex's `shell`) or as a string (everyone else).
fn shell_args(exchange: &Exchange, tool: &str, command: &str) -> Value {
    let properties = exchange
        .offers(tool)
        .map(|o| o.schema["properties"].clone())
        .unwrap_or_default();
    if properties.get("cmd").is_some() {
        json!({"cmd": command})
    } else if properties["command"]["type"].as_str() == Some("array") {
        json!({"command": ["bash", "-lc", command]})
    } else {
        json!({"command": command, "description": "fetch the e2e fixture"})
    }
}

/// The tool and arguments a redirect names: `redirected to NAME(key: "value", …)`,
/// each value a JSON literal.
pub fn redirect_target(text: &str) -> Option<(String, Value)> {
    let at = text.find("redirected to ")? + "redirected to ".len();
    let rest = &text[at..];
    let open = rest.find('(')?;
    let name = rest[..open].trim().to_owned();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return None;
    }
    let mut args = serde_json::Map::new();
    let mut rest = &rest[open + 1..];
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix(')') {
            let _ = after;
            return Some((name, Value::Object(args)));
        }
        let colon = rest.find(':')?;
        let key = rest[..colon].trim().to_owned();
        rest = rest[colon + 1..].trim_start();
        let mut values = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        let value = values.next()?.ok()?;
        let used = values.byte_offset();
        args.insert(key, value);
        rest = rest[used..].trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redirect_text_gives_its_tool_and_arguments() {
        let text = r#"redirected to mcp__x__ctx_execute(language: "shell", code: "curl -s \"http://a/b\""): only what"#;
        let (name, args) = redirect_target(text).expect("parsed");
        assert_eq!(name, "mcp__x__ctx_execute");
        assert_eq!(
            args,
            json!({"language": "shell", "code": "curl -s \"http://a/b\""})
        );
    }
}
