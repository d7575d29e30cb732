//! Every environment variable context-mode reads of its own, in one place (ADR 20): the
//! names upstream documents (1.x README, 2.0 README and architecture notes) and ours.
//! The README's table lists [`VARIABLES`]; a test holds the two together. The agents'
//! own variables (`CLAUDE_PROJECT_DIR`, `CODEX_HOME`, session ids, markers) belong to
//! their adapters and are not listed here.

/// Moves the data root; must be absolute (upstream 1.x, since v1.0.147).
pub const DATA_DIR: &str = "CONTEXT_MODE_DIR";
/// Upstream 2.0's name for moving the data root: `~` expands to HOME, a relative path is
/// resolved against the working directory. `CONTEXT_MODE_DIR` wins when both are set.
pub const DATA_DIR_2_0: &str = "CONTEXT_MODE_DATA_DIR";
/// The project directory, before the agents' own project variables.
pub const PROJECT_DIR: &str = "CONTEXT_MODE_PROJECT_DIR";
/// Forces the agent host (an adapter id such as `codex`), over the MCP client's name
/// and the environment markers.
pub const PLATFORM: &str = "CONTEXT_MODE_PLATFORM";
/// On: fetches refuse loopback and private addresses too.
pub const FETCH_STRICT: &str = "CTX_FETCH_STRICT";
/// The search throttle's window, in milliseconds (upstream `SEARCH_WINDOW_MS`).
pub const SEARCH_WINDOW_MS: &str = "CONTEXT_MODE_SEARCH_WINDOW_MS";
/// Searches per window answered in full; later ones get one result per query
/// (upstream `SEARCH_MAX_RESULTS_AFTER`).
pub const SEARCH_MAX_RESULTS_AFTER: &str = "CONTEXT_MODE_SEARCH_MAX_RESULTS_AFTER";
/// Searches per window answered at all; later ones are pointed to `ctx_batch_execute`
/// (upstream `SEARCH_BLOCK_AFTER`).
pub const SEARCH_BLOCK_AFTER: &str = "CONTEXT_MODE_SEARCH_BLOCK_AFTER";
/// cm's earlier names of the three throttle variables, still read when the upstream
/// name is not set.
pub const FLOOD_WINDOW_MS_ALIAS: &str = "CONTEXT_MODE_FLOOD_WINDOW_MS";
pub const FLOOD_NORMAL_ALIAS: &str = "CONTEXT_MODE_FLOOD_NORMAL";
pub const FLOOD_REDUCED_ALIAS: &str = "CONTEXT_MODE_FLOOD_REDUCED";
/// How long `cm doctor` may take in all, in milliseconds.
pub const DOCTOR_BUDGET_MS: &str = "CONTEXT_MODE_DOCTOR_BUDGET_MS";
/// Names the MCP server we are registered under, for a registration no config file shows.
pub const SERVER_NAME: &str = "CONTEXT_MODE_SERVER_NAME";
/// Every how many calls to another MCP server's tools PreToolUse repeats the
/// "large payloads belong in ctx_execute" tip (upstream, default 10, 1–100).
pub const EXTERNAL_MCP_NUDGE_EVERY: &str = "CONTEXT_MODE_EXTERNAL_MCP_NUDGE_EVERY";
/// Names the model the cost line prices when the agent's hooks do not say.
pub const MODEL: &str = "CONTEXT_MODE_MODEL";
/// A price (USD per million input tokens) that applies whatever the model.
pub const INPUT_PRICE_PER_MTOK: &str = "CONTEXT_MODE_INPUT_PRICE_PER_MTOK";
/// `cm serve`'s log filter on stderr (`warn` by default; `info`, `debug`, …).
pub const LOG: &str = "CM_LOG";

/// One variable as the README's table shows it.
#[derive(Debug, Clone, Copy)]
pub struct Variable {
    pub name: &'static str,
    /// Who named it: `upstream`, `upstream 2.0` or `cm`.
    pub origin: &'static str,
}

/// The variables context-mode honours, as the README lists them.
pub const VARIABLES: &[Variable] = &[
    Variable {
        name: DATA_DIR,
        origin: "upstream",
    },
    Variable {
        name: DATA_DIR_2_0,
        origin: "upstream 2.0",
    },
    Variable {
        name: PROJECT_DIR,
        origin: "cm",
    },
    Variable {
        name: PLATFORM,
        origin: "upstream",
    },
    Variable {
        name: FETCH_STRICT,
        origin: "upstream",
    },
    Variable {
        name: SEARCH_WINDOW_MS,
        origin: "upstream",
    },
    Variable {
        name: SEARCH_MAX_RESULTS_AFTER,
        origin: "upstream",
    },
    Variable {
        name: SEARCH_BLOCK_AFTER,
        origin: "upstream",
    },
    Variable {
        name: EXTERNAL_MCP_NUDGE_EVERY,
        origin: "upstream",
    },
    Variable {
        name: SERVER_NAME,
        origin: "cm",
    },
    Variable {
        name: DOCTOR_BUDGET_MS,
        origin: "cm",
    },
    Variable {
        name: MODEL,
        origin: "cm",
    },
    Variable {
        name: INPUT_PRICE_PER_MTOK,
        origin: "cm",
    },
    Variable {
        name: LOG,
        origin: "cm",
    },
];

/// The value of `name`, else of `alias`, when set.
pub fn var_or_alias(name: &str, alias: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .or_else(|| std::env::var(alias).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's table names every variable here, and no `CONTEXT_MODE_`/`CTX_`
    /// variable the code does not know.
    #[test]
    fn the_readme_lists_every_variable() {
        let readme = include_str!("../../README.md");
        for variable in VARIABLES {
            assert!(
                readme.contains(&format!("| `{}` |", variable.name)),
                "README's variable table lacks {}",
                variable.name
            );
        }
    }
}
