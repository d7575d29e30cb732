//! What can go wrong in `cm setup` and `cm setup --remove`. Every message is one line
//! that names the file and, where there is one, the next step.

use std::path::PathBuf;

use crate::plugins::PluginError;

/// Why a config file's text cannot be merged or unmerged. Shown after the file's
/// name: `~/.codex/config.toml is not valid TOML: …`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContentError {
    #[error("is not UTF-8 text")]
    NotUtf8,
    #[error("is not valid JSON: {0}")]
    NotJson(String),
    #[error("is not a JSON object at the top")]
    NotJsonObject,
    #[error("is not valid TOML: {0}")]
    NotToml(String),
    #[error(
        "has a {begin} line without a {end} line after it; fix or delete the block and run setup again"
    )]
    UnterminatedBlock {
        begin: &'static str,
        end: &'static str,
    },
    /// The adapter's own plan is broken (a plugin bug, not the user's file).
    #[error("has a broken plan from its adapter: the plan {0}")]
    BadPlan(Box<ContentError>),
}

/// A failure of `cm setup`; nothing is left half-written when it is returned.
///
/// No variant names a `#[source]`: each message already says its cause, and the CLI prints
/// an error with its source chain (`{:#}`), which would say it twice.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("cannot find the cm executable: {0}")]
    NoExecutable(std::io::Error),
    #[error("unknown agent {name:?}; known agents: {known}")]
    UnknownAgent { name: String, known: String },
    #[error(
        "no agent detected (looked for {markers}); pick one with --agents <id> (known agents: {known})"
    )]
    NoAgentDetected { markers: String, known: String },
    #[error(transparent)]
    Plugin(#[from] PluginError),
    #[error("{agent}: {error}")]
    Agent {
        agent: String,
        error: Box<SetupError>,
    },
    /// A file or directory operation failed (`action` is e.g. "read", "create directory").
    #[error("cannot {action} {}: {error}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{} has no parent directory", .0.display())]
    NoParent(PathBuf),
    #[error("{file} {problem}")]
    Content { file: String, problem: ContentError },
    #[error("{file}: edited both as {first} and as {second}")]
    MixedFormats {
        file: String,
        first: String,
        second: String,
    },
    #[error("{} changed while setup ran; run it again", .0.display())]
    ChangedMeanwhile(PathBuf),
    #[error("{} is not a valid setup manifest: {error}", path.display())]
    BadManifest {
        path: PathBuf,
        error: serde_json::Error,
    },
    #[error("cannot encode {what}: {error}")]
    Encode {
        what: &'static str,
        error: serde_json::Error,
    },
    #[error("{cause}; every file was restored")]
    RolledBack { cause: Box<SetupError> },
    #[error("{cause}; restoring failed too ({}), backups are in {}", failures.join("; "), backup.display())]
    RestoreFailed {
        cause: Box<SetupError>,
        failures: Vec<String>,
        backup: PathBuf,
    },
}

impl SetupError {
    pub fn io(action: &'static str, path: impl Into<PathBuf>, error: std::io::Error) -> Self {
        SetupError::Io {
            action,
            path: path.into(),
            error,
        }
    }

    pub fn content(file: impl std::fmt::Display, problem: ContentError) -> Self {
        SetupError::Content {
            file: file.to_string(),
            problem,
        }
    }
}

pub type Result<T, E = SetupError> = std::result::Result<T, E>;
