//! `cm statusline`: one line for an agent's status bar, from one read-only open of the
//! project database and a few indexed queries. It never fails: any problem gives a
//! short neutral line.

use std::path::{Path, PathBuf};

use super::math::{count, percent_text};
use super::stats::{ToolLine, Totals, reported_session};
use crate::store::Store;

/// The line when nothing was measured yet (or nothing can be read).
pub const NOTHING_YET: &str = "context-mode: no tool output measured yet";
/// The line when the project database exists but cannot be read.
pub const UNAVAILABLE: &str = "context-mode: stats unavailable";

/// What the agent's status JSON tells us (Claude Code: `session_id`, `workspace.project_dir`,
/// `workspace.current_dir`, `cwd`). Anything missing or malformed is simply absent.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct StatusInput {
    pub session_id: Option<String>,
    pub project_dir: Option<PathBuf>,
}

impl StatusInput {
    pub fn parse(text: &str) -> Self {
        let Ok(json) = serde_json::from_str::<serde_json::Value>(text) else {
            return StatusInput::default();
        };
        let string = |value: &serde_json::Value| {
            value
                .as_str()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
        };
        let project_dir = [
            &json["workspace"]["project_dir"],
            &json["workspace"]["current_dir"],
            &json["cwd"],
        ]
        .into_iter()
        .filter_map(string)
        .map(PathBuf::from)
        .find(|p| p.is_absolute());
        StatusInput {
            session_id: string(&json["session_id"]),
            project_dir,
        }
    }
}

/// The status line of `project_dir`'s session `session_id` (or, when the agent names
/// none, the session that measured last).
pub fn line(root: &Path, project_dir: &Path, session_id: Option<&str>) -> String {
    let db = crate::paths::project_db(root, project_dir);
    if !db.is_file() {
        return NOTHING_YET.to_string();
    }
    let totals = Store::open_read_only(&db).and_then(|store| {
        // The agent named its session: that session's figures, even when it measured
        // nothing yet (the server records under the agent's id, ADR 0021); only a
        // status JSON without one falls back to the session that measured last.
        let given = session_id.map(str::trim).filter(|s| !s.is_empty());
        let session = match given {
            Some(id) => id.to_string(),
            None => match reported_session(&store, None)? {
                Some(session) => session,
                None => return Ok(Totals::default()),
            },
        };
        let tools: Vec<ToolLine> = store
            .tool_stats_summary(Some(&session))?
            .into_iter()
            .map(ToolLine::from)
            .collect();
        Ok(Totals::of(&tools))
    });
    match totals {
        Err(err) => {
            tracing::debug!("statusline: {err}");
            UNAVAILABLE.to_string()
        }
        Ok(t) if t.is_unmeasured() => NOTHING_YET.to_string(),
        Ok(t) => format!(
            "context-mode: {} kept out ({}) · {}",
            crate::human::bytes(t.kept_out_bytes),
            percent_text(t.raw_bytes, t.returned_bytes),
            count(t.calls, "call")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_json_is_read_leniently() {
        // Absolute on this OS (`/tmp/x` is not absolute on Windows).
        let dir = |name: &str| std::env::temp_dir().join(name);
        let input = StatusInput::parse(
            &serde_json::json!({
                "session_id": "abc",
                "cwd": dir("x"),
                "workspace": {"current_dir": dir("y"), "project_dir": dir("p")},
            })
            .to_string(),
        );
        assert_eq!(input.session_id.as_deref(), Some("abc"));
        assert_eq!(input.project_dir, Some(dir("p")));
        let input = StatusInput::parse(
            &serde_json::json!({"cwd": dir("x"), "workspace": {"current_dir": "rel"}}).to_string(),
        );
        assert_eq!(input.project_dir, Some(dir("x")));
        assert_eq!(StatusInput::parse("not json"), StatusInput::default());
        assert_eq!(StatusInput::parse(""), StatusInput::default());
        assert_eq!(
            StatusInput::parse(r#"{"session_id": 7, "cwd": ["x"]}"#),
            StatusInput::default()
        );
    }

    #[test]
    fn lines_for_nothing_some_and_a_broken_database() {
        let root = tempfile::tempdir().expect("root");
        let project = tempfile::tempdir().expect("project");
        assert_eq!(line(root.path(), project.path(), None), NOTHING_YET);
        let mut store = Store::open(root.path(), project.path()).expect("store");
        assert_eq!(line(root.path(), project.path(), None), NOTHING_YET);
        store
            .record_tool_stats("s1", "ctx_execute", 20_000, 1_234, false)
            .expect("record");
        store
            .record_tool_stats("s1", "ctx_search", 300, 300, false)
            .expect("record");
        store
            .record_tool_stats("s0", "ctx_execute", 9_000, 0, false)
            .expect("record");
        // s0 measured last, so it is the session shown when none is given.
        assert_eq!(
            line(root.path(), project.path(), None),
            "context-mode: 8.8 KB kept out (100.0%) · 1 call"
        );
        // 20,300 raw, 1,534 returned: 18,766 B kept out, 92.4%.
        assert_eq!(
            line(root.path(), project.path(), Some("s1")),
            "context-mode: 18.3 KB kept out (92.4%) · 2 calls"
        );
        // The agent's own session, new: its nothing, not another session's figures.
        assert_eq!(line(root.path(), project.path(), Some("s2")), NOTHING_YET);
        let db = store.path().to_path_buf();
        drop(store);
        std::fs::write(&db, b"not a database at all, not even close").expect("garbage");
        let _ = std::fs::remove_file(db.with_extension("db-wal"));
        let _ = std::fs::remove_file(db.with_extension("db-shm"));
        assert_eq!(line(root.path(), project.path(), Some("s1")), UNAVAILABLE);
    }
}
