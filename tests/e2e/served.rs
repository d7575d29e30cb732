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
    let mut found = Vec::new();
    let mut pending = vec![home.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.file_name().is_some_and(|n| n == "context.db") {
                found.push(path);
            }
        }
    }
    found
}

/// (event, runs) of the hook timings and the journal's row count, over every store.
fn store_rows(home: &Path) -> Result<(Vec<(String, i64)>, i64), String> {
    let mut timings = Vec::new();
    let mut journal = 0;
    for path in stores(home) {
        let db = rusqlite::Connection::open_with_flags(
            &path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .map_err(|e| format!("{}: {e}", path.display()))?;
        let mut query = db
            .prepare("SELECT event, count(*) FROM hook_timings WHERE platform = 'claude-code' GROUP BY event")
            .map_err(|e| e.to_string())?;
        let rows = query
            .query_map([], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?))
            })
            .map_err(|e| e.to_string())?;
        for row in rows {
            timings.push(row.map_err(|e| e.to_string())?);
        }
        journal += db
            .query_row("SELECT count(*) FROM journal", [], |row| {
                row.get::<_, i64>(0)
            })
            .map_err(|e| e.to_string())?;
    }
    Ok((timings, journal))
}

/// After a session with served hooks: the store shows the served calls and no `cm hook`
/// process for the tool events, and the journal has rows.
pub fn served_checks(home: &Path, _project: &Path) -> Vec<Check> {
    let mut checks = vec![setup_chose_the_server(home)];
    let (timings, journal) = match store_rows(home) {
        Ok(rows) => rows,
        Err(e) => {
            checks.push(Check {
                name: "the store shows the served hooks",
                failure: Some(e),
            });
            return checks;
        }
    };
    let runs = |event: &str| {
        timings
            .iter()
            .filter(|(e, _)| e == event)
            .map(|(_, n)| n)
            .sum::<i64>()
    };
    let missing: Vec<&str> = SERVED
        .iter()
        .map(|(_, cli)| *cli)
        .filter(|cli| runs(&format!("{cli} (served)")) == 0)
        .collect();
    checks.push(Check {
        name: "the server answered PreToolUse and PostToolUse",
        failure: (!missing.is_empty())
            .then(|| format!("no served timing for {missing:?}; timings: {timings:?}")),
    });
    let spawned: Vec<&str> = SERVED
        .iter()
        .map(|(_, cli)| *cli)
        .chain(["posttoolusefailure"])
        .filter(|cli| runs(cli) > 0)
        .collect();
    checks.push(Check {
        name: "no cm hook process ran for a tool event",
        failure: (!spawned.is_empty())
            .then(|| format!("cm hook processes timed for {spawned:?}; timings: {timings:?}")),
    });
    checks.push(Check {
        name: "the served hooks wrote journal rows",
        failure: (journal == 0).then(|| format!("the journal is empty; timings: {timings:?}")),
    });
    checks
}

/// With the server gone: the hooks are still `mcp_tool` entries, and the shell `curl`
/// ran as if no hook were registered (its result is the fixture, not a refusal).
pub fn fail_open_checks(requests: &[Request], home: &Path, output: &Output) -> Vec<Check> {
    let mut checks = vec![setup_chose_the_server(home)];
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
