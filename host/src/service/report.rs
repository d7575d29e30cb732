//! `ctx_stats` and `ctx_insight`, and the same reports for the CLI (which has no
//! `Service`: it reads the project database read-only, or reports an empty project).
//! Neither records stats of its own: a report about the numbers does not change them.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Reply, Service};
use crate::report::{self, StatsReport, insight};
use crate::store::{Store, StoreError};

/// `ctx_stats` takes no parameters.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct StatsParams {}

/// `ctx_insight` takes no parameters.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct InsightParams {}

pub fn stats(service: &Service) -> Reply {
    super::deferred_timings::flush();
    let store = service.store().ok();
    match report::gather(
        store.as_deref(),
        &service.root,
        &service.project_dir,
        Some(&service.session_id()),
    ) {
        Ok(report) => {
            let report = report.with_cost(&service.root, service.model().as_deref());
            Reply::ok(report::text::render(&report))
        }
        Err(err) => Reply::error(format!("ctx_stats: the stats cannot be read: {err}")),
    }
}

pub fn insight(service: &Service) -> Reply {
    super::deferred_timings::flush();
    let store = service.store().ok();
    match write_insight(store.as_deref(), &service.root, &service.project_dir) {
        Ok((path, summary)) => Reply::ok(format!("Insight report: {}\n{summary}", path.display())),
        Err(err) => Reply::error(format!("ctx_insight: {err}")),
    }
}

/// The project's database opened read-only; `None` when the project has none yet.
pub fn open_project_read_only(
    root: &Path,
    project_dir: &Path,
) -> Result<Option<Store>, StoreError> {
    let db = crate::paths::project_db(root, project_dir);
    if !db.is_file() {
        return Ok(None);
    }
    Store::open_read_only(&db).map(Some)
}

/// The stats report of `project_dir`, for a caller without a session id: the session is
/// the one that measured last (see [`report::reported_session`]).
pub fn stats_report(root: &Path, project_dir: &Path) -> Result<StatsReport, StoreError> {
    let store = open_project_read_only(root, project_dir)?;
    let session = match &store {
        Some(store) => report::reported_session(store, None)?,
        None => None,
    };
    report::gather(store.as_ref(), root, project_dir, session.as_deref())
        .map(|report| report.with_cost(root, None))
}

/// Why the insight report was not written.
#[derive(Debug, thiserror::Error)]
pub enum InsightError {
    #[error("the project data cannot be read: {0}")]
    Read(crate::store::StoreError),
    #[error("cannot write {}: {error}", path.display())]
    Write {
        path: PathBuf,
        error: std::io::Error,
    },
}

/// Writes the insight report of `project_dir`; returns its path and a two-line summary.
pub fn write_insight(
    store: Option<&Store>,
    root: &Path,
    project_dir: &Path,
) -> Result<(PathBuf, String), InsightError> {
    let data =
        insight::gather(store, project_dir, crate::store::now_ms()).map_err(InsightError::Read)?;
    let path = crate::paths::insight_report(root, project_dir);
    insight::write(&path, &data).map_err(|error| InsightError::Write {
        path: path.clone(),
        error,
    })?;
    Ok((path, insight::summary(&data)))
}
