//! Every failure of a hook exits 0 with the host's "no opinion" reply (for Claude Code:
//! nothing on stdout), well inside the 5 s budget, and leaves one line in hook-errors.log.

use crate::common;
// The generators the adapters' own parse tests use, shared as one source file.
// (Its `check_parse_total` is for the adapters' native `parse`, not used here.)
#[path = "../../adapters-wasm/sdk/src/hostile.rs"]
#[allow(dead_code)]
mod hostile;

use std::time::{Duration, Instant};

use common::{Sandbox, test_plugin};

const BUDGET: Duration = Duration::from_millis(5_000);

fn bash_call(sandbox: &Sandbox, command: &str) -> Vec<u8> {
    serde_json::json!({
        "session_id": "3b0e7c7e-7f43-4a55-9d6e-0d6a4c1f2a10",
        "transcript_path": format!("{}/.claude/projects/p/3b0e7c7e-7f43-4a55-9d6e-0d6a4c1f2a10.jsonl", sandbox.home.display()),
        "cwd": sandbox.project,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": { "command": command, "description": "test" }
    })
    .to_string()
    .into_bytes()
}

/// Runs the hook and checks the fail-open contract; returns the hook-errors.log lines.
fn assert_fails_open(sandbox: &Sandbox, platform: &str, event: &str, stdin: &[u8]) -> Vec<String> {
    let started = Instant::now();
    let output = sandbox.hook(platform, event, stdin);
    let elapsed = started.elapsed();
    assert_eq!(
        output.status.code(),
        Some(0),
        "exit code; stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.stdout.is_empty(),
        "stdout must be the no-opinion reply (empty), got {:?}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(elapsed < BUDGET, "took {elapsed:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("backtrace") && !stderr.contains("panicked"),
        "stack trace on stderr: {stderr}"
    );
    sandbox.hook_errors()
}

#[test]
fn empty_stdin() {
    let sandbox = Sandbox::new();
    let log = assert_fails_open(&sandbox, "claude-code", "pretooluse", b"");
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(
        log[0].contains("claude-code pretooluse: bad stdin"),
        "{log:?}"
    );
}

#[test]
fn invalid_json() {
    let sandbox = Sandbox::new();
    let log = assert_fails_open(
        &sandbox,
        "claude-code",
        "pretooluse",
        b"{\"tool_name\": \"Bash\", ",
    );
    assert_eq!(log.len(), 1, "{log:?}");
}

#[test]
fn ten_megabytes_of_junk() {
    let sandbox = Sandbox::new();
    let junk = vec![b'x'; 10 * 1024 * 1024];
    let log = assert_fails_open(&sandbox, "claude-code", "pretooluse", &junk);
    assert_eq!(log.len(), 1, "{log:?}");
}

#[test]
fn unknown_platform() {
    let sandbox = Sandbox::new();
    let log = assert_fails_open(
        &sandbox,
        "no-such-agent",
        "pretooluse",
        &bash_call(&sandbox, "ls"),
    );
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(
        log[0].contains("unknown platform \"no-such-agent\"; known: ")
            && log[0].contains("claude-code")
            && log[0].contains("gemini-cli"),
        "{log:?}"
    );
}

#[test]
fn unknown_event() {
    let sandbox = Sandbox::new();
    let log = assert_fails_open(
        &sandbox,
        "claude-code",
        "beforelunch",
        &bash_call(&sandbox, "ls"),
    );
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(log[0].contains("unknown event \"beforelunch\""), "{log:?}");
}

#[test]
fn unwritable_data_root() {
    let sandbox = Sandbox::new();
    // A data root below a regular file cannot be created, even by root.
    let blocker = sandbox.home.join("not-a-dir");
    std::fs::write(&blocker, b"file").expect("write");
    let mut command = sandbox.cm();
    command.env("CONTEXT_MODE_DIR", blocker.join("root"));
    let output = sandbox.hook_with(
        command,
        "claude-code",
        "pretooluse",
        &bash_call(&sandbox, "curl https://example.com"),
    );
    assert_eq!(output.status.code(), Some(0));
    assert!(
        output.stdout.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&output.stdout)
    );
}

#[test]
fn relative_data_root_is_not_fatal() {
    let sandbox = Sandbox::new();
    let mut command = sandbox.cm();
    command.env("CONTEXT_MODE_DIR", "relative/dir");
    let output = sandbox.hook_with(
        command,
        "claude-code",
        "pretooluse",
        &bash_call(&sandbox, "ls"),
    );
    assert_eq!(output.status.code(), Some(0));
    assert!(output.stdout.is_empty());
}

fn with_misbehaving_policy() -> Sandbox {
    let sandbox = Sandbox::new();
    let added = sandbox
        .cm()
        .args(["plugin", "add"])
        .arg(test_plugin("misbehave"))
        .output()
        .expect("cm plugin add");
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    sandbox
}

