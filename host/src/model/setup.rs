//! The config edits that register context-mode with an agent host.

/// The format of a config file a setup plan edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigFormat {
    Json,
    Toml,
    /// Whole-file text (instruction files).
    Text,
}

/// What a config edit registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditKind {
    McpServer,
    Hooks,
    Instructions,
    StatusLine,
    Feature,
}

/// One change to one config file (`file` with `~/`, `{project}/`, `{env:NAME|~/dir}/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigEdit {
    pub kind: EditKind,
    pub file: String,
    pub format: ConfigFormat,
    pub content: String,
    /// One line saying what the edit does, shown to the user.
    pub summary: String,
    /// Applied only on request.
    pub optional: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetupInput {
    /// The command that runs `cm` (an absolute path or `cm`).
    pub cm_command: String,
    pub project_dir: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetupPlan {
    pub edits: Vec<ConfigEdit>,
}
