//! Every text the policy shows: redirect and denial reasons, nudges, and the
//! sub-agent routing block. One builder per kind, so the contract test can
//! enumerate them all.
//!
//! Wording rules (a model must be able to act on a reason without guessing): a redirect opens with "redirected to <call>",
//! names the exact call with the platform's tool name, states the tool's full
//! network access and ends with the transient-DNS retry sentence; a denial
//! opens with "denied by security policy" and cites the rule. No "blocked",
//! no bare negations, no rationale preface, no control characters, and
//! under [`MAX_REASON_BYTES`].

use crate::rules::Citation;
use context_mode_sdk::policy::{PolicyContext, RuleEffect, RuleScope};

/// Every reason and nudge stays strictly under this many bytes.
pub const MAX_REASON_BYTES: usize = 600;
/// The sub-agent routing block stays within this many bytes.
pub const SUBAGENT_BLOCK_MAX_BYTES: usize = 600;

pub const NETWORK_SENTENCE: &str = "The tool has full network access.";
pub const RETRY_SENTENCE: &str =
    "On a transient DNS error (EAI_AGAIN, ETIMEDOUT, ENETUNREACH), retry the same call.";
pub const DENIAL_OPENING: &str = "denied by security policy";
pub const ASK_OPENING: &str = "confirmation required by security policy";

/// Removes what must never reach a reason: ANSI escape sequences, control
/// characters (line breaks and tabs become spaces) and bidirectional overrides.
pub fn sanitize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => skip_escape_sequence(&mut chars),
            '\n' | '\r' | '\t' => {
                if !out.ends_with(' ') {
                    out.push(' ');
                }
            }
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' => {}
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

fn skip_escape_sequence(chars: &mut std::iter::Peekable<std::str::Chars>) {
    match chars.next() {
        // CSI: parameters, then one final byte in @..~
        Some('[') => {
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        }
        // OSC: up to BEL or ST (ESC \)
        Some(']') => {
            while let Some(c) = chars.next() {
                if c == '\u{7}' || (c == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                    break;
                }
            }
        }
        _ => {}
    }
}

/// Cuts `text` to at most `max_bytes`, on a character boundary, marking the cut with `…`.
pub fn truncate(text: &str, max_bytes: usize) -> String {
    if text.len() <= max_bytes {
        return text.to_string();
    }
    let budget = max_bytes.saturating_sub('…'.len_utf8());
    let mut end = budget;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", text[..end].trim_end())
}

/// Renders `render(pieces)` with each user-supplied piece sanitized. When the
/// text would reach [`MAX_REASON_BYTES`], every piece is cut to one common
/// length, the largest that fits, so short pieces (a rule) stay whole while
/// long ones (a command) are shortened.
fn fit(pieces: &[&str], render: impl Fn(&[String]) -> String) -> String {
    let pieces: Vec<String> = pieces.iter().map(|p| sanitize(p)).collect();
    let full = render(&pieces);
    if full.len() < MAX_REASON_BYTES {
        return full;
    }
    let capped = |cap: usize| render(&pieces.iter().map(|p| truncate(p, cap)).collect::<Vec<_>>());
    let (mut low, mut high) = (0usize, pieces.iter().map(String::len).max().unwrap_or(0));
    while low < high {
        let mid = (low + high).div_ceil(2);
        if capped(mid).len() < MAX_REASON_BYTES {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    capped(low)
}

/// Quotes a call argument: `"…"`, or `'…'` when the text has double quotes only.
fn quoted(text: &str) -> String {
    match (text.contains('"'), text.contains('\'')) {
        (false, _) => format!("\"{text}\""),
        (true, false) => format!("'{text}'"),
        (true, true) => format!("\"{}\"", text.replace('"', "\\\"")),
    }
}

/// How the agent host names our tools and its own, for the texts a model reads there.
pub struct Tools {
    platform: String,
    /// (server's tool name, the name the model sees), already sanitized.
    names: Vec<(String, String)>,
}

impl Tools {
    pub fn of(context: &PolicyContext) -> Tools {
        Tools {
            platform: context.platform.clone(),
            names: context
                .ctx_tools
                .iter()
                .map(|t| (t.tool.clone(), sanitize(&t.name)))
                .collect(),
        }
    }

    /// Every tool named `prefix` + its own name (for tests).
    #[cfg(test)]
    pub fn with_prefix(platform: &str, prefix: &str) -> Tools {
        Tools {
            platform: platform.to_string(),
            names: context_mode_sdk::CTX_TOOLS
                .iter()
                .map(|tool| (tool.to_string(), format!("{prefix}{tool}")))
                .collect(),
        }
    }

    /// The name the model sees for `tool`; a tool the host did not name keeps its own.
    pub fn name(&self, tool: &str) -> String {
        self.names
            .iter()
            .find(|(own, _)| own == tool)
            .map_or_else(|| tool.to_string(), |(_, name)| name.clone())
    }

    /// Claude Code (2.1.3xx) defers MCP tools behind ToolSearch: a deferred tool's
    /// schema is loaded by `ToolSearch` with the query `select:<name>` before the first
    /// call (its deferred-tools notice says so), so the redirect names that query.
    /// Qwen Code (0.24) declares no MCP tool to the model: it lists them in a reminder
    /// and runs one through its `tool_call` bridge (`name`, `arguments`), seen in
    /// tests/e2e against the real client.
    fn load_hint(&self, name: &str) -> String {
        match self.platform.as_str() {
            CLAUDE_CODE => {
                format!("If deferred, first call ToolSearch(query: \"select:{name}\"). ")
            }
            QWEN_CODE => format!(
                "If it is not in your tool list, run it with tool_call(name: \"{name}\", arguments: {{…}}). "
            ),
            _ => String::new(),
        }
    }

    /// A read of part of a file in the host's own words: Gemini CLI's `read_file`
    /// takes `start_line`/`end_line` (packages/core/src/tools/read-file.ts).
    fn ranged_read(&self) -> &'static str {
        if self.platform == GEMINI_CLI {
            "a read_file with start_line and end_line"
        } else {
            "a Read with offset and limit"
        }
    }

    /// Where the user's permission rules live, said for this host: only Claude Code's
    /// users know the file as their own.
    fn rules_file(&self) -> &'static str {
        if self.platform == CLAUDE_CODE {
            ".claude/settings.json"
        } else {
            "the project's .claude/settings.json (context-mode reads its permission rules from Claude Code's settings files, whichever agent runs it)"
        }
    }
}

