//! The two Rust templates, untouched: `cm plugin new` → the printed cargo build →
//! `cm plugin add` → they do what their README says.

use serde_json::json;

use crate::common::Sandbox;
use crate::rust_project::{build, hook_json, install, new_rust_project};

#[test]
fn the_rust_policy_template_asks_before_a_force_push_and_leaves_the_rest_alone() {
    let sandbox = Sandbox::new();
    let project = new_rust_project(&sandbox, "policy", "push-guard", "push-guard");
    let wasm = build(&project);
    let added = install(&sandbox, &wasm);
    assert!(
        added
            .lines()
            .any(|line| line.starts_with("added policy push-guard 0.1.0")),
        "{added}"
    );

    let call = |command: &str| {
        let payload = json!({
            "session_id": "s-template-policy",
            "cwd": sandbox.project,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": { "command": command },
        });
        sandbox.hook("claude-code", "pretooluse", payload.to_string().as_bytes())
    };
    let reply = hook_json(&call("git push --force origin main"));
    let decision = &reply["hookSpecificOutput"];
    assert_eq!(decision["permissionDecision"], "ask", "{reply}");
    let reason = decision["permissionDecisionReason"].as_str().unwrap_or("");
    assert!(
        reason.starts_with("push-guard: `git push --force origin main` rewrites"),
        "{reason}"
    );
    // No opinion: the built-in policy answers as without the plugin (nothing to say).
    let plain_push = call("git push origin main");
    assert_eq!(String::from_utf8_lossy(&plain_push.stdout), "");
    assert_eq!(plain_push.status.code(), Some(0));
    assert!(
        sandbox.hook_errors().is_empty(),
        "{:?}",
        sandbox.hook_errors()
    );
}

#[test]
fn the_rust_adapter_template_is_a_working_adapter_for_its_made_up_host() {
    let sandbox = Sandbox::new();
    let project = new_rust_project(&sandbox, "adapter", "my-host", "my-host");
    let wasm = build(&project);
    let added = install(&sandbox, &wasm);
    assert!(
        added
            .lines()
            .any(|line| line.starts_with("added adapter my-host 0.1.0")),
        "{added}"
    );
    let _server = sandbox.live_server();

    let payload = json!({
        "session_id": "s-template-adapter",
        "cwd": sandbox.project,
        "tool": { "name": "shell", "input": { "command": "curl https://example.com/api" } },
    });
    let out = sandbox.hook("my-host", "pre-tool", payload.to_string().as_bytes());
    let reply = hook_json(&out);
    assert_eq!(reply["decision"], "block", "{reply}");
    let reason = reply["reason"].as_str().unwrap_or("");
    assert!(
        reason.starts_with(
            "redirected to mcp__context-mode__ctx_execute(language: \"shell\", code: \"curl https://example.com/api\")"
        ),
        "the redirect names the tool as this host shows it (ctx-tool-name): {reason}"
    );
    // Stdin that is not the host's JSON fails open with the host's no-opinion reply.
    let broken = sandbox.hook("my-host", "pre-tool", b"{not json");
    assert_eq!(hook_json(&broken), json!({}));
}
