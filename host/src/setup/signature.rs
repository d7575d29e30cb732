//! Recognising what `cm setup` wrote, whatever `cm` path wrote it: an entry is ours when
//! it runs `<cm> hook <adapter> <event>`, `<cm> serve` or `<cm> statusline` and nothing
//! else, or hands a hook to the server's `ctx_hook` tool (`{"tool": "ctx_hook", "input":
//! {"platform": …, "event": …}}`, ADR 27), which stands for the same `hook <adapter>
//! <event>`: a hook that moved between a process and the server is replaced, not
//! doubled. Generic over agents: only the shape of the entry is looked at.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::model::SERVED_HOOK_TOOL;

/// The subcommands setup registers; the invocation tail starts with one of them.
const OUR_SUBCOMMANDS: [&str; 3] = ["hook", "serve", "statusline"];

/// The `cm` invocations in a value: each is the command line after the `cm` word
/// (`hook claude-code pretooluse`, `serve`), whitespace-normalised.
pub fn invocations(value: &Value) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    collect(value, &mut found);
    found
}

fn collect(value: &Value, found: &mut BTreeSet<String>) {
    match value {
        Value::String(text) => {
            if let Some(tail) = invocation_tail(text) {
                found.insert(tail);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect(v, found)),
        Value::Object(map) => {
            // MCP-server style: {"command": "/path/cm", "args": ["serve"]}.
            if let Some(Value::String(command)) = map.get("command")
                && is_cm_word(command.trim())
                && let Some(Value::Array(args)) = map.get("args")
            {
                let words: Option<Vec<&str>> = args.iter().map(Value::as_str).collect();
                if let Some(words) = words
                    && let Some(tail) = tail_of(&words.join(" "))
                {
                    found.insert(tail);
                }
            }
            if let Some(tail) = served_hook(map) {
                found.insert(tail);
            }
            map.values().for_each(|v| collect(v, found));
        }
        _ => {}
    }
}

/// `hook <platform> <event>` for an entry that hands the hook to the server.
fn served_hook(map: &serde_json::Map<String, Value>) -> Option<String> {
    if map.get("tool").and_then(Value::as_str) != Some(SERVED_HOOK_TOOL) {
        return None;
    }
    let input = map.get("input")?.as_object()?;
    let platform = input.get("platform")?.as_str()?.trim();
    let event = input.get("event")?.as_str()?.trim();
    let word = |w: &str| !w.is_empty() && !w.contains(char::is_whitespace);
    (word(platform) && word(event)).then(|| format!("hook {platform} {event}"))
}

/// True when some command in the value is not a `cm` command: the entry belongs (at
/// least partly) to the user and is never replaced or removed as a whole.
pub fn has_foreign_command(value: &Value) -> bool {
    match value {
        Value::Array(items) => items.iter().any(has_foreign_command),
        Value::Object(map) => map.iter().any(|(key, v)| match v {
            Value::String(text) if key == "command" => {
                let text = text.trim();
                invocation_tail(text).is_none() && !is_cm_word(text)
            }
            other => has_foreign_command(other),
        }),
        _ => false,
    }
}

/// An existing entry that is ours and registers one of `ours` (e.g. the same hook
/// event with an older `cm` path or matcher).
pub fn is_ours_for(existing: &Value, ours: &BTreeSet<String>) -> bool {
    if ours.is_empty() || has_foreign_command(existing) {
        return false;
    }
    invocations(existing).iter().any(|tail| ours.contains(tail))
}

/// The part of a command line after its `cm` word, when it is one of our subcommands.
pub fn invocation_tail(command: &str) -> Option<String> {
    let command = command.trim();
    let (first, rest) = split_first_word(command)?;
    if !is_cm_word(first) {
        return None;
    }
    tail_of(rest)
}

/// The invocation of an argv array whose first word is `cm` (`["/opt/cm", "serve"]`,
/// OpenCode's and KiloCode's `command`): `serve`. Not part of [`invocations`], which
/// decides what setup takes as its own entry.
pub fn argv_invocation(argv: &Value) -> Option<String> {
    let words: Vec<&str> = argv
        .as_array()?
        .iter()
        .map(Value::as_str)
        .collect::<Option<_>>()?;
    let (program, rest) = words.split_first()?;
    is_cm_word(program.trim()).then(|| tail_of(&rest.join(" ")))?
}

/// The `cm` programs our entries in a value run, as written (`/opt/cm`, `cm`): the first
/// word of each invocation string, the `command` of an MCP server object, the first
/// element of an argv array. Doctor checks that each still exists.
pub fn programs(value: &Value) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    collect_programs(value, &mut found);
    found
}

fn collect_programs(value: &Value, found: &mut BTreeSet<String>) {
    match value {
        Value::String(text) => {
            if invocation_tail(text).is_some()
                && let Some((first, _)) = split_first_word(text.trim())
            {
                found.insert(unquoted(first));
            }
        }
        Value::Array(items) => {
            if argv_invocation(value).is_some()
                && let Some(Value::String(program)) = items.first()
            {
                found.insert(program.trim().to_owned());
            }
            items.iter().for_each(|v| collect_programs(v, found));
        }
        Value::Object(map) => {
            if let Some(Value::String(command)) = map.get("command")
                && is_cm_word(command.trim())
                && let Some(Value::Array(args)) = map.get("args")
                && argv_invocation(&Value::Array(
                    std::iter::once(Value::String(command.clone()))
                        .chain(args.iter().cloned())
                        .collect(),
                ))
                .is_some()
            {
                found.insert(command.trim().to_owned());
            }
            map.values().for_each(|v| collect_programs(v, found));
        }
        _ => {}
    }
}

