//! The routing-policy chain with installed policies that answer allow or never answer,
//! through the real `cm hook` and `cm serve`: the user's deny rules outrank every
//! installed policy on every path (issue 12, item 6), and one budget bounds the whole
//! chain, so looping policies are cut off and the built-in policy still decides (item 16).

use crate::common;

use std::process::Stdio;

use common::golden::Golden;
use common::{McpClient, Sandbox, test_plugin};
use serde_json::{Value, json};

const PLATFORMS: [Golden; 4] = [
    Golden {
        platform: "claude-code",
    },
    Golden {
        platform: "gemini-cli",
    },
    Golden { platform: "cursor" },
    Golden { platform: "codex" },
];
const CLAUDE: Golden = Golden {
    platform: "claude-code",
};

/// Five policies that loop on every call: five full call timeouts would outlast the hook.
const LOOPERS: [&str; 5] = [
    "loop-forever-a",
    "loop-forever-b",
    "loop-forever-c",
    "loop-forever-d",
    "loop-forever-e",
];

fn install(sandbox: &Sandbox, plugins: &[&str]) {
    for plugin in plugins {
        let added = sandbox
            .cm()
            .args(["plugin", "add"])
            .arg(test_plugin(plugin))
            .output()
            .expect("cm plugin add");
        assert!(
            added.status.success(),
            "{plugin}: {}",
            String::from_utf8_lossy(&added.stderr)
        );
    }
}

/// One hook call that fills the sandbox's `.cwasm` cache with the platform's built-in
/// adapter and the built-in policy, so the call under test spends its time deciding, not
/// compiling (a cold compile on a loaded machine can outlast the hook's watchdog).
fn warm_up(sandbox: &Sandbox, golden: &Golden) {
    let payload = golden.payload_value(sandbox, "git-status");
    let event = payload["hook_event_name"]
        .as_str()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let _ = sandbox.hook(golden.platform, &event, payload.to_string().as_bytes());
    let _ = std::fs::remove_file(sandbox.root.join("hook-errors.log"));
}

fn bash(sandbox: &Sandbox, command: &str) -> Vec<u8> {
    json!({
        "session_id": "5c0ffee0-0000-4000-8000-000000000006",
        "transcript_path": "/tmp/5c0ffee0-0000-4000-8000-000000000006.jsonl",
        "cwd": sandbox.project,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": { "command": command }
    })
    .to_string()
    .into_bytes()
}

fn claude_reply(output: &std::process::Output) -> Value {
    assert_eq!(output.status.code(), Some(0));
    assert!(output.stderr.is_empty(), "stray stderr");
    serde_json::from_slice(&output.stdout).expect("a JSON reply")
}

#[test]
fn an_always_allow_policy_does_not_lift_the_users_deny_in_a_hook() {
    let sandbox = Sandbox::new();
    sandbox.project_permissions(json!({ "deny": ["Bash(rm *)"] }));
    warm_up(&sandbox, &CLAUDE);
    install(&sandbox, &["always-allow"]);

    let reply =
        claude_reply(&sandbox.hook("claude-code", "pretooluse", &bash(&sandbox, "rm -rf x")));
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecision"], "deny",
        "{reply}"
    );
    let reason = reply["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap_or_default();
    assert!(reason.contains("Bash(rm *)"), "cites the rule: {reason}");

    // The policy is live: a call no rule denies gets its allow.
    let reply = claude_reply(&sandbox.hook("claude-code", "pretooluse", &bash(&sandbox, "ls")));
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecision"], "allow",
        "{reply}"
    );
    assert!(
        sandbox.hook_errors().is_empty(),
        "{:?}",
        sandbox.hook_errors()
    );
}

#[test]
fn an_always_allow_policy_does_not_lift_the_users_ask() {
    let sandbox = Sandbox::new();
    sandbox.project_permissions(json!({ "ask": ["Bash(git push *)"] }));
    warm_up(&sandbox, &CLAUDE);
    install(&sandbox, &["always-allow"]);
    let reply = claude_reply(&sandbox.hook(
        "claude-code",
        "pretooluse",
        &bash(&sandbox, "git push origin main"),
    ));
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecision"], "ask",
        "{reply}"
    );
    assert!(
        sandbox.hook_errors().is_empty(),
        "{:?}",
        sandbox.hook_errors()
    );
}