#[test]
fn policy_that_traps() {
    let sandbox = with_misbehaving_policy();
    let log = assert_fails_open(
        &sandbox,
        "claude-code",
        "pretooluse",
        &bash_call(&sandbox, "trap now"),
    );
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(
        log[0].contains("plugin policy misbehave trapped"),
        "{log:?}"
    );
}

#[test]
fn policy_that_loops_forever() {
    let sandbox = with_misbehaving_policy();
    let log = assert_fails_open(
        &sandbox,
        "claude-code",
        "pretooluse",
        &bash_call(&sandbox, "loop forever"),
    );
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(
        log[0].contains("plugin policy misbehave timed out after 1000 ms"),
        "{log:?}"
    );
}

#[test]
fn policy_that_allocates_a_gibibyte() {
    let sandbox = with_misbehaving_policy();
    let log = assert_fails_open(
        &sandbox,
        "claude-code",
        "pretooluse",
        &bash_call(&sandbox, "alloc 1g"),
    );
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(
        log[0].contains("plugin policy misbehave trapped"),
        "{log:?}"
    );
}

#[test]
fn policy_that_returns_garbage() {
    let sandbox = with_misbehaving_policy();
    let log = assert_fails_open(
        &sandbox,
        "claude-code",
        "pretooluse",
        &bash_call(&sandbox, "garbage please"),
    );
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(
        log[0].contains("plugin policy misbehave returned garbage"),
        "{log:?}"
    );
}

#[test]
fn a_failing_policy_does_not_switch_off_the_built_in_rules() {
    let sandbox = with_misbehaving_policy();
    sandbox.project_permissions(serde_json::json!({ "deny": ["Bash(trap *)"] }));
    let output = sandbox.hook(
        "claude-code",
        "pretooluse",
        &bash_call(&sandbox, "trap now"),
    );
    assert_eq!(output.status.code(), Some(0));
    let reply: serde_json::Value = serde_json::from_slice(&output.stdout).expect("a JSON reply");
    assert_eq!(reply["hookSpecificOutput"]["permissionDecision"], "deny");
    // The user's deny is decided before any installed policy is asked (ADR 0013).
    assert!(
        sandbox.hook_errors().is_empty(),
        "{:?}",
        sandbox.hook_errors()
    );
}

