//! One scripted session: a throw-away HOME and project, `cm setup`, the agent run on the
//! scripted model, then every check read from the recorded requests. All checks run and
//! all failures are reported together, with the agent's output tail and a summary of
//! the requests, so one run shows everything that is wrong.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::agents::{Agent, Host, PROMPT};
use crate::http::Request;
use crate::model::{self, FIXTURE_BODY, Provider};
use crate::script;
use crate::wire::Exchange;

/// A guard, not an assertion: an agent still running after this is stopped and the test
/// fails saying so (a scripted session takes seconds).
const AGENT_RUN_LIMIT: Duration = Duration::from_secs(180);

/// The first words of the routing block our SessionStart hook adds.
const ROUTING_MARK: &str = "context-mode is active";

pub struct Check {
    pub name: &'static str,
    pub failure: Option<String>,
}

pub struct Session {
    pub label: String,
    pub version: String,
    pub took: Duration,
    pub output: Output,
    pub requests: Vec<Request>,
    pub checks: Vec<Check>,
}

/// Runs `agent` end to end and returns what happened; `assert_all` turns it into a verdict.
pub fn run(agent: &Agent) -> Session {
    let executable = crate::install::installed(agent.package, agent.version, agent.bin)
        .unwrap_or_else(|line| panic!("{line}"));
    let dir = tempfile::tempdir().expect("tempdir");
    let canon = |p: PathBuf| {
        std::fs::create_dir_all(&p).expect("mkdir");
        p.canonicalize().expect("canonicalize")
    };
    let home = canon(dir.path().join("home"));
    let project = canon(dir.path().join("project"));
    let server = model::start();
    let base = server.base();

    let version = capture(plain(
        Command::new(&executable).arg("--version"),
        &home,
        &project,
        &base,
    ));
    let version = String::from_utf8_lossy(&version.stdout).trim().to_owned();
    println!("e2e: {} reports version {version:?}", agent.label());

    agent.configure(&home, &project, &base);
    let setup = capture(
        plain(
            &mut Command::new(env!("CARGO_BIN_EXE_cm")),
            &home,
            &project,
            &base,
        )
        .args(["setup", "--agents", agent.setup_id(), "--yes"]),
    );
    assert!(
        setup.status.success(),
        "cm setup --agents {} failed:\n{}{}",
        agent.setup_id(),
        String::from_utf8_lossy(&setup.stdout),
        String::from_utf8_lossy(&setup.stderr)
    );

    let started = Instant::now();
    let run = |prompt: &str, resume: Option<&str>| {
        let mut command = Command::new(&executable);
        plain(&mut command, &home, &project, &base);
        agent.apply(&mut command, &base, prompt, resume);
        capture(&mut command)
    };
    let mut output = run(PROMPT, None);
    let took = started.elapsed();
    if agent.host == Host::Claude {
        // Claude Code does not compact on its own within a `-p` turn; `/compact` on the
        // resumed session does, and the next resumed run shows what the model gets.
        let id = session_id(&output.stdout);
        for (label, prompt) in [
            ("/compact", "/compact"),
            ("the run after it", script::AFTER_COMPACTION_PROMPT),
        ] {
            let more = run(prompt, id.as_deref());
            output.stdout.extend(format!("\n[e2e: {label}]\n").bytes());
            output.stdout.extend(&more.stdout);
            output.stderr.extend(&more.stderr);
        }
    }
    let requests = server.requests();
    let mut checks = checks(&requests);
    if agent.compacts() {
        checks.push(compaction_check(&requests));
    }
    if agent.host == Host::Claude {
        checks.push(hook_replies_check(&output.stdout));
    }
    drop(dir);
    Session {
        label: agent.label(),
        version,
        took,
        output,
        requests,
        checks,
    }
}

