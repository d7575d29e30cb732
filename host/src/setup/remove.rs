//! `cm setup --remove`: takes out exactly what setup added. A file untouched since
//! setup gets its pre-setup bytes back (or is deleted when setup created it); a file the
//! user edited since loses only our keys and entries.

use std::collections::BTreeSet;
use std::path::Path;

use super::apply::{FilePlan, commit};
use super::error::{ContentError, Result, SetupError};
use super::files::{Backup, read_existing};
use super::manifest::{Manifest, original_bytes};
use super::model::{Change, ChangeKind};
use super::{json_merge, text_merge, toml_merge};
use crate::plugins::registry::sha256_hex;

/// The removal of the given agents' registrations (all recorded agents when none).
pub fn plan(root: &Path, agents: Option<&BTreeSet<String>>) -> Result<Vec<FilePlan>> {
    let manifest = Manifest::load(root)?;
    let mut files = Vec::new();
    for (path, record) in &manifest.files {
        if let Some(wanted) = agents
            && record.agents.is_disjoint(wanted)
        {
            continue;
        }
        let before = read_existing(path)?;
        let mut file = FilePlan {
            path: path.clone(),
            shown: path.display().to_string(),
            format: match record.format.as_str() {
                "json" => "json",
                "toml" => "toml",
                _ => "text",
            },
            agents: record.agents.clone(),
            summaries: Vec::new(),
            after: before.clone(),
            before: before.clone(),
            changes: Vec::new(),
            ops: Vec::new(),
            notes: Vec::new(),
        };
        let Some(current) = before else {
            file.notes.push("already gone".into());
            files.push(file);
            continue;
        };
        let untouched = sha256_hex(&current) == record.after_sha256;
        let original = record
            .original_sha256
            .as_deref()
            .and_then(|sha| original_bytes(root, sha));
        if untouched && !record.existed_before {
            file.after = None;
            file.changes.push(whole("delete the file setup created"));
        } else if let (true, Some(bytes)) = (untouched, original) {
            file.after = Some(bytes);
            file.changes
                .push(whole("restore the bytes it had before setup"));
        } else {
            let text = String::from_utf8(current)
                .map_err(|_| SetupError::content(path.display(), ContentError::NotUtf8))?;
            let outcome = match record.format.as_str() {
                "json" => json_merge::unmerge(&text, &record.ops),
                "toml" => toml_merge::unmerge(&text, &record.ops),
                _ => text_merge::unmerge(&text, &record.ops),
            }
            .map_err(|e| SetupError::content(path.display(), e))?;
            file.after = Some(outcome.text.into_bytes());
            file.changes = outcome.changes;
            file.notes = outcome.notes;
        }
        files.push(file);
    }
    Ok(files)
}

fn whole(what: &str) -> Change {
    Change {
        kind: ChangeKind::Remove,
        path: "(file)".into(),
        before: Some(what.to_owned()),
        after: None,
    }
}

/// Removes, backing up first; the manifest forgets the files it handled.
pub fn apply(root: &Path, files: &[FilePlan]) -> Result<Option<Backup>> {
    let mut manifest = Manifest::load(root)?;
    let backup = commit(root, files, || {
        for file in files {
            manifest.files.remove(&file.path);
        }
        manifest.save(root)
    })?;
    if backup.is_none() && !files.is_empty() {
        // Nothing to write (files already gone): still forget them.
        for file in files {
            manifest.files.remove(&file.path);
        }
        manifest.save(root)?;
    }
    Ok(backup)
}
