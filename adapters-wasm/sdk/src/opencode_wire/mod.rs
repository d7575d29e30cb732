//! What OpenCode and KiloCode share (KiloCode is an OpenCode fork with the same plugin
//! API, unchanged): the plugin events, the shim that carries them to `cm hook`, how the
//! host names our MCP tools, and the parse, render and setup plan of both adapters
//! (`parse`, `render`, `plan`); each adapter keeps only its describe and its config
//! folder.
//!
//! The shim (`configs/opencode/context-mode.js`) hands each event to
//! `cm hook <id> <event>` as `{hook_event_name, directory, worktree, input, output}`:
//! the hook's own two arguments as the host passed them, and the plugin context's
//! `directory` (the project) and `worktree`. It applies a reply object field by field:
//! `block` (throw: the call fails with that message, which the model reads), `args`
//! (the tool's arguments, replaced whole), `output` (the tool result, replaced),
//! `append` (text added to the tool result), `system` (one more system-prompt entry).
//!
//! Facts (**verified** on opencode-ai 1.18.33 and @kilocode/cli 7.7.7 with a probe
//! plugin, through their own plugin loader):
//! - `tool.execute.before(input {tool, sessionID, callID}, output {args})`: a throw
//!   fails the call and its message becomes the tool result; mutating `output.args`
//!   changes what runs. Fired for built-in and MCP tools alike;
//! - `tool.execute.after(input {tool, sessionID, callID, args}, output {title, output,
//!   metadata})`: fired for a call that ran; `output.output` is what the model gets;
//! - `chat.message(input {sessionID, agent, model, messageID}, output {message, parts})`;
//! - `experimental.chat.system.transform(input {sessionID, model}, output {system})`:
//!   before every model request (also the title request), with the system prompt rebuilt
//!   each time, so an entry pushed there reaches that request only;
//! - `experimental.session.compacting(input {sessionID}, output {context, prompt})`
//!   (**reference**: not fired by the scripted sessions).

mod parse;
mod plan;
mod render;

pub use parse::parse_opencode_payload;
pub use plan::{MCP_SERVER, OpenCodeHost, opencode_setup_plan};
pub use render::render_opencode_reply;

use crate::adapter::Capabilities;
use crate::{EventKind, HostEvent};

pub const OPENCODE_EVENTS: &[HostEvent] = &[
    // A throw stops the call with our reason; `output.args` is the input that runs.
    HostEvent {
        cli: "tool.execute.before",
        name: "tool.execute.before",
        kind: EventKind::PreToolUse,
        capabilities: Capabilities::BLOCK.union(Capabilities::REWRITE_INPUT),
    },
    // The result the model gets: replaced, or given our text after it.
    HostEvent {
        cli: "tool.execute.after",
        name: "tool.execute.after",
        kind: EventKind::PostToolUse,
        capabilities: Capabilities::REWRITE_OUTPUT.union(Capabilities::INJECT_CONTEXT),
    },
    // Observed only: the message's parts carry ids the host assigns.
    HostEvent {
        cli: "chat.message",
        name: "chat.message",
        kind: EventKind::UserPrompt,
        capabilities: Capabilities::empty(),
    },
    HostEvent {
        cli: "experimental.session.compacting",
        name: "experimental.session.compacting",
        kind: EventKind::PreCompact,
        capabilities: Capabilities::empty(),
    },
    // No SessionStart in either host: the system prompt of every request stands in.
    HostEvent {
        cli: "experimental.chat.system.transform",
        name: "experimental.chat.system.transform",
        kind: EventKind::SessionStart,
        capabilities: Capabilities::INJECT_CONTEXT,
    },
];

/// OpenCode names an MCP tool `<server>_<tool>`, each part with every character but
/// `[A-Za-z0-9_-]` turned into `_` (**verified**: its MCP tool table, and the
/// `context-mode_ctx_execute` the real client offered the scripted model).
pub fn ctx_tool_name(server: &str, tool: &str) -> String {
    format!("{}_{}", sanitize(server), sanitize(tool))
}

fn sanitize(part: &str) -> String {
    part.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The shim (`configs/opencode/context-mode.js`, the `template` an adapter includes) for
/// `platform`, running `cm` as `cm_command` (spawned directly, no shell: a path with
/// spaces needs no quoting).
pub fn shim_source(template: &str, cm_command: &str, platform: &str) -> String {
    let literal =
        |text: &str| crate::serde_json::to_string(text).unwrap_or_else(|_| "\"cm\"".to_owned());
    template
        .replace("\"__CM_COMMAND__\"", &literal(cm_command))
        .replace("\"__CM_PLATFORM__\"", &literal(platform))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_are_named_server_underscore_tool() {
        assert_eq!(
            ctx_tool_name("context-mode", "ctx_execute"),
            "context-mode_ctx_execute"
        );
        assert_eq!(
            ctx_tool_name("my.server", "ctx_search"),
            "my_server_ctx_search"
        );
    }
}
