//! `cm doctor` / `ctx_doctor`: one row per check (PASS / WARN / FAIL), each with a detail
//! and, when something is wrong, the exact command that fixes it.
//!
//! Checks are grouped by area, one file each. The slow ones (the `cm serve` self-test,
//! runtime version probes, plugin loads) run on their own threads and are collected
//! until DOCTOR_BUDGET_MS; a check that has not answered by then is a WARN row, so the
//! whole doctor stays under two seconds — except on its first run for a `cm` version,
//! when the built-in plugins are compiled and waited for (DOCTOR_FIRST_COMPILE_BUDGET_MS).
//! Doctor never deletes or repairs anything.
//!
//! The per-agent rows (MCP server and hooks registered, no hook registered twice) come
//! from `cm setup`'s own inspection (`agents.rs`). Rows from callers come in through the
//! `extra` argument of [`run`] and are masked and rendered like the others.

mod agents;
mod cache;
mod confine;
pub(crate) mod copilot_plugin;
mod data_root;
mod hook_log;
mod mask;
mod plugins;
mod render;
mod runtimes;
mod serve;
mod settings;
mod sqlite;
mod trust;
mod version;

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::limits::{DOCTOR_BUDGET_MS, DOCTOR_FIRST_COMPILE_BUDGET_MS, DOCTOR_SERVE_TIMEOUT_MS};
use crate::paths::ProjectDirError;

/// Overrides DOCTOR_BUDGET_MS (tests on a loaded machine compile plugins in debug builds).
pub const DOCTOR_BUDGET_ENV: &str = crate::env::DOCTOR_BUDGET_MS;

pub use mask::Masker;
pub use render::{render_markdown, render_table};

/// The verdict of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Status {
    Pass,
    Warn,
    Fail,
}

impl Status {
    pub fn label(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Warn => "WARN",
            Status::Fail => "FAIL",
        }
    }
}

/// One row of the report. `fix` is a command the user can paste, when there is one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    pub name: String,
    pub status: Status,
    pub detail: String,
    pub fix: Option<String>,
}

impl Check {
    pub fn pass(name: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(name, Status::Pass, detail, None)
    }

    pub fn warn(name: impl Into<String>, detail: impl Into<String>, fix: Option<String>) -> Self {
        Self::new(name, Status::Warn, detail, fix)
    }

    pub fn fail(name: impl Into<String>, detail: impl Into<String>, fix: Option<String>) -> Self {
        Self::new(name, Status::Fail, detail, fix)
    }

    pub fn new(
        name: impl Into<String>,
        status: Status,
        detail: impl Into<String>,
        fix: Option<String>,
    ) -> Self {
        Check {
            name: name.into(),
            status,
            detail: detail.into(),
            fix,
        }
    }
}

/// What to check and where.
#[derive(Debug, Clone)]
pub struct DoctorOptions {
    /// The project whose database and settings are checked ([`crate::paths::project_dir`]).
    pub project: Result<PathBuf, ProjectDirError>,
    /// The `cm` executable to self-test with `serve`; `None` skips the self-test.
    pub serve_exe: Option<PathBuf>,
    /// The tools the self-test expects `cm serve` to list: the MCP front end's registry,
    /// handed down by the caller (doctor sits below the front ends).
    pub expected_tools: Vec<&'static str>,
    /// Slow checks that have not answered by then are reported as unfinished.
    pub budget: Duration,
    /// `--agents`: only these agents' rows (ids as `cm setup --agents` takes them).
    pub agents: Option<Vec<String>>,
}

impl DoctorOptions {
    /// This process's project and executable, expecting `expected_tools` from `cm serve`.
    pub fn current(expected_tools: Vec<&'static str>) -> Self {
        DoctorOptions {
            project: crate::paths::project_dir(),
            serve_exe: std::env::current_exe().ok(),
            expected_tools,
            budget: budget_from_env(),
            agents: None,
        }
    }
}

/// DOCTOR_BUDGET_MS, or the number in `CONTEXT_MODE_DOCTOR_BUDGET_MS`.
pub fn budget_from_env() -> Duration {
    let ms = std::env::var(DOCTOR_BUDGET_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|ms| *ms > 0)
        .unwrap_or(DOCTOR_BUDGET_MS);
    Duration::from_millis(ms)
}

/// The finished report: every row, masked.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub version: String,
    pub checks: Vec<Check>,
    /// Wall-clock time of the whole doctor run.
    pub elapsed_ms: u64,
}

impl Report {
    /// The worst status of any row.
    pub fn worst(&self) -> Status {
        self.checks
            .iter()
            .map(|c| c.status)
            .max()
            .unwrap_or(Status::Pass)
    }

    pub fn has_failures(&self) -> bool {
        self.worst() == Status::Fail
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".into())
    }
}

/// A check that runs on its own thread; it answers with one or more rows.
type Slow = (String, Box<dyn FnOnce() -> Vec<Check> + Send>);

