use super::*;
use context_mode_sdk::policy::{Action, PermissionRule, RuleEffect, RuleScope, ToolCall, ToolKind};

fn shell_call(command: &str) -> ToolCall {
    ToolCall {
        command: Some(command.to_string()),
        ..ToolCall::new("Bash", ToolKind::Shell)
    }
}

fn context(rules: Vec<PermissionRule>) -> PolicyContext {
    PolicyContext {
        platform: "claude-code".to_string(),
        ctx_tools: context_mode_sdk::policy::CtxTool::with_prefix(
            "mcp__plugin_context-mode_context-mode__",
            context_mode_sdk::CTX_TOOLS,
        ),
        server_live: true,
        rules,
        nudges_shown: vec![],
        file_size_bytes: None,
        project_dir: "/p".to_string(),
    }
}

#[test]
fn describe_names_the_default_policy() {
    assert_eq!(DefaultPolicy::describe().id, "default");
}

#[test]
fn the_component_decides_through_the_contract() {
    let rule = PermissionRule::new("Bash(sudo *)", RuleEffect::Deny, RuleScope::User);
    let decision = DefaultPolicy::decide(shell_call("sudo ls"), context(vec![rule]));
    match decision.action {
        Action::Deny(reason) => {
            assert!(reason.starts_with("denied by security policy"), "{reason}")
        }
        _ => panic!("expected a denial"),
    }
    let decision = DefaultPolicy::decide(shell_call("curl https://x.dev"), context(vec![]));
    assert!(matches!(decision.action, Action::Redirect(_)));
    let decision = DefaultPolicy::decide(shell_call("pwd"), context(vec![]));
    assert!(matches!(decision.action, Action::NoOpinion));
    assert_eq!(decision.nudge, None);
}

/// The wording contract, on every text the policy can emit.
mod contract;
