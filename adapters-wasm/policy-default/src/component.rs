//! The WIT boundary: converts the generated `routing-policy` types to and from
//! [`crate::model`] and exports the component. No decisions are made here.

use crate::model;

wit_bindgen::generate!({
    world: "policy-plugin",
    path: "../../wit/plugin@0.3.0",
});

use context_mode::plugin::types::{ToolCall, ToolKind};
use exports::context_mode::plugin::routing_policy::{
    Action, CtxTool, Decision, Guest, PermissionRule, PolicyContext, PolicyInfo, Rewrite,
    RuleEffect, RuleScope,
};

struct DefaultPolicy;

impl Guest for DefaultPolicy {
    fn describe() -> PolicyInfo {
        PolicyInfo {
            id: crate::POLICY_ID.to_string(),
            display_name: "context-mode default routing".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }

    fn decide(call: ToolCall, context: PolicyContext) -> Decision {
        to_wit_decision(crate::policy::decide(
            &from_wit_call(call),
            &from_wit_context(context),
        ))
    }
}

// Exported symbols carry WIT names (`…/routing-policy@0.2.0#decide`) that
// only a wasm linker accepts; native builds keep the bindings for tests.
#[cfg(target_arch = "wasm32")]
export!(DefaultPolicy);

fn from_wit_kind(kind: ToolKind) -> model::ToolKind {
    match kind {
        ToolKind::Shell => model::ToolKind::Shell,
        ToolKind::Read => model::ToolKind::Read,
        ToolKind::Grep => model::ToolKind::Grep,
        ToolKind::Edit => model::ToolKind::Edit,
        ToolKind::WebFetch => model::ToolKind::WebFetch,
        ToolKind::WebSearch => model::ToolKind::WebSearch,
        ToolKind::Agent => model::ToolKind::Agent,
        ToolKind::Mcp => model::ToolKind::Mcp,
        ToolKind::Ctx => model::ToolKind::Ctx,
        ToolKind::Other => model::ToolKind::Other,
    }
}

fn from_wit_call(call: ToolCall) -> model::ToolCall {
    model::ToolCall {
        name: call.name,
        kind: from_wit_kind(call.kind),
        input_json: call.input_json,
        command: call.command,
        path: call.path,
        has_range: call.has_range,
        url: call.url,
        prompt: call.prompt,
        pattern: call.pattern,
        mcp_server: call.mcp_server,
        mcp_tool: call.mcp_tool,
    }
}

fn from_wit_rule(rule: PermissionRule) -> model::PermissionRule {
    model::PermissionRule {
        pattern: rule.pattern,
        effect: match rule.effect {
            RuleEffect::Allow => model::RuleEffect::Allow,
            RuleEffect::Deny => model::RuleEffect::Deny,
            RuleEffect::Ask => model::RuleEffect::Ask,
        },
        scope: match rule.scope {
            RuleScope::ProjectLocal => model::RuleScope::ProjectLocal,
            RuleScope::Project => model::RuleScope::Project,
            RuleScope::User => model::RuleScope::User,
        },
    }
}

/// The reasons name every tool as prefix + its own name, which is how today's hosts name
/// them: the prefix is what stands before `ctx_execute` in the host's name for it.
fn ctx_tool_prefix(tools: &[CtxTool]) -> String {
    tools
        .iter()
        .find(|t| t.tool == "ctx_execute")
        .and_then(|t| t.name.strip_suffix("ctx_execute"))
        .unwrap_or_default()
        .to_string()
}

fn from_wit_context(context: PolicyContext) -> model::PolicyContext {
    model::PolicyContext {
        platform: context.platform,
        ctx_tool_prefix: ctx_tool_prefix(&context.ctx_tools),
        server_live: context.server_live,
        rules: context.rules.into_iter().map(from_wit_rule).collect(),
        nudges_shown: context.nudges_shown,
        file_size_bytes: context.file_size_bytes,
        project_dir: context.project_dir,
    }
}

fn to_wit_decision(decision: model::Decision) -> Decision {
    let action = match decision.action {
        model::Action::NoOpinion => Action::NoOpinion,
        model::Action::Allow => Action::Allow,
        model::Action::Redirect(reason) => Action::Redirect(reason),
        model::Action::Deny(reason) => Action::Deny(reason),
        model::Action::Ask(reason) => Action::Ask(reason),
        model::Action::Rewrite {
            command,
            prompt,
            reason,
        } => Action::Rewrite(Rewrite {
            command,
            prompt,
            reason,
        }),
        model::Action::AddContext(text) => Action::AddContext(text),
    };
    Decision {
        action,
        nudge: decision.nudge,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wit_call(kind: ToolKind, command: Option<&str>) -> ToolCall {
        ToolCall {
            name: "Bash".to_string(),
            kind,
            input_json: "{}".to_string(),
            command: command.map(str::to_string),
            path: None,
            has_range: false,
            url: None,
            prompt: None,
            pattern: None,
            mcp_server: None,
            mcp_tool: None,
        }
    }

    fn wit_context(rules: Vec<PermissionRule>) -> PolicyContext {
        PolicyContext {
            platform: "claude-code".to_string(),
            ctx_tools: ["ctx_execute", "ctx_search"]
                .map(|tool| CtxTool {
                    tool: tool.to_string(),
                    name: format!("mcp__plugin_context-mode_context-mode__{tool}"),
                })
                .to_vec(),
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
    fn decide_converts_rules_and_actions_across_the_boundary() {
        let rule = PermissionRule {
            pattern: "Bash(sudo *)".to_string(),
            effect: RuleEffect::Deny,
            scope: RuleScope::User,
        };
        let decision = DefaultPolicy::decide(
            wit_call(ToolKind::Shell, Some("sudo ls")),
            wit_context(vec![rule]),
        );
        match decision.action {
            Action::Deny(reason) => {
                assert!(reason.starts_with("denied by security policy"), "{reason}")
            }
            _ => panic!("expected a denial"),
        }
        let decision = DefaultPolicy::decide(
            wit_call(ToolKind::Shell, Some("curl https://x.dev")),
            wit_context(vec![]),
        );
        match decision.action {
            // The host's name for ctx_fetch_and_index, built from its name for ctx_execute.
            Action::Redirect(reason) => assert!(
                reason.contains("mcp__plugin_context-mode_context-mode__ctx_fetch_and_index"),
                "{reason}"
            ),
            _ => panic!("expected a redirect"),
        }
        let decision =
            DefaultPolicy::decide(wit_call(ToolKind::Shell, Some("pwd")), wit_context(vec![]));
        assert!(matches!(decision.action, Action::NoOpinion));
        assert_eq!(decision.nudge, None);
    }

    #[test]
    fn kinds_map_one_to_one() {
        let kinds = [
            (ToolKind::Shell, model::ToolKind::Shell),
            (ToolKind::Read, model::ToolKind::Read),
            (ToolKind::Grep, model::ToolKind::Grep),
            (ToolKind::Edit, model::ToolKind::Edit),
            (ToolKind::WebFetch, model::ToolKind::WebFetch),
            (ToolKind::WebSearch, model::ToolKind::WebSearch),
            (ToolKind::Agent, model::ToolKind::Agent),
            (ToolKind::Mcp, model::ToolKind::Mcp),
            (ToolKind::Ctx, model::ToolKind::Ctx),
            (ToolKind::Other, model::ToolKind::Other),
        ];
        for (wit, plain) in kinds {
            assert_eq!(from_wit_kind(wit), plain);
        }
    }
}
