//! `cm index` and `cm search`: the project's knowledge base from a terminal. Same store
//! (the project is `CONTEXT_MODE_PROJECT_DIR`, else the working directory, as for
//! `cm serve`) and the same services as `ctx_index` / `ctx_search`: the user's rules and
//! the project's bounds hold here as they do for the agent.

use crate::platform::fs::Canonical as _;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use clap::Args;

use crate::service::{self, IndexParams, PathIndexReport, SearchParams, Service};

/// How often the progress line is redrawn, at most.
const PROGRESS_REDRAW_MS: u64 = 100;

#[derive(Args)]
pub struct IndexArgs {
    /// A file or directory (directories honour .gitignore).
    pub path: PathBuf,
    /// Label to index under; search results cite it and `--source` filters on it.
    #[arg(long)]
    pub source: Option<String>,
}

#[derive(Args)]
pub struct SearchArgs {
    /// What to look for (several words are one query).
    #[arg(required = true, num_args = 1..)]
    pub query: Vec<String>,
    /// Only sources whose label contains this text.
    #[arg(long)]
    pub source: Option<String>,
    /// Results to show (default 3).
    #[arg(long)]
    pub limit: Option<u64>,
}

/// The service of this project for one terminal command.
pub(super) fn open_service() -> anyhow::Result<Service> {
    let root = super::data_root()?;
    // No project is this command's error, not a refusal of every call.
    let project_dir = crate::paths::project_dir()?;
    let session_id = format!("cli-{}-{}", std::process::id(), crate::timestamp::now_ms());
    Ok(Service::new(
        root,
        Ok(project_dir),
        crate::agent_session::ServerSession::fixed(session_id),
    ))
}

pub fn index(args: IndexArgs) -> anyhow::Result<()> {
    // A relative path is the user's, relative to where they typed it, not to the project.
    let path = args
        .path
        .canonical()
        .or_else(|_| std::path::absolute(&args.path))
        .with_context(|| format!("{}: cannot resolve the path", args.path.display()))?;
    let service = open_service()?;
    // Inside the project it is named as the service names it: relative to the project.
    let shown = match path.strip_prefix(&service.project_dir) {
        Ok(inside) if inside.as_os_str().is_empty() => PathBuf::from("."),
        Ok(inside) => inside.to_path_buf(),
        Err(_) => path.clone(),
    };
    let params = IndexParams {
        path: Some(shown.to_string_lossy().into_owned()),
        source: args.source,
        ..IndexParams::default()
    };
    let mut progress = Progress::new(path.is_dir() && std::io::stderr().is_terminal());
    let reply =
        service::index_from_terminal(&service, &params, &mut |report| progress.show(report));
    progress.clear();
    finish(&reply.text, reply.is_error)
}

pub fn search(args: SearchArgs) -> anyhow::Result<()> {
    let service = open_service()?;
    let params = SearchParams {
        queries: vec![args.query.join(" ")],
        limit: args.limit,
        source: args.source,
        ..SearchParams::default()
    };
    // One call per process: the flood guard never throttles a person at a terminal.
    let reply = service::search_from_terminal(&service, &params);
    finish(&reply.text, reply.is_error)
}

/// Prints a reply for a person: the agent's `ctx_search(...)` hint becomes the command
/// to type. An error reply is the command's error.
fn finish(text: &str, is_error: bool) -> anyhow::Result<()> {
    if is_error {
        bail!("{text}");
    }
    let mut stdout = std::io::stdout().lock();
    for line in text.lines() {
        writeln!(
            stdout,
            "{}",
            terminal_hint(line).unwrap_or_else(|| line.to_string())
        )?;
    }
    Ok(())
}

/// `Search: ctx_search(queries: ["…"], source: "kb")` → `Search: cm search "…" --source "kb"`.
fn terminal_hint(line: &str) -> Option<String> {
    let (lead, call) = line.split_once("ctx_search(")?;
    let source = call
        .split_once("source: \"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(source, _)| format!(" --source \"{source}\""))
        .unwrap_or_default();
    Some(format!("{lead}cm search \"…\"{source}"))
}

/// The in-place counter line on stderr while a directory is indexed (terminal only).
struct Progress {
    enabled: bool,
    last_drawn: Option<Instant>,
    drawn: bool,
}

impl Progress {
    fn new(enabled: bool) -> Self {
        Progress {
            enabled,
            last_drawn: None,
            drawn: false,
        }
    }

    fn show(&mut self, report: &PathIndexReport) {
        if !self.enabled
            || self
                .last_drawn
                .is_some_and(|at| at.elapsed() < Duration::from_millis(PROGRESS_REDRAW_MS))
        {
            return;
        }
        self.last_drawn = Some(Instant::now());
        self.drawn = true;
        let current = report.labels.last().map(String::as_str).unwrap_or("");
        let mut stderr = std::io::stderr().lock();
        let _ = write!(
            stderr,
            "\r\x1b[Kindexing: {} files, {}, {} chunks  {}",
            report.files,
            crate::human::bytes(report.bytes),
            report.chunks,
            shorten(current, 60)
        );
        let _ = stderr.flush();
    }

    fn clear(&mut self) {
        if self.drawn {
            let mut stderr = std::io::stderr().lock();
            let _ = write!(stderr, "\r\x1b[K");
            let _ = stderr.flush();
            self.drawn = false;
        }
    }
}

/// The end of `text` within `max` characters: the file name matters more than the directories.
fn shorten(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_string();
    }
    let tail: String = text.chars().skip(count - (max - 1)).collect();
    format!("…{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_agent_hint_becomes_a_command() {
        assert_eq!(
            terminal_hint("Search: ctx_search(queries: [\"…\"], source: \"docs/api\")").as_deref(),
            Some("Search: cm search \"…\" --source \"docs/api\"")
        );
        assert_eq!(
            terminal_hint("Search: ctx_search(queries: [\"…\"])").as_deref(),
            Some("Search: cm search \"…\"")
        );
        assert_eq!(terminal_hint("Indexed 3 files under docs"), None);
    }

    #[test]
    fn long_labels_keep_their_end() {
        assert_eq!(shorten("docs/a.md", 60), "docs/a.md");
        let long = format!("{}/file.md", "d".repeat(100));
        let short = shorten(&long, 20);
        assert_eq!(short.chars().count(), 20);
        assert!(short.ends_with("/file.md") && short.starts_with('…'));
    }
}
