//! The user's Claude-style permission rules (`permissions.allow|deny|ask` in
//! `.claude/settings.local.json`, `.claude/settings.json` and `~/.claude/settings.json`),
//! read by the host for every platform and handed to the routing policies. Files are
//! read as Claude Code reads them (JSON with comments and trailing commas); one that
//! cannot be read is reported, and the callers refuse what its rules could govern.

use std::path::{Path, PathBuf};

use crate::limits::PARSED_SETTINGS_FILES_MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    ProjectLocal,
    Project,
    User,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    Allow,
    Deny,
    Ask,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub pattern: String,
    pub effect: Effect,
    pub scope: Scope,
}

/// The settings files in scope order (closest first).
pub fn settings_files(project_dir: &Path, home: Option<&Path>) -> Vec<(Scope, PathBuf)> {
    let mut files = vec![
        (
            Scope::ProjectLocal,
            project_dir.join(".claude/settings.local.json"),
        ),
        (Scope::Project, project_dir.join(".claude/settings.json")),
    ];
    if let Some(home) = home {
        files.push((Scope::User, home.join(".claude/settings.json")));
    }
    files
}

/// A settings file that exists but cannot be read or parsed: its rules are unknown, so
/// the tools they could govern are refused until it is fixed (fail closed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    pub path: PathBuf,
    /// One line: the I/O error, or the parse error with its line and column.
    pub reason: String,
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} cannot be read: {}", self.path.display(), self.reason)
    }
}

impl Unreadable {
    /// The one-line refusal of a call its rules could have governed.
    pub fn refusal(&self) -> String {
        format!(
            "denied: the permission rules in {} are unknown ({}); fix the file to run this call",
            self.path.display(),
            self.reason
        )
    }
}

/// Every rule of every settings file. A missing file has no rules; a file that cannot be
/// read or parsed is returned in the second list (one line each) and contributes none.
pub fn load(project_dir: &Path, home: Option<&Path>) -> (Vec<Rule>, Vec<Unreadable>) {
    let mut rules = Vec::new();
    let mut unreadable = Vec::new();
    for (scope, path) in settings_files(project_dir, home) {
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                unreadable.push(Unreadable {
                    path,
                    reason: e.to_string(),
                });
                continue;
            }
        };
        match parsed_rules(&path, text, scope) {
            Ok(found) => rules.extend(found),
            Err(reason) => unreadable.push(Unreadable { path, reason }),
        }
    }
    (rules, unreadable)
}

/// The last text each settings file had in this process and what it parsed to (a path
/// has one scope, so the path alone is the key).
type ParsedFiles = std::collections::HashMap<PathBuf, (String, Result<Vec<Rule>, String>)>;

/// [`parse_rules`] of a file's text, remembered per file: `cm serve` answers a hook on
/// every tool call, and the user's settings (often kilobytes of hooks) are parsed again
/// only when their text differs from the last read. Keyed by the text itself, not a file
/// stamp, so an edit within one timestamp tick is never missed.
fn parsed_rules(path: &Path, text: String, scope: Scope) -> Result<Vec<Rule>, String> {
    static PARSED: std::sync::Mutex<Option<ParsedFiles>> = std::sync::Mutex::new(None);
    if let Ok(parsed) = PARSED.lock()
        && let Some((seen, rules)) = parsed.as_ref().and_then(|files| files.get(path))
        && *seen == text
    {
        return rules.clone();
    }
    let rules = parse_rules(&text, scope);
    if let Ok(mut parsed) = PARSED.lock() {
        let files = parsed.get_or_insert_with(Default::default);
        // One long-lived process may answer for many projects: bounded.
        if files.len() >= PARSED_SETTINGS_FILES_MAX {
            files.clear();
        }
        files.insert(path.to_path_buf(), (text, rules.clone()));
    }
    rules
}

