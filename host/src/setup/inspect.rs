//! What `cm doctor` reports per agent: is each required edit (MCP server, hooks, feature
//! switch) in place, and is any `cm hook` registered more than once. Reads only.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::agents::{Extras, kind_name, load_all};
use super::apply::merge;
use super::files::read_existing;
use super::manifest::Manifest;
use super::model::ChangeKind;
use super::signature::{invocation_tail, programs};
use super::{json_merge, toml_merge};
use crate::model::{ConfigFormat, EditKind};

/// One agent as doctor sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentRegistration {
    pub id: String,
    pub display_name: String,
    /// One of the adapter's file markers exists.
    pub detected: bool,
    /// The required edits (mcp-server, hooks, feature) and their state.
    pub edits: Vec<EditCheck>,
    pub duplicates: Vec<DuplicateHook>,
    /// Entries of ours that run a `cm` no longer there (an npm or plugin update moved it).
    pub missing_binaries: Vec<MissingBinary>,
    /// For an adapter whose plan depends on the host's version: the version line found,
    /// `Some(None)` when the host's program did not answer; `None` otherwise.
    pub host_version: Option<Option<String>>,
    /// The host declares no hook events (Zed, Antigravity IDE): nothing intercepts its
    /// tool calls, and the routing file is its only enforcement.
    pub mcp_only: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditCheck {
    /// `mcp-server`, `hooks` or `feature`.
    pub kind: &'static str,
    pub file: PathBuf,
    pub state: EditState,
    /// The command that puts it right; none when applied.
    pub fix: Option<String>,
    /// A hooks edit whose entries hand the hook to the running server (`ctx_hook`,
    /// ADR 27) instead of a `cm hook` process.
    pub served: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditState {
    Applied,
    Missing,
    /// Some of it is there; what is missing or differs (`hooks.Stop[]`, `mcpServers.context-mode.command differs`).
    Partial {
        missing: Vec<String>,
    },
    /// The file cannot be read or parsed: one line.
    Unreadable {
        reason: String,
    },
}

/// The same `cm hook <id> <event>` registered more than once in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateHook {
    pub file: PathBuf,
    /// Where the entries are, e.g. `hooks.PreToolUse[].hooks[].command`.
    pub key: String,
    pub event: String,
    pub count: usize,
    pub fix: String,
}

/// An entry of ours in `file` runs `program`, an absolute path where nothing is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingBinary {
    pub file: PathBuf,
    pub program: String,
}

/// Checks every agent (detected or not) against the plan `cm setup` would apply with
/// `cm_command`, required edits only.
pub fn inspect(
    root: &Path,
    home: &Path,
    cm_command: &str,
) -> super::error::Result<Vec<AgentRegistration>> {
    inspect_project(root, home, cm_command, None)
}

/// [`inspect`] with the project whose `{project}/` files count too (VS Code and
/// JetBrains Copilot register only in the project).
pub fn inspect_project(
    root: &Path,
    home: &Path,
    cm_command: &str,
    project: Option<&Path>,
) -> super::error::Result<Vec<AgentRegistration>> {
    let mut agents = load_all(root)?;
    let manifest = Manifest::load(root)?;
    let mut report = Vec::new();
    for agent in agents.iter_mut() {
        let id = agent.id().to_owned();
        let fix = format!("cm setup --agents {id}");
        let (edits, _) = agent.plan(cm_command, home, project, Extras::default())?;
        let mut checks = Vec::new();
        let mut duplicates = Vec::new();
        let mut missing_binaries: Vec<MissingBinary> = Vec::new();
        for edit in &edits {
            let missing = match edit.format {
                ConfigFormat::Text => missing_in_text(&edit.path, &edit.content, cm_command),
                format => missing_programs(&edit.path, format),
            };
            for missing in missing {
                if !missing_binaries.contains(&missing) {
                    missing_binaries.push(missing);
                }
            }
            let state = check(&manifest, &edit.path, edit.format, &edit.content);
            if edit.kind == EditKind::Hooks {
                duplicates.extend(duplicated_hooks(&edit.path, edit.format, &fix));
            }
            checks.push(EditCheck {
                kind: kind_name(edit.kind),
                file: edit.path.clone(),
                fix: (state != EditState::Applied).then(|| fix.clone()),
                served: edit.kind == EditKind::Hooks && hands_hooks_to_server(&edit.content),
                state,
            });
        }
        let host_version = match agent.has_host_version_command()? {
            true => Some(agent.host_version()?),
            false => None,
        };
        report.push(AgentRegistration {
            detected: agent.detected(home),
            display_name: agent.descriptor.display_name.clone(),
            id,
            edits: checks,
            duplicates,
            missing_binaries,
            host_version,
            mcp_only: agent.descriptor.events.is_empty(),
        });
    }
    Ok(report)
}

/// True when a planned hooks document hands some hook to the server's `ctx_hook`.
fn hands_hooks_to_server(content: &str) -> bool {
    fn any(value: &serde_json::Value) -> bool {
        match value {
            serde_json::Value::Object(map) => {
                map.get("tool").and_then(serde_json::Value::as_str)
                    == Some(crate::model::SERVED_HOOK_TOOL)
                    || map.values().any(any)
            }
            serde_json::Value::Array(items) => items.iter().any(any),
            _ => false,
        }
    }
    serde_json::from_str::<serde_json::Value>(content).is_ok_and(|value| any(&value))
}