#[test]
fn a_plugin_sees_no_files_no_environment_and_no_clock() {
    let sandbox = with_misbehaving_policy();
    let mut command = sandbox.cm();
    command.env("SECRET_TOKEN", "hunter2");
    let output = sandbox.hook_with(
        command,
        "claude-code",
        "pretooluse",
        &bash_call(&sandbox, "snoop around"),
    );
    assert_eq!(output.status.code(), Some(0));
    let reply: serde_json::Value = serde_json::from_slice(&output.stdout).expect("a JSON reply");
    let seen = reply["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .expect("context")
        .to_string();
    assert!(seen.starts_with("env=0 "), "{seen}");
    assert!(seen.contains("passwd=Err("), "{seen}");
    assert!(seen.contains("root=Err("), "{seen}");
    assert!(seen.contains("args=0"), "{seen}");
    assert!(seen.ends_with("time=0"), "{seen}");
    assert!(!seen.contains("hunter2"));
}

/// Each adapter's own "allow" reply on bad stdin: nothing for Gemini CLI and Codex
/// (both read empty stdout as "no decision"), `{}` for Cursor (which expects JSON).
#[test]
fn bad_stdin_gets_each_hosts_allow_reply() {
    for (platform, event, allow) in [
        ("gemini-cli", "beforetool", ""),
        ("gemini-cli", "aftertool", ""),
        ("codex", "pretooluse", ""),
        ("codex", "sessionstart", ""),
        ("cursor", "pretooluse", "{}"),
        ("cursor", "stop", "{}"),
    ] {
        for stdin in [&b""[..], b"{\"tool_name\": ", b"[1, 2]"] {
            let sandbox = Sandbox::new();
            let output = sandbox.hook(platform, event, stdin);
            assert_eq!(output.status.code(), Some(0), "{platform} {event}");
            assert_eq!(
                String::from_utf8_lossy(&output.stdout),
                allow,
                "{platform} {event} on {stdin:?}"
            );
            assert!(output.stderr.is_empty(), "{platform} {event}: stray stderr");
            let log = sandbox.hook_errors();
            assert_eq!(log.len(), 1, "{log:?}");
            assert!(
                log[0].contains(&format!("{platform} {event}: bad stdin")),
                "{log:?}"
            );
        }
    }
}

/// Every built-in platform, its `cm hook` events, and its allow / no-opinion reply.
const PLATFORM_EVENTS: &[(&str, &[&str], &str)] = &[
    (
        "claude-code",
        &[
            "pretooluse",
            "posttooluse",
            "posttoolusefailure",
            "userpromptsubmit",
            "precompact",
            "sessionstart",
            "stop",
        ],
        "",
    ),
    (
        "gemini-cli",
        &["beforetool", "aftertool", "precompress", "sessionstart"],
        "",
    ),
    ("cursor", &["pretooluse", "posttooluse", "stop"], "{}"),
    (
        "codex",
        &[
            "pretooluse",
            "posttooluse",
            "precompact",
            "sessionstart",
            "userpromptsubmit",
            "stop",
        ],
        "",
    ),
    (
        "copilot-cli",
        &[
            "pretooluse",
            "posttooluse",
            "posttoolusefailure",
            "userpromptsubmit",
            "precompact",
            "sessionstart",
            "stop",
        ],
        "{}",
    ),
    (
        "qwen-code",
        &[
            "pretooluse",
            "posttooluse",
            "posttoolusefailure",
            "userpromptsubmit",
            "precompact",
            "sessionstart",
            "stop",
        ],
        "",
    ),
    (
        "vscode-copilot",
        &[
            "pretooluse",
            "posttooluse",
            "userpromptsubmit",
            "precompact",
            "sessionstart",
            "subagentstart",
            "subagentstop",
            "stop",
        ],
        "",
    ),
    (
        "jetbrains-copilot",
        &["pretooluse", "posttooluse", "sessionstart", "stop"],
        "",
    ),
    (
        "kimi",
        &[
            "pretooluse",
            "posttooluse",
            "posttoolusefailure",
            "precompact",
            "sessionstart",
            "userpromptsubmit",
            "stop",
        ],
        "",
    ),
    ("kiro", &["pretooluse", "posttooluse"], ""),
    // PreToolUse fails open with an explicit `{"decision":"allow"}` (a JSON reply; agy
    // fails closed on silence, golden `garbage`), the other events with nothing.
    (
        "antigravity-cli",
        &["pretooluse", "posttooluse", "stop"],
        "",
    ),
];

/// Hosts whose deny is exit code 2 with the reason on stderr (Kiro): a generated payload
/// that is still a valid denied call may exit 2, with one line on stderr.
const EXIT_2_DENY_HOSTS: &[&str] = &["kiro"];

/// Generated stdin for every event of every built-in platform: exit 0, stdout the
/// host's allow reply or one valid JSON reply with nothing around it, no panic or
/// backtrace on stderr. `PROPTEST_CASES` (default 24 per platform and event; each
/// case spawns `cm hook`) sets a longer run, e.g. `PROPTEST_CASES=500` before a release.
fn generated_stdin_fails_open(platform: &str) {
    use proptest::test_runner::{Config, TestCaseError, TestRunner};
    let (_, events, allow) = PLATFORM_EVENTS
        .iter()
        .find(|(p, _, _)| *p == platform)
        .expect("a built-in platform");
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24);
    let sandbox = Sandbox::new();
    let goldens = hostile::golden_payloads(
        &common::repo_root().join("tests/golden").join(platform),
        &sandbox.project.to_string_lossy(),
    );
    for event in *events {
        let config = Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        };
        let mut runner = TestRunner::new(config);
        let outcome = runner.run(&hostile::hostile_stdin(goldens.clone()), |stdin| {
            let output = sandbox.hook(platform, event, &stdin);
            let stderr = String::from_utf8_lossy(&output.stderr);
            let fail = |what: String| {
                Err(TestCaseError::fail(format!(
                    "{platform} {event}: {what}; stdin {:?}",
                    String::from_utf8_lossy(&stdin[..stdin.len().min(300)])
                )))
            };
            let denied_by_exit_code = EXIT_2_DENY_HOSTS.contains(&platform)
                && output.status.code() == Some(2)
                && !stderr.trim().is_empty()
                && !stderr.trim().contains('\n');
            if output.status.code() != Some(0) && !denied_by_exit_code {
                return fail(format!("exit {:?}, stderr {stderr}", output.status));
            }
            if stderr.contains("panicked") || stderr.contains("backtrace") {
                return fail(format!("stack trace on stderr: {stderr}"));
            }
            let allowed = output.stdout == allow.as_bytes()
                || serde_json::from_slice::<serde_json::Value>(&output.stdout)
                    .is_ok_and(|reply| reply.is_object());
            if !allowed {
                return fail(format!(
                    "stdout is neither the allow reply nor one JSON reply: {:?}",
                    String::from_utf8_lossy(&output.stdout)
                ));
            }
            Ok(())
        });
        if let Err(error) = outcome {
            panic!("{error}");
        }
    }
}

#[test]
fn generated_stdin_fails_open_for_claude_code() {
    generated_stdin_fails_open("claude-code");
}

#[test]
fn generated_stdin_fails_open_for_gemini_cli() {
    generated_stdin_fails_open("gemini-cli");
}

#[test]
fn generated_stdin_fails_open_for_cursor() {
    generated_stdin_fails_open("cursor");
}

#[test]
fn generated_stdin_fails_open_for_codex() {
    generated_stdin_fails_open("codex");
}

#[test]
fn generated_stdin_fails_open_for_the_stdin_hook_hosts_of_issue_16() {
    for platform in [
        "copilot-cli",
        "qwen-code",
        "vscode-copilot",
        "jetbrains-copilot",
        "kimi",
        "kiro",
        "antigravity-cli",
    ] {
        generated_stdin_fails_open(platform);
    }
}
