//! Per-session hook state that must survive between hook processes: which
//! once-per-session nudges were shown. One small JSON file per session.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct SessionState {
    #[serde(default)]
    pub nudges_shown: Vec<String>,
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

/// Records that a nudge was shown in a session.
pub fn record_nudge(root: &Path, session_id: &str, nudge: &str) -> std::io::Result<()> {
    let path = state_path(root, session_id);
    let mut state = load(root, session_id);
    if state.nudges_shown.iter().any(|n| n == nudge) {
        return Ok(());
    }
    state.nudges_shown.push(nudge.to_string());
    let dir = crate::paths::sessions_dir(root);
    std::fs::create_dir_all(&dir)?;
    let tmp = dir.join(format!(".{}.tmp", std::process::id()));
    std::fs::write(
        &tmp,
        serde_json::to_vec(&state).map_err(std::io::Error::other)?,
    )?;
    std::fs::rename(&tmp, path)
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
}
