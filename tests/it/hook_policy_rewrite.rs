//! A routing policy that redirects by rewriting a shell command, installed with
//! `cm plugin add` and driven through `cm hook` with each host's own payload: where
//! the pre-tool-use event can rewrite input (Claude Code, Gemini CLI) the rewrite is
//! applied; where it cannot (Codex CLI: deny only) a rewrite with a reason stops the
//! call with that reason, and one without a reason lets the call run unchanged.

use crate::common;

use common::golden::Golden;
use common::{Sandbox, test_plugin};
use serde_json::{Value, json};

const CLAUDE: Golden = Golden {
    platform: "claude-code",
};
const GEMINI: Golden = Golden {
    platform: "gemini-cli",
};
const CODEX: Golden = Golden { platform: "codex" };

/// The reason the test policy gives for a `make-noisy` rewrite.
const NOISY_REASON: &str =
    "redirected to `make-noisy | tail -30`: the full build log would flood the context (test)";

/// A sandbox with the test policy installed ahead of the built-in one.
fn with_policy() -> Sandbox {
    let sandbox = CLAUDE.project();
    let path = test_plugin("rewrite-with-reason");
    let added = sandbox
        .cm()
        .args(["plugin", "add"])
        .arg(&path)
        .output()
        .expect("cm plugin add");
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    let said = String::from_utf8_lossy(&added.stdout);
    assert!(
        said.starts_with("added policy rewrite-with-reason 0.1.0"),
        "{said}"
    );
    sandbox
}

/// The platform's recorded shell payload (its `git-status` golden) running `command`.
fn shell_call(golden: &Golden, sandbox: &Sandbox, command: &str) -> Value {
    let mut payload = golden.payload_value(sandbox, "git-status");
    payload["tool_input"]["command"] = json!(command);
    payload
}

/// The hook's reply as JSON; `None` for the empty reply that lets the call run.
fn reply(golden: &Golden, sandbox: &Sandbox, payload: &Value) -> Option<Value> {
    let stdout = golden.run_payload(sandbox, "rewrite", payload);
    (!stdout.is_empty()).then(|| serde_json::from_str(&stdout).expect("JSON reply"))
}

#[test]
fn without_the_policy_the_marked_commands_pass_silently() {
    let sandbox = CLAUDE.project();
    for golden in [&CLAUDE, &GEMINI, &CODEX] {
        for command in ["make-noisy", "make-quiet"] {
            let payload = shell_call(golden, &sandbox, command);
            assert_eq!(
                reply(golden, &sandbox, &payload),
                None,
                "{} {command}",
                golden.platform
            );
        }
    }
}

#[test]
fn claude_code_applies_the_rewrite_with_or_without_a_reason() {
    let sandbox = with_policy();
    for (command, rewritten) in [
        ("make-noisy", "make-noisy | tail -30"),
        ("make-quiet", "make-quiet | tail -30"),
    ] {
        let payload = shell_call(&CLAUDE, &sandbox, command);
        assert_eq!(
            reply(&CLAUDE, &sandbox, &payload),
            Some(json!({
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "allow",
                    "updatedInput": {
                        "command": rewritten,
                        "description": "Show working tree status"
                    }
                }
            })),
            "{command}"
        );
    }
}

#[test]
fn gemini_cli_merges_the_rewritten_command_over_the_arguments() {
    let sandbox = with_policy();
    for (command, rewritten) in [
        ("make-noisy", "make-noisy | tail -30"),
        ("make-quiet", "make-quiet | tail -30"),
    ] {
        let payload = shell_call(&GEMINI, &sandbox, command);
        assert_eq!(
            reply(&GEMINI, &sandbox, &payload),
            Some(json!({
                "hookSpecificOutput": {
                    "hookEventName": "BeforeTool",
                    "tool_input": { "command": rewritten }
                }
            })),
            "{command}"
        );
    }
}

#[test]
fn codex_denies_a_rewrite_with_a_reason_using_exactly_that_reason() {
    let sandbox = with_policy();
    let deny = Some(json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": NOISY_REASON
        }
    }));
    let bash = shell_call(&CODEX, &sandbox, "make-noisy");
    assert_eq!(reply(&CODEX, &sandbox, &bash), deny);

    // Codex's `shell` tool passes an argv; the script inside `bash -lc` is the command.
    let mut argv = shell_call(&CODEX, &sandbox, "make-noisy");
    argv["tool_name"] = json!("shell");
    argv["tool_input"] = json!({
        "command": ["bash", "-lc", "make-noisy"],
        "workdir": sandbox.project
    });
    assert_eq!(reply(&CODEX, &sandbox, &argv), deny);
}

#[test]
fn codex_lets_a_rewrite_without_a_reason_run_unchanged_and_holds_nothing() {
    let sandbox = with_policy();
    let quiet = shell_call(&CODEX, &sandbox, "make-quiet");
    assert_eq!(reply(&CODEX, &sandbox, &quiet), None);

    // Nothing was held for later either: the session's next PostToolUse says nothing.
    let mut after = CODEX.payload_value(&sandbox, "posttooluse-bash");
    after["session_id"] = quiet["session_id"].clone();
    assert_eq!(reply(&CODEX, &sandbox, &after), None);
}

#[test]
fn a_rewrite_into_a_command_the_user_denies_is_denied() {
    let sandbox = with_policy();
    // `make-noisy` itself is fine; what the policy rewrites it into is not.
    sandbox.project_permissions(json!({ "deny": ["Bash(tail *)"] }));
    for golden in [&CLAUDE, &GEMINI, &CODEX] {
        let payload = shell_call(golden, &sandbox, "make-noisy");
        let reply = reply(golden, &sandbox, &payload).expect("a reply");
        let text = reply.to_string();
        assert!(
            text.contains("Bash(tail *)")
                && !text.contains("updatedInput")
                && !text.contains("tool_input"),
            "{}: {text}",
            golden.platform
        );
    }
}
