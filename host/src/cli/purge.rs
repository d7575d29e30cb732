//! `cm purge`: `ctx_purge` from a terminal — the same scopes (a source, a session, the
//! whole project) and the same store. It shows what would go and asks before deleting,
//! unless `--yes`; `--dry-run` only shows.

use std::io::{BufRead, Write};

use anyhow::bail;
use clap::Args;

use crate::service::{self, PurgeParams};

#[derive(Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["source", "session", "project"])))]
pub struct PurgeArgs {
    /// Delete the sources whose label contains this text.
    #[arg(long)]
    pub source: Option<String>,
    /// Delete what this session indexed and journalled.
    #[arg(long, value_name = "SESSION_ID")]
    pub session: Option<String>,
    /// Delete everything indexed for this project (stats included).
    #[arg(long)]
    pub project: bool,
    /// Delete without asking.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Show what would be deleted; delete nothing.
    #[arg(long)]
    pub dry_run: bool,
}

impl PurgeArgs {
    fn params(&self) -> PurgeParams {
        let scope = if self.project {
            "project"
        } else if self.session.is_some() {
            "session"
        } else {
            "source"
        };
        PurgeParams {
            confirm: None,
            scope: Some(scope.into()),
            source: self.source.clone(),
            session_id: self.session.clone(),
        }
    }
}

pub fn run(args: PurgeArgs) -> anyhow::Result<()> {
    let service = super::knowledge::open_service()?;
    let params = args.params();
    let preview = service::purge_preview(&service, &params);
    if preview.is_error {
        bail!("{}", preview.text);
    }
    let mut stdout = std::io::stdout().lock();
    if args.dry_run || preview.text.starts_with("Nothing to delete") {
        writeln!(stdout, "{}", preview.text)?;
        return Ok(());
    }
    if !args.yes && !confirmed(&preview.text, &service.project_dir)? {
        writeln!(stdout, "Nothing deleted.")?;
        return Ok(());
    }
    let reply = service::purge(
        &service,
        PurgeParams {
            confirm: Some(true),
            ..params
        },
    );
    if reply.is_error {
        bail!("{}", reply.text);
    }
    writeln!(stdout, "{}", reply.text)?;
    Ok(())
}

/// Asks on stderr, answered by a line on stdin: only `y` or `yes` deletes.
fn confirmed(preview: &str, project: &std::path::Path) -> anyhow::Result<bool> {
    let mut stderr = std::io::stderr().lock();
    writeln!(stderr, "{preview}")?;
    write!(
        stderr,
        "Delete this from {}? It cannot be undone. [y/N] ",
        project.display()
    )?;
    stderr.flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    Ok(matches!(
        answer.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}
