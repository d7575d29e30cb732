//! Turns a policy decision into a reply the event can actually carry. Capability
//! differences between hosts are handled here, in one place, from the adapter's
//! per-event flags:
//!
//! - a call to stop, on an event that cannot block: its reason becomes context;
//! - an ask, on an event that cannot ask: a denial (or context, if it cannot block);
//! - a rewrite, on an event that cannot rewrite input: a redirect with the rewrite's
//!   reason when it has one (the call must not run unchanged), else no opinion;
//! - context, on an event that cannot carry it: held in the session's state for the
//!   next event of that session that can ([`deliver_held`]), or dropped when no event
//!   of the platform ever can.

use crate::model::{Action, Capabilities, Decision, EventKind, Reply, ToolCall, Verdict};

/// A reply plus what the caller must record about it.
pub struct Shaped {
    pub reply: Reply,
    /// The decision's once-per-session nudge reached the model, or is held for it.
    pub nudge_delivered: bool,
    /// Context this event could not carry, to hold for a later event of the session.
    pub held_context: Option<String>,
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

/// What an event's reply can express, and whether context it cannot carry can wait
/// for a later event (some event of the same platform can carry context).
#[derive(Debug, Clone, Copy)]
pub struct Expressible {
    pub capabilities: Capabilities,
    pub can_hold_context: bool,
}

/// Shapes a pre-tool-use decision for an event that can express `expressible`.
pub fn shape(
    decision: Decision,
    expressible: Expressible,
    native_event: &str,
    tool: ToolCall,
) -> Shaped {
    let caps = expressible.capabilities;
    let can = |c: Capabilities| caps.contains(c);
    let mut reply = no_opinion(EventKind::PreToolUse, native_event, Some(tool));
    let mut context = None;
    let stop = |reply: &mut Reply, verdict: Verdict, reason: String| {
        if can(Capabilities::BLOCK) {
            reply.verdict = verdict;
            reply.reason = Some(reason);
            None
        } else {
            Some(reason)
        }
    };
    match decision.action {
        Action::NoOpinion => {}
        Action::Allow => reply.verdict = Verdict::Allow,
        Action::Redirect(reason) => context = stop(&mut reply, Verdict::Redirect, reason),
        Action::Deny(reason) => context = stop(&mut reply, Verdict::Deny, reason),
        Action::Ask(reason) => {
            if can(Capabilities::ASK) {
                reply.verdict = Verdict::Ask;
                reply.reason = Some(reason);
            } else {
                // Safer to stop a call the user should have confirmed than to let it run.
                context = stop(&mut reply, Verdict::Deny, reason);
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
            } else if let Some(reason) = rewrite.reason {
                // A redirect expressed as a rewrite: the call must not run unchanged.
                context = stop(&mut reply, Verdict::Redirect, reason);
            }
        }
        Action::AddContext(text) => context = Some(text),
    }
    let mut held_context = None;
    let carried = match context {
        Some(text) if can(Capabilities::INJECT_CONTEXT) => {
            reply.additional_context = Some(text);
            true
        }
        Some(text) if expressible.can_hold_context => {
            held_context = Some(text);
            true
        }
        _ => false,
    };
    Shaped {
        reply,
        nudge_delivered: carried && decision.nudge.is_some(),
        held_context,
    }
}

/// The context an event that can carry context should say: what earlier events of the
/// session held for it, oldest first, then its own.
pub fn deliver_held(held: Vec<String>, own: Option<String>) -> Option<String> {
    let parts: Vec<String> = held
        .into_iter()
        .chain(own)
        .filter(|text| !text.trim().is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Rewrite, ToolKind};

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

    fn on(capabilities: Capabilities, can_hold_context: bool) -> Expressible {
        Expressible {
            capabilities,
            can_hold_context,
        }
    }

    /// Claude Code's pre-tool-use.
    fn everything() -> Expressible {
        on(Capabilities::all(), true)
    }

    /// Codex's PreToolUse: deny only; its PostToolUse and SessionStart carry context.
    fn codex_pre_tool_use() -> Expressible {
        on(Capabilities::BLOCK, true)
    }

    fn rewrite(command: &str, reason: Option<&str>) -> Action {
        Action::Rewrite(Rewrite {
            command: Some(command.into()),
            prompt: None,
            reason: reason.map(String::from),
        })
    }

    #[test]
    fn redirect_blocks_where_possible_else_becomes_context_else_nothing() {
        let r = shape(
            decide(Action::Redirect("redirected to x".into()), None),
            everything(),
            "pretooluse",
            call(),
        );
        assert!(matches!(r.reply.verdict, Verdict::Redirect));
        assert_eq!(r.reply.reason.as_deref(), Some("redirected to x"));
        let r = shape(
            decide(Action::Redirect("redirected to x".into()), None),
            on(Capabilities::INJECT_CONTEXT, true),
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
            on(Capabilities::empty(), false),
            "e",
            call(),
        );
        assert!(
            matches!(r.reply.verdict, Verdict::NoOpinion)
                && r.reply.additional_context.is_none()
                && r.held_context.is_none()
        );
    }

    #[test]
    fn ask_degrades_to_deny_when_the_host_cannot_ask() {
        let r = shape(
            decide(Action::Ask("confirm".into()), None),
            codex_pre_tool_use(),
            "e",
            call(),
        );
        assert!(matches!(r.reply.verdict, Verdict::Deny));
        assert_eq!(r.reply.reason.as_deref(), Some("confirm"));
    }

    #[test]
    fn rewrite_applies_where_the_event_can_rewrite() {
        let r = shape(
            decide(rewrite("curl -s x | head", Some("redirected to y")), None),
            everything(),
            "e",
            call(),
        );
        assert!(matches!(r.reply.verdict, Verdict::Allow));
        assert_eq!(r.reply.updated_command.as_deref(), Some("curl -s x | head"));
        assert!(r.reply.reason.is_none());
    }

    #[test]
    fn a_redirect_expressed_as_a_rewrite_becomes_a_deny_with_the_same_reason() {
        let r = shape(
            decide(rewrite("curl -s x | head", Some("redirected to y")), None),
            codex_pre_tool_use(),
            "pretooluse",
            call(),
        );
        assert!(matches!(r.reply.verdict, Verdict::Redirect));
        assert_eq!(r.reply.reason.as_deref(), Some("redirected to y"));
        assert!(r.reply.updated_command.is_none());
        // Cannot block either: the reason is context, held for a later event.
        let r = shape(
            decide(rewrite("curl -s x | head", Some("redirected to y")), None),
            on(Capabilities::empty(), true),
            "e",
            call(),
        );
        assert!(matches!(r.reply.verdict, Verdict::NoOpinion));
        assert_eq!(r.held_context.as_deref(), Some("redirected to y"));
    }

    #[test]
    fn an_improving_rewrite_without_reason_lets_the_call_run() {
        let improving = || {
            Action::Rewrite(Rewrite {
                command: None,
                prompt: Some("find x\n\nrouting block".into()),
                reason: None,
            })
        };
        let r = shape(decide(improving(), None), codex_pre_tool_use(), "e", call());
        assert!(matches!(r.reply.verdict, Verdict::NoOpinion));
        assert!(r.reply.updated_prompt.is_none() && r.held_context.is_none());
        let r = shape(decide(improving(), None), everything(), "e", call());
        assert_eq!(
            r.reply.updated_prompt.as_deref(),
            Some("find x\n\nrouting block")
        );
    }

    #[test]
    fn context_the_event_cannot_carry_is_held_and_its_nudge_counts() {
        let r = shape(
            decide(Action::AddContext("tip".into()), Some("grep")),
            codex_pre_tool_use(),
            "e",
            call(),
        );
        assert!(r.reply.additional_context.is_none());
        assert_eq!(r.held_context.as_deref(), Some("tip"));
        assert!(r.nudge_delivered);
    }

    #[test]
    fn context_no_event_of_the_platform_can_carry_is_dropped_uncounted() {
        // Cursor: additional_context is accepted but never shown to the model.
        let r = shape(
            decide(Action::AddContext("tip".into()), Some("grep")),
            on(Capabilities::BLOCK | Capabilities::ASK, false),
            "e",
            call(),
        );
        assert!(r.reply.additional_context.is_none() && r.held_context.is_none());
        assert!(!r.nudge_delivered);
        assert!(matches!(r.reply.verdict, Verdict::NoOpinion));
    }

    #[test]
    fn nudge_counts_when_injected() {
        let r = shape(
            decide(Action::AddContext("tip".into()), Some("grep")),
            everything(),
            "e",
            call(),
        );
        assert!(r.nudge_delivered);
        assert_eq!(r.reply.additional_context.as_deref(), Some("tip"));
        assert!(r.held_context.is_none());
    }

    #[test]
    fn held_context_comes_first_then_the_events_own() {
        assert_eq!(
            deliver_held(vec!["tip".into(), "reason".into()], Some("state".into())).as_deref(),
            Some("tip\n\nreason\n\nstate")
        );
        assert_eq!(
            deliver_held(vec!["tip".into()], None).as_deref(),
            Some("tip")
        );
        assert_eq!(deliver_held(Vec::new(), Some(" ".into())), None);
        assert_eq!(deliver_held(Vec::new(), None), None);
    }
}
