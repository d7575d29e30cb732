//! `ctx_hook`: a hook call the agent hands to the running server instead of spawning
//! `cm hook` (ADR 27). Not in tools/list: the model never sees or calls it; Claude Code's
//! `mcp_tool` hook entries name it, and only the agent holding this server's stdio can.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Handler, Hints, Registration, ToolSpec};
use crate::hooks::HookCall;
use crate::service::{Reply, Service};

pub const NAME: &str = crate::model::SERVED_HOOK_TOOL;

const DESCRIPTION: &str = "\
Answer one agent hook call as `cm hook <platform> <event>` would: the result's text is the \
hook's stdout. Called by the agent's own hook entries, not by the model.";

/// `cm hook <platform> <event>` and the payload it would read on stdin.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HookParams {
    /// The adapter id, e.g. `claude-code`.
    pub platform: String,
    /// The `cm hook` event name, e.g. `pretooluse`.
    pub event: String,
    /// The host's hook payload.
    pub payload: serde_json::Map<String, serde_json::Value>,
}

pub(super) fn spec() -> ToolSpec {
    ToolSpec::new::<HookParams>(Registration {
        name: NAME,
        description: DESCRIPTION,
        hints: Hints::STORES,
        bulk: false,
        handler: Handler::InPlace {
            run: |service, params, _| answer(service, params),
            quick: |params| crate::hooks::answers_at_once(&params.platform),
        },
    })
}

/// The hook's stdout as the tool's text; never an error, so a failure leaves the agent as
/// if no hook had answered (the failure is in `hook-errors.log`).
fn answer(service: &Service, params: HookParams) -> Reply {
    let call = HookCall {
        platform: params.platform,
        event: params.event,
        payload: serde_json::Value::Object(params.payload),
    };
    let stdout = match service.engine() {
        Ok(engine) => {
            let project = service.project().ok();
            let server = crate::hooks::ServedBy {
                engine,
                root: &service.root,
                project: project.as_deref(),
            };
            crate::hooks::answer_served(server, &call)
        }
        Err(err) => {
            crate::hooks::log_failure(
                &service.root,
                &call.platform,
                &call.event,
                &format!("the plugin engine is unavailable: {err}"),
            );
            String::new()
        }
    };
    Reply::ok(stdout)
}
