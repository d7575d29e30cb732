//! The user's Claude-style permission rules (`permissions.allow|deny|ask` in
//! `.claude/settings.local.json`, `.claude/settings.json` and `~/.claude/settings.json`),
//! read by the host for every platform and handed to the routing policies.

use std::path::{Path, PathBuf};

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

/// Every rule of every settings file. A missing file has no rules; a malformed one is
/// reported (one line per file) and contributes none.
pub fn load(project_dir: &Path, home: Option<&Path>) -> (Vec<Rule>, Vec<String>) {
    let mut rules = Vec::new();
    let mut problems = Vec::new();
    for (scope, path) in settings_files(project_dir, home) {
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                problems.push(format!("cannot read {}: {e}", path.display()));
                continue;
            }
        };
        match parse_rules(&text, scope) {
            Ok(found) => rules.extend(found),
            Err(e) => problems.push(format!("{} is not valid JSON: {e}", path.display())),
        }
    }
    (rules, problems)
}

fn parse_rules(text: &str, scope: Scope) -> Result<Vec<Rule>, serde_json::Error> {
    let settings: serde_json::Value = serde_json::from_str(text)?;
    let mut rules = Vec::new();
    for (key, effect) in [
        ("deny", Effect::Deny),
        ("ask", Effect::Ask),
        ("allow", Effect::Allow),
    ] {
        let Some(list) = settings
            .pointer(&format!("/permissions/{key}"))
            .and_then(|v| v.as_array())
        else {
            continue;
        };
        rules.extend(list.iter().filter_map(|v| v.as_str()).map(|pattern| Rule {
            pattern: pattern.trim().to_string(),
            effect,
            scope,
        }));
    }
    Ok(rules)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(problems[0].contains("settings.json is not valid JSON"));
    }
}