fn unquoted(word: &str) -> String {
    match word.strip_prefix('"').and_then(|w| w.strip_suffix('"')) {
        Some(inner) => inner.replace("\\\"", "\""),
        None => word.to_owned(),
    }
}

fn tail_of(rest: &str) -> Option<String> {
    let words: Vec<&str> = rest.split_whitespace().collect();
    let sub = *words.first()?;
    OUR_SUBCOMMANDS.contains(&sub).then(|| words.join(" "))
}

/// The first shell word (double-quoted or bare) and what follows it.
fn split_first_word(command: &str) -> Option<(&str, &str)> {
    if let Some(quoted) = command.strip_prefix('"') {
        let mut escaped = false;
        for (i, c) in quoted.char_indices() {
            match c {
                '\\' if !escaped => escaped = true,
                '"' if !escaped => return Some((&command[..i + 2], &quoted[i + 1..])),
                _ => escaped = false,
            }
        }
        return None;
    }
    let end = command.find(char::is_whitespace).unwrap_or(command.len());
    Some((&command[..end], &command[end..]))
}

/// A word that names a `cm` binary: its file name is `cm` (or `cm.exe`), quoted or not.
fn is_cm_word(word: &str) -> bool {
    let word = word.trim_matches('"').replace("\\\"", "\"");
    let name = word.rsplit(['/', '\\']).next().unwrap_or(&word);
    matches!(name, "cm" | "cm.exe")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn recognises_our_commands_whatever_the_path() {
        assert_eq!(
            invocation_tail("/usr/local/bin/cm hook claude-code pretooluse").as_deref(),
            Some("hook claude-code pretooluse")
        );
        assert_eq!(
            invocation_tail(r#""/Users/Jane Doe/bin/cm"  hook  gemini-cli BeforeTool"#).as_deref(),
            Some("hook gemini-cli BeforeTool")
        );
        assert_eq!(
            invocation_tail("cm statusline").as_deref(),
            Some("statusline")
        );
        assert_eq!(invocation_tail("/bin/cmake hook x y"), None);
        assert_eq!(invocation_tail("node /x/cm.js hook a b"), None);
        assert_eq!(invocation_tail("/opt/cm/bin/cm index ."), None);
    }

    #[test]
    fn the_programs_of_every_form_setup_writes() {
        let config = json!({
            "mcpServers": {"context-mode": {"command": "/a/cm", "args": ["serve"]},
                "other": {"command": "/x/cm", "args": ["index"]}},
            "mcp": {"context-mode": {"command": ["/b/cm", "serve"]}},
            "hooks": {"Stop": [{"hooks": [{"command": r#""/c d/cm" hook claude-code stop"#},
                {"command": "./lint.sh"}]}]},
            "statusLine": {"command": "cm statusline"},
        });
        let found: Vec<String> = programs(&config).into_iter().collect();
        assert_eq!(found, ["/a/cm", "/b/cm", "/c d/cm", "cm"]);
    }

    #[test]
    fn mcp_server_objects_are_recognised_by_command_and_args() {
        let server = json!({"type": "stdio", "command": "/old/cm", "args": ["serve"]});
        assert_eq!(invocations(&server), BTreeSet::from(["serve".to_string()]));
    }

    #[test]
    fn a_served_hook_entry_stands_for_the_command_it_replaces() {
        let served = json!({"matcher": "^(Bash)$", "hooks": [{"type": "mcp_tool",
            "server": "context-mode", "tool": "ctx_hook",
            "input": {"platform": "claude-code", "event": "pretooluse", "payload": {}}}]});
        let ours = BTreeSet::from(["hook claude-code pretooluse".to_string()]);
        assert_eq!(invocations(&served), ours);
        let command = json!({"matcher": "^(Bash)$", "hooks": [{"type": "command",
            "command": "/usr/bin/cm hook claude-code pretooluse"}]});
        assert!(is_ours_for(&command, &invocations(&served)));
        assert!(is_ours_for(&served, &invocations(&command)));
        let other_tool = json!({"tool": "lint", "input": {"platform": "a", "event": "b"}});
        assert!(invocations(&other_tool).is_empty());
    }

    #[test]
    fn an_entry_shared_with_a_user_command_is_not_ours() {
        let ours = BTreeSet::from(["hook claude-code pretooluse".to_string()]);
        let stale = json!({"matcher": "Bash", "hooks": [{"type": "command", "command": "/old/cm hook claude-code pretooluse"}]});
        assert!(is_ours_for(&stale, &ours));
        let shared = json!({"matcher": "Bash", "hooks": [
            {"type": "command", "command": "/old/cm hook claude-code pretooluse"},
            {"type": "command", "command": "./lint.sh"}
        ]});
        assert!(!is_ours_for(&shared, &ours));
        let other_event = json!({"hooks": [{"command": "cm hook claude-code stop"}]});
        assert!(!is_ours_for(&other_event, &ours));
    }
}
