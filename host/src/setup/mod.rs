//! `cm setup`: asks each platform adapter for its setup plan and merges it into the
//! agent's config files — shown first, backed up, applied atomically, rolled back on any
//! failure, recorded so `--remove` takes out exactly what was added. Nothing here is
//! specific to one agent: adapters say what goes where.

pub mod agents;
pub mod apply;
#[cfg(test)]
mod bundle;
pub mod error;
pub mod files;
pub mod host_version;
pub mod inspect;
pub mod json_merge;
pub mod manifest;
pub mod model;
pub mod remove;
pub mod signature;
pub mod text_merge;
pub mod toml_merge;
pub mod trust;

use crate::platform::fs::Canonical as _;
use std::path::Path;

pub use agents::{Agent, Extras, load_all};
pub use apply::{FilePlan, Plan};
pub use error::{ContentError, SetupError};
pub use inspect::{
    AgentRegistration, DuplicateHook, EditCheck, EditState, MissingBinary, inspect, inspect_project,
};

/// The command agents will run: the canonical absolute path of this executable.
pub fn cm_command() -> Result<String, SetupError> {
    let exe = std::env::current_exe().map_err(SetupError::NoExecutable)?;
    let exe = exe.canonical().unwrap_or(exe);
    Ok(exe.display().to_string())
}

/// The agents to set up: the ones named (each must exist), else the detected ones.
pub fn select(
    agents: Vec<Agent>,
    wanted: Option<&[String]>,
    home: &Path,
) -> Result<Vec<Agent>, SetupError> {
    let known: Vec<String> = agents.iter().map(|a| a.id().to_owned()).collect();
    match wanted {
        Some(ids) => {
            if let Some(unknown) = ids.iter().find(|id| !known.contains(id)) {
                return Err(SetupError::UnknownAgent {
                    name: unknown.clone(),
                    known: known.join(", "),
                });
            }
            Ok(agents
                .into_iter()
                .filter(|a| ids.iter().any(|id| id == a.id()))
                .collect())
        }
        None => {
            let markers: Vec<String> = agents
                .iter()
                .flat_map(|a| a.descriptor.file_markers.clone())
                .collect();
            let found: Vec<Agent> = agents.into_iter().filter(|a| a.detected(home)).collect();
            if found.is_empty() {
                return Err(SetupError::NoAgentDetected {
                    markers: markers.join(", "),
                    known: known.join(", "),
                });
            }
            Ok(found)
        }
    }
}

/// The agents that are already set up: recorded by an earlier `cm setup`, or with a
/// required edit (partly) in place — each with the optional edits it already has.
pub fn already_set_up(
    root: &Path,
    home: &Path,
    cm_command: &str,
) -> Result<Vec<(String, Extras)>, SetupError> {
    let manifest = manifest::Manifest::load(root)?;
    let recorded = manifest.agents();
    let mut found = Vec::new();
    for mut agent in load_all(root)? {
        let everything = Extras {
            routing: true,
            statusline: true,
        };
        let (edits, _) = agent.plan(cm_command, home, None, everything)?;
        let present = |edit: &agents::ResolvedEdit| {
            matches!(
                inspect::check(&manifest, &edit.path, edit.format, &edit.content),
                EditState::Applied | EditState::Partial { .. }
            )
        };
        let optional_present = |kind| edits.iter().any(|e| e.kind == kind && present(e));
        use crate::model::EditKind;
        let required = edits.iter().any(|e| {
            matches!(
                e.kind,
                EditKind::McpServer | EditKind::Hooks | EditKind::Feature
            ) && present(e)
        });
        if recorded.contains(agent.id()) || required {
            let extras = Extras {
                routing: optional_present(EditKind::Instructions),
                statusline: optional_present(EditKind::StatusLine),
            };
            found.push((agent.id().to_owned(), extras));
        }
    }
    Ok(found)
}
