//! Session continuity for the hooks: which events go into the journal and which get
//! journal text injected back, and large output replaced by what matters of it. The
//! hooks call in here for everything they keep in the project's store. Every failure
//! here fails open: it is logged once and the hook answers as if there were no journal.

use std::path::{Path, PathBuf};

use crate::journal;
use crate::limits::REPLACE_TRIGGER_BYTES;
use crate::model::{
    Capabilities, Descriptor, EventBinding, EventKind, NormalizedEvent, SessionSource, ToolKind,
    Verdict,
};
use crate::search::index_and_digest;
use crate::store::{NewSource, SourceKind, Store};

/// Journals a pre-tool-use whose call will run (a later post-tool-use answers it; one
/// that never comes marks the call rejected). Platforms without post-tool-use are
/// skipped: every call there would look rejected.
pub fn after_pre_tool_use(
    store: &mut HookStore<'_>,
    descriptor: &Descriptor,
    event: &NormalizedEvent,
    verdict: Verdict,
    log: &dyn Fn(&str),
) {
    let will_run = matches!(verdict, Verdict::NoOpinion | Verdict::Allow | Verdict::Ask);
    let has_post = descriptor
        .events
        .iter()
        .any(|b| b.kind == EventKind::PostToolUse);
    if will_run && has_post {
        store.with(log, |store| journal::record(store, event).map(|_| ()));
    }
}

/// Journals an event other than pre-tool-use and returns the context for it, if any:
/// only on events that can carry it, except SessionStart's, which the caller holds for
/// the session's next event that can when this one cannot.
pub fn on_event(
    store: &mut HookStore<'_>,
    descriptor: &Descriptor,
    binding: &EventBinding,
    event: &NormalizedEvent,
    log: &dyn Fn(&str),
) -> Option<String> {
    let can_inject = binding.capabilities.contains(Capabilities::INJECT_CONTEXT);
    let context = match event.kind {
        EventKind::PreToolUse => None,
        EventKind::Stop => {
            store.with(log, |store| journal::record(store, event).map(|_| ()));
            None
        }
        // A block saved at compaction comes back on the first event after it that can
        // carry it: on VS Code Copilot no SessionStart follows a compaction and its
        // UserPromptSubmit carries nothing, but a tool result does (ADR 25).
        EventKind::PostToolUse => store
            .with(log, |store| {
                journal::record(store, event)?;
                if !can_inject {
                    return Ok(None);
                }
                journal::saved_state_context(store, &event.session_id, &descriptor.ctx_tools)
            })
            .flatten(),
        EventKind::UserPrompt => store
            .with(log, |store| {
                journal::record(store, event)?;
                if !can_inject {
                    return Ok(None);
                }
                // A block saved at compaction that no SessionStart took comes back here,
                // alone: the whole injection after a compaction stays within its budget.
                if let Some(saved) =
                    journal::saved_state_context(store, &event.session_id, &descriptor.ctx_tools)?
                {
                    return Ok(Some(saved));
                }
                match &event.prompt {
                    Some(prompt) => journal::prompt_context(store, &event.session_id, prompt),
                    None => Ok(None),
                }
            })
            .flatten(),
        EventKind::PreCompact => {
            store.with(log, |store| journal::pre_compact(store, event).map(|_| ()));
            None
        }
        EventKind::SessionStart => {
            let source = event.source.unwrap_or(SessionSource::Unknown);
            store
                .with(log, |store| {
                    journal::record(store, event)?;
                    // Computed even when this event cannot carry it: the caller holds
                    // it for the session's next event that can (Kimi Code's prompt).
                    journal::session_start_context(
                        store,
                        &event.session_id,
                        source,
                        &descriptor.ctx_tools,
                    )
                })
                // Without a journal a new session still learns how to reach the tools.
                .unwrap_or_else(|| {
                    matches!(source, SessionSource::Startup | SessionSource::Unknown)
                        .then(|| journal::routing_block(&descriptor.ctx_tools))
                })
        }
    };
    // Each arm above already left out what this event must not take when it cannot
    // carry it; what is left the caller delivers, or holds for a later event.
    context.filter(|text| !text.trim().is_empty())
}

