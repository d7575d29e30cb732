//! Claude Code's tool hooks answered by the running `cm serve` (ADR 27): what `cm setup`
//! wrote, what the store shows afterwards (hook timings of served calls only, journal
//! rows written through the server), and what Claude Code does when the server the hooks
//! are handed to never starts (it must go on as if no hook were registered).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::checks::{Check, excerpt};
use crate::http::Request;
use crate::model::FIXTURE_BODY;

/// The tool events `cm setup` hands to the server, and their `cm hook` names.
const SERVED: [(&str, &str); 2] = [("PreToolUse", "pretooluse"), ("PostToolUse", "posttooluse")];

/// `path` (the agent's PATH) with its own `node_modules/.bin` first.
pub fn path_with_agent(executable: &Path, path: &std::ffi::OsStr) -> OsString {
    let bin = executable
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(path))).expect("PATH")
}

/// An MCP server over stdio that completes the handshake, lists no tools and never
/// answers `tools/call`: what a hung `cm serve` looks like from the agent.
const SILENT_SERVER: &str = r#"import json, sys
for line in sys.stdin:
    message = json.loads(line)
    method, id = message.get("method"), message.get("id")
    if id is None or method == "tools/call":
        continue
    if method == "initialize":
        result = {"protocolVersion": message["params"]["protocolVersion"],
                  "capabilities": {"tools": {}},
                  "serverInfo": {"name": "context-mode", "version": "0"}}
    elif method == "tools/list":
        result = {"tools": []}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": id, "result": result}) + "\n")
    sys.stdout.flush()
"#;

/// Points the registered MCP server at `command args`.
fn point_server_at(home: &Path, command: &str, args: &[&str]) {
    let path = home.join(".claude.json");
    let text = std::fs::read_to_string(&path).expect("~/.claude.json after cm setup");
    let mut config: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    config["mcpServers"]["context-mode"]["command"] = serde_json::Value::from(command);
    config["mcpServers"]["context-mode"]["args"] = serde_json::json!(args);
    std::fs::write(&path, config.to_string()).expect("write ~/.claude.json");
}

/// Points the registered MCP server at a program that does not exist.
pub fn point_server_nowhere(home: &Path) {
    point_server_at(home, "/nonexistent/context-mode-gone/cm", &["serve"]);
}

/// Points the registered MCP server at [`SILENT_SERVER`].
pub fn point_server_at_a_silent_one(home: &Path) {
    let script = home.join("silent-mcp-server.py");
    std::fs::write(&script, SILENT_SERVER).expect("write the silent server");
    point_server_at(home, "python3", &[script.to_str().expect("UTF-8 path")]);
}

/// The `type` of our handler under each served event in `~/.claude/settings.json`.
fn handler_types(home: &Path) -> Result<Vec<(String, String)>, String> {
    let path = home.join(".claude/settings.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let settings: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(SERVED
        .iter()
        .map(|(event, _)| {
            let kind = settings["hooks"][*event][0]["hooks"][0]["type"]
                .as_str()
                .unwrap_or("(none)");
            ((*event).to_owned(), kind.to_owned())
        })
        .collect())
}

fn setup_chose_the_server(home: &Path) -> Check {
    let failure = match handler_types(home) {
        Ok(types) if types.iter().all(|(_, kind)| kind == "mcp_tool") => None,
        Ok(types) => Some(format!("the tool hooks cm setup wrote: {types:?}")),
        Err(e) => Some(e),
    };
    Check {
        name: "cm setup hands the tool hooks to the server (mcp_tool)",
        failure,
    }
}

/// Every project store under the data root (`~/.context-mode` in the throw-away HOME).
fn stores(home: &Path) -> Vec<PathBuf> {
    files_under(home)
        .into_iter()
        .filter(|path| path.file_name().is_some_and(|n| n == "context.db"))
        .collect()
}

/// Every file below `dir`.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found
}

/// What the store shows after a session, over every store.
struct StoreRows {
    /// (event, runs) of the hook timings.
    timings: Vec<(String, i64)>,
    /// The journal's row count.
    journal: i64,
    /// (recorded at in ms, duration in µs) of each served PreToolUse.
    served_pre: Vec<(i64, i64)>,
}

impl StoreRows {
    fn runs(&self, event: &str) -> i64 {
        self.timings
            .iter()
            .filter(|(e, _)| e == event)
            .map(|(_, n)| n)
            .sum()
    }

    /// The most served PreToolUse hooks that were running at one time.
    fn most_served_pre_at_once(&self) -> usize {
        let spans: Vec<(i64, i64)> = self
            .served_pre
            .iter()
            .map(|(end_ms, us)| (end_ms * 1000 - us, end_ms * 1000))
            .collect();
        spans
            .iter()
            .map(|(start, _)| {
                spans
                    .iter()
                    .filter(|(s, e)| s <= start && start <= e)
                    .count()
            })
            .max()
            .unwrap_or(0)
    }
}

