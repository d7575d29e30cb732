//! The GitHub Copilot CLI plugin (ADR 40) beside `cm setup`: both register the same
//! server name and hooks, so with both every hook runs twice. The plugin is what Copilot
//! CLI 1.0.102 records: an `installedPlugins` entry named `context-mode` in
//! `<copilot home>/config.json` (copied installs), or `enabledPlugins."context-mode@<m>"`
//! in `settings.json` (a local marketplace's plugin, loaded where it is).

use std::path::Path;

use super::{Check, Status};
pub(crate) use crate::upgrade::copilot_records::{copilot_home, installed};

const AGENT: &str = "copilot-cli";

/// With the plugin installed, the `copilot-cli` rows of `rows`: a setup registration
/// missing is what the plugin wants (one passing row instead of "run cm setup"); one in
/// place as well is a failure, every hook and the server registered twice.
pub fn amend(rows: &mut Vec<Check>, home: &Path) {
    amend_for(rows, installed(&copilot_home(home)))
}

fn amend_for(rows: &mut Vec<Check>, plugin: Option<String>) {
    let Some(plugin) = plugin else { return };
    let ours = |c: &Check| c.name.starts_with(&format!("{AGENT} "));
    let registered: Vec<String> = rows
        .iter()
        .filter(|c| ours(c) && c.status == Status::Pass)
        .map(|c| c.name.clone())
        .collect();
    let at = rows.iter().position(ours).unwrap_or(rows.len());
    rows.retain(|c| !ours(c) || c.status != Status::Warn);
    let row = if registered.is_empty() {
        Check::pass(
            format!("{AGENT} plugin"),
            format!("installed as a Copilot CLI plugin ({plugin}): its hooks and server run cm"),
        )
    } else {
        Check::fail(
            format!("{AGENT} plugin"),
            format!(
                "registered twice: as a Copilot CLI plugin ({plugin}) and by cm setup ({}): every hook runs twice",
                registered.join(", ")
            ),
            Some(format!("cm setup --agents {AGENT} --remove")),
        )
    };
    rows.insert(at.min(rows.len()), row);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(status: Status) -> Vec<Check> {
        vec![
            Check::pass("codex hooks", "registered"),
            Check::new("copilot-cli hooks", status, "…", None),
            Check::new("copilot-cli mcp-server", status, "…", None),
        ]
    }

    #[test]
    fn the_plugin_alone_replaces_the_setup_warnings() {
        let mut all = rows(Status::Warn);
        amend_for(
            &mut all,
            Some("/h/.copilot/installed-plugins/_direct/copilot-cli".into()),
        );
        let names: Vec<(&str, Status)> = all.iter().map(|c| (c.name.as_str(), c.status)).collect();
        assert_eq!(
            names,
            [
                ("codex hooks", Status::Pass),
                ("copilot-cli plugin", Status::Pass)
            ]
        );
    }

    #[test]
    fn the_plugin_and_setup_together_fail_with_the_remove_fix() {
        let mut all = rows(Status::Pass);
        amend_for(&mut all, Some("context-mode@context-mode".into()));
        let row = all
            .iter()
            .find(|c| c.name == "copilot-cli plugin")
            .expect("row");
        assert_eq!(row.status, Status::Fail);
        assert!(
            row.detail
                .contains("copilot-cli hooks, copilot-cli mcp-server")
        );
        assert_eq!(
            row.fix.as_deref(),
            Some("cm setup --agents copilot-cli --remove")
        );
    }

    #[test]
    fn without_the_plugin_nothing_changes() {
        let mut all = rows(Status::Warn);
        amend_for(&mut all, None);
        assert_eq!(all, rows(Status::Warn));
    }

    #[test]
    fn reads_both_records_copilot_writes() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert_eq!(installed(dir.path()), None);
        std::fs::write(
            dir.path().join("settings.json"),
            r#"{"enabledPlugins": {"context-mode@context-mode": true}}"#,
        )
        .expect("write");
        assert_eq!(
            installed(dir.path()).as_deref(),
            Some("context-mode@context-mode")
        );
        std::fs::write(
            dir.path().join("config.json"),
            "// User settings belong in settings.json.\n// This file is managed automatically.\n{\"installedPlugins\": [{\"name\": \"context-mode\", \"cache_path\": \"/c/context-mode\", \"enabled\": true}]}",
        )
        .expect("write");
        assert_eq!(installed(dir.path()).as_deref(), Some("/c/context-mode"));
    }
}
