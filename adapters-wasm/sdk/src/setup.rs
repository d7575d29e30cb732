//! Pieces every adapter's setup plan needs: the `cm` command as a shell word, and
//! tool-name matchers that never fire on context-mode's own tools.

/// The command that runs `cm`, `cm` when the host passed nothing.
pub fn cm_command(given: &str) -> &str {
    let trimmed = given.trim();
    if trimmed.is_empty() { "cm" } else { trimmed }
}

/// A path as one word of a `sh -c` command line (hosts run hook commands through a
/// shell): bare when safe, else double-quoted.
pub fn shell_word(word: &str) -> String {
    let safe = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,~".contains(c));
    if safe {
        return word.to_owned();
    }
    let mut quoted = String::with_capacity(word.len() + 2);
    quoted.push('"');
    for c in word.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    quoted.push('"');
    quoted
}

/// The hook command for one native event: `<cm> hook <platform> <event>`.
pub fn hook_command(cm: &str, platform: &str, event: &str) -> String {
    format!("{} hook {platform} {event}", shell_word(cm_command(cm)))
}

/// A regex alternative matching any text that does NOT start with `prefix` (and has
/// at least one character more than the part of `prefix` it shares), written without
/// lookahead: Codex matches hooks with Rust's `regex`, which has none.
///
/// For `ab` it is `(?:[^a]|a[^b])`.
pub fn not_starting_with(prefix: &str) -> String {
    let chars: Vec<char> = prefix.chars().collect();
    let branches: Vec<String> = (0..chars.len())
        .map(|i| {
            let shared: String = chars[..i].iter().map(|c| escape_char(*c)).collect();
            format!("{shared}[^{}]", escape_in_class(chars[i]))
        })
        .collect();
    format!("(?:{})", branches.join("|"))
}

/// A full-match tool-name regex: one of `builtins` exactly, or an MCP tool of any
/// server but context-mode's own `ctx_*` tools. `our_first_tool` is the host's name
/// for our first tool (its `ctx-tool-name` for `ctx_execute` under the server name
/// setup registers); every MCP tool name starts with `mcp_prefix` (`mcp__` on Codex,
/// `mcp_` on Gemini CLI). Anchored both ends, so it means the same whether tested as
/// a search or a full match.
pub fn tool_matcher(builtins: &[&str], mcp_prefix: &str, our_first_tool: &str) -> String {
    let names: Vec<String> = builtins.iter().map(|name| escape(name)).collect();
    let ours = our_first_tool
        .strip_prefix(mcp_prefix)
        .unwrap_or(our_first_tool);
    let ours = ours.strip_suffix("execute").unwrap_or(ours);
    format!(
        "^({})$|^{}{}.*$",
        names.join("|"),
        escape(mcp_prefix),
        not_starting_with(ours)
    )
}

/// Regex-escapes a literal (the metacharacters of both Rust's `regex` and JavaScript).
pub fn escape(literal: &str) -> String {
    literal.chars().map(escape_char).collect()
}

fn escape_char(c: char) -> String {
    if "\\.+*?()|[]{}^$".contains(c) {
        format!("\\{c}")
    } else {
        c.to_string()
    }
}

fn escape_in_class(c: char) -> String {
    if "\\]^-[".contains(c) {
        format!("\\{c}")
    } else {
        c.to_string()
    }
}

/// A TOML basic string (quotes, backslashes and control characters escaped).
pub fn toml_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cm_command_and_shell_words() {
        assert_eq!(cm_command("  "), "cm");
        assert_eq!(cm_command(" /bin/cm "), "/bin/cm");
        assert_eq!(shell_word("/usr/local/bin/cm"), "/usr/local/bin/cm");
        assert_eq!(shell_word("/Users/Jane Doe/cm"), r#""/Users/Jane Doe/cm""#);
        assert_eq!(shell_word(r#"a"b$c"#), r#""a\"b\$c""#);
        // An empty word must stay a word: bare it would vanish from the command line.
        assert_eq!(shell_word(""), r#""""#);
        assert_eq!(
            hook_command("/Users/Jane Doe/cm", "codex", "stop"),
            r#""/Users/Jane Doe/cm" hook codex stop"#
        );
        assert_eq!(hook_command("", "cursor", "stop"), "cm hook cursor stop");
    }

    #[test]
    fn not_starting_with_is_built_from_shared_prefixes() {
        assert_eq!(not_starting_with("ab"), "(?:[^a]|a[^b])");
        assert_eq!(not_starting_with("a-_"), r"(?:[^a]|a[^\-]|a-[^_])");
    }

    #[test]
    fn matcher_has_no_lookaround() {
        let matcher = tool_matcher(
            &["run_shell_command", "container.exec"],
            "mcp__",
            "mcp__context_mode__ctx_execute",
        );
        assert!(!matcher.contains("(?!") && !matcher.contains("(?="));
        assert!(matcher.starts_with(r"^(run_shell_command|container\.exec)$|^mcp__(?:[^c]|"));
        assert!(matcher.ends_with(r"context_mode__ctx[^_]).*$"));
        let gemini = tool_matcher(&["read_file"], "mcp_", "mcp_context-mode_ctx_execute");
        assert!(gemini.starts_with(r"^(read_file)$|^mcp_(?:[^c]|"));
        assert!(gemini.contains(r"context[^\-]"));
    }
}
