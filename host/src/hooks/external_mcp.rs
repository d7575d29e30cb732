//! The reminder upstream calls the external-MCP nudge: a tool of another MCP server
//! returns its whole payload into the conversation, so every Nth such call of a session
//! (`CONTEXT_MODE_EXTERNAL_MCP_NUDGE_EVERY`, default 10, range 1–100, the 1st call
//! included) adds a tip naming the ctx tools that keep large payloads out. Only on
//! events that can add context; the count lives in the session's hook state.

use std::path::Path;

use super::session_state;
use crate::limits::{
    EXTERNAL_MCP_NUDGE_EVERY_CALLS_DEFAULT, EXTERNAL_MCP_NUDGE_EVERY_CALLS_MAX,
    EXTERNAL_MCP_NUDGE_EVERY_CALLS_MIN,
};
use crate::model::CtxToolNames;

pub use crate::env::EXTERNAL_MCP_NUDGE_EVERY as NUDGE_EVERY_ENV;

/// The cadence from the variable's value; anything but a whole number in range is the default.
pub fn every(value: Option<&str>) -> u64 {
    value
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|n| {
            (EXTERNAL_MCP_NUDGE_EVERY_CALLS_MIN..=EXTERNAL_MCP_NUDGE_EVERY_CALLS_MAX).contains(n)
        })
        .unwrap_or(EXTERNAL_MCP_NUDGE_EVERY_CALLS_DEFAULT)
}

/// Counts one call of another MCP server's tool; the tip when this call is due one.
pub fn on_call(
    root: &Path,
    session_id: &str,
    names: &CtxToolNames,
) -> std::io::Result<Option<String>> {
    let count = session_state::count_external_mcp_call(root, session_id)?;
    let every = every(std::env::var(NUDGE_EVERY_ENV).ok().as_deref());
    Ok(((count - 1) % every == 0).then(|| tip(names)))
}

fn tip(names: &CtxToolNames) -> String {
    format!(
        "Tip: what another MCP server's tool returns enters this conversation whole. When a call can return a \
         large payload (long lists, search results, documents), ask it for less (filters, limits, fields), or keep \
         the payload out: index it with {}(content, source) and read only the matching parts with {}(queries); \
         process a payload saved to a file with {}(path, language, code).",
        names.name("ctx_index"),
        names.name("ctx_search"),
        names.name("ctx_execute_file"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cadence_accepts_upstreams_range_only() {
        assert_eq!(every(None), 10);
        assert_eq!(every(Some("1")), 1);
        assert_eq!(every(Some(" 100 ")), 100);
        for bad in ["0", "101", "-3", "x", "", "2.5"] {
            assert_eq!(every(Some(bad)), 10, "{bad}");
        }
    }

    #[test]
    fn the_tip_comes_on_the_first_call_and_every_nth_after() {
        let root = tempfile::tempdir().expect("tempdir");
        let names = CtxToolNames::with_prefix("mcp__context-mode__");
        // SAFETY-free: the variable is unset in unit tests, so the default 10 applies.
        let shown: Vec<bool> = (0..21)
            .map(|_| on_call(root.path(), "s", &names).expect("count").is_some())
            .collect();
        let fired: Vec<usize> = shown
            .iter()
            .enumerate()
            .filter(|(_, s)| **s)
            .map(|(i, _)| i + 1)
            .collect();
        assert_eq!(fired, [1, 11, 21]);
        let tip = on_call(root.path(), "other", &names)
            .expect("count")
            .expect("first call");
        assert!(
            tip.contains("mcp__context-mode__ctx_index(content, source)"),
            "{tip}"
        );
    }
}