/// A command with only what a user's shell would give it: PATH, the throw-away HOME,
/// the project as working directory, and every proxy pointed at the scripted server so
/// no request an agent makes can leave the machine.
fn plain<'a>(command: &'a mut Command, home: &Path, project: &Path, base: &str) -> &'a mut Command {
    command
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("LANG", "C.UTF-8")
        .env("TERM", "dumb")
        .env("NO_COLOR", "1")
        .current_dir(project);
    for proxy in [
        "HTTPS_PROXY",
        "HTTP_PROXY",
        "ALL_PROXY",
        "https_proxy",
        "http_proxy",
        "all_proxy",
    ] {
        command.env(proxy, base);
    }
    command
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env("no_proxy", "127.0.0.1,localhost")
}

/// Runs to completion (stdin closed), stopped at `AGENT_RUN_LIMIT`.
fn capture(command: &mut Command) -> Output {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let err = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        buf
    });
    let deadline = Instant::now() + AGENT_RUN_LIMIT;
    let status = loop {
        if let Ok(Some(status)) = child.try_wait() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            break child.wait().expect("wait");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = err.join().unwrap_or_default();
    if Instant::now() > deadline {
        stderr.extend(format!("\n[e2e: stopped after {AGENT_RUN_LIMIT:?}]\n").bytes());
    }
    Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr,
    }
}

/// Every model request, read.
fn read_all(requests: &[Request]) -> Vec<Exchange> {
    requests
        .iter()
        .filter_map(|r| Some((Provider::of(r)?, r.json()?)))
        .map(|(provider, body)| provider.read(&body))
        .collect()
}

/// The first `session_id` of a stream-json output.
fn session_id(stdout: &[u8]) -> Option<String> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find_map(|v| v["session_id"].as_str().map(str::to_owned))
}

/// (f) After a compaction the model gets our state block back: a request after the
/// agent's compaction request carries the session's last request (`Last request …:
/// <prompt>`), which the compacted history no longer holds.
fn compaction_check(requests: &[Request]) -> Check {
    let name = "a compaction brings the state block back";
    let exchanges = read_all(requests);
    let Some(at) = exchanges.iter().position(script::is_compaction) else {
        return Check {
            name,
            failure: Some("the agent never asked the model to compact".to_owned()),
        };
    };
    let after: Vec<&Exchange> = exchanges[at + 1..]
        .iter()
        .filter(|e| e.context.contains(script::COMPACT_SUMMARY))
        .collect();
    let failure = match after.last() {
        None => Some("no request after the compaction carries the compacted history".to_owned()),
        Some(_) if after.iter().any(|e| carries_state_block(&e.context)) => None,
        Some(e) => Some(format!(
            "no request after the compaction carries the state block (\"Last request …: {PROMPT}\"); the last one's context ends: {}",
            excerpt(
                &e.context
                    .chars()
                    .rev()
                    .take(600)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect::<String>()
            )
        )),
    };
    Check { name, failure }
}

/// Claude Code reports each hook it ran (`system`/`hook_response` in stream-json) with
/// its outcome: every one must be a success it accepted.
fn hook_replies_check(stdout: &[u8]) -> Check {
    let name = "Claude Code accepts every hook reply";
    let replies: Vec<serde_json::Value> = String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["subtype"] == "hook_response")
        .collect();
    let bad: Vec<String> = replies
        .iter()
        .filter(|v| v["outcome"] != "success" || v["exit_code"] != 0)
        .map(|v| {
            format!(
                "{} outcome={} exit={} stderr={}",
                v["hook_name"], v["outcome"], v["exit_code"], v["stderr"]
            )
        })
        .collect();
    let failure = match (replies.is_empty(), bad.is_empty()) {
        (true, _) => Some("the stream shows no hook reply at all".to_owned()),
        (false, true) => None,
        (false, false) => Some(bad.join("; ")),
    };
    Check { name, failure }
}

/// Our state block's line for the session's last request.
fn carries_state_block(context: &str) -> bool {
    context
        .lines()
        .any(|line| line.contains("Last request") && line.contains(PROMPT))
}

