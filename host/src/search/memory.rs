//! Project memory files (AGENTS.md, CLAUDE.md, GEMINI.md, copilot instructions, …)
//! indexed with origin "memory", so searches can cite the project's own rules. Each is
//! re-indexed only when its content changed; a deleted one leaves the index.

use std::path::{Path, PathBuf};

use super::indexing::index_document;
use crate::chunk::Format;
use crate::limits::INDEX_FILE_MAX_BYTES;
use crate::store::{NewSource, Origin, SourceKind, Store, StoreError, content_hash};

/// Memory files, relative to the project directory.
pub const MEMORY_FILE_NAMES: &[&str] = &[
    "AGENTS.md",
    "AGENT.md",
    "CLAUDE.md",
    "CLAUDE.local.md",
    ".claude/CLAUDE.md",
    "GEMINI.md",
    ".gemini/GEMINI.md",
    "QWEN.md",
    "KIMI.md",
    "CONVENTIONS.md",
    ".github/copilot-instructions.md",
    ".cursorrules",
    ".windsurfrules",
    ".clinerules",
    ".junie/guidelines.md",
    ".openhands/microagents/repo.md",
];

/// Directories whose markdown files are memory files (one level, sorted by name).
const MEMORY_DIRS: &[&str] = &[
    ".cursor/rules",
    ".github/instructions",
    ".kiro/steering",
    ".clinerules",
    ".windsurf/rules",
];

/// What a memory re-index did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryIndexReport {
    /// Files indexed now (new or changed), as labels.
    pub indexed: Vec<String>,
    pub unchanged: usize,
    /// Files that are gone and left the index.
    pub removed: Vec<String>,
}

/// The memory files present in `project_dir`: (label, path).
fn present_files(project_dir: &Path) -> Vec<(String, PathBuf)> {
    let mut found: Vec<(String, PathBuf)> = Vec::new();
    for name in MEMORY_FILE_NAMES {
        let path = project_dir.join(name);
        if path.is_file() {
            found.push((name.to_string(), path));
        }
    }
    for dir in MEMORY_DIRS {
        let Ok(entries) = std::fs::read_dir(project_dir.join(dir)) else {
            continue;
        };
        let mut files: Vec<(String, PathBuf)> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "md" || e == "mdc"))
            .filter_map(|p| {
                let name = p.file_name()?.to_string_lossy().into_owned();
                Some((format!("{dir}/{name}"), p))
            })
            .collect();
        files.sort();
        found.extend(files);
    }
    found
}

/// (Re)indexes the memory files of `project_dir`: new or changed ones are indexed,
/// unchanged ones kept, vanished ones removed.
pub fn index_memory_files(
    store: &mut Store,
    project_dir: &Path,
) -> Result<MemoryIndexReport, StoreError> {
    let mut report = MemoryIndexReport::default();
    let existing = store.sources_by_origin(Origin::Memory)?;
    let present = present_files(project_dir);
    for (label, path) in &present {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        if bytes.len() > INDEX_FILE_MAX_BYTES {
            tracing::debug!("memory file {label} is too large to index");
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        let hash = content_hash(&text);
        let url = path.to_string_lossy();
        let same = existing.iter().any(|s| {
            s.url.as_deref() == Some(url.as_ref())
                && s.content_hash.as_deref() == Some(hash.as_str())
        });
        if same {
            report.unchanged += 1;
            continue;
        }
        let source = NewSource {
            label,
            kind: SourceKind::Memory,
            url: Some(&url),
            session_id: None,
            origin: Origin::Memory,
            content_hash: Some(&hash),
            fetched_at: None,
            bytes: text.len(),
            replace_same_label: true,
        };
        index_document(store, source, &text, Format::Markdown)?;
        report.indexed.push(label.clone());
    }
    for gone in existing.iter().filter(|s| {
        !present
            .iter()
            .any(|(_, path)| s.url.as_deref() == Some(path.to_string_lossy().as_ref()))
    }) {
        store.delete_source(gone.id)?;
        report.removed.push(gone.label.clone());
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{HitOrigin, SearchOptions, search};

    #[test]
    fn memory_files_are_indexed_once_updated_on_change_and_removed_when_gone() {
        let project = tempfile::tempdir().expect("project");
        let db = tempfile::tempdir().expect("db");
        let mut store = Store::open_path(&db.path().join("context.db")).expect("store");
        std::fs::write(
            project.path().join("AGENTS.md"),
            "# Rules\nAlways run cargo fmt before committing.\n",
        )
        .expect("write");
        std::fs::create_dir_all(project.path().join(".github")).expect("mkdir");
        std::fs::write(
            project.path().join(".github/copilot-instructions.md"),
            "Prefer tokio over threads.\n",
        )
        .expect("write");

        let first = index_memory_files(&mut store, project.path()).expect("index");
        assert_eq!(
            first.indexed,
            vec!["AGENTS.md", ".github/copilot-instructions.md"]
        );
        let again = index_memory_files(&mut store, project.path()).expect("again");
        assert_eq!((again.indexed.len(), again.unchanged), (0, 2));

        let hits = search(&store, "cargo fmt", &SearchOptions::new("s1"))
            .expect("search")
            .hits;
        assert_eq!(hits[0].origin, HitOrigin::Memory);
        assert_eq!(hits[0].source_label, "AGENTS.md");

        std::fs::write(
            project.path().join("AGENTS.md"),
            "# Rules\nAlways run clippy.\n",
        )
        .expect("rewrite");
        std::fs::remove_file(project.path().join(".github/copilot-instructions.md"))
            .expect("remove");
        let changed = index_memory_files(&mut store, project.path()).expect("changed");
        assert_eq!(changed.indexed, vec!["AGENTS.md"]);
        assert_eq!(changed.removed, vec![".github/copilot-instructions.md"]);
        assert!(
            search(&store, "cargo fmt", &SearchOptions::new("s1"))
                .expect("search")
                .hits
                .is_empty()
        );
        assert!(
            search(&store, "tokio", &SearchOptions::new("s1"))
                .expect("search")
                .hits
                .is_empty()
        );
        assert_eq!(store.content_counts().expect("counts").0, 1);
    }
}
