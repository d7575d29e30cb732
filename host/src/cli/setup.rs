//! `cm setup`: shows the plan, then backs up and applies it (or removes what setup added).

use crate::platform::fs::Canonical as _;
use std::collections::BTreeSet;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail};
use clap::Args;

use crate::setup::{self, Extras, FilePlan, Plan};

#[derive(Args)]
pub struct SetupArgs {
    /// Agents to set up, by adapter id, comma-separated (default: the detected ones).
    #[arg(long, value_delimiter = ',')]
    pub agents: Option<Vec<String>>,
    /// Set up for a project too (default: the current directory): project files such as
    /// routing rules go there instead of your home.
    #[arg(long, num_args = 0..=1, default_missing_value = ".", value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Also add the routing-instruction file (rules) for the model.
    #[arg(long)]
    pub routing: bool,
    /// Also show context-mode's savings in the agent's status line.
    #[arg(long)]
    pub statusline: bool,
    /// Take out exactly what setup added.
    #[arg(long)]
    pub remove: bool,
    /// Show the plan and change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Apply without asking (asked only on a terminal).
    #[arg(long, short)]
    pub yes: bool,
}

pub fn run(args: SetupArgs) -> anyhow::Result<()> {
    let root = super::data_root()?;
    let home = crate::paths::home_dir().ok_or_else(|| anyhow!("no home directory: set HOME"))?;
    if args.remove {
        return remove(&root, &home, &args);
    }
    let cm = setup::cm_command()?;
    let project = match &args.project {
        Some(dir) => Some(
            dir.canonical()
                .map_err(|e| anyhow!("project {}: {e}", dir.display()))?,
        ),
        None => None,
    };
    let agents = setup::load_all(&root)?;
    let mut agents = setup::select(agents, args.agents.as_deref(), &home)?;
    let extras = Extras {
        routing: args.routing,
        statusline: args.statusline,
    };
    let plan = setup::apply::plan(&root, &mut agents, &cm, &home, project.as_deref(), extras)?;
    println!("cm setup with {cm}");
    show_plan(&plan, &home);
    if !plan.changes_anything() || args.dry_run {
        if args.dry_run && plan.changes_anything() {
            println!("dry run: nothing was changed");
        }
        return Ok(());
    }
    if !confirmed(args.yes)? {
        println!("nothing was changed");
        return Ok(());
    }
    let backup = setup::apply::apply(&root, &plan)?;
    if let Some(backup) = backup {
        println!(
            "backed up {} file(s) to {}",
            backup.entries.len(),
            backup.dir.display()
        );
    }
    for agent in &plan.agents {
        let files: Vec<&FilePlan> = plan
            .files_of(&agent.id)
            .filter(|f| f.changes_anything())
            .collect();
        if !files.is_empty() {
            println!(
                "{}: registered ({} file(s) updated)",
                agent.display_name,
                files.len()
            );
        }
    }
    Ok(())
}

fn show_plan(plan: &Plan, home: &Path) {
    for agent in &plan.agents {
        let files: Vec<&FilePlan> = plan.files_of(&agent.id).collect();
        if !files.iter().any(|f| f.changes_anything()) {
            println!("{} ({}): no changes", agent.display_name, agent.id);
        } else {
            println!("{} ({}):", agent.display_name, agent.id);
            for file in files.iter().filter(|f| f.changes_anything()) {
                show_file(file, home);
            }
        }
        for note in &agent.notes {
            println!("  note: {note}");
        }
    }
    let backed_up: Vec<String> = plan
        .files
        .iter()
        .filter(|f| f.changes_anything() && f.before.is_some())
        .map(|f| shown(&f.path, home))
        .collect();
    if !backed_up.is_empty() {
        println!("will back up: {}", backed_up.join(", "));
    }
}

fn show_file(file: &FilePlan, home: &Path) {
    let state = if file.before.is_none() {
        " (new file)"
    } else if file.after.is_none() {
        " (deleted)"
    } else {
        ""
    };
    println!("  {}{state}", shown(&file.path, home));
    for (kind, summary) in &file.summaries {
        println!("    {kind}: {summary}");
    }
    for change in &file.changes {
        println!("    {}", change.line());
    }
    for note in &file.notes {
        println!("    note: {note}");
    }
}

fn remove(root: &Path, home: &Path, args: &SetupArgs) -> anyhow::Result<()> {
    let wanted: Option<BTreeSet<String>> = args
        .agents
        .as_ref()
        .map(|ids| ids.iter().cloned().collect());
    let files = setup::remove::plan(root, wanted.as_ref())?;
    if files.is_empty() {
        println!(
            "nothing to remove: setup recorded no files{}",
            match &args.agents {
                Some(ids) => format!(" for {}", ids.join(", ")),
                None => String::new(),
            }
        );
        return Ok(());
    }
    println!("cm setup --remove");
    for file in &files {
        show_file(file, home);
    }
    if args.dry_run {
        println!("dry run: nothing was changed");
        return Ok(());
    }
    if !confirmed(args.yes)? {
        println!("nothing was changed");
        return Ok(());
    }
    if let Some(backup) = setup::remove::apply(root, &files)? {
        println!(
            "backed up {} file(s) to {}",
            backup.entries.len(),
            backup.dir.display()
        );
    }
    println!(
        "removed context-mode from {} file(s)",
        files.iter().filter(|f| f.changes_anything()).count()
    );
    Ok(())
}

/// Asks on a terminal; scripts (no terminal) and `--yes` go ahead.
fn confirmed(yes: bool) -> anyhow::Result<bool> {
    let stdin = std::io::stdin();
    if yes || !stdin.is_terminal() {
        return Ok(true);
    }
    print!("apply? [y/N] ");
    std::io::stdout().flush()?;
    let mut answer = String::new();
    if stdin.lock().read_line(&mut answer)? == 0 {
        bail!("no answer; nothing was changed");
    }
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
}

/// A path with the home directory shown as `~`.
pub fn shown(path: &Path, home: &Path) -> String {
    match path.strip_prefix(home) {
        Ok(rest) => Path::new("~").join(rest).display().to_string(),
        Err(_) => path.display().to_string(),
    }
}