fn store_rows(home: &Path) -> Result<StoreRows, String> {
    let mut rows = StoreRows {
        timings: Vec::new(),
        journal: 0,
        served_pre: Vec::new(),
    };
    for path in stores(home) {
        let db = rusqlite::Connection::open_with_flags(
            &path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .map_err(|e| format!("{}: {e}", path.display()))?;
        rows.timings.extend(query(
            &db,
            "SELECT event, count(*) FROM hook_timings WHERE platform = 'claude-code' GROUP BY event",
        )?);
        rows.served_pre.extend(query(
            &db,
            "SELECT created_at, duration_us FROM hook_timings WHERE platform = 'claude-code' AND event = 'pretooluse (served)'",
        )?);
        rows.journal += db
            .query_row("SELECT count(*) FROM journal", [], |row| {
                row.get::<_, i64>(0)
            })
            .map_err(|e| e.to_string())?;
    }
    Ok(rows)
}

/// The two columns of each row `sql` selects.
fn query<A: rusqlite::types::FromSql, B: rusqlite::types::FromSql>(
    db: &rusqlite::Connection,
    sql: &str,
) -> Result<Vec<(A, B)>, String> {
    let mut statement = db.prepare(sql).map_err(|e| e.to_string())?;
    statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .map_err(|e| e.to_string())?
        .map(|row| row.map_err(|e| e.to_string()))
        .collect()
}

/// The store's rows, or a failed check saying why they cannot be read.
fn read_store(home: &Path, checks: &mut Vec<Check>) -> Option<StoreRows> {
    store_rows(home)
        .map_err(|e| {
            checks.push(Check {
                name: "the store shows the served hooks",
                failure: Some(e),
            })
        })
        .ok()
}

fn no_hook_process_check(rows: &StoreRows) -> Check {
    let spawned: Vec<&str> = SERVED
        .iter()
        .map(|(_, cli)| *cli)
        .chain(["posttoolusefailure"])
        .filter(|cli| rows.runs(cli) > 0)
        .collect();
    Check {
        name: "no cm hook process ran for a tool event",
        failure: (!spawned.is_empty()).then(|| {
            format!(
                "cm hook processes timed for {spawned:?}; timings: {:?}",
                rows.timings
            )
        }),
    }
}

/// After a session with served hooks: the store shows the served calls and no `cm hook`
/// process for the tool events, and the journal has rows.
pub fn served_checks(home: &Path, _project: &Path) -> Vec<Check> {
    let mut checks = vec![setup_chose_the_server(home)];
    checks.extend(plugin_served_checks(home));
    checks
}

/// The store's side of [`served_checks`]: the server answered the tool hooks, no `cm
/// hook` process ran for them, the journal has rows (also what a plugin's hooks show).
pub fn plugin_served_checks(home: &Path) -> Vec<Check> {
    let mut checks = Vec::new();
    let Some(rows) = read_store(home, &mut checks) else {
        return checks;
    };
    let missing: Vec<&str> = SERVED
        .iter()
        .map(|(_, cli)| *cli)
        .filter(|cli| rows.runs(&format!("{cli} (served)")) == 0)
        .collect();
    checks.push(Check {
        name: "the server answered PreToolUse and PostToolUse",
        failure: (!missing.is_empty()).then(|| {
            format!(
                "no served timing for {missing:?}; timings: {:?}",
                rows.timings
            )
        }),
    });
    checks.push(no_hook_process_check(&rows));
    checks.push(Check {
        name: "the served hooks wrote journal rows",
        failure: (rows.journal == 0)
            .then(|| format!("the journal is empty; timings: {:?}", rows.timings)),
    });
    checks
}

/// After a burst of `calls` tool calls whose PreToolUse hooks are all served: the store
/// timed exactly that many served PreToolUse and no `cm hook` process for a tool event.
/// Prints how many of them ran at one time.
pub fn burst_checks(home: &Path, calls: usize) -> Vec<Check> {
    let mut checks = vec![setup_chose_the_server(home)];
    let Some(rows) = read_store(home, &mut checks) else {
        return checks;
    };
    println!(
        "e2e: the server ran up to {} of {} served PreToolUse hooks at one time",
        rows.most_served_pre_at_once(),
        rows.served_pre.len()
    );
    checks.push(Check {
        name: "the server answered a PreToolUse hook for each call",
        failure: (rows.served_pre.len() != calls).then(|| {
            format!(
                "{} served PreToolUse timed for {calls} calls; timings: {:?}",
                rows.served_pre.len(),
                rows.timings
            )
        }),
    });
    checks.push(no_hook_process_check(&rows));
    checks
}

/// With the server gone: the hooks are still `mcp_tool` entries, and the shell `curl`
/// ran as if no hook were registered (its result is the fixture, not a refusal).
pub fn fail_open_checks(requests: &[Request], home: &Path, output: &Output) -> Vec<Check> {
    let mut checks = vec![setup_chose_the_server(home)];
    checks.extend(went_on_checks(requests, output));
    checks
}

/// The shell `curl` ran as if no hook were registered, and the session finished.
pub fn went_on_checks(requests: &[Request], output: &Output) -> Vec<Check> {
    let mut checks = Vec::new();
    let shell_result = crate::checks::result_of_call(requests, crate::script::SHELL);
    checks.push(Check {
        name: "the shell curl runs when the server the hooks go to is gone",
        failure: match shell_result {
            Ok(text) if text.contains(FIXTURE_BODY.trim()) => None,
            Ok(text) => Some(format!(
                "the shell result is not the fixture: {}",
                excerpt(&text)
            )),
            Err(e) => Some(e),
        },
    });
    checks.push(Check {
        name: "Claude Code finishes the session",
        failure: (!output.status.success()).then(|| format!("exit {}", output.status)),
    });
    checks
}
