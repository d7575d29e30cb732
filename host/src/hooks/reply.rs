//! Turns a policy decision into a reply the event can actually carry. Capability
//! differences between hosts are handled here, in one place: a host that cannot
//! block gets the reason as context, one that cannot ask gets a denial, and so on.

use crate::plugins::bindings::{
    Action, Capabilities, Decision, EventKind, Reply, ToolCall, Verdict,
};

/// A reply plus whether the decision's once-per-session nudge reached the model.
pub struct Shaped {
    pub reply: Reply,
    pub nudge_delivered: bool,
}

/// The reply that says nothing: the host proceeds as it would without the hook.
pub fn no_opinion(event: EventKind, native_event: &str, tool: Option<ToolCall>) -> Reply {
    Reply {
        event,
        native_event: native_event.to_string(),
        verdict: Verdict::NoOpinion,
        reason: None,
        tool,
        updated_command: None,
        updated_prompt: None,
        updated_output: None,
        additional_context: None,
    }
}

/// Shapes a pre-tool-use decision for an event with these capabilities.
pub fn shape(decision: Decision, caps: Capabilities, native_event: &str, tool: ToolCall) -> Shaped {
    let mut reply = no_opinion(EventKind::PreToolUse, native_event, Some(tool));
    let can = |c: Capabilities| caps.contains(c);
    let mut context = None;
    match decision.action {
        Action::NoOpinion => {}
        Action::Allow => reply.verdict = Verdict::Allow,
        Action::Redirect(reason) => {
            if can(Capabilities::BLOCK) {
                reply.verdict = Verdict::Redirect;
                reply.reason = Some(reason);
            } else {
                context = Some(reason);
            }
        }
        Action::Deny(reason) => {
            if can(Capabilities::BLOCK) {
                reply.verdict = Verdict::Deny;
                reply.reason = Some(reason);
            } else {
                context = Some(reason);
            }
        }
        Action::Ask(reason) => {
            if can(Capabilities::ASK) {
                reply.verdict = Verdict::Ask;
                reply.reason = Some(reason);
            } else if can(Capabilities::BLOCK) {
                // Safer to stop a call the user should have confirmed than to let it run.
                reply.verdict = Verdict::Deny;
                reply.reason = Some(reason);
            } else {
                context = Some(reason);
            }
        }
        Action::Rewrite(rewrite) => {
            if can(Capabilities::REWRITE_INPUT) {
                // Hosts apply a rewritten input only together with an explicit allow
                // (Claude Code drops `updatedInput` otherwise); the user's own deny and
                // ask rules are still evaluated by the host after the hook.
                reply.verdict = Verdict::Allow;
                reply.updated_command = rewrite.command;
                reply.updated_prompt = rewrite.prompt;
            }
        }
        Action::AddContext(text) => context = Some(text),
    }
    let mut nudge_delivered = false;
    if let Some(text) = context
        && can(Capabilities::INJECT_CONTEXT)
    {
        reply.additional_context = Some(text);
        nudge_delivered = decision.nudge.is_some();
    }
    Shaped {
        reply,
        nudge_delivered,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugins::bindings::{Rewrite, ToolKind};

    fn call() -> ToolCall {
        ToolCall {
            name: "Bash".into(),
            kind: ToolKind::Shell,
            input_json: r#"{"command":"curl x"}"#.into(),
            command: Some("curl x".into()),
            path: None,
            has_range: false,
            url: None,
            prompt: None,
            pattern: None,
            mcp_server: None,
            mcp_tool: None,
        }
    }

    fn decide(action: Action, nudge: Option<&str>) -> Decision {
        Decision {
            action,
            nudge: nudge.map(String::from),
        }
    }

    #[test]
    fn redirect_blocks_where_possible_else_becomes_context_else_nothing() {
        let r = shape(
            decide(Action::Redirect("redirected to x".into()), None),
            Capabilities::all(),
            "pretooluse",
            call(),
        );
        assert!(matches!(r.reply.verdict, Verdict::Redirect));
        let r = shape(
            decide(Action::Redirect("redirected to x".into()), None),
            Capabilities::INJECT_CONTEXT,
            "e",
            call(),
        );
        assert!(matches!(r.reply.verdict, Verdict::NoOpinion));
        assert_eq!(
            r.reply.additional_context.as_deref(),
            Some("redirected to x")
        );
        let r = shape(
            decide(Action::Redirect("redirected to x".into()), None),
            Capabilities::empty(),
            "e",
            call(),
        );
        assert!(
            matches!(r.reply.verdict, Verdict::NoOpinion) && r.reply.additional_context.is_none()
        );
    }

    #[test]
    fn ask_degrades_to_deny_when_the_host_cannot_ask() {
        let r = shape(
            decide(Action::Ask("confirm".into()), None),
            Capabilities::BLOCK,
            "e",
            call(),
        );
        assert!(matches!(r.reply.verdict, Verdict::Deny));
    }

    #[test]
    fn rewrite_needs_the_capability() {
        let rewrite = || {
            Action::Rewrite(Rewrite {
                command: None,
                prompt: Some("p".into()),
            })
        };
        let r = shape(decide(rewrite(), None), Capabilities::all(), "e", call());
        assert_eq!(r.reply.updated_prompt.as_deref(), Some("p"));
        assert!(matches!(r.reply.verdict, Verdict::Allow));
        let r = shape(decide(rewrite(), None), Capabilities::BLOCK, "e", call());
        assert!(r.reply.updated_prompt.is_none());
    }

    #[test]
    fn nudge_counts_only_when_delivered() {
        let r = shape(
            decide(Action::AddContext("tip".into()), Some("grep")),
            Capabilities::all(),
            "e",
            call(),
        );
        assert!(r.nudge_delivered);
        let r = shape(
            decide(Action::AddContext("tip".into()), Some("grep")),
            Capabilities::BLOCK,
            "e",
            call(),
        );
        assert!(!r.nudge_delivered);
    }
}