/// Runs every check and appends `extra` (rows from other modules, e.g. the agent
/// registrations of `cm setup`). Every row is masked before it is returned.
pub fn run(opts: &DoctorOptions, extra: Vec<Check>) -> Report {
    let started = Instant::now();
    let deadline = started + opts.budget;
    // The self-test keeps the same margin under the budget when the budget is raised.
    let serve_limit =
        Duration::from_millis(DOCTOR_SERVE_TIMEOUT_MS).max(opts.budget.saturating_sub(
            Duration::from_millis(DOCTOR_BUDGET_MS - DOCTOR_SERVE_TIMEOUT_MS),
        ));
    let root = crate::paths::data_root();
    let root_ok = root.as_ref().ok().cloned();
    // Read before the plugin rows start filling the cache.
    let first_compile = !builtins_compiled(root_ok.as_deref());

    // Read before the self-test starts: its child server writes a marker of its own.
    let readiness = serve::readiness(root_ok.as_deref());
    // Checked before the self-test starts too: its child server opens the project store,
    // which repairs a damaged index file the check is there to report.
    let project = opts.project.as_deref().ok();
    let data_root_rows = data_root::checks(&root, project);

    let mut slow: Vec<Slow> = Vec::new();
    if let Some(exe) = opts.serve_exe.clone() {
        let project = opts.project.clone().ok();
        let tools = opts.expected_tools.clone();
        slow.push((
            "cm serve self-test".to_string(),
            Box::new(move || {
                vec![serve::self_test(
                    &exe,
                    project.as_deref(),
                    &tools,
                    serve_limit,
                )]
            }),
        ));
    }
    for (name, check) in runtimes::checks(deadline) {
        slow.push((name, check));
    }
    {
        let root = root_ok.clone();
        slow.push((
            "plugins".to_string(),
            Box::new(move || plugins::checks(root.as_deref())),
        ));
    }
    {
        let root = root_ok.clone();
        let only = opts.agents.clone();
        let project = opts.project.clone().ok();
        slow.push((
            "agents".to_string(),
            Box::new(move || agents::checks(root.as_deref(), project.as_deref(), only.as_deref())),
        ));
    }
    let (sender, receiver) = mpsc::channel::<(usize, Vec<Check>)>();
    let names: Vec<String> = slow.iter().map(|(name, _)| name.clone()).collect();
    for (index, (name, check)) in slow.into_iter().enumerate() {
        let sender = sender.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("cm-doctor-{index}"))
            .spawn(move || {
                let _ = sender.send((index, check()));
            });
        if let Err(err) = spawned {
            tracing::warn!("doctor cannot start the {name} check: {err}");
        }
    }
    drop(sender);

    let mut checks = vec![version::check(), sqlite::check()];
    checks.extend(data_root_rows);
    checks.push(hook_log::check(root_ok.as_deref()));
    checks.extend(settings::checks(&opts.project));
    checks.push(readiness);
    checks.push(confine::check(opts.project.as_deref().ok()));

    // A fresh install compiles every built-in on its first load; reporting that as "did
    // not answer" would greet a new user with warnings that a second run clears.
    let wait_until = if !first_compile {
        deadline
    } else {
        eprintln!(
            "cm doctor: compiling the built-in plugins for this cm (once per version; a few seconds)…"
        );
        deadline.max(started + Duration::from_millis(DOCTOR_FIRST_COMPILE_BUDGET_MS))
    };
    let mut slow_rows: Vec<Option<Vec<Check>>> = vec![None; names.len()];
    while slow_rows.iter().any(Option::is_none) {
        let left = wait_until.saturating_duration_since(Instant::now());
        match receiver.recv_timeout(left) {
            Ok((index, rows)) => slow_rows[index] = Some(rows),
            Err(_) => break,
        }
    }
    let mut runtime_rows = Vec::new();
    let mut other_rows = Vec::new();
    for (index, rows) in slow_rows.into_iter().enumerate() {
        let name = &names[index];
        let rows = rows.unwrap_or_else(|| {
            vec![Check::warn(
                name.as_str(),
                format!(
                    "did not answer within the doctor's {} ms budget",
                    opts.budget.as_millis()
                ),
                None,
            )]
        });
        if name.starts_with("runtime ") {
            runtime_rows.extend(rows);
        } else {
            other_rows.extend(rows);
        }
    }
    checks.extend(other_rows);
    checks.extend(runtime_rows);
    checks.extend(extra);

    let masker = Masker::from_env();
    let checks = checks.into_iter().map(|c| masker.check(c)).collect();
    Report {
        version: env!("CARGO_PKG_VERSION").to_string(),
        checks,
        elapsed_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    }
}

/// Whether every built-in plugin has a compiled entry in the cache of `root` (no root:
/// nothing would be cached either, so there is nothing to wait for).
fn builtins_compiled(root: Option<&std::path::Path>) -> bool {
    let Some(root) = root else {
        return true;
    };
    let Ok(engine) = crate::plugins::PluginEngine::new(Some(crate::paths::cwasm_cache_dir(root)))
    else {
        return true;
    };
    crate::plugins::BUILTIN_PLUGINS.iter().all(|builtin| {
        engine
            .cache_path(builtin.sha256)
            .is_some_and(|path| path.is_file())
    })
}

/// A path as shown in a fix command: single-quoted for the shell when it needs it.
pub(crate) fn shell_path(path: &std::path::Path) -> String {
    let text = path.display().to_string();
    if text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+~".contains(c))
    {
        text
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}
