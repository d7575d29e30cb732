//! Per-session hook state that must survive between hook processes: which
//! once-per-session nudges were shown, and context held for the next event that
//! can carry it. One small JSON file per session under the data root.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::limits::HELD_CONTEXT_MAX_BYTES;

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct SessionState {
    #[serde(default)]
    pub nudges_shown: Vec<String>,
    /// Context a pre-tool-use could not carry (see `hooks::reply`), oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held_context: Vec<String>,
    /// Calls of other MCP servers' tools seen by PreToolUse (the external-MCP tip's count).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub external_mcp_calls: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn state_path(root: &Path, session_id: &str) -> PathBuf {
    use sha2::{Digest, Sha256};
    // Session ids come from the agent: hash them rather than trust them as file names.
    let key = hex::encode(&Sha256::digest(session_id.as_bytes())[..12]);
    crate::paths::sessions_dir(root).join(format!("{key}.json"))
}

/// The state of a session; missing or unreadable state is empty.
pub fn load(root: &Path, session_id: &str) -> SessionState {
    std::fs::read(state_path(root, session_id))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

fn save(root: &Path, session_id: &str, state: &SessionState) -> std::io::Result<()> {
    let dir = crate::paths::sessions_dir(root);
    std::fs::create_dir_all(&dir)?;
    let tmp = crate::paths::temp_name(&dir, "session");
    std::fs::write(
        &tmp,
        serde_json::to_vec(state).map_err(std::io::Error::other)?,
    )?;
    crate::platform::fs::replace_state_file(&tmp, &state_path(root, session_id))
}

/// Records that a nudge was shown in a session.
pub fn record_nudge(root: &Path, session_id: &str, nudge: &str) -> std::io::Result<()> {
    let mut state = load(root, session_id);
    if state.nudges_shown.iter().any(|n| n == nudge) {
        return Ok(());
    }
    state.nudges_shown.push(nudge.to_string());
    save(root, session_id, &state)
}

/// Counts one call of another MCP server's tool; returns the session's count so far.
pub fn count_external_mcp_call(root: &Path, session_id: &str) -> std::io::Result<u64> {
    let mut state = load(root, session_id);
    state.external_mcp_calls = state.external_mcp_calls.saturating_add(1);
    save(root, session_id, &state)?;
    Ok(state.external_mcp_calls)
}

/// Holds context for the session's next event that can carry it. The same text is held
/// once; past HELD_CONTEXT_MAX_BYTES the oldest texts are dropped.
pub fn hold_context(root: &Path, session_id: &str, text: &str) -> std::io::Result<()> {
    let mut state = load(root, session_id);
    if state.held_context.iter().any(|held| held == text) {
        return Ok(());
    }
    state.held_context.push(text.to_string());
    while state.held_context.iter().map(String::len).sum::<usize>() > HELD_CONTEXT_MAX_BYTES
        && state.held_context.len() > 1
    {
        state.held_context.remove(0);
    }
    save(root, session_id, &state)
}

/// Takes the session's held context (oldest first), leaving none behind.
pub fn take_held_context(root: &Path, session_id: &str) -> std::io::Result<Vec<String>> {
    let mut state = load(root, session_id);
    if state.held_context.is_empty() {
        return Ok(Vec::new());
    }
    let held = std::mem::take(&mut state.held_context);
    save(root, session_id, &state)?;
    Ok(held)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nudges_are_remembered_per_session() {
        let root = tempfile::tempdir().expect("tempdir");
        record_nudge(root.path(), "s1", "grep").expect("record");
        record_nudge(root.path(), "s1", "grep").expect("record twice");
        assert_eq!(load(root.path(), "s1").nudges_shown, vec!["grep"]);
        assert!(load(root.path(), "s2").nudges_shown.is_empty());
        assert!(
            load(root.path(), "../../etc/passwd")
                .nudges_shown
                .is_empty()
        );
    }

    #[test]
    fn held_context_is_taken_once_per_session_and_keeps_the_nudges() {
        let root = tempfile::tempdir().expect("tempdir");
        record_nudge(root.path(), "s1", "grep").expect("record");
        hold_context(root.path(), "s1", "tip").expect("hold");
        hold_context(root.path(), "s1", "tip").expect("hold again");
        hold_context(root.path(), "s1", "reason").expect("hold");
        assert!(
            take_held_context(root.path(), "s2")
                .expect("other")
                .is_empty()
        );
        assert_eq!(
            take_held_context(root.path(), "s1").expect("take"),
            vec!["tip", "reason"]
        );
        assert!(
            take_held_context(root.path(), "s1")
                .expect("again")
                .is_empty()
        );
        assert_eq!(load(root.path(), "s1").nudges_shown, vec!["grep"]);
    }

    #[test]
    fn held_context_is_bounded_oldest_first() {
        let root = tempfile::tempdir().expect("tempdir");
        let big = "x".repeat(HELD_CONTEXT_MAX_BYTES / 2);
        for n in 0..4 {
            hold_context(root.path(), "s", &format!("{n}{big}")).expect("hold");
        }
        let held = take_held_context(root.path(), "s").expect("take");
        assert_eq!(held.len(), 1);
        assert!(held[0].starts_with('3'));
    }
}