fn checks(requests: &[Request]) -> Vec<Check> {
    let every = read_all(requests);
    // The main loop: the requests that offer a shell tool.
    let exchanges: Vec<Exchange> = every
        .iter()
        .filter(|e| script::shell_tool(e).is_some())
        .cloned()
        .collect();
    let mut checks = Vec::new();
    let mut check =
        |name: &'static str, failure: Option<String>| checks.push(Check { name, failure });
    if exchanges.is_empty() {
        check(
            "the agent asked the scripted model for its main loop",
            Some(format!(
                "no request offered a shell tool ({} requests in all)",
                requests.len()
            )),
        );
        return checks;
    }
    // The fullest history: a compaction request can be the only one holding the last result.
    let Some(last) = every.iter().max_by_key(|e| e.calls.len()) else {
        return checks;
    };
    let result_of = |id: &str| -> Result<(String, bool), String> {
        let call = last
            .call(id)
            .ok_or_else(|| format!("the model's {id} call is not in the history"))?;
        let result = call
            .result
            .clone()
            .ok_or_else(|| format!("the agent sent no result for {} ({})", id, call.name))?;
        Ok((result, call.is_error))
    };

    // (a) The shell call was redirected by our PreToolUse hook.
    check(
        "the hook redirects the shell curl",
        match result_of(script::SHELL) {
            Ok((text, _)) if text.contains("redirected to") => None,
            Ok((text, _)) => Some(format!(
                "the shell result is not our redirect: {}",
                excerpt(&text)
            )),
            Err(e) => Some(e),
        },
    );
    // (b) ctx_execute under the offered name.
    let offered_names = offered(&exchanges);
    check(
        "ctx_execute is offered",
        match offered_names.iter().find(|n| n.ends_with("ctx_execute")) {
            Some(_) => None,
            None => Some(format!(
                "no tool named *ctx_execute among {} offered (MCP server not connected?)",
                offered_names.len()
            )),
        },
    );
    check(
        "ctx_execute returns the command's output",
        returned(result_of(script::EXECUTE), script::EXECUTE_OUTPUT),
    );
    // (c) ctx_index + ctx_search.
    check(
        "ctx_index succeeds",
        match result_of(script::INDEX) {
            Ok((_, false)) => None,
            Ok((text, true)) => Some(excerpt(&text)),
            Err(e) => Some(e),
        },
    );
    check(
        "ctx_search finds what ctx_index indexed",
        returned(result_of(script::SEARCH), script::SEARCH_FINDS),
    );
    // (d) The redirect, followed literally, works.
    let redirect = last
        .call(script::SHELL)
        .and_then(|c| c.result.as_deref())
        .and_then(script::redirect_target);
    check(
        "the tool our redirect names is one the agent offers",
        match &redirect {
            Some((name, _)) if offered_names.contains(name) => None,
            Some((name, _)) => Some(format!(
                "the redirect names {name}; the agent offers {}",
                ctx_names(&offered_names)
            )),
            None => Some("no redirect text to follow".to_owned()),
        },
    );
    check(
        "calling the tool the redirect names succeeds",
        returned(result_of(script::REDIRECT), FIXTURE_BODY.trim()),
    );
    // (e) SessionStart/routing context reached the model, naming tools that exist.
    let context = exchanges
        .iter()
        .map(|e| e.context.as_str())
        .find(|c| c.contains(ROUTING_MARK));
    check(
        "our SessionStart routing block reaches the model",
        match context {
            Some(_) => None,
            None => Some(format!(
                "no main-loop request carries \"{ROUTING_MARK}\" ({} main-loop requests)",
                exchanges.len()
            )),
        },
    );
    if let Some(context) = context {
        let wrong: BTreeSet<String> = mentioned_tools(context)
            .into_iter()
            .filter(|name| !offered_names.contains(name))
            .collect();
        check(
            "every tool the routing block names is offered",
            match wrong.is_empty() {
                true => None,
                false => Some(format!(
                    "named but not offered: {}; offered: {}",
                    wrong.into_iter().collect::<Vec<_>>().join(", "),
                    ctx_names(&offered_names)
                )),
            },
        );
    }
    checks
}

