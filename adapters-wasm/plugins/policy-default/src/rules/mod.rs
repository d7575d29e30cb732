//! Claude-style permission rules (`Bash(sudo *)`, `Read(**/.env*)`,
//! `WebFetch(domain:example.com)`, `mcp__server__tool`, …) and their
//! evaluation against one call.
//!
//! Rule tool names map by tool *kind*, so `Bash(…)` rules apply to every shell
//! tool whatever the host calls it, and to shell code run through the ctx tools.
//!
//! Precedence, as Claude Code documents it: rules of every scope are merged and
//! each checked item (a shell command, a path, a URL, the tool itself) takes the
//! strongest matching rule — deny beats ask beats allow whatever file they come
//! from, so a `settings.local.json` allow cannot undo a `settings.json` deny.
//! Then the call is denied when any item is denied, asks when any item asks, and
//! is allowed only when every item is allowed.

mod glob;
pub mod path;

pub use glob::{path_match, star_match};

use crate::shell::ShellCommand;
use context_mode_sdk::policy::{PermissionRule, RuleEffect, RuleScope, ToolCall, ToolKind};

/// Which tools a rule's name covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleTool {
    /// `Bash`: every shell command, wherever it runs.
    Bash,
    /// `Read`: file reads (the read tool, grep paths, ctx tools reading a file).
    Read,
    /// `Edit`, `Write`, `MultiEdit`, `NotebookEdit`: file edits.
    Edit,
    /// `Grep`, `Glob`, `LS`: search tools.
    Grep,
    /// `WebFetch`: URL fetches, including `ctx_fetch_and_index`.
    WebFetch,
    WebSearch,
    /// `Task` / `Agent`: sub-agent launches.
    Agent,
    /// `mcp__server` or `mcp__server__tool` (with `*` allowed).
    Mcp(String),
    /// Any other tool, by its exact host name.
    Named(String),
}

/// A rule pattern split into its tool and specifier (`None` = the whole tool).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedRule {
    pub tool: RuleTool,
    pub spec: Option<String>,
}

/// Parses `Tool` or `Tool(spec)`. `Tool()`, `Tool(*)` and `Tool(**)` cover the whole tool.
pub fn parse_rule(pattern: &str) -> Option<ParsedRule> {
    let pattern = pattern.trim();
    let (name, spec) = match pattern.split_once('(') {
        Some((name, rest)) => (name.trim(), Some(rest.strip_suffix(')')?.trim())),
        None => (pattern, None),
    };
    if name.is_empty() {
        return None;
    }
    let spec = spec
        .filter(|s| !matches!(*s, "" | "*" | "**"))
        .map(str::to_string);
    let tool = match name {
        "Bash" => RuleTool::Bash,
        "Read" => RuleTool::Read,
        "Edit" | "Write" | "MultiEdit" | "NotebookEdit" => RuleTool::Edit,
        "Grep" | "Glob" | "LS" => RuleTool::Grep,
        "WebFetch" => RuleTool::WebFetch,
        "WebSearch" => RuleTool::WebSearch,
        "Task" | "Agent" => RuleTool::Agent,
        _ if name.starts_with("mcp__") => RuleTool::Mcp(name.to_string()),
        _ => RuleTool::Named(name.to_string()),
    };
    Some(ParsedRule { tool, spec })
}

