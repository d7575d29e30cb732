//! Why a hook could not answer. Every failure is logged as one line in
//! `hook-errors.log` and the hook answers with its host's allow reply.

use crate::limits::HOOK_STDIN_MAX_BYTES;
use crate::paths::ProjectDirError;
use crate::plugins::PluginError;

#[derive(Debug, thiserror::Error)]
pub enum HookFailure {
    #[error("no data root: set HOME or an absolute CONTEXT_MODE_DIR")]
    NoDataRoot,
    #[error(transparent)]
    Plugin(#[from] PluginError),
    #[error("unknown platform {platform:?}; known: {known}")]
    UnknownPlatform { platform: String, known: String },
    #[error("unknown event {event:?} for {platform}; known: {known}")]
    UnknownEvent {
        event: String,
        platform: String,
        known: String,
    },
    /// An MCP-only host (Zed, Antigravity IDE) declares no events: a hook entry naming
    /// it was written by hand or by another tool.
    #[error(
        "{platform} has no hook events (an MCP-only host): remove the hook entry that runs cm hook {platform}"
    )]
    NoHookEvents { platform: String },
    #[error("cannot read stdin: {0}")]
    Stdin(std::io::Error),
    #[error("stdin is over {HOOK_STDIN_MAX_BYTES} bytes")]
    StdinTooLarge,
    #[error("stdin is not UTF-8")]
    StdinNotUtf8,
    /// The adapter's `parse` refused the event name it was handed.
    #[error("adapter does not handle event {0}")]
    EventNotHandled(String),
    /// The adapter's `parse` found stdin is not what its host sends.
    #[error("bad stdin: {0}")]
    BadStdin(String),
    #[error(transparent)]
    NoProject(#[from] ProjectDirError),
}
