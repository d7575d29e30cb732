//! Normalized reply → what Kiro CLI reads from a hook: only the exit code and, on exit
//! code 2 (`preToolUse` only), stderr (**verified (docs + Q CLI source)**). A call that
//! must not run exits 2 with the reason on stderr, which Kiro hands to the model as the
//! tool's error result ("PreToolHook blocked the tool execution: <reason>"), so the
//! model learns which `ctx_*` call to make instead (upstream exited 2 with an empty
//! stderr: the model never learned why). Everything else exits 0 and prints nothing:
//! Kiro ignores a tool hook's stdout, and a non-zero code other than 2 would only warn
//! the user.

use context_mode_sdk::EventKind;
use context_mode_sdk::adapter::{Rendered, Reply, Verdict};
use context_mode_sdk::reply::non_blank;

/// Kiro's "block this tool call" exit code.
const BLOCK_EXIT_CODE: i32 = 2;

pub fn render(reply: &Reply) -> Rendered {
    let stops = reply.event == EventKind::PreToolUse
        && matches!(
            reply.verdict,
            Verdict::Redirect | Verdict::Deny | Verdict::Ask
        );
    if !stops {
        return Rendered {
            stdout: String::new(),
            stderr: String::new(),
            exit_code: 0,
        };
    }
    let reason = non_blank(&reply.reason).unwrap_or("denied by context-mode");
    Rendered {
        stdout: String::new(),
        stderr: format!("{}\n", reason.trim_end()),
        exit_code: BLOCK_EXIT_CODE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(event: EventKind, native: &str, verdict: Verdict) -> Reply {
        Reply::new(event, native, verdict)
    }

    #[test]
    fn a_stopped_call_exits_2_with_the_reason_on_stderr() {
        for verdict in [Verdict::Redirect, Verdict::Deny, Verdict::Ask] {
            let mut r = reply(EventKind::PreToolUse, "pretooluse", verdict);
            r.reason = Some("redirected to @context-mode/ctx_execute".into());
            let out = render(&r);
            assert_eq!(out.exit_code, 2);
            assert_eq!(out.stdout, "");
            assert_eq!(out.stderr, "redirected to @context-mode/ctx_execute\n");
        }
        let blank = render(&reply(EventKind::PreToolUse, "pretooluse", Verdict::Deny));
        assert_eq!(blank.stderr, "denied by context-mode\n");
    }

    #[test]
    fn everything_else_exits_0_silently() {
        for (kind, native, verdict) in [
            (EventKind::PreToolUse, "pretooluse", Verdict::NoOpinion),
            (EventKind::PreToolUse, "pretooluse", Verdict::Allow),
            (EventKind::PostToolUse, "posttooluse", Verdict::NoOpinion),
            (EventKind::PostToolUse, "posttooluse", Verdict::Deny),
        ] {
            let mut r = reply(kind, native, verdict);
            r.additional_context = Some("ignored".into());
            r.updated_command = Some("ignored".into());
            let out = render(&r);
            assert_eq!(
                (out.exit_code, out.stdout.as_str(), out.stderr.as_str()),
                (0, "", "")
            );
        }
    }
}
