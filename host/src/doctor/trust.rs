//! Rows for the trust some agents ask for before they use what setup registered
//! (ADR 19; the rules are in `setup::trust`).

use std::path::Path;

use super::Check;
use crate::setup::trust::{codex_home, codex_hooks, gemini_trusts, untrusted};
use serde_json::Value;

/// Rows for `agent` when it is one that needs trust; none otherwise.
pub fn checks(agent: &str, home: &Path) -> Vec<Check> {
    match agent {
        "codex" => codex_rows(&codex_home(home)),
        "gemini-cli" => match crate::paths::project_dir() {
            Ok(project) => vec![gemini_row(home, &project)],
            Err(_) => Vec::new(),
        },
        _ => Vec::new(),
    }
}

fn codex_rows(codex_home: &Path) -> Vec<Check> {
    let hooks_path = codex_home.join("hooks.json");
    let Some(hooks_json) = std::fs::read_to_string(&hooks_path)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
    else {
        return Vec::new();
    };
    let hooks = codex_hooks(&hooks_path, &hooks_json);
    if hooks.is_empty() {
        return Vec::new();
    }
    let config = std::fs::read_to_string(codex_home.join("config.toml"))
        .ok()
        .and_then(|t| t.parse::<toml::Table>().ok())
        .unwrap_or_default();
    let untrusted = untrusted(&hooks, &config);
    if untrusted.is_empty() {
        return vec![Check::pass(
            "codex hook trust",
            format!(
                "{} hooks trusted in {}",
                hooks.len(),
                codex_home.join("config.toml").display()
            ),
        )];
    }
    vec![Check::warn(
        "codex hook trust",
        format!(
            "{} of {} context-mode hooks are not trusted: Codex skips them",
            untrusted.len(),
            hooks.len()
        ),
        Some("cm setup --agents codex".to_owned()),
    )]
}

fn gemini_row(home: &Path, project: &Path) -> Check {
    if gemini_trusts(home, project) {
        return Check::pass(
            "gemini-cli folder trust",
            format!("{} is trusted", project.display()),
        );
    }
    Check::warn(
        "gemini-cli folder trust",
        format!(
            "{} is not a trusted folder: Gemini CLI starts no MCP server here",
            project.display()
        ),
        Some(format!(
            "cm setup --agents gemini-cli --project {}",
            project.display()
        )),
    )
}
