//! Small text tools of the journal: byte-bounded cuts that never split a character,
//! one-line flattening, the machine-readable header of a row's data, call
//! fingerprints and a quote-aware shell splitter.

use std::collections::BTreeMap;

/// The longest prefix of `text` of at most `max` bytes, ending on a character boundary.
pub fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The longest suffix of `text` of at most `max` bytes, starting on a character boundary.
pub fn tail(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// `text` cut to `max` bytes with `…` marking the cut (the mark counts in `max`).
pub fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut out = cut(text, max.saturating_sub('…'.len_utf8()))
        .trim_end()
        .to_string();
    out.push('…');
    out
}

/// The first `n` characters of `text`.
pub fn first_chars(text: &str, n: usize) -> &str {
    match text.char_indices().nth(n) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// Removes ANSI escape sequences, bidirectional overrides and control characters
/// (keeping line breaks and tabs).
pub fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => {
                if chars.peek() == Some(&'[') {
                    chars.next();
                    for next in chars.by_ref() {
                        if ('@'..='~').contains(&next) {
                            break;
                        }
                    }
                } else {
                    chars.next();
                }
            }
            '\n' | '\t' => out.push(c),
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' => {}
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// `text` cleaned (see [`clean`]) and on one line.
pub fn one_line(text: &str) -> String {
    crate::human::one_line(&clean(text))
}

/// Names of the fields a row's data header may carry. The header is the leading run of
/// `name: value` lines ended by a blank line; only rows this module writes have one,
/// and only the fields of the row's own category are ever read back.
pub const FIELD_NAMES: &[&str] = &[
    "call", "like", "fixes", "resolves", "count", "first", "slot", "source", "hash", "task",
    "status", "tool", "args",
];

/// The data of a row: header fields, then the body.
pub fn with_fields(fields: &[(&str, String)], body: &str) -> String {
    let mut out = String::new();
    for (name, value) in fields {
        debug_assert!(FIELD_NAMES.contains(name));
        out.push_str(name);
        out.push_str(": ");
        out.push_str(&one_line(value));
        out.push('\n');
    }
    if !fields.is_empty() {
        out.push('\n');
    }
    out.push_str(body);
    out
}

/// The header fields of a row's data.
pub fn fields(data: &str) -> BTreeMap<&str, &str> {
    let mut found = BTreeMap::new();
    for line in data.lines() {
        let Some((name, value)) = line.split_once(": ") else {
            break;
        };
        if !FIELD_NAMES.contains(&name) {
            break;
        }
        found.insert(name, value);
    }
    found
}

/// The body of a row's data (after its header).
pub fn body(data: &str) -> &str {
    if fields(data).is_empty() {
        return data;
    }
    match data.find("\n\n") {
        Some(at) => &data[at + 2..],
        None => "",
    }
}

/// A list of seqs as a field value: `12 15`.
pub fn seq_list(seqs: &[i64]) -> String {
    seqs.iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Parses a field value written by [`seq_list`].
pub fn parse_seqs(value: &str) -> Vec<i64> {
    value
        .split_whitespace()
        .filter_map(|s| s.parse().ok())
        .collect()
}

/// A short stable id of one tool call: its name and its input (re-serialized when it
/// is JSON, so key spacing does not matter).
pub fn fingerprint(tool_name: &str, input_json: &str) -> String {
    let input = serde_json::from_str::<serde_json::Value>(input_json)
        .map(|v| v.to_string())
        .unwrap_or_else(|_| input_json.to_string());
    let hash = crate::store::content_hash(&format!("{tool_name}\u{0}{input}"));
    hash[..12].to_string()
}

/// The parts of a shell command line joined by `&&`, `||`, `;`, `|`, `&` or a line
/// break, outside quotes. Heredoc bodies are dropped (their text is data, not commands).
pub fn shell_segments(command: &str) -> Vec<String> {
    let mut segments = Vec::new();
    let mut current = String::new();
    let mut heredocs: Vec<String> = Vec::new();
    let mut lines = command.split('\n');
    while let Some(line) = lines.next() {
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        let mut quote: Option<char> = None;
        while i < chars.len() {
            let c = chars[i];
            if let Some(q) = quote {
                current.push(c);
                if c == '\\' && q == '"' && i + 1 < chars.len() {
                    current.push(chars[i + 1]);
                    i += 1;
                } else if c == q {
                    quote = None;
                }
                i += 1;
                continue;
            }
            match c {
                '\'' | '"' | '`' => {
                    quote = Some(c);
                    current.push(c);
                }
                '\\' if i + 1 < chars.len() => {
                    current.push(c);
                    current.push(chars[i + 1]);
                    i += 1;
                }
                '<' if chars.get(i + 1) == Some(&'<') && chars.get(i + 2) != Some(&'<') => {
                    let mut j = i + 2;
                    if chars.get(j) == Some(&'-') {
                        j += 1;
                    }
                    while chars.get(j).is_some_and(|c| *c == ' ') {
                        j += 1;
                    }
                    let word: String = chars[j..]
                        .iter()
                        .take_while(|c| !c.is_whitespace() && !matches!(c, ';' | '&' | '|' | ')'))
                        .filter(|c| !matches!(c, '\'' | '"'))
                        .collect();
                    if !word.is_empty() {
                        heredocs.push(word);
                    }
                    current.push_str("<<");
                    i += 1;
                }
                '&' if i > 0 && matches!(chars[i - 1], '>' | '<')
                    || chars.get(i + 1) == Some(&'>') =>
                {
                    current.push(c);
                }
                ';' | '|' | '&' => {
                    push_segment(&mut segments, &mut current);
                    while chars.get(i + 1).is_some_and(|n| matches!(n, '|' | '&')) {
                        i += 1;
                    }
                }
                _ => current.push(c),
            }
            i += 1;
        }
        if quote.is_some() {
            current.push('\n');
            continue;
        }
        push_segment(&mut segments, &mut current);
        for word in std::mem::take(&mut heredocs) {
            for body_line in lines.by_ref() {
                if body_line.trim() == word {
                    break;
                }
            }
        }
    }
    push_segment(&mut segments, &mut current);
    segments
}

fn push_segment(segments: &mut Vec<String>, current: &mut String) {
    let trimmed = current.trim();
    if !trimmed.is_empty() {
        segments.push(trimmed.to_string());
    }
    current.clear();
}

/// The words of one shell segment, quotes removed (no expansion).
pub fn shell_words(segment: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = segment.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => {
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            (Some(_), c) => current.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '\\') => {
                if let Some(next) = chars.next() {
                    current.push(next);
                    in_word = true;
                }
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            (None, c) => {
                current.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(current);
    }
    words
}

/// The words of a segment without leading `VAR=value` assignments and wrappers that
/// only run the real command (`sudo`, `env`, `time`, `nohup`, `exec`, `command`).
pub fn command_words(segment: &str) -> Vec<String> {
    let words = shell_words(segment);
    let mut start = 0;
    while let Some(word) = words.get(start) {
        let assignment = word.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        let wrapper = matches!(
            word.as_str(),
            "sudo" | "env" | "time" | "nohup" | "exec" | "command"
        );
        if assignment || wrapper {
            start += 1;
        } else {
            break;
        }
    }
    words[start..].to_vec()
}

/// The program name of a command word (`/usr/bin/git` → `git`).
pub fn program_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// `path` relative to `project_dir` when it lies inside it.
pub fn relative_path(path: &str, project_dir: Option<&str>) -> String {
    if let Some(dir) = project_dir {
        let dir = dir.trim_end_matches('/');
        if !dir.is_empty()
            && let Some(rest) = path.strip_prefix(dir)
            && let Some(rest) = rest.strip_prefix('/')
            && !rest.is_empty()
        {
            return rest.to_string();
        }
    }
    path.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_never_split_a_character() {
        assert_eq!(cut("héllo", 2), "h");
        assert_eq!(tail("héllo", 4), "llo");
        assert_eq!(clip("abcdef", 5), "ab…");
        assert!(clip("日本語のテキスト", 7).len() <= 7);
        assert_eq!(first_chars("日本語", 2), "日本");
    }

    #[test]
    fn clean_drops_escapes_and_controls() {
        assert_eq!(clean("\u{1b}[31mred\u{1b}[0m\u{7}\tok\n"), "red\tok\n");
        assert_eq!(one_line("  a\n\n b\t c "), "a b c");
    }

    #[test]
    fn fields_round_trip_and_plain_data_has_none() {
        let data = with_fields(
            &[("call", "abc".into()), ("fixes", seq_list(&[3, 9]))],
            "body\n\nmore",
        );
        let f = fields(&data);
        assert_eq!(f.get("call"), Some(&"abc"));
        assert_eq!(parse_seqs(f["fixes"]), vec![3, 9]);
        assert_eq!(body(&data), "body\n\nmore");
        assert!(fields("HTTP/1.1 500: oops\n\nx").is_empty());
        assert_eq!(body("plain text"), "plain text");
    }

    #[test]
    fn fingerprints_ignore_json_spacing() {
        assert_eq!(
            fingerprint("Bash", r#"{"command": "ls"}"#),
            fingerprint("Bash", r#"{"command":"ls"}"#)
        );
        assert_ne!(
            fingerprint("Bash", r#"{"command":"ls"}"#),
            fingerprint("Bash", r#"{"command":"pwd"}"#)
        );
    }

    #[test]
    fn shell_segments_split_outside_quotes_and_skip_heredocs() {
        assert_eq!(
            shell_segments("cd host && cargo test 2>&1 | tail -30; echo 'a && b'"),
            vec!["cd host", "cargo test 2>&1", "tail -30", "echo 'a && b'"]
        );
        assert_eq!(
            shell_segments("cat > notes.md <<'EOF'\ngit push --force\nEOF\ngit status"),
            vec!["cat > notes.md <<'EOF'", "git status"]
        );
        assert_eq!(
            shell_segments("git commit -m \"fix: a; b\"\nnpm test"),
            vec!["git commit -m \"fix: a; b\"", "npm test"]
        );
    }

    #[test]
    fn command_words_skip_assignments_and_wrappers() {
        assert_eq!(
            command_words("FOO=1 sudo git commit -m 'a b'"),
            vec!["git", "commit", "-m", "a b"]
        );
        assert_eq!(program_name("/usr/bin/git"), "git");
        assert_eq!(relative_path("/p/src/a.rs", Some("/p")), "src/a.rs");
        assert_eq!(relative_path("/q/a.rs", Some("/p")), "/q/a.rs");
    }
}
