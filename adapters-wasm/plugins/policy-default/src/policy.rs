//! `decide`: the routing rules, in order.
//!
//! 1. User permission rules (deny / ask / allow), also inside the ctx tools,
//!    plus confinement of `ctx_execute_file` / `ctx_index` to the project.
//! 2. WebFetch, and another MCP server's fetch tool given a URL (`mcp__fetch__fetch`,
//!    `mcp_web_fetch`) → `ctx_fetch_and_index` + `ctx_search`.
//! 3. `curl` / `wget` printing a response → `ctx_execute`.
//! 4. Inline HTTP in interpreter code → `ctx_execute`.
//! 5. Gradle / Maven / sbt → `ctx_execute` with `| tail -30`.
//! 6. Whole-file Read of a large file → `ctx_execute_file`; otherwise one nudge.
//! 7. Search tools and noisy shell commands → one nudge per session.
//! 8. Sub-agent launches → routing block appended to the prompt.
//! 9. Everything else → no opinion.
//!
//! Rules 2–8 need a reachable `cm serve`; without one they give no opinion,
//! while rule 1 applies either way.
//!
//! An explicit allow rule grants the permission (the result is `allow`
//! instead of `no-opinion`) but leaves redirects in force: a redirected call
//! runs the same command through a ctx tool, under the same rules. Nudges
//! give way to an explicit allow, which the user set to run the call
//! without friction.

use crate::reasons;
use crate::routing::{network, noisy};
use crate::rules::{self, Evaluation, Outcome, Subjects, path};
use crate::shell::Origin;
use crate::subjects;
use context_mode_sdk::policy::{Action, Decision, PolicyContext, Rewrite, ToolCall, ToolKind};

/// The most a whole-file Read may bring into the context before it is
/// redirected. Mirrors `OUTPUT_CAP_BYTES` in host/src/limits.rs (a guest
/// cannot depend on the host crate); keep the two equal.
pub const OUTPUT_CAP_BYTES: u64 = 16_384;

/// Nudge id of the once-per-session tip shown on a Read that runs.
pub const NUDGE_READ: &str = "read";
/// Nudge id of the once-per-session tip shown on a search tool or a noisy shell command.
pub const NUDGE_NOISY_OUTPUT: &str = "noisy-output";

pub fn decide(call: &ToolCall, context: &PolicyContext) -> Decision {
    let project_dir = path::normalize(&context.project_dir, "/");
    let subjects = subjects::collect(call, &project_dir);
    let evaluation = rules::evaluate(&context.rules, call, &subjects, &project_dir);
    match &evaluation.outcome {
        Outcome::Deny(citation) => return Decision::of(Action::Deny(reasons::deny_rule(citation))),
        Outcome::Ask(citation) => return Decision::of(Action::Ask(reasons::ask_rule(citation))),
        Outcome::Allow | Outcome::Unmatched => {}
    }
    if call.kind == ToolKind::Ctx {
        return confine_to_project(call, &subjects, &evaluation, context)
            .unwrap_or_else(Decision::no_opinion);
    }
    let allowed = evaluation.outcome == Outcome::Allow;
    let routed = if context.server_live {
        route(call, context, &subjects, allowed)
    } else {
        None
    };
    routed.unwrap_or_else(|| {
        Decision::of(if allowed {
            Action::Allow
        } else {
            Action::NoOpinion
        })
    })
}

/// `ctx_execute_file` and `ctx_index` read only inside the project unless a
/// `Read(…)` allow rule grants the path.
fn confine_to_project(
    call: &ToolCall,
    subjects: &Subjects,
    evaluation: &Evaluation,
    context: &PolicyContext,
) -> Option<Decision> {
    let project_dir = &path::normalize(&context.project_dir, "/");
    let tool = subjects::ctx_tool(call)?;
    if !matches!(tool.as_str(), "ctx_execute_file" | "ctx_index") {
        return None;
    }
    let file = subjects.read_path.as_deref()?;
    if path::is_inside(file, project_dir) || evaluation.read_path_allowed {
        return None;
    }
    Some(Decision::of(Action::Deny(reasons::deny_outside_project(
        &reasons::Tools::of(context),
        file,
        project_dir,
    ))))
}

