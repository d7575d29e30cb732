//! Helpers of the sandbox tests and the savings bench: fixtures, runtimes on PATH,
//! and the project store's `tool_stats` rows as a user's `cm stats` would read them.

use std::path::{Path, PathBuf};

use crate::common::Sandbox;

/// The fixtures committed under `tests/fixtures/`: `CM_FIXTURES_DIR` overrides.
pub fn fixtures_dir() -> PathBuf {
    match std::env::var_os("CM_FIXTURES_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => crate::common::repo_root().join("tests/fixtures"),
    }
}

pub fn fixture(name: &str) -> Vec<u8> {
    let path = fixtures_dir().join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("fixture {}: {e}", path.display()))
}

/// Whether `program` is an executable file on this process's PATH.
pub fn on_path(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    std::env::split_paths(&path).any(|dir| {
        std::fs::metadata(dir.join(program))
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}

/// One row of `tool_stats`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatsRow {
    pub tool: String,
    pub raw_bytes: u64,
    pub returned_bytes: u64,
}

/// The project's database (the sandbox has exactly one project).
pub fn project_db(sandbox: &Sandbox) -> PathBuf {
    let projects = sandbox.root.join("projects");
    let mut dbs: Vec<PathBuf> = std::fs::read_dir(&projects)
        .unwrap_or_else(|e| panic!("{}: {e}", projects.display()))
        .flatten()
        .map(|e| e.path().join("context.db"))
        .filter(|p| p.is_file())
        .collect();
    assert_eq!(
        dbs.len(),
        1,
        "one project database under {}",
        projects.display()
    );
    dbs.remove(0)
}

/// Every `tool_stats` row, oldest first.
pub fn stats_rows(db: &Path) -> Vec<StatsRow> {
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap_or_else(|e| panic!("open {}: {e}", db.display()));
    let mut statement = conn
        .prepare("SELECT tool, raw_bytes, returned_bytes FROM tool_stats ORDER BY id")
        .expect("prepare");
    statement
        .query_map([], |row| {
            Ok(StatsRow {
                tool: row.get(0)?,
                raw_bytes: row.get::<_, i64>(1)? as u64,
                returned_bytes: row.get::<_, i64>(2)? as u64,
            })
        })
        .expect("query")
        .map(|r| r.expect("row"))
        .collect()
}

/// The source label a shaped reply names: `… indexed as source "<label>"`.
pub fn source_label(reply: &str) -> Option<String> {
    let start = reply.find("as source \"")? + "as source \"".len();
    let end = reply[start..].find('"')? + start;
    Some(reply[start..end].to_string())
}
