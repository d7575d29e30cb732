//! The text of `ctx_index`, `ctx_search` and `ctx_purge` replies: what the agent reads.
//! Compact, no decoration, every result with its source, heading path and origin.

use std::fmt::Write as _;
use std::time::Duration;

use super::SearchOutcome;
use super::walk::{PathIndexReport, WalkOptions};
use crate::chunk::floor_char_boundary;
use crate::model::CtxToolNames;
use crate::store::{IndexedSource, PurgeReport, PurgeScope, Store};

/// Titles listed after indexing content, at most.
const LISTED_TITLES: usize = 8;
/// Files or labels listed, at most.
const LISTED_LABELS: usize = 12;
/// Bytes of the first line used as a default label.
const DEFAULT_LABEL_BYTES: usize = 60;

/// A label for content indexed without one: its first non-empty line, shortened.
pub fn default_label(content: &str) -> String {
    let line = content
        .lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .find(|l| !l.is_empty())
        .unwrap_or("content");
    let end = floor_char_boundary(line, DEFAULT_LABEL_BYTES);
    if end < line.len() {
        format!("{}…", &line[..end])
    } else {
        line.to_string()
    }
}

fn list(items: &[String], max: usize) -> String {
    let mut text = items
        .iter()
        .take(max)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > max {
        let _ = write!(text, ", +{} more", items.len() - max);
    }
    text
}

pub fn indexed_content(
    store: &Store,
    label: &str,
    bytes: usize,
    indexed: &IndexedSource,
    names: &CtxToolNames,
) -> String {
    let mut text = format!(
        "Indexed \"{label}\": {} chunk{} from {}{}.",
        indexed.chunks,
        if indexed.chunks == 1 { "" } else { "s" },
        crate::human::bytes(bytes as u64),
        if indexed.replaced > 0 {
            " (replaced the earlier version)"
        } else {
            ""
        },
    );
    let mut titles: Vec<String> = Vec::new();
    if let Ok(chunk_titles) = store.source_titles(indexed.source_id) {
        // A set beside the list: a large document has thousands of titles.
        let mut seen = std::collections::HashSet::new();
        for title in chunk_titles {
            if !title.is_empty() && !title.starts_with("line") && seen.insert(title.clone()) {
                titles.push(title);
            }
        }
    }
    if !titles.is_empty() {
        let _ = write!(text, "\nSections: {}", list(&titles, LISTED_TITLES));
    }
    let _ = write!(
        text,
        "\nSearch it: {}(queries: [\"…\"], source: \"{label}\")",
        names.name("ctx_search")
    );
    text
}

pub fn indexed_path(
    path: &str,
    source: Option<&str>,
    options: &WalkOptions,
    report: &PathIndexReport,
    names: &CtxToolNames,
) -> String {
    let mut text = if report.files == 1 && report.labels.len() == 1 {
        format!(
            "Indexed \"{}\": {} chunks from {}.",
            report.labels[0],
            report.chunks,
            crate::human::bytes(report.bytes)
        )
    } else {
        format!(
            "Indexed {} file{} under {path} ({} chunks, {}).",
            report.files,
            if report.files == 1 { "" } else { "s" },
            report.chunks,
            crate::human::bytes(report.bytes)
        )
    };
    let mut skipped = Vec::new();
    for (count, what) in [
        (report.skipped_binary, "binary"),
        (report.skipped_too_large, "too large"),
        (report.skipped_unreadable, "unreadable"),
        (report.skipped_outside, "outside the allowed directory"),
        (report.skipped_denied, "denied by a permission rule"),
    ] {
        if count > 0 {
            skipped.push(format!("{count} {what}"));
        }
    }
    if !skipped.is_empty() {
        let _ = write!(text, " Skipped {}.", skipped.join(", "));
    }
    if report.stopped_at_max_files {
        let _ = write!(
            text,
            " Stopped at maxFiles {}; raise maxFiles or narrow include.",
            options.max_files
        );
    }
    if report.files == 0 {
        text.push_str(" Nothing matched: check include, exclude, extensions and .gitignore (respectGitignore: false).");
        return text;
    }
    if report.labels.len() > 1 {
        let _ = write!(text, "\nFiles: {}", list(&report.labels, LISTED_LABELS));
    }
    let prefix = common_directory(&report.labels);
    let search = names.name("ctx_search");
    match source.or(prefix.as_deref()) {
        Some(filter) => {
            let _ = write!(
                text,
                "\nSearch: {search}(queries: [\"…\"], source: \"{filter}\")"
            );
        }
        None => {
            let _ = write!(text, "\nSearch: {search}(queries: [\"…\"])");
        }
    }
    text
}

/// The directory part all labels share ("docs/api"), when there is one.
fn common_directory(labels: &[String]) -> Option<String> {
    let first = labels.first()?;
    let mut end = first.rfind('/')?;
    for label in &labels[1..] {
        while !(label.len() > end && label.as_bytes()[end] == b'/' && label[..end] == first[..end])
        {
            end = first[..end].rfind('/')?;
        }
    }
    Some(first[..end].to_string())
}

