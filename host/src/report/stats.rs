//! What `ctx_stats` and `cm stats` report, gathered from the stores: this session, this
//! project all time, and every project under the data root (each read-only; a database
//! that cannot be read is named and skipped).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::math;
use crate::limits::HOOK_LATENCY_RUNS_PER_EVENT;
use crate::store::{HookDuration, Store, StoreError, ToolStatsSummary};

/// Calls and bytes of one tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolLine {
    pub tool: String,
    pub calls: u64,
    pub raw_bytes: u64,
    pub returned_bytes: u64,
    pub cache_hits: u64,
}

impl From<ToolStatsSummary> for ToolLine {
    fn from(s: ToolStatsSummary) -> Self {
        ToolLine {
            tool: s.tool,
            calls: s.calls,
            raw_bytes: s.raw_bytes,
            returned_bytes: s.returned_bytes,
            cache_hits: s.cache_hits,
        }
    }
}

/// The sums of a scope, with the derived figures spelled out for machines.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Totals {
    pub calls: u64,
    pub raw_bytes: u64,
    pub returned_bytes: u64,
    pub cache_hits: u64,
    pub kept_out_bytes: u64,
    /// 1 − returned / raw in percent, floored to a tenth; absent when raw is 0.
    pub kept_out_percent: Option<f64>,
    pub kept_out_tokens: u64,
}

impl Totals {
    pub fn of(tools: &[ToolLine]) -> Self {
        let mut totals = Totals::default();
        for t in tools {
            totals.calls += t.calls;
            totals.raw_bytes += t.raw_bytes;
            totals.returned_bytes += t.returned_bytes;
            totals.cache_hits += t.cache_hits;
        }
        totals.kept_out_bytes = math::kept_out_bytes(totals.raw_bytes, totals.returned_bytes);
        totals.kept_out_percent = math::kept_out_permille(totals.raw_bytes, totals.returned_bytes)
            .map(|permille| permille as f64 / 10.0);
        totals.kept_out_tokens = math::tokens(totals.kept_out_bytes);
        totals
    }

    /// Nothing raw measured: no share can be given.
    pub fn is_unmeasured(&self) -> bool {
        self.raw_bytes == 0
    }
}

/// Hook latency of one (platform, event).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HookLine {
    pub platform: String,
    pub event: String,
    pub runs: u64,
    pub p50_us: u64,
    pub p95_us: u64,
    pub max_us: u64,
}

/// One scope of the report.
#[derive(Debug, Clone, Serialize)]
pub struct Scope {
    pub totals: Totals,
    pub tools: Vec<ToolLine>,
    /// Hook runs are timed per project, not per session: absent for the session scope.
    pub hooks: Option<Vec<HookLine>>,
}

impl Scope {
    fn new(tools: Vec<ToolLine>, hooks: Option<Vec<HookLine>>) -> Self {
        Scope {
            totals: Totals::of(&tools),
            tools,
            hooks,
        }
    }

    fn empty(hooks: Option<Vec<HookLine>>) -> Self {
        Scope::new(Vec::new(), hooks)
    }
}

/// One project of the all-projects scope.
#[derive(Debug, Clone, Serialize)]
pub struct ProjectLine {
    /// The project's path, or its database directory when the path was never recorded.
    pub name: String,
    pub totals: Totals,
}

