//! Planning (every agent's edits merged into each file's current text, nothing written)
//! and committing (back up, write each file atomically, record; any failure restores
//! every file already written).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::agents::{Agent, Extras, ResolvedEdit, kind_name};
use super::error::{ContentError, Result, SetupError};
use super::files::{Backup, Written, read_existing, write_atomic};
use super::manifest::Manifest;
use super::model::{Change, MergeOutcome, Op};
use super::{json_merge, text_merge, toml_merge};
use crate::model::ConfigFormat;

/// What setup will do to one file.
#[derive(Debug, Clone)]
pub struct FilePlan {
    pub path: PathBuf,
    /// As the plan names it (`~/.claude.json`).
    pub shown: String,
    pub format: &'static str,
    pub agents: BTreeSet<String>,
    /// The edits' kinds and one-line summaries.
    pub summaries: Vec<(String, String)>,
    pub before: Option<Vec<u8>>,
    /// The new bytes; none means delete the file (only when removing).
    pub after: Option<Vec<u8>>,
    pub changes: Vec<Change>,
    pub ops: Vec<Op>,
    pub notes: Vec<String>,
}

impl FilePlan {
    pub fn changes_anything(&self) -> bool {
        self.before != self.after
    }
}

/// One agent's part of a run.
#[derive(Debug, Clone)]
pub struct AgentPlan {
    pub id: String,
    pub display_name: String,
    /// Edits left out of this run (e.g. a project file without `--project`).
    pub notes: Vec<String>,
}

/// A whole run: per agent, and per file (in the order the plans name them).
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub agents: Vec<AgentPlan>,
    pub files: Vec<FilePlan>,
}

impl Plan {
    pub fn files_of<'a>(&'a self, agent: &'a str) -> impl Iterator<Item = &'a FilePlan> + 'a {
        self.files.iter().filter(move |f| f.agents.contains(agent))
    }

    pub fn changes_anything(&self) -> bool {
        self.files.iter().any(FilePlan::changes_anything)
    }
}

/// Merges every agent's edits into the files as they are now. Writes nothing.
pub fn plan(
    root: &Path,
    agents: &mut [Agent],
    cm_command: &str,
    home: &Path,
    project: Option<&Path>,
    extras: Extras,
) -> Result<Plan> {
    let manifest = Manifest::load(root)?;
    let mut plan = Plan::default();
    for agent in agents.iter_mut() {
        let (edits, mut notes) =
            agent
                .plan(cm_command, home, project, extras)
                .map_err(|e| SetupError::Agent {
                    agent: agent.id().to_owned(),
                    error: Box::new(e),
                })?;
        let id = agent.id().to_owned();
        for edit in edits {
            add_edit(&mut plan.files, &manifest, &id, &edit)?;
        }
        // Merged like the adapter's edits, so they are shown, backed up and removed too.
        for edit in super::trust::edits(&id, &plan.files, home, project) {
            add_edit(&mut plan.files, &manifest, &id, &edit)?;
        }
        notes.extend(super::trust::untrusted_folder_note(&id, home, project));
        plan.agents.push(AgentPlan {
            id,
            display_name: agent.descriptor.display_name.clone(),
            notes,
        });
    }
    Ok(plan)
}