const CLAUDE_CODE: &str = "claude-code";
const QWEN_CODE: &str = "qwen-code";
const GEMINI_CLI: &str = "gemini-cli";

fn redirect_tail(tools: &Tools, first: &str) -> String {
    format!(
        "{}{NETWORK_SENTENCE} {RETRY_SENTENCE}",
        tools.load_hint(first)
    )
}

/// WebFetch → `ctx_fetch_and_index`, then `ctx_search`.
pub fn redirect_web_fetch(tools: &Tools, url: &str) -> String {
    let fetch = tools.name("ctx_fetch_and_index");
    let search = tools.name("ctx_search");
    let exec = tools.name("ctx_execute");
    fit(&[url], |p| {
        format!(
            "redirected to {fetch}(url: {}), then {search}(queries: [\"<what you need>\"]) \
             to read the matching parts, or {exec} to process the page in code. {}",
            quoted(&p[0]),
            redirect_tail(tools, &fetch)
        )
    })
}

/// A `curl` / `wget` that prints a response → `ctx_execute` with the same command.
pub fn redirect_fetch_command(tools: &Tools, command: &str, url: Option<&str>) -> String {
    let fetch = tools.name("ctx_fetch_and_index");
    let exec = tools.name("ctx_execute");
    let url = url.unwrap_or("<url>");
    fit(&[command, url], |p| {
        format!(
            "redirected to {exec}(language: \"shell\", code: {}): only what the command prints comes back, \
             so filter the response there; to search a page later, use {fetch}(url: {}). {}",
            quoted(&p[0]),
            quoted(&p[1]),
            redirect_tail(tools, &exec)
        )
    })
}

/// Inline interpreter code making HTTP requests → `ctx_execute`.
pub fn redirect_inline_http(tools: &Tools, command: &str) -> String {
    let exec = tools.name("ctx_execute");
    fit(&[command], |p| {
        format!(
            "redirected to {exec}(language: \"shell\", code: {}): only what the script prints comes back, \
             so print just the fields you need. {}",
            quoted(&p[0]),
            redirect_tail(tools, &exec)
        )
    })
}

/// Gradle / Maven / sbt → `ctx_execute` with the command and a tail.
pub fn redirect_build(tools: &Tools, command: &str, single_command: bool) -> String {
    let exec = tools.name("ctx_execute");
    fit(&[command], |p| {
        let code = if single_command {
            format!("{} 2>&1 | tail -30", p[0])
        } else {
            format!("( {} ) 2>&1 | tail -30", p[0])
        };
        format!(
            "redirected to {exec}(language: \"shell\", code: {}): the last 30 lines carry the result; \
             for more, run it with intent: \"<what to find>\" and the full log is indexed and searched. {}",
            quoted(&code),
            redirect_tail(tools, &exec)
        )
    })
}