/// A database the all-projects scope could not read.
#[derive(Debug, Clone, Serialize)]
pub struct Unreadable {
    pub db: String,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct AllProjects {
    pub scope: Scope,
    /// Largest raw total first.
    pub projects: Vec<ProjectLine>,
    pub unreadable: Vec<Unreadable>,
}

#[derive(Debug, Clone, Serialize)]
pub struct StatsReport {
    pub project_dir: String,
    /// The session the first scope is about; absent when no tool call was recorded.
    pub session_id: Option<String>,
    pub session: Scope,
    /// What the session's kept-out tokens would have cost as input, when a price is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_cost: Option<super::prices::Cost>,
    pub project: Scope,
    pub all_projects: AllProjects,
}

impl StatsReport {
    /// Adds the cost line of the session scope for `model` (hidden when nothing was kept
    /// out or no price is known).
    pub fn with_cost(mut self, root: &Path, model: Option<&str>) -> Self {
        self.session_cost = (self.session.totals.kept_out_tokens > 0)
            .then(|| super::prices::cost(root, model, self.session.totals.kept_out_tokens))
            .flatten();
        self
    }
}

/// The session `cm stats` reports on when it is given none (or one that measured
/// nothing): the hooks' most recent session when it recorded tool calls, else the
/// session of the newest tool call (the server and the hooks of one agent share its
/// session, ADR 0021, so the two usually agree).
pub fn reported_session(store: &Store, given: Option<&str>) -> Result<Option<String>, StoreError> {
    let given = given.map(str::trim).filter(|s| !s.is_empty());
    if let Some(session) = given
        && store.has_tool_stats(session)?
    {
        return Ok(Some(session.to_string()));
    }
    if let Some(session) = store.most_recent_session()?
        && store.has_tool_stats(&session)?
    {
        return Ok(Some(session));
    }
    store.newest_stats_session()
}

/// Gathers the three scopes. `store` is this project's (absent when it has no database
/// yet); `session_id` is the session to report on, when one is known.
pub fn gather(
    store: Option<&Store>,
    root: &Path,
    project_dir: &Path,
    session_id: Option<&str>,
) -> Result<StatsReport, StoreError> {
    let (session, project) = match store {
        Some(store) => {
            let session_tools = match session_id {
                Some(id) => tool_lines(store, Some(id))?,
                None => Vec::new(),
            };
            let hooks = hook_lines(store.hook_durations(HOOK_LATENCY_RUNS_PER_EVENT)?);
            (
                Scope::new(session_tools, None),
                Scope::new(tool_lines(store, None)?, Some(hooks)),
            )
        }
        None => (Scope::empty(None), Scope::empty(Some(Vec::new()))),
    };
    Ok(StatsReport {
        project_dir: project_dir.display().to_string(),
        session_id: session_id.map(String::from),
        session,
        session_cost: None,
        project,
        all_projects: all_projects(root),
    })
}

fn tool_lines(store: &Store, session_id: Option<&str>) -> Result<Vec<ToolLine>, StoreError> {
    Ok(store
        .tool_stats_summary(session_id)?
        .into_iter()
        .map(ToolLine::from)
        .collect())
}

/// Percentiles per (platform, event) of durations of any order.
pub fn hook_lines(durations: Vec<HookDuration>) -> Vec<HookLine> {
    let mut grouped: BTreeMap<(String, String), Vec<u64>> = BTreeMap::new();
    for run in durations {
        grouped
            .entry((run.platform, run.event))
            .or_default()
            .push(run.duration_us);
    }
    grouped
        .into_iter()
        .filter_map(|((platform, event), mut runs)| {
            runs.sort_unstable();
            let (p50_us, p95_us, max_us) = math::percentiles(&runs)?;
            Some(HookLine {
                platform,
                event,
                runs: runs.len() as u64,
                p50_us,
                p95_us,
                max_us,
            })
        })
        .collect()
}

/// Every project database under `root`, read-only.
fn all_projects(root: &Path) -> AllProjects {
    let mut merged: BTreeMap<String, ToolLine> = BTreeMap::new();
    let mut durations = Vec::new();
    let mut projects = Vec::new();
    let mut unreadable = Vec::new();
    for db in crate::paths::project_dbs(root) {
        match read_project(&db) {
            Ok((name, tools, runs)) => {
                for line in &tools {
                    let entry = merged.entry(line.tool.clone()).or_insert(ToolLine {
                        tool: line.tool.clone(),
                        calls: 0,
                        raw_bytes: 0,
                        returned_bytes: 0,
                        cache_hits: 0,
                    });
                    entry.calls += line.calls;
                    entry.raw_bytes += line.raw_bytes;
                    entry.returned_bytes += line.returned_bytes;
                    entry.cache_hits += line.cache_hits;
                }
                durations.extend(runs);
                projects.push(ProjectLine {
                    name,
                    totals: Totals::of(&tools),
                });
            }
            Err(err) => unreadable.push(Unreadable {
                db: db.display().to_string(),
                reason: err.to_string(),
            }),
        }
    }
    let mut tools: Vec<ToolLine> = merged.into_values().collect();
    tools.sort_by(|a, b| b.raw_bytes.cmp(&a.raw_bytes).then(a.tool.cmp(&b.tool)));
    projects.sort_by(|a, b| {
        b.totals
            .raw_bytes
            .cmp(&a.totals.raw_bytes)
            .then(a.name.cmp(&b.name))
    });
    AllProjects {
        scope: Scope::new(tools, Some(hook_lines(durations))),
        projects,
        unreadable,
    }
}

type ProjectData = (String, Vec<ToolLine>, Vec<HookDuration>);

fn read_project(db: &Path) -> Result<ProjectData, StoreError> {
    let store = Store::open_read_only(db)?;
    let name = match store.project_path()? {
        Some(path) => path,
        None => db
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from(db))
            .display()
            .to_string(),
    };
    let tools = tool_lines(&store, None)?;
    let runs = store.hook_durations(HOOK_LATENCY_RUNS_PER_EVENT)?;
    Ok((name, tools, runs))
}
