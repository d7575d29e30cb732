//! Claude Code hook payloads piped into the built `cm hook claude-code <event>`, replies
//! compared byte for byte with golden files (`tests/golden/claude-code/<case>.stdout`).
//! Regenerate after an intended change with `UPDATE_GOLDEN=1 cargo test -p cm --test it hook_claude_code::`
//! and review the diff.

use crate::common;

use std::path::PathBuf;

use common::{McpClient, Sandbox, repo_root};

const PLATFORM: &str = "claude-code";

fn golden_dir() -> PathBuf {
    repo_root().join("tests/golden/claude-code")
}

/// A sandbox with the files the payloads refer to and the user's deny rule.
fn project() -> Sandbox {
    let sandbox = Sandbox::new();
    let line = "2026-11-30T04:00:00Z INFO request served in 12 ms path=/api/items status=200\n";
    sandbox.write(
        "big.txt",
        line.repeat(50 * 1024 / line.len() + 1).as_bytes(),
    );
    sandbox.write("small.txt", b"just a few bytes\n");
    sandbox.project_permissions(serde_json::json!({ "deny": ["Bash(sudo *)"] }));
    sandbox
}

fn payload(sandbox: &Sandbox, case: &str) -> Vec<u8> {
    let path = golden_dir().join(format!("{case}.stdin.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.replace("__PROJECT__", &sandbox.project.to_string_lossy())
        .into_bytes()
}

/// Runs one case and returns stdout with the project path put back as `__PROJECT__`.
fn run(sandbox: &Sandbox, event: &str, case: &str) -> String {
    let output = sandbox.hook(PLATFORM, event, &payload(sandbox, case));
    assert_eq!(
        output.status.code(),
        Some(0),
        "{case}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        sandbox.hook_errors().is_empty(),
        "{case}: {:?}",
        sandbox.hook_errors()
    );
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 stdout");
    if !stdout.is_empty() {
        serde_json::from_str::<serde_json::Value>(&stdout)
            .unwrap_or_else(|e| panic!("{case}: stdout is not JSON ({e}): {stdout}"));
    }
    stdout.replace(&*sandbox.project.to_string_lossy(), "__PROJECT__")
}

fn assert_golden(name: &str, actual: &str) {
    let path = golden_dir().join(format!("{name}.stdout"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).expect("write golden");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with UPDATE_GOLDEN=1 to create it)",
            path.display()
        )
    });
    assert_eq!(
        actual,
        expected,
        "reply of {name} differs from {}",
        path.display()
    );
}

/// With a live `cm serve`, the reply must equal the golden file.
fn live_case(event: &str, case: &str) {
    let sandbox = project();
    let _server: McpClient = sandbox.live_server();
    assert_golden(case, &run(&sandbox, event, case));
}

macro_rules! golden {
    ($($test:ident: $event:literal, $case:literal;)*) => {
        $(#[test] fn $test() { live_case($event, $case); })*
    };
}

golden! {
    webfetch_is_redirected: "pretooluse", "webfetch";
    curl_is_redirected: "pretooluse", "curl";
    silent_curl_download_passes: "pretooluse", "curl-silent";
    curl_inside_a_quoted_body_passes: "pretooluse", "gh-body-mention";
    which_curl_passes: "pretooluse", "which-curl";
    inline_python_http_is_redirected: "pretooluse", "python-requests";
    gradle_build_is_redirected: "pretooluse", "gradlew";
    read_of_a_large_file_is_redirected: "pretooluse", "read-large";
    read_with_a_range_runs: "pretooluse", "read-range";
    read_of_a_small_file_runs: "pretooluse", "read-small";
    git_status_is_silent: "pretooluse", "git-status";
    sub_agent_prompt_gets_the_routing_block: "pretooluse", "task-launch";
    sudo_inside_a_chain_is_denied: "pretooluse", "sudo-chain";
    post_tool_use: "posttooluse", "posttooluse-bash";
    user_prompt: "userpromptsubmit", "userpromptsubmit";
    pre_compact: "precompact", "precompact";
    session_start_startup: "sessionstart", "sessionstart-startup";
    session_start_compact: "sessionstart", "sessionstart-compact";
    stop: "stop", "stop";
}

#[test]
fn grep_nudges_once_then_stays_silent_in_the_same_session() {
    let sandbox = project();
    let _server = sandbox.live_server();
    let first = run(&sandbox, "pretooluse", "grep");
    assert_golden("grep", &first);
    assert!(
        first.contains("additionalContext"),
        "first grep gets the nudge: {first}"
    );
    assert_eq!(
        run(&sandbox, "pretooluse", "grep"),
        "",
        "second grep of the session is silent"
    );
}

#[test]
fn without_a_live_server_redirects_pass_through() {
    let sandbox = project();
    for case in [
        "webfetch",
        "curl",
        "python-requests",
        "gradlew",
        "read-large",
        "task-launch",
        "grep",
    ] {
        assert_eq!(
            run(&sandbox, "pretooluse", case),
            "",
            "{case} must pass through with no live server"
        );
    }
}

#[test]
fn without_a_live_server_security_denials_still_apply() {
    let sandbox = project();
    let reply = run(&sandbox, "pretooluse", "sudo-chain");
    assert_golden("sudo-chain", &reply);
}