/// Whether a `Bash(spec)` specifier matches one command string.
/// `git:*` is the prefix form (`git`, `git status`, not `gitk`); `*` is a
/// wildcard; a trailing ` *` also matches the bare command (`sudo *` covers `sudo`).
pub fn bash_spec_matches(spec: &str, command: &str) -> bool {
    let command = command.trim();
    if let Some(prefix) = spec.strip_suffix(":*") {
        let prefix = prefix.trim_end();
        // The prefix must end at a word boundary: `git:*` covers `git push`, not
        // `gitk` or `git-lfs`; `npm run test:*` covers `npm run test:unit`.
        return command.strip_prefix(prefix).is_some_and(|rest| {
            rest.chars()
                .next()
                .is_none_or(|c| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.')))
        });
    }
    star_match(spec, command)
        || spec
            .strip_suffix(" *")
            .is_some_and(|bare| star_match(bare.trim_end(), command))
}

/// Whether a `WebFetch(spec)` specifier matches `url`: `domain:host` compares
/// the host (`*` allowed, e.g. `domain:*.example.com`); anything else is a
/// wildcard over the whole URL.
pub fn web_fetch_spec_matches(spec: &str, url: &str) -> bool {
    match spec.strip_prefix("domain:") {
        Some(domain) => {
            let domain = domain.trim().trim_end_matches('.').to_ascii_lowercase();
            // A rule naming an address in another spelling names the same address.
            let domain = numeric_host(&domain).unwrap_or(domain);
            url_host(url).is_some_and(|host| star_match(&domain, &host))
        }
        None => star_match(spec, url.trim()),
    }
}

/// The lower-cased host of an `http(s)://` URL (IPv6 literals without brackets).
pub fn url_host(url: &str) -> Option<String> {
    let rest = url
        .trim()
        .split_once("://")
        .map_or(url.trim(), |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit('@').next()?;
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        v6.split(']').next()?
    } else {
        host_port.split(':').next()?
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if host.is_empty() {
        return None;
    }
    Some(numeric_host(&host).unwrap_or(host))
}

/// The address a numeric host stands for, spelled as rules name it: the WHATWG
/// IPv4 forms a fetcher dials (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`) as
/// dotted decimal, and IPv4-mapped IPv6 (`::ffff:127.0.0.1`) as the IPv4 it is.
/// `None` for a name.
pub fn numeric_host(host: &str) -> Option<String> {
    if host.contains(':') {
        let v6: std::net::Ipv6Addr = host.parse().ok()?;
        return Some(match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => v6.to_string(),
        });
    }
    let parts: Vec<&str> = host.split('.').collect();
    if parts.len() > 4 {
        return None;
    }
    let numbers = parts
        .iter()
        .map(|part| ipv4_number(part))
        .collect::<Option<Vec<u64>>>()?;
    let (last, init) = numbers.split_last()?;
    if init.iter().any(|n| *n > 255) || *last >= 1u64 << (8 * (5 - numbers.len())) {
        return None;
    }
    let mut address = *last;
    for (i, n) in init.iter().enumerate() {
        address += n << (8 * (3 - i));
    }
    let address = u32::try_from(address).ok()?;
    Some(std::net::Ipv4Addr::from(address).to_string())
}

/// One part of a WHATWG IPv4 host: decimal, `0x` hex or leading-zero octal.
fn ipv4_number(part: &str) -> Option<u64> {
    if part.is_empty() {
        return None;
    }
    let (digits, radix) = if let Some(hex) = part.strip_prefix("0x") {
        (hex, 16)
    } else if part.len() > 1 && part.starts_with('0') {
        (&part[1..], 8)
    } else {
        (part, 10)
    };
    if digits.is_empty() {
        return Some(0);
    }
    if digits.len() > 12 || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// What a call offers to rules: its shell commands, the file it reads or
/// edits, the URL it fetches, the sub-agent type it launches.
#[derive(Debug, Clone, Default)]
pub struct Subjects {
    pub shell: Vec<ShellCommand>,
    /// Normalized absolute path read by the call.
    pub read_path: Option<String>,
    /// Normalized absolute path edited by the call.
    pub edit_path: Option<String>,
    /// URLs fetched by the call.
    pub urls: Vec<String>,
    pub agent_type: Option<String>,
}

/// A rule that decided, with what it was matched against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Citation {
    /// The command, path, URL or tool name the rule matched.
    pub subject: String,
    pub pattern: String,
    pub effect: RuleEffect,
    pub scope: RuleScope,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Deny(Citation),
    Ask(Citation),
    /// Every checked item is allowed by a rule.
    Allow,
    /// No rule decides the call.
    Unmatched,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluation {
    pub outcome: Outcome,
    /// True when the read path's verdict is an allow rule (confinement uses it).
    pub read_path_allowed: bool,
}

enum Item<'a> {
    Tool,
    Command(CommandItem<'a>),
    ReadPath(&'a str),
    EditPath(&'a str),
    Url(&'a str),
}

/// A shell command with the strings rules are matched against, built once.
struct CommandItem<'a> {
    command: &'a ShellCommand,
    /// For allow rules: the command as written and unquoted.
    as_written: Vec<String>,
    /// For deny and ask rules: also each program under its wrappers.
    through_wrappers: Vec<String>,
}

/// Evaluates every rule against `call`. Unparseable rules are skipped.
pub fn evaluate(
    rules: &[PermissionRule],
    call: &ToolCall,
    subjects: &Subjects,
    project_dir: &str,
) -> Evaluation {
    let parsed: Vec<(&PermissionRule, ParsedRule)> = rules
        .iter()
        .filter_map(|rule| parse_rule(&rule.pattern).map(|p| (rule, p)))
        .collect();
    // Candidate strings are only built when some `Bash(…)` rule has a specifier.
    let matches_commands = parsed
        .iter()
        .any(|(_, p)| p.tool == RuleTool::Bash && p.spec.is_some());
    let mut items: Vec<Item> = subjects
        .shell
        .iter()
        .map(|command| {
            let (as_written, through_wrappers) = if matches_commands {
                (
                    command.rule_candidates(false),
                    command.rule_candidates(true),
                )
            } else {
                (Vec::new(), Vec::new())
            };
            Item::Command(CommandItem {
                command,
                as_written,
                through_wrappers,
            })
        })
        .collect();
    items.extend(subjects.read_path.as_deref().map(Item::ReadPath));
    items.extend(subjects.edit_path.as_deref().map(Item::EditPath));
    items.extend(subjects.urls.iter().map(|u| Item::Url(u)));
    let has_subject_items = !items.is_empty();
    items.insert(0, Item::Tool);

    let mut first_ask = None;
    let mut all_allowed = true;
    let mut read_path_allowed = false;
    for item in &items {
        let verdict = item_verdict(&parsed, item, call, subjects, project_dir);
        match verdict {
            Some(citation) if citation.effect == RuleEffect::Deny => {
                return Evaluation {
                    outcome: Outcome::Deny(citation),
                    read_path_allowed: false,
                };
            }
            Some(citation) if citation.effect == RuleEffect::Ask => {
                first_ask.get_or_insert(citation);
            }
            Some(_) => read_path_allowed |= matches!(item, Item::ReadPath(_)),
            None => {
                // Another server's tool is granted by its own name: the URL its fetch
                // tool loads can be denied or asked for by `WebFetch(…)` rules, but an
                // allow of `mcp__server__tool` needs no `WebFetch` allow beside it.
                let counts = match item {
                    Item::Tool => !has_subject_items || call.kind == ToolKind::Mcp,
                    Item::Url(_) => call.kind != ToolKind::Mcp,
                    _ => true,
                };
                all_allowed &= !counts;
            }
        }
    }
    let outcome = match first_ask {
        Some(citation) => Outcome::Ask(citation),
        None if all_allowed => Outcome::Allow,
        None => Outcome::Unmatched,
    };
    Evaluation {
        outcome,
        read_path_allowed,
    }
}

/// The strongest matching rule for one item across every scope (deny beats ask beats
/// allow, as in Claude Code: a deny in any settings file cannot be allowed by another);
/// among equally strong rules the closest scope is cited.
fn item_verdict(
    rules: &[(&PermissionRule, ParsedRule)],
    item: &Item,
    call: &ToolCall,
    subjects: &Subjects,
    project_dir: &str,
) -> Option<Citation> {
    let mut best: Option<Citation> = None;
    for scope in RuleScope::CLOSEST_FIRST {
        for (rule, parsed) in rules.iter().filter(|(r, _)| r.scope == scope) {
            let Some(subject) = item_match(parsed, rule.effect, item, call, subjects, project_dir)
            else {
                continue;
            };
            let stronger = best
                .as_ref()
                .is_none_or(|b| rank(rule.effect) > rank(b.effect));
            if stronger {
                best = Some(Citation {
                    subject,
                    pattern: rule.pattern.trim().to_string(),
                    effect: rule.effect,
                    scope,
                });
            }
        }
    }
    best
}

fn rank(effect: RuleEffect) -> u8 {
    match effect {
        RuleEffect::Deny => 3,
        RuleEffect::Ask => 2,
        RuleEffect::Allow => 1,
    }
}

/// When `rule` covers `item`: the text it matched.
fn item_match(
    rule: &ParsedRule,
    effect: RuleEffect,
    item: &Item,
    call: &ToolCall,
    subjects: &Subjects,
    project_dir: &str,
) -> Option<String> {
    let spec = rule.spec.as_deref();
    match (item, &rule.tool) {
        (Item::Tool, tool) => {
            tool_covers_call(tool, spec, call, subjects).then(|| call.name.clone())
        }
        (Item::Command(item), RuleTool::Bash) => {
            let Some(spec) = spec else {
                return Some(item.command.text());
            };
            // Deny and ask rules look through wrappers (`sudo`, `timeout`, `env`, …).
            let candidates = if effect == RuleEffect::Allow {
                &item.as_written
            } else {
                &item.through_wrappers
            };
            candidates
                .iter()
                .any(|candidate| bash_spec_matches(spec, candidate))
                .then(|| item.command.text())
        }
        (Item::ReadPath(path), RuleTool::Read) => spec
            .is_none_or(|s| path::spec_matches(s, path, project_dir))
            .then(|| path.to_string()),
        (Item::ReadPath(path), RuleTool::Grep) if call.kind == ToolKind::Grep => spec
            .is_none_or(|s| path::spec_matches(s, path, project_dir))
            .then(|| path.to_string()),
        (Item::EditPath(path), RuleTool::Edit) => spec
            .is_none_or(|s| path::spec_matches(s, path, project_dir))
            .then(|| path.to_string()),
        (Item::Url(url), RuleTool::WebFetch) => spec
            .is_none_or(|s| web_fetch_spec_matches(s, url))
            .then(|| url.to_string()),
        _ => None,
    }
}

/// Whether a rule names the called tool itself (rules without a specifier,
/// MCP tool names, other tools by name).
fn tool_covers_call(
    tool: &RuleTool,
    spec: Option<&str>,
    call: &ToolCall,
    subjects: &Subjects,
) -> bool {
    let whole_tool = spec.is_none();
    match tool {
        RuleTool::Bash => whole_tool && call.kind == ToolKind::Shell,
        RuleTool::Read => whole_tool && matches!(call.kind, ToolKind::Read | ToolKind::Grep),
        RuleTool::Edit => whole_tool && call.kind == ToolKind::Edit,
        RuleTool::Grep => whole_tool && call.kind == ToolKind::Grep,
        RuleTool::WebFetch => whole_tool && call.kind == ToolKind::WebFetch,
        RuleTool::WebSearch => whole_tool && call.kind == ToolKind::WebSearch,
        RuleTool::Agent => {
            call.kind == ToolKind::Agent
                && spec.is_none_or(|s| {
                    subjects
                        .agent_type
                        .as_deref()
                        .is_some_and(|t| star_match(s, t))
                })
        }
        RuleTool::Mcp(name) => {
            let server_wide = format!("{name}__");
            whole_tool
                && mcp_names(call)
                    .iter()
                    .any(|n| n == name || star_match(name, n) || n.starts_with(&server_wide))
        }
        RuleTool::Named(name) => whole_tool && *name == call.name,
    }
}

/// The names an MCP rule can use for the call: the host's own name,
/// `mcp__server__tool`, and `mcp__server` for the whole server.
fn mcp_names(call: &ToolCall) -> Vec<String> {
    let mut names = vec![call.name.clone()];
    if let Some(server) = call.mcp_server.as_deref().filter(|s| !s.is_empty()) {
        names.push(format!("mcp__{server}"));
        if let Some(tool) = call.mcp_tool.as_deref().filter(|t| !t.is_empty()) {
            names.push(format!("mcp__{server}__{tool}"));
        }
    }
    names
}

#[cfg(test)]
mod tests;