/// How Claude Code reads its settings: JSON with `//` and `/* */` comments and trailing
/// commas; nothing looser (no single quotes, bare words or hex numbers).
fn settings_syntax() -> jsonc_parser::ParseOptions {
    jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// One settings file's text as JSON, read as Claude Code reads it (`Null` for an empty
/// file); `Err` is one line naming what is wrong and where.
pub fn parse_settings_value(text: &str) -> Result<serde_json::Value, String> {
    let parsed = jsonc_parser::parse_to_ast(text, &Default::default(), &settings_syntax())
        .map_err(|e| {
            e.to_string()
                .lines()
                .next()
                .unwrap_or("invalid JSON")
                .to_string()
        })?;
    Ok(parsed
        .value
        .map_or(serde_json::Value::Null, serde_json::Value::from))
}

/// The rules of one settings file's text; `Err` is one line naming what is wrong (for
/// a syntax error, where: "… on line 3 column 5").
pub fn parse_rules(text: &str, scope: Scope) -> Result<Vec<Rule>, String> {
    let settings = match parse_settings_value(text)? {
        // Empty, or only comments: no settings at all.
        serde_json::Value::Null => return Ok(Vec::new()),
        serde_json::Value::Object(map) => map,
        _ => return Err("the settings are not a JSON object".into()),
    };
    let permissions = match settings.get("permissions") {
        None | Some(serde_json::Value::Null) => return Ok(Vec::new()),
        Some(serde_json::Value::Object(map)) => map,
        Some(_) => return Err("`permissions` is not an object".into()),
    };
    let mut rules = Vec::new();
    for (key, effect) in [
        ("deny", Effect::Deny),
        ("ask", Effect::Ask),
        ("allow", Effect::Allow),
    ] {
        let list = match permissions.get(key) {
            None | Some(serde_json::Value::Null) => continue,
            Some(serde_json::Value::Array(list)) => list,
            Some(_) => return Err(format!("`permissions.{key}` is not a list")),
        };
        for item in list {
            let pattern = item
                .as_str()
                .ok_or_else(|| format!("`permissions.{key}` holds {item}, not a rule string"))?;
            rules.push(Rule {
                pattern: pattern.trim().to_string(),
                effect,
                scope,
            });
        }
    }
    Ok(rules)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_is_seen_at_once_even_at_the_same_size() {
        let project = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(project.path().join(".claude")).expect("mkdir");
        let file = project.path().join(".claude/settings.json");
        let patterns = |text: &str| {
            std::fs::write(&file, text).expect("write");
            let (rules, problems) = load(project.path(), None);
            assert!(problems.is_empty(), "{problems:?}");
            rules.into_iter().map(|r| r.pattern).collect::<Vec<_>>()
        };
        // Same length, written within one timestamp tick: only the text tells them apart.
        assert_eq!(
            patterns(r#"{"permissions":{"deny":["Bash(rm:*)"]}}"#),
            ["Bash(rm:*)"]
        );
        assert_eq!(
            patterns(r#"{"permissions":{"deny":["Bash(mv:*)"]}}"#),
            ["Bash(mv:*)"]
        );
        assert_eq!(
            patterns(r#"{"permissions":{"deny":["Bash(mv:*)"]}}"#),
            ["Bash(mv:*)"]
        );
        std::fs::write(&file, "{broken").expect("write");
        assert_eq!(load(project.path(), None).1.len(), 1);
    }

    #[test]
    fn reads_every_scope_in_order_and_reports_bad_files() {
        let project = tempfile::tempdir().expect("tempdir");
        let home = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(project.path().join(".claude")).expect("mkdir");
        std::fs::create_dir_all(home.path().join(".claude")).expect("mkdir");
        std::fs::write(
            project.path().join(".claude/settings.local.json"),
            r#"{"permissions":{"deny":["Bash(sudo *)"],"allow":["Bash(git:*)"]}}"#,
        )
        .expect("write");
        std::fs::write(project.path().join(".claude/settings.json"), "{not json").expect("write");
        std::fs::write(
            home.path().join(".claude/settings.json"),
            r#"{"permissions":{"ask":["Bash(rm *)"]},"other":1}"#,
        )
        .expect("write");
        let (rules, problems) = load(project.path(), Some(home.path()));
        assert_eq!(
            rules,
            vec![
                Rule {
                    pattern: "Bash(sudo *)".into(),
                    effect: Effect::Deny,
                    scope: Scope::ProjectLocal
                },
                Rule {
                    pattern: "Bash(git:*)".into(),
                    effect: Effect::Allow,
                    scope: Scope::ProjectLocal
                },
                Rule {
                    pattern: "Bash(rm *)".into(),
                    effect: Effect::Ask,
                    scope: Scope::User
                },
            ]
        );
        assert_eq!(problems.len(), 1);
        assert!(problems[0].path.ends_with(".claude/settings.json"));
        assert!(
            problems[0].reason.contains("line 1 column"),
            "{}",
            problems[0]
        );
    }

    #[test]
    fn comments_and_trailing_commas_are_read_as_claude_code_reads_them() {
        let text = r#"{
            // the team's rules
            "permissions": {
                /* never */ "deny": ["Bash(rm *)", "Read(./.env)",],
                "allow": ["Bash(git:*)"], // ok
            },
        }"#;
        let rules = parse_rules(text, Scope::Project).expect("jsonc");
        let patterns: Vec<&str> = rules.iter().map(|r| r.pattern.as_str()).collect();
        assert_eq!(patterns, ["Bash(rm *)", "Read(./.env)", "Bash(git:*)"]);
        assert_eq!(parse_rules("// nothing yet\n", Scope::User), Ok(vec![]));
        for (bad, says) in [
            (r#"{"permissions": {"deny": ['Bash(rm *)']}}"#, "line 1"),
            (r#"{"permissions": {"deny": "Bash(rm *)"}}"#, "not a list"),
            (r#"{"permissions": {"deny": [1]}}"#, "not a rule string"),
            (r#"{"permissions": []}"#, "not an object"),
            ("[1]", "not a JSON object"),
        ] {
            let err = parse_rules(bad, Scope::Project).expect_err(bad);
            assert!(err.contains(says), "{bad}: {err}");
            assert_eq!(err.lines().count(), 1, "{err}");
        }
    }

    mod generated {
        //! 256 cases per property by default; `PROPTEST_CASES=10000 cargo test -p cm
        //! --lib permissions` before a release.
        use super::super::*;
        use proptest::prelude::*;

        /// What may sit between two JSON tokens in a settings file.
        fn filler() -> impl Strategy<Value = String> {
            prop_oneof![
                Just(String::new()),
                Just(" ".to_string()),
                Just("\n".to_string()),
                "[a-zA-Z0-9 ,:{}\\[\\]\"]{0,12}".prop_map(|c| format!("// {c}\n")),
                "[a-zA-Z0-9 ,:{}\\[\\]\"/]{0,12}"
                    .prop_map(|c| format!("/* {} */", c.replace("*/", "* /"))),
            ]
        }

        fn lists() -> impl Strategy<Value = Vec<(&'static str, Vec<String>)>> {
            let rule = prop_oneof!["[ -~]{0,16}", any::<String>()];
            prop::collection::vec(
                (
                    prop::sample::select(vec!["deny", "ask", "allow"]),
                    prop::collection::vec(rule, 0..4),
                ),
                0..4,
            )
        }

        /// The settings file as tokens: plain JSON when `fill` is empty, else
        /// comments and blanks between tokens and optional trailing commas.
        fn render(lists: &[(&str, Vec<String>)], fill: &[String], trailing: &[bool]) -> String {
            let mut n = 0;
            let mut next = |tokens: &mut Vec<String>, token: String| {
                tokens.push(token);
                if !fill.is_empty() {
                    tokens.push(fill[n % fill.len()].clone());
                }
                n += 1;
            };
            let comma = |i: usize| trailing.get(i % trailing.len().max(1)).copied() == Some(true);
            let mut t = Vec::new();
            next(&mut t, "{".into());
            next(&mut t, "\"permissions\"".into());
            next(&mut t, ":".into());
            next(&mut t, "{".into());
            // Later duplicate keys win in JSON; keep each key once so both forms agree.
            let mut seen = Vec::new();
            let lists: Vec<_> = lists
                .iter()
                .filter(|(key, _)| {
                    let fresh = !seen.contains(key);
                    seen.push(*key);
                    fresh
                })
                .collect();
            for (i, (key, rules)) in lists.iter().enumerate() {
                next(&mut t, format!("\"{key}\""));
                next(&mut t, ":".into());
                next(&mut t, "[".into());
                for (j, rule) in rules.iter().enumerate() {
                    next(&mut t, serde_json::Value::from(rule.as_str()).to_string());
                    if j + 1 < rules.len()
                        || (!fill.is_empty() && comma(i + j) && !rules.is_empty())
                    {
                        next(&mut t, ",".into());
                    }
                }
                next(&mut t, "]".into());
                if i + 1 < lists.len() || (!fill.is_empty() && comma(i)) {
                    next(&mut t, ",".into());
                }
            }
            next(&mut t, "}".into());
            next(&mut t, "}".into());
            t.concat()
        }

        proptest! {
            #[test]
            fn decorated_settings_yield_the_rules_of_their_plain_form(
                lists in lists(),
                fill in prop::collection::vec(filler(), 1..6),
                trailing in prop::collection::vec(any::<bool>(), 1..4),
            ) {
                let plain = render(&lists, &[], &[]);
                let decorated = render(&lists, &fill, &trailing);
                let expected = parse_rules(&plain, Scope::Project);
                prop_assert!(expected.is_ok(), "{plain}: {expected:?}");
                prop_assert_eq!(parse_rules(&decorated, Scope::Project), expected, "{}", decorated);
            }

            #[test]
            fn no_text_makes_the_reader_panic(text in any::<String>()) {
                if let Err(reason) = parse_rules(&text, Scope::User) {
                    prop_assert_eq!(reason.lines().count(), 1, "{}", reason);
                }
            }

            #[test]
            fn damaged_settings_never_panic(
                lists in lists(),
                cut in any::<prop::sample::Index>(),
                junk in "[{}\\[\\],:\"/*a-z0-9 ]{0,6}",
            ) {
                let text = render(&lists, &[" ".to_string()], &[true]);
                let at = cut.index(text.len() + 1);
                let at = (0..=at).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
                let damaged = format!("{}{junk}{}", &text[..at], &text[at..]);
                let _ = parse_rules(&damaged, Scope::Project);
            }
        }
    }
}