fn add_edit(
    files: &mut Vec<FilePlan>,
    manifest: &Manifest,
    agent: &str,
    edit: &ResolvedEdit,
) -> Result<()> {
    let format = format_name(edit.format);
    let index = match files.iter().position(|f| f.path == edit.path) {
        Some(i) => i,
        None => {
            let before = read_existing(&edit.path)?;
            files.push(FilePlan {
                path: edit.path.clone(),
                shown: edit.shown.clone(),
                format,
                agents: BTreeSet::new(),
                summaries: Vec::new(),
                after: before.clone(),
                before,
                changes: Vec::new(),
                ops: Vec::new(),
                notes: Vec::new(),
            });
            files.len() - 1
        }
    };
    let file = &mut files[index];
    if file.format != format {
        return Err(SetupError::MixedFormats {
            file: edit.shown.clone(),
            first: file.format.to_owned(),
            second: format.to_owned(),
        });
    }
    let current = match &file.after {
        Some(bytes) => Some(
            std::str::from_utf8(bytes)
                .map_err(|_| SetupError::content(&edit.shown, ContentError::NotUtf8))?,
        ),
        None => None,
    };
    let ours_whole = file
        .before
        .as_deref()
        .is_some_and(|bytes| manifest.owns_whole(&file.path, bytes));
    let merged = merge(edit.format, current, &edit.content, ours_whole)
        .map_err(|e| SetupError::content(&edit.shown, e))?;
    file.agents.insert(agent.to_owned());
    file.summaries
        .push((kind_name(edit.kind).to_owned(), edit.summary.clone()));
    file.after = Some(merged.text.into_bytes());
    file.changes.extend(merged.changes);
    file.ops.extend(merged.ops);
    Ok(())
}

pub fn format_name(format: ConfigFormat) -> &'static str {
    match format {
        ConfigFormat::Json => "json",
        ConfigFormat::Toml => "toml",
        ConfigFormat::Text => "text",
    }
}

/// One edit's content merged into a file's text. `ours_whole`: the file is a text
/// file setup created and nobody edited since (see `text_merge`).
pub fn merge(
    format: ConfigFormat,
    existing: Option<&str>,
    content: &str,
    ours_whole: bool,
) -> Result<MergeOutcome, ContentError> {
    match format {
        ConfigFormat::Json => json_merge::merge(existing, content),
        ConfigFormat::Toml => toml_merge::merge(existing, content),
        ConfigFormat::Text => text_merge::merge(existing, content, ours_whole),
    }
}

/// Backs up every file that changes, writes them in order, then runs `finish` (the
/// manifest update). Any failure puts every written file back byte for byte.
pub fn commit(
    root: &Path,
    files: &[FilePlan],
    finish: impl FnOnce() -> Result<()>,
) -> Result<Option<Backup>> {
    let changing: Vec<&FilePlan> = files.iter().filter(|f| f.changes_anything()).collect();
    if changing.is_empty() {
        return Ok(None);
    }
    let originals: Vec<(PathBuf, Option<Vec<u8>>)> = changing
        .iter()
        .map(|f| (f.path.clone(), f.before.clone()))
        .collect();
    let backup = Backup::take(root, &originals)?;
    let mut written = Written::default();
    let result = (|| {
        for file in &changing {
            // Re-read: a file changed since it was planned would lose that change.
            let now = read_existing(&file.path)?;
            if now != file.before {
                return Err(SetupError::ChangedMeanwhile(file.path.clone()));
            }
            written.files.push((file.path.clone(), file.before.clone()));
            match &file.after {
                Some(bytes) => written
                    .created_dirs
                    .extend(write_atomic(&file.path, bytes)?),
                None => std::fs::remove_file(&file.path)
                    .map_err(|e| SetupError::io("delete", &file.path, e))?,
            }
        }
        finish()
    })();
    match result {
        Ok(()) => Ok(Some(backup)),
        Err(err) => {
            let failures = written.restore();
            let cause = Box::new(err);
            if failures.is_empty() {
                Err(SetupError::RolledBack { cause })
            } else {
                Err(SetupError::RestoreFailed {
                    cause,
                    failures,
                    backup: backup.dir.clone(),
                })
            }
        }
    }
}

/// Applies a plan: commit, then record each changed file in the manifest.
pub fn apply(root: &Path, plan: &Plan) -> Result<Option<Backup>> {
    let mut manifest = Manifest::load(root)?;
    commit(root, &plan.files, || {
        for file in plan.files.iter().filter(|f| f.changes_anything()) {
            manifest.record(root, file)?;
        }
        manifest.save(root)
    })
}