/// The answers to all queries. Each query gets an equal share of `cap`; results that
/// do not fit its share are counted, not shown.
pub fn search_answers(
    answers: &[(&str, SearchOutcome)],
    empty_index: bool,
    cap: usize,
    names: &CtxToolNames,
) -> String {
    const RESERVED_BYTES: usize = 400;
    let share = cap.saturating_sub(RESERVED_BYTES) / answers.len().max(1);
    let mut text = String::new();
    for (i, (query, outcome)) in answers.iter().enumerate() {
        if i > 0 {
            text.push('\n');
        }
        let mut section = format!("## {query}\n");
        if outcome.nothing_to_search {
            section.push_str(
                "no results: the query has only common words or operators; use distinctive terms\n",
            );
        } else if outcome.hits.is_empty() {
            if empty_index {
                let _ = writeln!(
                    section,
                    "no results: the index is empty; index first with {}, {} (with intent) or {}",
                    names.name("ctx_index"),
                    names.name("ctx_execute"),
                    names.name("ctx_fetch_and_index")
                );
            } else {
                section.push_str("no results\n");
            }
        } else {
            if !outcome.corrections.is_empty() {
                let fixes: Vec<String> = outcome
                    .corrections
                    .iter()
                    .map(|(from, to)| format!("{from} → {to}"))
                    .collect();
                let _ = writeln!(
                    section,
                    "(no exact match; searched for {})",
                    fixes.join(", ")
                );
            }
            for (n, hit) in outcome.hits.iter().enumerate() {
                let title = if hit.title.is_empty() {
                    String::new()
                } else {
                    format!(" › {}", hit.title)
                };
                let entry = format!(
                    "{}. {}{title} ({}, {})\n{}\n",
                    n + 1,
                    hit.source_label,
                    hit.origin.label(),
                    hit.content_type.as_str(),
                    hit.snippet
                );
                if n > 0 && section.len() + entry.len() > share {
                    let _ = writeln!(
                        section,
                        "(+{} more results not shown to stay within the output cap; lower limit or narrow the query)",
                        outcome.hits.len() - n
                    );
                    break;
                }
                section.push_str(&entry);
            }
        }
        text.push_str(&section);
    }
    text
}

pub fn flood_note(call: u32, window: Duration, names: &CtxToolNames) -> String {
    format!(
        "\nnote: search call {call} in {} s; answers are cut to 1 result per query. \
         Put several queries in one {} call, or run commands and queries together with {}.",
        window.as_secs(),
        names.name("ctx_search"),
        names.name("ctx_batch_execute")
    )
}

pub fn flood_redirect(call: u32, window: Duration, names: &CtxToolNames) -> String {
    let batch = names.name("ctx_batch_execute");
    format!(
        "redirected to {batch}: this is search call {call} in {} s for this session. \
         Run the commands and all the questions in one call: \
         {batch}(commands: [{{label, command}}], queries: [\"…\"]). \
         {} answers normally again once the window has passed.",
        window.as_secs(),
        names.name("ctx_search")
    )
}

pub fn purged(scope: &PurgeScope, report: &PurgeReport) -> String {
    purge_text(scope, report, "Deleted from")
}

/// What a dry run of that purge would delete.
pub fn would_purge(scope: &PurgeScope, report: &PurgeReport) -> String {
    purge_text(scope, report, "Would delete from")
}

fn purge_text(scope: &PurgeScope, report: &PurgeReport, verb: &str) -> String {
    let what = match scope {
        PurgeScope::Session(id) => format!("session {id}"),
        PurgeScope::Source(pattern) => format!("sources matching \"{pattern}\""),
        PurgeScope::Project => "the whole project".to_string(),
    };
    let mut parts = Vec::new();
    if report.sources > 0 {
        parts.push(format!(
            "{} source{} ({} chunks): {}",
            report.sources,
            if report.sources == 1 { "" } else { "s" },
            report.chunks,
            list(&report.labels, LISTED_LABELS)
        ));
    }
    for (count, what) in [
        (report.journal_rows, "journal rows"),
        (report.state_blocks, "state blocks"),
        (report.stats_rows, "stats rows"),
    ] {
        if count > 0 {
            parts.push(format!("{count} {what}"));
        }
    }
    if parts.is_empty() {
        format!("Nothing to delete for {what}.")
    } else {
        format!("{verb} {what}: {}.", parts.join("; "))
    }
}

/// `text` within `cap` bytes, cut at a line end, with a note saying so.
pub fn cap(text: String, cap: usize) -> String {
    if text.len() <= cap {
        return text;
    }
    let note = format!(
        "\n(output cut at {}: lower limit or split the queries)",
        crate::human::bytes(cap as u64)
    );
    let room = cap.saturating_sub(note.len());
    let end = floor_char_boundary(&text, room);
    let end = text[..end].rfind('\n').unwrap_or(end);
    format!("{}{note}", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_sizes() {
        assert_eq!(default_label("\n\n# Deploy Guide\nbody"), "Deploy Guide");
        assert!(default_label(&"é".repeat(100)).ends_with('…'));
        assert_eq!(crate::human::bytes(2048), "2.0 KB");
        assert_eq!(crate::human::bytes(5 * 1_048_576), "5.0 MB");
    }

    #[test]
    fn common_directory_of_labels() {
        let labels = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            common_directory(&labels(&["docs/api/a.md", "docs/api/b/c.md"])).as_deref(),
            Some("docs/api")
        );
        assert_eq!(
            common_directory(&labels(&["docs/a.md", "docsx/b.md"])),
            None
        );
        assert_eq!(common_directory(&labels(&["README.md", "docs/a.md"])), None);
        assert_eq!(
            common_directory(&labels(&["a/b/c.md", "a/bc/d.md"])).as_deref(),
            Some("a")
        );
    }

    #[test]
    fn capping_keeps_whole_lines() {
        let text: String = (0..2000).map(|i| format!("line {i}\n")).collect();
        let capped = cap(text, 1000);
        assert!(capped.len() <= 1000);
        assert!(capped.ends_with("split the queries)"));
    }
}
