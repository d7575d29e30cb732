//! The agents setup can register with: every adapter (built-in, overridden by an
//! installed one of the same id, plus installed-only ones), whether it is detected on
//! this machine, and its setup plan resolved to real paths.

use std::path::{Path, PathBuf};

use crate::plugins::bindings::{ConfigFormat, Descriptor, EditKind, SetupInput};
use crate::plugins::{Adapter, BUILTIN_PLUGINS, PluginEngine, PluginKind, Registry};

/// One loaded adapter.
pub struct Agent {
    pub descriptor: Descriptor,
    adapter: Adapter,
}

/// Which optional edits to include besides the required ones.
#[derive(Debug, Clone, Copy, Default)]
pub struct Extras {
    /// Routing-instruction files (`instructions` edits).
    pub routing: bool,
    /// The status line (`status-line` edits).
    pub statusline: bool,
}

/// One edit of a plan, with its file resolved.
#[derive(Debug, Clone)]
pub struct ResolvedEdit {
    pub kind: EditKind,
    pub path: PathBuf,
    /// The file as the plan named it (`~/.claude.json`), for display.
    pub shown: String,
    pub format: ConfigFormat,
    pub content: String,
    pub summary: String,
}

/// Loads every adapter; one that fails to load is skipped with a warning.
pub fn load_all(root: &Path) -> Result<Vec<Agent>, String> {
    let engine =
        PluginEngine::new(Some(crate::paths::cwasm_cache_dir(root))).map_err(|e| e.to_string())?;
    let registry = Registry::load(root).map_err(|e| e.to_string())?;
    let mut agents: Vec<Agent> = Vec::new();
    for plugin in registry
        .plugins
        .iter()
        .filter(|p| p.kind == PluginKind::Adapter)
    {
        let loaded = registry.load_component(&engine, plugin).and_then(|c| {
            Adapter::instantiate(&engine, &c, &format!("adapter {} (installed)", plugin.id))
        });
        match loaded.and_then(Agent::new) {
            Ok(agent) => agents.push(agent),
            Err(err) => tracing::warn!("{err}; using the built-in adapter if there is one"),
        }
    }
    for builtin in BUILTIN_PLUGINS
        .iter()
        .filter(|p| p.kind == PluginKind::Adapter)
    {
        if agents.iter().any(|a| a.descriptor.id == builtin.id) {
            continue;
        }
        let loaded = engine
            .load(builtin.bytes, builtin.sha256)
            .and_then(|c| Adapter::instantiate(&engine, &c, &format!("adapter {}", builtin.id)));
        match loaded.and_then(Agent::new) {
            Ok(agent) => agents.push(agent),
            Err(err) => tracing::warn!("{err}"),
        }
    }
    agents.sort_by(|a, b| a.descriptor.id.cmp(&b.descriptor.id));
    Ok(agents)
}

impl Agent {
    fn new(mut adapter: Adapter) -> Result<Self, crate::plugins::PluginError> {
        let descriptor = adapter.describe()?;
        Ok(Agent {
            descriptor,
            adapter,
        })
    }

    pub fn id(&self) -> &str {
        &self.descriptor.id
    }

    /// True when one of the adapter's file markers exists (`~` = home).
    pub fn detected(&self, home: &Path) -> bool {
        self.descriptor
            .file_markers
            .iter()
            .filter_map(|marker| expand(marker, home, None))
            .any(|path| path.exists())
    }

    /// The plan's edits this run applies: the required ones, plus the optional ones
    /// asked for. Edits under `{project}/` without a project are left out, with a note.
    pub fn plan(
        &mut self,
        cm_command: &str,
        home: &Path,
        project: Option<&Path>,
        extras: Extras,
    ) -> Result<(Vec<ResolvedEdit>, Vec<String>), String> {
        let input = SetupInput {
            cm_command: cm_command.to_owned(),
            project_dir: project.map(|p| p.display().to_string()),
        };
        let plan = self.adapter.setup_plan(&input).map_err(|e| e.to_string())?;
        let mut edits = Vec::new();
        let mut notes = Vec::new();
        for edit in plan.edits {
            let wanted = match edit.kind {
                EditKind::McpServer | EditKind::Hooks | EditKind::Feature => true,
                EditKind::Instructions => extras.routing,
                EditKind::StatusLine => extras.statusline,
            };
            if !wanted {
                continue;
            }
            let Some(path) = expand(&edit.file, home, project) else {
                notes.push(format!("{}: needs --project (skipped)", edit.file));
                continue;
            };
            edits.push(ResolvedEdit {
                kind: edit.kind,
                path,
                shown: edit.file,
                format: edit.format,
                content: edit.content,
                summary: edit.summary,
            });
        }
        Ok((edits, notes))
    }
}

/// `~/x` → home/x, `{project}/x` → project/x; any other relative or unknown form is
/// refused (an adapter cannot point setup at an arbitrary place by accident).
pub fn expand(file: &str, home: &Path, project: Option<&Path>) -> Option<PathBuf> {
    let file = file.trim();
    let (base, rest) = if file == "~" {
        (home, "")
    } else if let Some(rest) = file.strip_prefix("~/") {
        (home, rest)
    } else if let Some(rest) = file.strip_prefix("{project}/") {
        (project?, rest)
    } else {
        return None;
    };
    let rest = Path::new(rest);
    let escapes = rest.components().any(|c| {
        !matches!(
            c,
            std::path::Component::Normal(_) | std::path::Component::CurDir
        )
    });
    if escapes {
        return None;
    }
    Some(base.join(rest))
}

/// The name of an edit kind as the contract spells it.
pub fn kind_name(kind: EditKind) -> &'static str {
    match kind {
        EditKind::McpServer => "mcp-server",
        EditKind::Hooks => "hooks",
        EditKind::Instructions => "instructions",
        EditKind::StatusLine => "status-line",
        EditKind::Feature => "feature",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_expand_only_from_home_or_project() {
        let home = Path::new("/home/u");
        let project = Path::new("/work/app");
        assert_eq!(
            expand("~/.claude.json", home, None),
            Some(home.join(".claude.json"))
        );
        assert_eq!(
            expand("{project}/.cursor/mcp.json", home, Some(project)),
            Some(project.join(".cursor/mcp.json"))
        );
        assert_eq!(expand("{project}/.cursor/mcp.json", home, None), None);
        assert_eq!(expand("/etc/passwd", home, None), None);
        assert_eq!(expand("~/../etc/passwd", home, None), None);
        assert_eq!(expand("~", home, None), Some(home.to_path_buf()));
    }

    #[test]
    fn the_claude_code_adapter_is_built_in_and_plans_its_edits() {
        let root = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let mut agents = load_all(root.path()).unwrap();
        let claude = agents.iter_mut().find(|a| a.id() == "claude-code").unwrap();
        assert!(!claude.detected(home.path()));
        std::fs::create_dir(home.path().join(".claude")).unwrap();
        assert!(claude.detected(home.path()));
        let (edits, notes) = claude
            .plan("/bin/cm", home.path(), None, Extras::default())
            .unwrap();
        let kinds: Vec<&str> = edits.iter().map(|e| kind_name(e.kind)).collect();
        assert_eq!(kinds, ["hooks", "mcp-server"]);
        assert!(notes.is_empty());
        let (all, _) = claude
            .plan(
                "/bin/cm",
                home.path(),
                None,
                Extras {
                    routing: true,
                    statusline: true,
                },
            )
            .unwrap();
        assert_eq!(all.len(), 4);
    }
}