#[test]
fn every_platform_denies_what_the_user_denies_with_an_always_allow_policy() {
    for golden in &PLATFORMS {
        let sandbox = golden.project();
        warm_up(&sandbox, golden);
        install(&sandbox, &["always-allow"]);
        // The recorded reply of each host's `sudo …` call under the `Bash(sudo *)` deny rule.
        golden.assert_golden("sudo-chain", &golden.run(&sandbox, "sudo-chain"));
    }
}

#[test]
fn ctx_execute_refuses_a_denied_command_with_an_always_allow_policy() {
    let sandbox = Sandbox::new();
    sandbox.project_permissions(json!({ "deny": ["Bash(rm *)"] }));
    install(&sandbox, &["always-allow"]);
    let mut client = sandbox.live_server();
    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": "touch marker-rm && rm -rf x"}),
    );
    assert!(is_error, "{text}");
    assert!(text.starts_with("denied by security policy"), "{text}");
    assert!(text.contains("Bash(rm *)"), "cites the rule: {text}");
    assert!(
        !sandbox.project.join("marker-rm").exists(),
        "the denied code never ran"
    );
}

/// The chain's failures, one per looping policy: the first timed out after a full call,
/// the last was skipped because the budget was spent, none was reported twice.
fn assert_budget_cut_the_loopers_off(lines: &[&str]) {
    for (i, plugin) in LOOPERS.iter().enumerate() {
        let named = format!("plugin policy test-{plugin} ");
        let mine: Vec<&&str> = lines.iter().filter(|l| l.contains(&named)).collect();
        assert_eq!(mine.len(), 1, "{plugin}: {lines:#?}");
        let outcome = if i == 0 {
            "timed out after 1000 ms".to_string()
        } else if i == LOOPERS.len() - 1 {
            "skipped: the policy chain's 2000 ms budget is spent".to_string()
        } else {
            String::new()
        };
        assert!(
            mine[0].contains(&format!("{named}{outcome}"))
                && (mine[0].contains("timed out after") || mine[0].contains("skipped:")),
            "{plugin}: {lines:#?}"
        );
    }
}

#[test]
fn a_hook_gets_the_built_in_redirect_when_installed_policies_loop() {
    let sandbox = CLAUDE.project();
    let _server = sandbox.live_server();
    // The built-in decision without installed policies: its golden reply. This first hook
    // also fills the `.cwasm` cache, so the hook below spends its time in the guests only.
    let expected = CLAUDE.run(&sandbox, "curl");
    CLAUDE.assert_golden("curl", &expected);

    install(&sandbox, &LOOPERS);
    let payload = CLAUDE.payload_value(&sandbox, "curl");
    let output = sandbox.hook("claude-code", "pretooluse", payload.to_string().as_bytes());
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&output.stdout)
        .replace(&*sandbox.project.to_string_lossy(), "__PROJECT__");
    assert_eq!(
        stdout, expected,
        "the same decision with five looping policies"
    );

    let log = sandbox.hook_errors();
    let lines: Vec<&str> = log.iter().map(String::as_str).collect();
    assert_eq!(lines.len(), LOOPERS.len(), "{lines:#?}");
    assert_budget_cut_the_loopers_off(&lines);
}

#[test]
fn ctx_execute_gets_the_built_in_decision_when_installed_policies_loop() {
    let sandbox = Sandbox::new();
    sandbox.project_permissions(json!({ "deny": ["Bash(rm *)"] }));
    install(&sandbox, &LOOPERS);
    let log_path = sandbox.home.join("serve-stderr.log");
    let log = std::fs::File::create(&log_path).expect("log file");
    let mut command = sandbox.cm();
    command.arg("serve");
    let mut client = McpClient::spawn_with_stderr(&mut command, "claude-code", Stdio::from(log));

    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": "touch marker-rm && rm -rf x"}),
    );
    assert!(is_error && text.contains("Bash(rm *)"), "{text}");
    assert!(!sandbox.project.join("marker-rm").exists());

    let (text, is_error) = client.call_tool(
        "ctx_execute",
        json!({"language": "shell", "code": "echo still-runs"}),
    );
    assert!(!is_error, "{text}");
    assert_eq!(text.trim(), "still-runs");
    client.close();

    // The denial came from the user's rule before any installed policy was asked; the
    // allowed call asked them within one budget.
    let log = std::fs::read_to_string(&log_path).expect("read log");
    let lines: Vec<&str> = log.lines().filter(|l| l.contains("loop-forever")).collect();
    assert_eq!(lines.len(), LOOPERS.len(), "{log}");
    assert_budget_cut_the_loopers_off(&lines);
}
