//! The agents setup can register with: every adapter (built-in, overridden by an
//! installed one of the same id, plus installed-only ones), whether it is detected on
//! this machine, and its setup plan resolved to real paths.

use std::path::{Path, PathBuf};

use super::error::SetupError;
use crate::model::{ConfigFormat, Descriptor, EditKind, SetupInput};
use crate::plugins::{Adapter, BUILTIN_PLUGINS, PluginEngine, PluginKind, Registry};

/// One loaded adapter.
pub struct Agent {
    pub descriptor: Descriptor,
    adapter: Adapter,
    /// The installed host's version line, once asked (contract 0.4.0 adapters whose
    /// plan depends on it); `Some(None)`: asked, not found.
    host_version: Option<Option<String>>,
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
pub fn load_all(root: &Path) -> Result<Vec<Agent>, SetupError> {
    let engine = PluginEngine::new(Some(crate::paths::cwasm_cache_dir(root)))?;
    let registry = Registry::load(root)?;
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
            host_version: None,
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
            .filter_map(|marker| expand(marker, home, None, &|name| self.env_var(name)).ok())
            .any(|path| path.exists())
    }

    /// A variable the adapter declares in its descriptor's `env-vars`; no other is read.
    fn env_var(&self, name: &str) -> Option<String> {
        self.descriptor
            .env_vars
            .iter()
            .any(|declared| declared == name)
            .then(|| std::env::var(name).ok())
            .flatten()
    }

    /// True when the adapter's plan depends on the installed host's version.
    pub fn has_host_version_command(&mut self) -> Result<bool, crate::plugins::PluginError> {
        Ok(self.adapter.host_version_command()?.is_some())
    }

    /// The installed host's version line, when the adapter's plan depends on it and the
    /// program it names answers; asked once per run.
    pub fn host_version(&mut self) -> Result<Option<String>, crate::plugins::PluginError> {
        if let Some(known) = &self.host_version {
            return Ok(known.clone());
        }
        let version = self
            .adapter
            .host_version_command()?
            .and_then(|program| super::host_version::probe(&program));
        self.host_version = Some(version.clone());
        Ok(version)
    }