/// `None` when the call succeeded and its result contains `needle`, else why not.
fn returned(result: Result<(String, bool), String>, needle: &str) -> Option<String> {
    match result {
        Ok((text, false)) if text.contains(needle) => None,
        Ok((text, error)) => Some(format!(
            "error={error}, expected {needle:?} in: {}",
            excerpt(&text)
        )),
        Err(e) => Some(e),
    }
}

/// Every name the agent offered the model in any main-loop request, deferred ones too.
fn offered(exchanges: &[Exchange]) -> BTreeSet<String> {
    exchanges
        .iter()
        .flat_map(|e| {
            e.offered
                .iter()
                .map(|o| o.name.clone())
                .chain(e.deferred.iter().cloned())
        })
        .collect()
}

fn ctx_names(names: &BTreeSet<String>) -> String {
    let ctx: Vec<&str> = names
        .iter()
        .filter(|n| n.contains("ctx_"))
        .map(String::as_str)
        .collect();
    if ctx.is_empty() {
        "no ctx_* tool".to_owned()
    } else {
        ctx.join(", ")
    }
}

/// Tool names in a text: words starting with `mcp` that contain `ctx_`.
fn mentioned_tools(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .filter(|w| w.starts_with("mcp") && w.contains("ctx_"))
        .map(str::to_owned)
        .collect()
}

fn excerpt(text: &str) -> String {
    let one_line = text.replace('\n', "⏎");
    match one_line.char_indices().nth(400) {
        Some((at, _)) => format!("{}…", &one_line[..at]),
        None => one_line,
    }
}

impl Session {
    /// Quiet on success; on failure every failed check, the agent's output tail and the
    /// recorded requests.
    pub fn assert_all(&self) {
        let failed: Vec<&Check> = self.checks.iter().filter(|c| c.failure.is_some()).collect();
        println!(
            "e2e: {} ({}) scripted session took {:.1} s, {} requests",
            self.label,
            self.version,
            self.took.as_secs_f64(),
            self.requests.len()
        );
        if failed.is_empty() {
            return;
        }
        let mut report = format!(
            "{}: {} of {} checks failed\n",
            self.label,
            failed.len(),
            self.checks.len()
        );
        for check in &failed {
            report += &format!(
                "  FAIL {}: {}\n",
                check.name,
                check.failure.as_deref().unwrap_or_default()
            );
        }
        for check in self.checks.iter().filter(|c| c.failure.is_none()) {
            report += &format!("  ok   {}\n", check.name);
        }
        report += &format!("agent exit: {}\n", self.output.status);
        report += &format!(
            "--- agent stdout (tail) ---\n{}\n",
            tail(&self.output.stdout)
        );
        report += &format!(
            "--- agent stderr (tail) ---\n{}\n",
            tail(&self.output.stderr)
        );
        report += "--- recorded requests ---\n";
        for request in &self.requests {
            report += &format!("{}\n", summary(request));
        }
        panic!("{report}");
    }
}

fn tail(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.len().saturating_sub(25);
    lines[start..]
        .iter()
        .map(|l| match l.char_indices().nth(600) {
            Some((at, _)) => format!("{}…", &l[..at]),
            None => (*l).to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn summary(request: &Request) -> String {
    let head = format!("{} {}", request.method, request.target);
    let Some((provider, body)) = Provider::of(request).zip(request.json()) else {
        return head;
    };
    let exchange = provider.read(&body);
    let mut line = format!("{head}: {} tools", exchange.offered.len());
    if let Some(call) = exchange.calls.last() {
        line += &format!(
            "; last call {} {} → {}",
            call.id,
            call.name,
            call.result
                .as_deref()
                .map(excerpt)
                .unwrap_or_else(|| "(no result)".to_owned())
        );
    }
    line
}
