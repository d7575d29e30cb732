//! The services behind the `ctx_*` tools: one `Service` per `cm serve` process holds
//! the project store, the sandbox, the flood guard and the plugin engine. The MCP layer
//! parses arguments and calls in here; this layer calls the store, sandbox and fetcher.

pub mod continuity;
pub mod deferred_timings;
mod doctor;
mod execute;
mod guard;
mod knowledge;
mod platform;
mod policy_context;
mod report;
mod resume;
mod rule_input;
pub mod server_name;
mod shape;
mod upgrade;

use crate::platform::fs::Canonical as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::plugins::PluginEngine;
use crate::sandbox::Sandbox;
use crate::search::FloodGuard;
use crate::store::Store;

pub use doctor::{DoctorParams, doctor};
pub use execute::{batch_execute, execute, execute_file};
pub use knowledge::{
    fetch_and_index, index, index_from_terminal, purge, purge_preview, search, search_from_terminal,
};
pub use policy_context::policy_context;
pub use report::{
    InsightParams, StatsParams, insight, open_project_read_only, stats, stats_report, write_insight,
};
pub use resume::{ResumeParams, resume};
pub use shape::printable;
pub use upgrade::{UpgradeParams, upgrade};

// The parameters of every operation, so a front end needs nothing from the layers below.
pub use crate::fetch::FetchAndIndexParams;
pub use crate::sandbox::{BatchExecuteParams, ExecuteFileParams, ExecuteParams};
pub use crate::search::{IndexParams, PathIndexReport, PurgeParams, SearchParams};

/// What a tool call returns to the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub text: String,
    pub is_error: bool,
}

impl Reply {
    pub fn ok(text: impl Into<String>) -> Self {
        Reply {
            text: text.into(),
            is_error: false,
        }
    }

    /// An error the model reads: one line, never a trace.
    pub fn error(text: impl AsRef<str>) -> Self {
        let line = text
            .as_ref()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        Reply {
            text: line,
            is_error: true,
        }
    }
}

/// Why a call that needs the project's store cannot have it; said on every such call.
#[derive(Debug, thiserror::Error)]
pub enum StoreUnavailable {
    #[error(transparent)]
    NoProject(crate::paths::ProjectDirError),
    #[error("the project store cannot be opened: {0}")]
    Open(crate::store::StoreError),
}

pub struct Service {
    pub root: PathBuf,
    pub project_dir: PathBuf,
    /// Why there is no project to work for (the working directory is gone), if so.
    no_project: Option<crate::paths::ProjectDirError>,
    /// The agent's session, asked on every call (ADR 0021).
    session: crate::agent_session::ServerSession,
    /// Opened on first use, not at start: the handshake waits for nothing it does not
    /// need (issue 31; `cm serve` opens it right after, off the handshake's thread).
    store: OnceLock<Result<Arc<Mutex<Store>>, StoreUnavailable>>,
    sandbox: Sandbox,
    flood: FloodGuard,
    /// Made on first use, like the store.
    engine: OnceLock<Result<PluginEngine, crate::plugins::PluginError>>,
    /// The agent host, from the MCP client's name (set at initialize).
    platform: OnceLock<Platform>,
    /// Detection ran (the client's name does not change): an unknown client must not
    /// load every adapter again on each call.
    /// Calls that come while it runs (the warm-up's and a first tool call) wait for it.
    platform_detected: OnceLock<()>,
    /// Numbers the sources this process indexes, so every label is unique.
    source_counter: std::sync::atomic::AtomicU64,
}

/// Which agent host is talking to us, and how it names our tools.
#[derive(Debug, Clone)]
pub struct Platform {
    pub id: String,
    pub ctx_tools: crate::model::CtxToolNames,
}

