//! `cm stats`, `cm statusline` and `cm insight`: the savings reports from a terminal
//! (or an agent's status bar). The project is `CONTEXT_MODE_PROJECT_DIR` (or the
//! agent's project variable), else the working directory, as for `cm serve`.

use crate::platform::fs::Canonical as _;
use std::io::{IsTerminal, Read, Write};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use anyhow::Context as _;
use clap::Args;

use crate::limits::{STATUSLINE_STDIN_MAX_BYTES, STATUSLINE_STDIN_WAIT_MS};
use crate::report::statusline::{self, StatusInput};

#[derive(Args)]
pub struct StatsArgs {
    /// Print the report as JSON (for scripts).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct InsightArgs {
    /// Open the report in the default browser afterwards.
    #[arg(long)]
    pub open: bool,
}

pub fn stats(args: StatsArgs) -> anyhow::Result<()> {
    let root = super::data_root()?;
    let project = crate::paths::project_dir()?;
    let report = crate::service::stats_report(&root, &project)
        .context("the project stats cannot be read")?;
    let text = if args.json {
        serde_json::to_string_pretty(&report)?
    } else {
        crate::report::text::render(&report)
    };
    writeln!(std::io::stdout().lock(), "{text}")?;
    Ok(())
}

/// Prints one line and never fails: whatever goes wrong, a short neutral line.
pub fn statusline() {
    let line = std::panic::catch_unwind(status_text)
        .unwrap_or_else(|_| statusline::UNAVAILABLE.to_string());
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{line}");
    let _ = stdout.flush();
}

fn status_text() -> String {
    let input = read_status_input();
    let Ok(root) = crate::paths::data_root() else {
        return statusline::UNAVAILABLE.to_string();
    };
    let project = match input.project_dir {
        Some(named) => named.canonical().unwrap_or(named),
        None => match crate::paths::project_dir() {
            Ok(dir) => dir,
            // No project (the working directory is gone): no store, nothing measured.
            Err(_) => return statusline::NOTHING_YET.to_string(),
        },
    };
    statusline::line(&root, &project, input.session_id.as_deref())
}

/// The agent's status JSON from stdin, when there is one: a terminal is not read, and a
/// pipe that stays open is given up on after STATUSLINE_STDIN_WAIT_MS.
fn read_status_input() -> StatusInput {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return StatusInput::default();
    }
    let (sender, receiver) = mpsc::channel();
    let reader = std::thread::Builder::new().spawn(move || {
        let mut bytes = Vec::new();
        let _ = stdin
            .lock()
            .take(STATUSLINE_STDIN_MAX_BYTES as u64)
            .read_to_end(&mut bytes);
        let _ = sender.send(bytes);
    });
    if reader.is_err() {
        return StatusInput::default();
    }
    match receiver.recv_timeout(Duration::from_millis(STATUSLINE_STDIN_WAIT_MS)) {
        Ok(bytes) => StatusInput::parse(&String::from_utf8_lossy(&bytes)),
        Err(_) => StatusInput::default(),
    }
}

pub fn insight(args: InsightArgs) -> anyhow::Result<()> {
    let root = super::data_root()?;
    let project = crate::paths::project_dir()?;
    let store = crate::service::open_project_read_only(&root, &project)
        .context("the project database cannot be read")?;
    let (path, summary) = crate::service::write_insight(store.as_ref(), &root, &project)?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}", path.display())?;
    writeln!(stdout, "{summary}")?;
    stdout.flush()?;
    if args.open {
        open_in_browser(&path);
    }
    Ok(())
}

/// Hands the file to the desktop's opener; a machine without one only gets a note.
fn open_in_browser(path: &Path) {
    let opener = crate::platform::FILE_OPENER;
    let spawned = std::process::Command::new(opener)
        .arg(path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(err) = spawned {
        eprintln!(
            "cm: cannot open the report with {opener} ({err}); open the file above in a browser"
        );
    }
}