/// A whole-file Read of a large file → `ctx_execute_file`.
pub fn redirect_large_read(tools: &Tools, path: &str, size_bytes: u64) -> String {
    let exec_file = tools.name("ctx_execute_file");
    fit(&[path], |p| {
        format!(
            "redirected to {exec_file}(path: {}, language: \"python\", code: \"<code that prints what you need>\"): \
             the file ({size_bytes} bytes) stays out of the context and only what the code prints comes back; \
             {} runs as usual. {}",
            quoted(&p[0]),
            tools.ranged_read(),
            redirect_tail(tools, &exec_file)
        )
    })
}

fn scope_phrase(effect: RuleEffect, scope: RuleScope) -> String {
    format!("in {} of {}", effect.settings_key(), scope.settings_file())
}

/// A deny rule matched.
pub fn deny_rule(citation: &Citation) -> String {
    fit(&[&citation.subject, &citation.pattern], |p| {
        format!(
            "{DENIAL_OPENING}: `{}` matches `{}` {}.",
            p[0],
            p[1],
            scope_phrase(RuleEffect::Deny, citation.scope)
        )
    })
}

/// An ask rule matched.
pub fn ask_rule(citation: &Citation) -> String {
    fit(&[&citation.subject, &citation.pattern], |p| {
        format!(
            "{ASK_OPENING}: `{}` matches `{}` {}.",
            p[0],
            p[1],
            scope_phrase(RuleEffect::Ask, citation.scope)
        )
    })
}

/// A ctx tool asked for a file outside the project with no Read allow rule.
pub fn deny_outside_project(tools: &Tools, path: &str, project_dir: &str) -> String {
    fit(&[path, project_dir], |p| {
        format!(
            "{DENIAL_OPENING}: {} is outside the project {}; to allow it add \"Read({})\" to permissions.allow in {}",
            p[0],
            p[1],
            p[0],
            tools.rules_file()
        )
    })
}

/// Once per session, on a Read that runs (a range, or a small file).
pub fn read_nudge(tools: &Tools) -> String {
    let exec_file = tools.name("ctx_execute_file");
    let search = tools.name("ctx_search");
    format!(
        "Tip: {exec_file}(path, language, code) runs code over a file and returns only what it prints; \
         {search} finds text in output indexed earlier."
    )
}

/// Once per session, on a search tool call.
pub fn grep_nudge(tools: &Tools) -> String {
    let batch = tools.name("ctx_batch_execute");
    let search = tools.name("ctx_search");
    format!(
        "Tip: for wide searches, {batch}(commands, queries) runs the searches and returns only the \
         matching parts; {search} queries output indexed earlier."
    )
}

/// Once per session, on a shell command with long output.
pub fn noisy_shell_nudge(tools: &Tools, what: &str) -> String {
    let batch = tools.name("ctx_batch_execute");
    let search = tools.name("ctx_search");
    let exec = tools.name("ctx_execute");
    fit(&[what], |p| {
        format!(
            "Tip: `{}` can print a lot; {exec}(language: \"shell\", code) returns only what the command prints \
             and indexes long output for {search}, and {batch}(commands, queries) runs several at once.",
            p[0]
        )
    })
}

/// Appended to a sub-agent's prompt so it routes output through the ctx tools.
pub fn subagent_routing_block(tools: &Tools) -> String {
    let exec_file = tools.name("ctx_execute_file");
    let batch = tools.name("ctx_batch_execute");
    let fetch = tools.name("ctx_fetch_and_index");
    let search = tools.name("ctx_search");
    let exec = tools.name("ctx_execute");
    format!(
        "Context tools: run commands, builds, tests and log reads with {exec}(language, code), or several \
         at once with {batch}(commands, queries); only what the code prints comes back. Fetch URLs with \
         {fetch}(url), then {search}(queries). Analyse large files with \
         {exec_file}(path, language, code). These tools have full network access."
    )
}

/// The text that shows a prompt already carries the routing block.
pub fn subagent_block_marker(tools: &Tools) -> String {
    let batch = tools.name("ctx_batch_execute");
    format!("{batch}(commands, queries); only what the code prints comes back")
}

#[cfg(test)]
mod tests;
