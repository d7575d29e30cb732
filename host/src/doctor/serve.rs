//! The MCP server: a live self-test of `cm serve` (spawn, initialize, tools/list, exit
//! on closed stdin) and whether a server for this user is reachable right now (the
//! readiness marker the hooks look at before redirecting to `ctx_*` tools).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::Check;

const SELF_TEST: &str = "cm serve self-test";
const READINESS: &str = "live server";
const DEBUG_FIX: &str = "CM_LOG=debug cm serve < /dev/null   # shows why the server stops";

pub fn readiness(root: Option<&Path>) -> Check {
    let Some(root) = root else {
        return Check::warn(READINESS, "not checked: no usable data root", None);
    };
    if crate::readiness::server_live(root) {
        Check::pass(
            READINESS,
            "a cm serve for this data root is running: hooks redirect to the ctx_* tools",
        )
    } else {
        Check::warn(
            READINESS,
            "no cm serve running for this data root: hooks let calls through instead of redirecting to ctx_* tools (normal while no agent session is open)",
            None,
        )
    }
}

/// Runs `exe serve` like an agent would and reports the round trip.
/// Runs in the project (when there is one) and expects `expected` in tools/list.
pub fn self_test(
    exe: &Path,
    project_dir: Option<&Path>,
    expected: &[&str],
    limit: Duration,
) -> Check {
    let started = Instant::now();
    let deadline = started + limit;
    let mut command = Command::new(exe);
    command
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = project_dir.filter(|dir| dir.is_dir()) {
        command.current_dir(dir);
    }
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => {
            return Check::fail(
                SELF_TEST,
                format!("cannot start {} serve: {err}", exe.display()),
                Some(DEBUG_FIX.into()),
            );
        }
    };
    let outcome = converse(&mut child, expected, deadline, limit);
    let exited = wait_until(&mut child, deadline);
    let stderr_tail = child
        .stderr
        .take()
        .map(|mut pipe| {
            // The child has exited or been killed, so this read ends.
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text.lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("")
                .trim()
                .to_string()
        })
        .unwrap_or_default();
    let elapsed_ms = started.elapsed().as_millis();
    match (outcome, exited) {
        (Ok(round_trip_ms), true) => Check::pass(
            SELF_TEST,
            format!(
                "initialize + tools/list in {round_trip_ms} ms, all {} ctx tools listed, exited when stdin closed ({elapsed_ms} ms in all)",
                expected.len()
            ),
        ),
        (Ok(_), false) => Check::fail(
            SELF_TEST,
            format!(
                "answered, but did not exit within {} ms of starting, after stdin closed (agents would leave orphan servers)",
                limit.as_millis()
            ),
            Some(DEBUG_FIX.into()),
        ),
        (Err(problem), _) => {
            let said = if stderr_tail.is_empty() {
                String::new()
            } else {
                format!("; it said: {stderr_tail}")
            };
            Check::fail(
                SELF_TEST,
                format!("{problem}{said}"),
                Some(DEBUG_FIX.into()),
            )
        }
    }
}

/// Where the self-test's conversation with `cm serve` went wrong; one line each.
#[derive(Debug, thiserror::Error)]
enum ServeProbeError {
    #[error("no {0} pipe")]
    NoPipe(&'static str),
    #[error("the server closed its input: {0}")]
    InputClosed(std::io::Error),
    #[error("initialize answered without serverInfo: {0}")]
    NoServerInfo(String),
    #[error("tools/list lacks {}", .0.join(", "))]
    ToolsMissing(Vec<String>),
    #[error("no {what} reply within {ms} ms")]
    NoReply { what: &'static str, ms: u128 },
    #[error("the server exited before answering {0}")]
    Exited(&'static str),
    #[error("the server wrote a non-JSON line to stdout: {0}")]
    NotJson(String),
    #[error("{what} failed: {error}")]
    Failed { what: &'static str, error: String },
}

/// The handshake and tools/list; answers the milliseconds from spawn to the list.
/// Closes the child's stdin before returning.
fn converse(
    child: &mut Child,
    expected: &[&str],
    deadline: Instant,
    limit: Duration,
) -> Result<u128, ServeProbeError> {
    let started = Instant::now();
    let mut stdin = child.stdin.take().ok_or(ServeProbeError::NoPipe("stdin"))?;
    let stdout = child
        .stdout
        .take()
        .ok_or(ServeProbeError::NoPipe("stdout"))?;
    let (lines_tx, lines) = mpsc::channel::<String>();
    // Ends by itself when the child's stdout closes (exit or kill).
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut send = |message: serde_json::Value| {
        writeln!(stdin, "{message}")
            .and_then(|()| stdin.flush())
            .map_err(ServeProbeError::InputClosed)
    };
    send(serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": { "name": "cm-doctor", "version": env!("CARGO_PKG_VERSION") }
        }
    }))?;
    let init = reply(&lines, 1, deadline, limit, "initialize")?;
    if init
        .get("result")
        .and_then(|r| r.get("serverInfo"))
        .is_none()
    {
        return Err(ServeProbeError::NoServerInfo(short(&init)));
    }
    send(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
    send(serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}))?;
    let list = reply(&lines, 2, deadline, limit, "tools/list")?;
    let round_trip_ms = started.elapsed().as_millis();
    drop(stdin);
    let listed: Vec<&str> = list
        .pointer("/result/tools")
        .and_then(|t| t.as_array())
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t.get("name")?.as_str())
                .collect()
        })
        .unwrap_or_default();
    let missing: Vec<&str> = expected
        .iter()
        .copied()
        .filter(|name| !listed.contains(name))
        .collect();
    if !missing.is_empty() {
        return Err(ServeProbeError::ToolsMissing(
            missing.iter().map(|name| name.to_string()).collect(),
        ));
    }
    Ok(round_trip_ms)
}

/// The message with this id, skipping notifications and anything else.
fn reply(
    lines: &mpsc::Receiver<String>,
    id: u64,
    deadline: Instant,
    limit: Duration,
    what: &'static str,
) -> Result<serde_json::Value, ServeProbeError> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = match lines.recv_timeout(left) {
            Ok(line) => line,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                return Err(ServeProbeError::NoReply {
                    what,
                    ms: limit.as_millis(),
                });
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(ServeProbeError::Exited(what));
            }
        };
        let message: serde_json::Value =
            serde_json::from_str(&line).map_err(|_| ServeProbeError::NotJson(short_text(&line)))?;
        if message.get("id") == Some(&serde_json::json!(id)) {
            if let Some(error) = message.get("error") {
                return Err(ServeProbeError::Failed {
                    what,
                    error: short(error),
                });
            }
            return Ok(message);
        }
    }
}

/// Waits for the child to exit until `deadline`; kills it after that. True when it
/// exited by itself.
fn wait_until(child: &mut Child, deadline: Instant) -> bool {
    loop {
        match child.try_wait() {
            Ok(Some(_)) => return true,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(2)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return false;
            }
        }
    }
}

fn short(value: &serde_json::Value) -> String {
    short_text(&value.to_string())
}

fn short_text(text: &str) -> String {
    let mut cut = text.len().min(160);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text[..cut].to_string()
}