fn route(
    call: &ToolCall,
    context: &PolicyContext,
    subjects: &Subjects,
    allowed: bool,
) -> Option<Decision> {
    let tools = reasons::Tools::of(context);
    match call.kind {
        // Another server's tool has a URL subject only when it is a fetch tool
        // (subjects.rs), so every other MCP tool keeps no opinion.
        ToolKind::WebFetch | ToolKind::Mcp => {
            let url = subjects.urls.first()?;
            Some(Decision::of(Action::Redirect(reasons::redirect_web_fetch(
                &tools, url,
            ))))
        }
        ToolKind::Shell => route_shell(call, context, subjects, allowed, &tools),
        ToolKind::Read => route_read(call, context, subjects, allowed, &tools),
        ToolKind::Grep if !allowed => {
            nudge(context, NUDGE_NOISY_OUTPUT, || reasons::grep_nudge(&tools))
        }
        ToolKind::Agent => route_agent(call, &tools),
        _ => None,
    }
}

fn route_shell(
    call: &ToolCall,
    context: &PolicyContext,
    subjects: &Subjects,
    allowed: bool,
    tools: &reasons::Tools,
) -> Option<Decision> {
    let line = subjects::shell_line(call)?;
    let direct: Vec<_> = subjects
        .shell
        .iter()
        .filter(|c| c.origin == Origin::Direct)
        .collect();
    let redirect = |reason: String| Some(Decision::of(Action::Redirect(reason)));
    if let Some(fetch) = direct.iter().find_map(|c| network::printing_fetch(c)) {
        return redirect(reasons::redirect_fetch_command(
            tools,
            &line,
            fetch.url.as_deref(),
        ));
    }
    if direct.iter().any(|c| network::inline_http(c)) {
        return redirect(reasons::redirect_inline_http(tools, &line));
    }
    if direct.iter().any(|c| noisy::is_build_tool(c)) {
        return redirect(reasons::redirect_build(
            tools,
            &line,
            subjects.shell.len() == 1,
        ));
    }
    if allowed {
        return None;
    }
    let what = direct.iter().find_map(|c| noisy::noisy_command(c))?;
    nudge(context, NUDGE_NOISY_OUTPUT, || {
        reasons::noisy_shell_nudge(tools, &what)
    })
}

fn route_read(
    call: &ToolCall,
    context: &PolicyContext,
    subjects: &Subjects,
    allowed: bool,
    tools: &reasons::Tools,
) -> Option<Decision> {
    let file = subjects.read_path.as_deref()?;
    match context.file_size_bytes {
        Some(size) if !call.has_range && size > OUTPUT_CAP_BYTES => Some(Decision::of(
            Action::Redirect(reasons::redirect_large_read(tools, file, size)),
        )),
        Some(_) if !allowed => nudge(context, NUDGE_READ, || reasons::read_nudge(tools)),
        None if call.has_range && !allowed => {
            nudge(context, NUDGE_READ, || reasons::read_nudge(tools))
        }
        _ => None,
    }
}

/// The once-per-session tip `id`, unless this session has seen it.
fn nudge(context: &PolicyContext, id: &str, text: impl FnOnce() -> String) -> Option<Decision> {
    if context.nudges_shown.iter().any(|shown| shown == id) {
        return None;
    }
    Some(Decision {
        action: Action::AddContext(text()),
        nudge: Some(id.to_string()),
    })
}

fn route_agent(call: &ToolCall, tools: &reasons::Tools) -> Option<Decision> {
    let prompt = call.prompt.clone().or_else(|| {
        subjects::input(call)
            .get("prompt")
            .and_then(serde_json::Value::as_str)
            .map(str::to_string)
    })?;
    if prompt.contains(&reasons::subagent_block_marker(tools)) {
        return None;
    }
    let prompt = format!("{prompt}\n\n{}", reasons::subagent_routing_block(tools));
    // The routing block only improves the launch: a host that cannot rewrite
    // the prompt lets the sub-agent start without it (no reason).
    Some(Decision::of(Action::Rewrite(Rewrite {
        command: None,
        prompt: Some(prompt),
        reason: None,
    })))
}

#[cfg(test)]
mod tests;