    /// The plan's edits this run applies: the required ones, plus the optional ones
    /// asked for. Edits under `{project}/` without a project are left out, with a note.
    pub fn plan(
        &mut self,
        cm_command: &str,
        home: &Path,
        project: Option<&Path>,
        extras: Extras,
    ) -> Result<(Vec<ResolvedEdit>, Vec<String>), SetupError> {
        let input = SetupInput {
            cm_command: cm_command.to_owned(),
            project_dir: project.map(|p| p.display().to_string()),
        };
        let plan = match self.host_version()? {
            Some(version) => self.adapter.setup_plan_for_version(input, &version)?,
            None => self.adapter.setup_plan(input)?,
        };
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
            // A registration the host keeps outside any file (JetBrains' MCP servers
            // live in its settings UI): the adapter names no file, and setup prints
            // the steps instead.
            if edit.file.trim().is_empty() {
                notes.push(manual_step(&edit.summary, &edit.content));
                continue;
            }
            let path = match expand(&edit.file, home, project, &|name| self.env_var(name)) {
                Ok(path) => path,
                Err(Unresolved::NeedsProject) => {
                    notes.push(format!("{}: needs --project (skipped)", edit.file));
                    continue;
                }
                Err(Unresolved::Refused) => {
                    notes.push(format!(
                        "{}: not a file setup may edit (skipped; files start with ~/, {{project}}/ or {{env:NAME|~/…}}/)",
                        edit.file
                    ));
                    continue;
                }
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

/// The note for a step the user takes by hand: its summary, then its content indented.
fn manual_step(summary: &str, content: &str) -> String {
    let mut note = format!("by hand: {}", summary.trim());
    for line in content.lines().filter(|l| !l.trim().is_empty()) {
        note.push_str("\n    ");
        note.push_str(line.trim_end());
    }
    note
}

/// `~/x` → home/x, `{project}/x` → project/x, `{env:NAME|fallback}/x` → the variable's
/// value (made absolute) when it is set and not empty, else the fallback (itself `~/…`
/// or `{project}/…`); `env` answers only for the variables the adapter declares. Any
/// other relative or unknown form, or a `..`, is refused (an adapter cannot point setup
/// at an arbitrary place by accident).
pub fn expand(
    file: &str,
    home: &Path,
    project: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<PathBuf, Unresolved> {
    let file = file.trim();
    if let Some(spec) = file.strip_prefix("{env:") {
        let (inner, rest) = spec.split_once('}').ok_or(Unresolved::Refused)?;
        let (name, fallback) = inner.split_once('|').ok_or(Unresolved::Refused)?;
        let rest = match rest {
            "" => "",
            _ => rest.strip_prefix('/').ok_or(Unresolved::Refused)?,
        };
        check_relative(rest)?;
        let fallback = expand(fallback, home, project, &|_| None);
        if fallback == Err(Unresolved::Refused) {
            return fallback;
        }
        return match env(name).filter(|v| !v.is_empty()) {
            Some(value) => std::path::absolute(&value)
                .map(|base| join_relative(&base, rest))
                .map_err(|_| Unresolved::Refused),
            None => fallback.map(|base| join_relative(&base, rest)),
        };
    }
    let (base, rest) = if file == "~" {
        (home, "")
    } else if let Some(rest) = file.strip_prefix("~/") {
        (home, rest)
    } else if let Some(rest) = file.strip_prefix("{project}/") {
        (project.ok_or(Unresolved::NeedsProject)?, rest)
    } else {
        return Err(Unresolved::Refused);
    };
    check_relative(rest)?;
    Ok(join_relative(base, rest))
}

/// `base` joined with a plan's `/`-separated relative name one component at a time, so
/// the path uses the OS's own separator (`C:\Users\me\.codex\config.toml`).
fn join_relative(base: &Path, rest: &str) -> PathBuf {
    rest.split('/')
        .filter(|c| !c.is_empty())
        .fold(base.to_path_buf(), |path, component| path.join(component))
}

/// Why a plan's file name did not resolve to a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unresolved {
    /// A `{project}/` file on a run without `--project`.
    NeedsProject,
    /// Not a form setup accepts.
    Refused,
}

fn check_relative(rest: &str) -> Result<(), Unresolved> {
    let escapes = Path::new(rest).components().any(|c| {
        !matches!(
            c,
            std::path::Component::Normal(_) | std::path::Component::CurDir
        )
    });
    if escapes {
        Err(Unresolved::Refused)
    } else {
        Ok(())
    }
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

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn paths_expand_only_from_home_or_project() {
        let home = Path::new("/home/u");
        let project = Path::new("/work/app");
        assert_eq!(
            expand("~/.claude.json", home, None, &no_env),
            Ok(home.join(".claude.json"))
        );
        assert_eq!(
            expand("{project}/.cursor/mcp.json", home, Some(project), &no_env),
            Ok(project.join(".cursor/mcp.json"))
        );
        assert_eq!(
            expand("{project}/.cursor/mcp.json", home, None, &no_env),
            Err(Unresolved::NeedsProject)
        );
        assert_eq!(
            expand("/etc/passwd", home, None, &no_env),
            Err(Unresolved::Refused)
        );
        assert_eq!(
            expand("~/../etc/passwd", home, None, &no_env),
            Err(Unresolved::Refused)
        );
        assert_eq!(expand("~", home, None, &no_env), Ok(home.to_path_buf()));
    }

    #[test]
    fn an_env_path_uses_the_variable_when_set_else_its_fallback() {
        let home = Path::new("/home/u");
        // Absolute on this OS (`/opt/codex` is not absolute on Windows).
        let codex = std::env::temp_dir().join("codex");
        let set = |name: &str| (name == "CODEX_HOME").then(|| codex.display().to_string());
        let empty = |_: &str| Some(String::new());
        let file = "{env:CODEX_HOME|~/.codex}/config.toml";
        assert_eq!(
            expand(file, home, None, &set),
            Ok(codex.join("config.toml"))
        );
        assert_eq!(
            expand(file, home, None, &no_env),
            Ok(home.join(".codex/config.toml"))
        );
        assert_eq!(
            expand(file, home, None, &empty),
            Ok(home.join(".codex/config.toml"))
        );
        assert_eq!(
            expand("{env:CODEX_HOME|~/.codex}", home, None, &set),
            Ok(codex.clone())
        );
        let relative = |_: &str| Some("rel/codex".to_owned());
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(
            expand(file, home, None, &relative),
            Ok(cwd.join("rel/codex/config.toml"))
        );
        for refused in [
            "{env:CODEX_HOME|~/.codex}/../x",
            "{env:CODEX_HOME|/etc}/x",
            "{env:CODEX_HOME}/x",
            "{env:CODEX_HOME|~/.codex}x",
            "{env:CODEX_HOME|~/.codex",
        ] {
            for env in [&no_env as &dyn Fn(&str) -> Option<String>, &set] {
                assert_eq!(
                    expand(refused, home, None, env),
                    Err(Unresolved::Refused),
                    "{refused}"
                );
            }
        }
        // The fallback cannot itself read the environment.
        assert_eq!(
            expand("{env:A|{env:B|~/x}}/y", home, None, &set),
            Err(Unresolved::Refused)
        );
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