/// PostToolUse output replacement (ADR 0006): on an event that can replace tool
/// output, a result of another MCP server over REPLACE_TRIGGER_BYTES is indexed whole and
/// replaced by the parts matching the session's last request, plus one `ctx_search` line.
/// Built-in tools are left alone: see docs/adr/0006-post-tool-use-replacement.md.
pub fn replacement_output(
    store: &mut HookStore<'_>,
    descriptor: &Descriptor,
    binding: &EventBinding,
    event: &NormalizedEvent,
    log: &dyn Fn(&str),
) -> Option<String> {
    let tool = event.tool.as_ref()?;
    let outcome = event.outcome.as_ref()?;
    let replaceable = event.kind == EventKind::PostToolUse
        && binding.capabilities.contains(Capabilities::REWRITE_OUTPUT)
        && tool.kind == ToolKind::Mcp
        && !outcome.is_error
        && outcome.output.len() > REPLACE_TRIGGER_BYTES;
    if !replaceable {
        return None;
    }
    store.with(log, |store| {
        let intent = store
            .journal_in_categories(&event.session_id, &["prompt"], 1, 0)?
            .pop()
            .map(|row| row.summary);
        let label = format!(
            "{} output {}",
            tool.name,
            crate::timestamp::rfc3339_utc(crate::timestamp::now_ms() / 1_000)
        );
        let source = NewSource::new(
            &label,
            SourceKind::Execute,
            Some(&event.session_id),
            outcome.output.len(),
        );
        let replacement = index_and_digest(
            store,
            source,
            &outcome.output,
            intent.as_deref(),
            &event.session_id,
            descriptor.ctx_tools.name("ctx_search"),
        )?;
        // The hook kept the rest of the output out: a row of the per-tool table.
        store.record_tool_stats(
            &event.session_id,
            &hook_stats_label(&tool.name),
            outcome.output.len() as u64,
            replacement.len() as u64,
            false,
        )?;
        Ok(replacement)
    })
}

/// The per-tool stats row of output a hook replaced: the tool's name and where.
pub fn hook_stats_label(tool: &str) -> String {
    format!("{tool} (hook)")
}

/// Records how long this hook run took (for `cm stats` / `cm insight` latency figures).
/// Best effort: a failure here is not logged to hook-errors.log (a store that cannot be
/// opened is already reported once per run by the journal steps).
pub fn record_timing(
    store: &mut HookStore<'_>,
    platform: &str,
    event_name: &str,
    elapsed: std::time::Duration,
) {
    let micros = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
    if let Some(shared) = &store.shared {
        // A hook the server answers: written after its reply (see `deferred_timings`).
        super::deferred_timings::defer(
            shared.clone(),
            platform,
            &event_name.to_ascii_lowercase(),
            micros,
        );
        return;
    }
    store.with(&|_| {}, |store| {
        store.record_hook_timing(platform, &event_name.to_ascii_lowercase(), micros)
    });
}

/// The project store of one hook run, opened on first use and shared by every step:
/// each open rebuilds the WAL index and checks the schema, so a run opens it once.
/// The open store of `cm serve`'s project, which a hook the server answers writes
/// through instead of opening the file again.
#[derive(Clone)]
pub struct SharedStore {
    pub project_dir: PathBuf,
    pub store: std::sync::Arc<std::sync::Mutex<Store>>,
}

impl SharedStore {
    /// A connection of its own to `project`'s store, for the hooks a server answers to
    /// write through (ADR 35): they never queue behind a tool call holding the server's.
    /// It never runs a WAL checkpoint itself: the server's connection and the indexer's do.
    pub fn open(root: &Path, project: &Path) -> Result<Self, crate::store::StoreError> {
        let store = Store::open(root, project)?;
        store.leave_checkpoints_to_others()?;
        Ok(SharedStore {
            project_dir: project.to_path_buf(),
            store: std::sync::Arc::new(std::sync::Mutex::new(store)),
        })
    }
}

pub struct HookStore<'a> {
    root: &'a Path,
    /// The event's project, as the hook computed it once.
    project_dir: PathBuf,
    store: Option<Store>,
    /// The server's store, used when the event is for the server's own project.
    shared: Option<SharedStore>,
    /// The open failed once; later steps do not retry (or log) it.
    failed: bool,
}

impl<'a> HookStore<'a> {
    pub fn new(root: &'a Path, project_dir: &Path) -> Self {
        HookStore {
            root,
            project_dir: project_dir.to_path_buf(),
            store: None,
            shared: None,
            failed: false,
        }
    }

    /// Writes through `shared` when it is the store of the event's project; an event of
    /// another project (a hook of a sub-agent elsewhere) opens that project's store.
    pub fn sharing(mut self, shared: Option<SharedStore>) -> Self {
        self.shared = shared.filter(|s| s.project_dir == self.project_dir);
        self
    }

    /// Runs `work` on the store of the event's project; an error is logged and gives `None`.
    fn with<T>(
        &mut self,
        log: &dyn Fn(&str),
        work: impl FnOnce(&mut Store) -> Result<T, crate::store::StoreError>,
    ) -> Option<T> {
        if self.failed {
            return None;
        }
        // An agent waits on this hook: a bulk write of this process lets it in first.
        let _urgent = crate::store::UrgentWrite::begin();
        if let Some(shared) = &self.shared {
            // A panic while holding the lock leaves the connection usable: SQLite rolls back.
            let mut store = shared
                .store
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            return match work(&mut store) {
                Ok(value) => Some(value),
                Err(err) => {
                    log(&format!("journal: {err}"));
                    None
                }
            };
        }
        if self.store.is_none() {
            match Store::open(self.root, &self.project_dir) {
                Ok(store) => self.store = Some(store),
                Err(err) => {
                    self.failed = true;
                    log(&format!("journal: cannot open the project store: {err}"));
                    return None;
                }
            }
        }
        let store = self.store.as_mut()?;
        match work(store) {
            Ok(value) => Some(value),
            Err(err) => {
                log(&format!("journal: {err}"));
                None
            }
        }
    }
}
