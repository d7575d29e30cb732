//! The one-line errors the sandbox returns; the model reads them as they are.

/// Why a script could not be run (a script that ran and failed is an
/// [`super::ExecOutcome`] with a non-zero exit, not an error).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    /// Unknown language, or no runtime for it on this machine.
    #[error("{language} is not available here; available: {available}")]
    Unavailable { language: String, available: String },
    #[error("cwd {0} is outside the project directory")]
    CwdOutsideProject(String),
    #[error("cwd {0} is not an existing directory")]
    CwdNotADirectory(String),
    /// The private temp dir or the script file could not be written.
    #[error("could not prepare the script: {0}")]
    Prepare(String),
    /// Confinement is on and the kernel cannot enforce it (ADR 0026): one line.
    #[error("{0}")]
    Unconfinable(String),
    #[error("could not start {program}: {reason}")]
    Spawn { program: String, reason: String },
}
