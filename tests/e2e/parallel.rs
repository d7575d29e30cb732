//! A first turn of 8 tool calls at once (issue 30): a fresh `cm serve` gets Claude Code
//! 2.1.332's PreToolUse hooks (ADR 27) as a burst, and every one must be applied. Each
//! call is one the default policy redirects, with a subject of its own that the redirect
//! text names, so the tool result Claude Code sends back shows whether that call's hook
//! was applied: without it a whole-file `Read` returns the file, a `curl` or a `WebFetch`
//! of this server fetches the page. The model is stateless like `script`: the 8 calls
//! while the history holds none of them, then a closing text.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::checks::{Check, excerpt, result_of_call};
use crate::http::Request;
use crate::wire::{Exchange, Turn};

/// The closing text.
pub const DONE: &str = "cm-e2e parallel first turn done";
/// Where the fetching calls point; the scripted server must never be asked for it.
pub const FETCHED_PATH: &str = "/e2e/parallel/";
/// Past the policy's 16 KiB cap on a whole-file `Read`, so the read is redirected.
const FILE_BYTES: usize = 20_000;
const FILE_LINE: &str = "cm-e2e parallel file: the hook should have kept this out\n";

/// One of the first turn's calls; `subject` (the path or URL) is in its redirect text.
pub struct Call {
    pub id: String,
    pub tool: &'static str,
    pub args: Value,
    pub subject: String,
}

/// The 8 calls: three whole-file `Read`s, two `WebFetch`es (Claude Code runs both kinds
/// concurrently), three shell `curl`s, each of this server (`base`) or the project.
pub fn calls(base: &str, project: &Path) -> Vec<Call> {
    (1..=8)
        .map(|n| {
            let id = format!("e2e_parallel_{n}");
            let url = format!("{base}{FETCHED_PATH}{n}");
            match n {
                1..=3 => {
                    let path = file(project, n).display().to_string();
                    Call {
                        id,
                        tool: "Read",
                        args: json!({"file_path": path}),
                        subject: path,
                    }
                }
                4..=5 => Call {
                    id,
                    tool: "WebFetch",
                    args: json!({"url": url, "prompt": "What does the page say?"}),
                    subject: url,
                },
                _ => Call {
                    id,
                    tool: "Bash",
                    args: json!({"command": format!("curl -s {url}"), "description": "fetch an e2e page"}),
                    subject: url,
                },
            }
        })
        .collect()
}

fn file(project: &Path, n: usize) -> PathBuf {
    project.join(format!("e2e-parallel-{n}.txt"))
}

/// Writes the files the `Read`s ask for.
pub fn prepare(project: &Path) {
    let text = FILE_LINE.repeat(FILE_BYTES / FILE_LINE.len() + 1);
    for n in 1..=3 {
        std::fs::write(file(project, n), &text).expect("write a parallel-read file");
    }
}

/// The main loop's next turn: the 8 calls at once, or the closing text once the history
/// holds them.
pub fn answer(exchange: &Exchange, base: &str, project: &Path) -> Turn {
    let calls = calls(base, project);
    if calls.iter().any(|c| exchange.call(&c.id).is_some()) {
        return Turn::Text(DONE.to_owned());
    }
    Turn::Parallel(
        calls
            .into_iter()
            .map(|c| Turn::call(&c.id, c.tool, exchange, c.args))
            .collect(),
    )
}

/// Every call's result is its own hook's redirect; nothing the calls fetch reached this
/// server; the session closes; and the server answered exactly 8 PreToolUse hooks.
pub fn checks(
    requests: &[Request],
    base: &str,
    project: &Path,
    home: &Path,
    output: &Output,
) -> Vec<Check> {
    let calls = calls(base, project);
    let missed: Vec<String> = calls
        .iter()
        .filter_map(|call| {
            let why = match result_of_call(requests, &call.id) {
                Ok(text) if text.contains("redirected to") && text.contains(&call.subject) => {
                    return None;
                }
                Ok(text) => format!("its result is not our redirect: {}", excerpt(&text)),
                Err(e) => e,
            };
            Some(format!("{} {} {}: {why}", call.id, call.tool, call.subject))
        })
        .collect();
    let fetched: Vec<&str> = requests
        .iter()
        .filter(|r| r.path().starts_with(FETCHED_PATH))
        .map(|r| r.target.as_str())
        .collect();
    let stdout = String::from_utf8_lossy(&output.stdout);
    // Claude Code's own word on a hook that gave no answer (a gone or failing server).
    let no_verdict: Vec<String> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["tag"] == "hook_no_verdict")
        .map(|v| v["hook_no_verdict"]["tool_use_id"].to_string())
        .collect();
    let mut checks = vec![
        Check {
            name: "each of the 8 parallel calls shows its PreToolUse hook's redirect",
            failure: (!missed.is_empty()).then(|| {
                format!(
                    "{} of {} calls without it: {}",
                    missed.len(),
                    calls.len(),
                    missed.join("; ")
                )
            }),
        },
        Check {
            name: "Claude Code reports no tool call whose hook gave no verdict",
            failure: (!no_verdict.is_empty())
                .then(|| format!("no verdict for {}", no_verdict.join(", "))),
        },
        Check {
            name: "no redirected call fetched from the scripted server",
            failure: (!fetched.is_empty()).then(|| format!("fetched: {fetched:?}")),
        },
        Check {
            name: "Claude Code closes the session after the parallel turn",
            failure: (!output.status.success() || !stdout.contains(DONE)).then(|| {
                format!(
                    "exit {}; its output holds the closing text {DONE:?}: {}",
                    output.status,
                    stdout.contains(DONE)
                )
            }),
        },
        crate::checks::hook_replies_check(&output.stdout),
    ];
    checks.extend(crate::served::burst_checks(home, calls.len()));
    checks
}