pub fn check(manifest: &Manifest, path: &Path, format: ConfigFormat, content: &str) -> EditState {
    let bytes = match read_existing(path) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return EditState::Missing,
        Err(err) => {
            return EditState::Unreadable {
                reason: err.to_string(),
            };
        }
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return EditState::Unreadable {
            reason: super::error::SetupError::content(
                path.display(),
                super::error::ContentError::NotUtf8,
            )
            .to_string(),
        };
    };
    let ours_whole = manifest.owns_whole(path, text.as_bytes());
    let merged = match merge(format, Some(&text), content, ours_whole) {
        Ok(merged) => merged,
        Err(reason) => {
            return EditState::Unreadable {
                reason: super::error::SetupError::content(path.display(), reason).to_string(),
            };
        }
    };
    if merged.changes.is_empty() {
        return EditState::Applied;
    }
    let all = merge(format, None, content, false)
        .map(|m| m.changes.len())
        .unwrap_or(0);
    let only_adds = merged.changes.iter().all(|c| c.kind == ChangeKind::Add);
    if only_adds && merged.changes.len() >= all {
        return EditState::Missing;
    }
    let missing = merged
        .changes
        .iter()
        .map(|c| match c.kind {
            ChangeKind::Add => c.path.clone(),
            ChangeKind::Replace => format!("{} differs", c.path),
            ChangeKind::Remove => c.path.clone(),
        })
        .collect();
    EditState::Partial { missing }
}

/// The `cm` programs our entries in a JSON or TOML file run, where they are gone.
fn missing_programs(path: &Path, format: ConfigFormat) -> Vec<MissingBinary> {
    let Some(value) = file_value(path, format) else {
        return Vec::new();
    };
    gone(path, programs(&value).into_iter())
}

/// Of the programs `file` runs, those that are absolute paths to nothing. A bare `cm`
/// is looked up on PATH by the agent, so it is not judged here.
fn gone(file: &Path, programs: impl Iterator<Item = String>) -> Vec<MissingBinary> {
    programs
        .filter(|program| {
            let program = Path::new(program);
            program.is_absolute() && !program.exists()
        })
        .map(|program| MissingBinary {
            file: file.to_path_buf(),
            program,
        })
        .collect()
}

/// The `cm` a text file of ours (the OpenCode and Pi shims) runs, where it is gone.
/// Generic over shims: the plan's line that carries `cm_command` as a JSON string
/// (`const CM = "/path/cm";`) says where the file keeps it, and the file's line with
/// the same start holds the path it was written with.
fn missing_in_text(path: &Path, content: &str, cm_command: &str) -> Vec<MissingBinary> {
    let literal = Value::from(cm_command).to_string();
    let Some(prefix) = content
        .lines()
        .find_map(|line| line.find(&literal).map(|at| &line[..at]))
        .filter(|prefix| !prefix.trim().is_empty())
    else {
        return Vec::new();
    };
    let Ok(Some(bytes)) = read_existing(path) else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&bytes);
    let written = text
        .lines()
        .filter_map(|line| line.strip_prefix(prefix))
        .filter_map(|rest| {
            serde_json::Deserializer::from_str(rest)
                .into_iter::<String>()
                .next()?
                .ok()
        });
    gone(path, written)
}

/// A JSON or TOML config file as a plain value; none when absent, unreadable or text.
fn file_value(path: &Path, format: ConfigFormat) -> Option<Value> {
    let bytes = read_existing(path).ok()??;
    let text = String::from_utf8_lossy(&bytes);
    match format {
        ConfigFormat::Json => json_merge::to_value(&text).ok(),
        ConfigFormat::Toml => toml_merge::to_value(&text).ok(),
        ConfigFormat::Text => None,
    }
}

fn duplicated_hooks(path: &Path, format: ConfigFormat, fix: &str) -> Vec<DuplicateHook> {
    let Some(value) = file_value(path, format) else {
        return Vec::new();
    };
    let mut seen: BTreeMap<String, (String, usize)> = BTreeMap::new();
    count_hooks(&value, "", &mut seen);
    seen.into_iter()
        .filter(|(_, (_, count))| *count > 1)
        .map(|(tail, (key, count))| DuplicateHook {
            file: path.to_path_buf(),
            event: tail.rsplit(' ').next().unwrap_or("").to_owned(),
            fix: format!(
                "{fix} (keeps one), or delete all but one entry running `cm {tail}` under {key} in {}",
                path.display()
            ),
            key,
            count,
        })
        .collect()
}

/// Counts each `hook <id> <event>` command string, remembering the first key path.
fn count_hooks(value: &Value, path: &str, seen: &mut BTreeMap<String, (String, usize)>) {
    match value {
        Value::String(text) => {
            if let Some(tail) = invocation_tail(text).filter(|t| t.starts_with("hook ")) {
                seen.entry(tail).or_insert_with(|| (path.to_owned(), 0)).1 += 1;
            }
        }
        Value::Array(items) => {
            let inner = format!("{path}[]");
            items.iter().for_each(|v| count_hooks(v, &inner, seen));
        }
        Value::Object(map) => {
            for (key, v) in map {
                let inner = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                count_hooks(v, &inner, seen);
            }
        }
        _ => {}
    }
}
