//! The layers of the `cm` crate, bottom up (ADR 0018). A module may use modules of its
//! own layer or of a lower one, never of a higher one; no two folders use each other,
//! directly or round a loop; and the front ends reach the project's knowledge base only
//! through `service`, where the user's rules and the project's bounds are applied.
//! The test beside this file scans `host/src/**/*.rs` and holds the code to this table.

/// Each layer's name and modules (a folder or a top-level file of `host/src`), lowest first.
pub const LAYERS: &[(&str, &[&str])] = &[
    (
        "foundation",
        &[
            "platform",
            "limits",
            "env",
            "human",
            "lenient",
            "timestamp",
            "paths",
            "permissions",
            "readiness",
            "agent_session",
            "state_memo",
            "upgrade",
            "model",
            "worktree",
        ],
    ),
    (
        "mechanisms",
        &["chunk", "fetch", "sandbox", "plugins", "setup"],
    ),
    ("knowledge", &["store", "search", "journal", "report"]),
    ("diagnostics", &["doctor"]),
    ("service", &["service"]),
    ("front ends", &["cli", "mcp", "hooks"]),
];

/// Modules the front ends may not use directly: what they read and write in the
/// project's store goes through `service`, so no front end skips a rule check.
pub const BEHIND_THE_SERVICE: &[&str] = &["store", "search"];

/// The layer a module belongs to (its index in [`LAYERS`]).
pub fn layer_of(module: &str) -> Option<usize> {
    LAYERS
        .iter()
        .position(|(_, modules)| modules.contains(&module))
}

#[cfg(test)]
mod tests;