impl Service {
    /// `project` is [`crate::paths::project_dir`], computed once by the caller.
    pub fn new(
        root: PathBuf,
        project: Result<PathBuf, crate::paths::ProjectDirError>,
        session: crate::agent_session::ServerSession,
    ) -> Self {
        // Started in a deleted working directory there is no project: every tool call
        // that reads, runs or stores answers why instead (the server stays up, so the
        // agent can say so), and no store is opened. `/` only names the project in the
        // reports, which find no store for it.
        let (project_dir, no_project) = match project {
            Ok(dir) => (dir, None),
            Err(gone) => (PathBuf::from("/"), Some(gone)),
        };
        Service {
            sandbox: Sandbox::detecting_on_first_use()
                .with_background_root(crate::paths::background_dir(&root))
                .with_confinement(crate::sandbox::confine::resolve(
                    &project_dir,
                    crate::paths::home_dir().as_deref(),
                )),
            flood: FloodGuard::from_env(),
            root,
            project_dir,
            no_project,
            session,
            store: OnceLock::new(),
            engine: OnceLock::new(),
            platform: OnceLock::new(),
            platform_detected: OnceLock::new(),
            source_counter: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// The project this service works for, or why there is none.
    pub fn project(&self) -> Result<PathBuf, crate::paths::ProjectDirError> {
        match &self.no_project {
            Some(gone) => Err(gone.clone()),
            None => Ok(self.project_dir.clone()),
        }
    }

    /// The agent's current session: what its hooks announced last, else what the host
    /// told the server (see [`crate::agent_session`]).
    pub fn session_id(&self) -> String {
        self.session.id()
    }

    /// The model the agent's hooks named, if any.
    pub fn model(&self) -> Option<String> {
        self.session.model()
    }

    /// Records the client's platform once; later calls keep the first.
    pub fn set_platform(&self, platform: Platform) {
        let _ = self.platform.set(platform);
    }

    pub fn platform(&self) -> Platform {
        self.platform.get().cloned().unwrap_or(Platform {
            id: "unknown".into(),
            ctx_tools: crate::model::CtxToolNames::with_prefix("mcp__context-mode__"),
        })
    }

    /// How replies name our tools: as this host's redirects do (an agent with deferred
    /// tools can load only that name), or by their own names while the host is unknown.
    pub fn reply_names(&self) -> crate::model::CtxToolNames {
        self.platform
            .get()
            .map(|platform| platform.ctx_tools.clone())
            .unwrap_or_default()
    }

    /// The plugin engine, or why there is none.
    pub fn engine(&self) -> Result<&PluginEngine, &crate::plugins::PluginError> {
        self.engine
            .get_or_init(|| PluginEngine::new(Some(crate::paths::cwasm_cache_dir(&self.root))))
            .as_ref()
    }

    /// The project's store as opened on first use, or why there is none.
    fn opened_store(&self) -> &Result<Arc<Mutex<Store>>, StoreUnavailable> {
        self.store.get_or_init(|| match &self.no_project {
            Some(reason) => Err(StoreUnavailable::NoProject(reason.clone())),
            None => Store::open(&self.root, &self.project_dir)
                .map(|s| Arc::new(Mutex::new(s)))
                .map_err(StoreUnavailable::Open),
        })
    }

    /// The store, or the one-line reason it is unavailable.
    fn store(&self) -> Result<MutexGuard<'_, Store>, Reply> {
        let store = self
            .opened_store()
            .as_ref()
            .map_err(|e| Reply::error(e.to_string()))?;
        // A panic while holding the lock leaves the connection usable: SQLite rolls back.
        Ok(store
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()))
    }

    /// A connection of its own to this project's store, for one long call that must not
    /// hold the server's connection (a directory `ctx_index`).
    fn own_store(&self) -> Result<Store, Reply> {
        if let Err(err) = self.opened_store() {
            return Err(Reply::error(err.to_string()));
        }
        Store::open(&self.root, &self.project_dir).map_err(|e| Reply::error(e.to_string()))
    }

    fn store_handle(&self) -> Result<Arc<Mutex<Store>>, Reply> {
        self.opened_store()
            .as_ref()
            .map(Arc::clone)
            .map_err(|e| Reply::error(e.to_string()))
    }

    /// A fresh, unique source label: `<kind> #<n> <what>`.
    fn source_label(&self, kind: &str, what: &str) -> String {
        let n = self
            .source_counter
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            + 1;
        let what: String = what.lines().next().unwrap_or("").chars().take(48).collect();
        format!("{kind} #{n}-{}: {}", std::process::id(), what.trim())
    }

    /// Records raw vs returned bytes of one call; a failure to record is logged, not fatal.
    /// What the call would have cost without us is at least what it returned (a reply
    /// can carry more than the output it measured: headers, search answers), so raw is
    /// recorded as avoided + returned, upstream's strict formula taken per call: the
    /// sums of a scope then never show a negative share.
    fn record_stats(&self, tool: &str, raw_bytes: u64, returned_bytes: u64, cache_hit: bool) {
        if let Ok(mut store) = self.store()
            && let Err(err) = store.record_tool_stats(
                &self.session_id(),
                tool,
                raw_bytes.max(returned_bytes),
                returned_bytes,
                cache_hit,
            )
        {
            tracing::warn!("cannot record stats of {tool}: {err}");
        }
    }

    /// Server start-up chores that must not delay the handshake.
    pub fn start_up_cleanup(&self) {
        // Installed plugins this cm has not compiled yet (a new engine key after an
        // update): compiled now, by a detached process, before a tool call needs them.
        crate::plugins::background::request_if_missing(&self.root);
        self.sandbox.remove_stale_background_dirs();
        crate::agent_session::remove_departed(&self.root);
        let Ok(mut store) = self.store() else { return };
        if let Err(err) = store.cleanup_older_than(crate::limits::CONTENT_MAX_AGE_DAYS) {
            tracing::warn!("cleanup of old content failed: {err}");
        }
        if let Err(err) = crate::search::index_memory_files(&mut store, &self.project_dir) {
            tracing::warn!("indexing project memory files failed: {err}");
        }
    }

    /// Server exit: stops every child still alive, of running calls and background runs.
    pub fn terminate_children(&self) {
        crate::sandbox::process::terminate_running();
        self.sandbox.terminate_background();
    }
}

/// Resolves a path argument against the project: relative paths are project-relative;
/// the result is canonical (symlinks resolved) so confinement checks see the real target.
fn canonical_in_project(project_dir: &Path, path: &str) -> Result<PathBuf, Reply> {
    let given = Path::new(path.trim());
    let joined = if given.is_absolute() {
        given.to_path_buf()
    } else {
        project_dir.join(given)
    };
    joined
        .canonical()
        .map_err(|e| Reply::error(format!("{path}: {}", crate::service::io_reason(&e))))
}

fn io_reason(err: &std::io::Error) -> &'static str {
    match err.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory",
        std::io::ErrorKind::PermissionDenied => "permission denied",
        _ => "cannot be read",
    }
}
