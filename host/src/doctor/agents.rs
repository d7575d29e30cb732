//! Per-agent rows: is context-mode registered with each agent found on this machine,
//! and is any hook registered twice. The registration facts come from `cm setup`'s own
//! inspection, so doctor and setup can never disagree on what "registered" means.

use std::path::Path;

use super::Check;
use crate::setup::{AgentRegistration, EditCheck, EditState};

/// Rows for every detected agent (and for any agent with entries of ours although its
/// marker is gone), or one row saying none was found.
/// `only`: the agents `--agents` names; an id no adapter has is a failed row. `project`:
/// the project whose own files (`{project}/…` edits) are checked too.
pub fn checks(root: Option<&Path>, project: Option<&Path>, only: Option<&[String]>) -> Vec<Check> {
    let Some(root) = root else {
        return vec![Check::warn(
            "agents",
            "not checked: the data root is not valid (see the data root row)",
            None,
        )];
    };
    let Some(home) = crate::paths::home_dir() else {
        return vec![Check::warn("agents", "not checked: HOME is not set", None)];
    };
    let cm = match crate::setup::cm_command() {
        Ok(cm) => cm,
        Err(err) => return vec![Check::warn("agents", err.to_string(), None)],
    };
    match crate::setup::inspect_project(root, &home, &cm, project) {
        Ok(agents) => match only {
            None => {
                let mut all = rows(&agents);
                super::copilot_plugin::amend(&mut all, &home);
                for agent in agents.iter().filter(|a| registered(a)) {
                    all.extend(super::trust::checks(&agent.id, &home));
                }
                all
            }
            Some(only) => named_rows(agents, only, &home),
        },
        Err(err) => vec![Check::fail(
            "agents",
            format!("cannot load the adapters: {err}"),
            Some("cm plugin verify".to_owned()),
        )],
    }
}

/// True when some edit of `agent` is in place: only then can trust be missing.
fn registered(agent: &AgentRegistration) -> bool {
    agent
        .edits
        .iter()
        .any(|e| !matches!(e.state, EditState::Missing))
}

/// The rows of the named agents, shown whether or not they are detected, each with
/// its trust rows; an unknown id fails with the known ones.
fn named_rows(agents: Vec<AgentRegistration>, only: &[String], home: &Path) -> Vec<Check> {
    let known: Vec<String> = agents.iter().map(|a| a.id.clone()).collect();
    let mut rows: Vec<Check> = only
        .iter()
        .filter(|id| !known.contains(id))
        .map(|id| {
            Check::fail(
                "agents",
                format!("unknown agent {id} (known: {})", known.join(", ")),
                Some("cm doctor --agents <id,…>".to_owned()),
            )
        })
        .collect();
    for mut agent in agents.into_iter().filter(|a| only.contains(&a.id)) {
        agent.detected = true;
        let id = agent.id.clone();
        rows.extend(self::rows(std::slice::from_ref(&agent)));
        rows.extend(super::trust::checks(&id, home));
    }
    if only.iter().any(|id| id == "copilot-cli") {
        super::copilot_plugin::amend(&mut rows, home);
    }
    rows
}

/// How a hooks edit's tool events reach `cm`, for an agent whose setup chose it by the
/// host's version (ADR 27); empty for every other edit.
fn transport(agent: &AgentRegistration, edit: &EditCheck) -> String {
    if edit.kind != "hooks" {
        return String::new();
    }
    match (&agent.host_version, edit.served) {
        (None, _) => String::new(),
        (Some(version), true) => format!(
            "; tool events answered in-server by cm serve ({}), no process per call",
            version.as_deref().unwrap_or("version unknown")
        ),
        (Some(Some(version)), false) => {
            format!("; a cm hook process per tool call ({version} has no in-server hooks)")
        }
        (Some(None), false) => format!(
            "; a cm hook process per tool call ({} did not say its version)",
            agent.display_name
        ),
    }
}

/// The one row an MCP-only host gets instead of a hooks row: a warning, because no
/// tool call of it is ever intercepted, whatever is registered.
fn mcp_only_row(agent: &AgentRegistration) -> Check {
    Check::warn(
        format!("{} hooks", agent.id),
        format!(
            "{} has no hooks: only the ctx_* tools are registered, and nothing stops a large tool output; the routing file is the only guidance its model gets",
            agent.display_name
        ),
        Some(format!(
            "cm setup --agents {} --routing --project (writes the routing file)",
            agent.id
        )),
    )
}

fn rows(agents: &[AgentRegistration]) -> Vec<Check> {
    let mut rows = Vec::new();
    for agent in agents {
        let any_applied = agent
            .edits
            .iter()
            .any(|e| !matches!(e.state, EditState::Missing));
        if !agent.detected
            && !any_applied
            && agent.duplicates.is_empty()
            && agent.missing_binaries.is_empty()
        {
            continue;
        }
        for edit in &agent.edits {
            let name = format!("{} {}", agent.id, edit.kind);
            let file = edit.file.display();
            let fix = edit.fix.clone();
            rows.push(match &edit.state {
                EditState::Applied => Check::pass(
                    name,
                    format!("registered in {file}{}", transport(agent, edit)),
                ),
                EditState::Missing => Check::warn(
                    name,
                    format!(
                        "{} is installed but context-mode is not registered in {file}",
                        agent.display_name
                    ),
                    fix,
                ),
                EditState::Partial { missing } => Check::warn(
                    name,
                    format!("out of date in {file}: {}", missing.join(", ")),
                    fix,
                ),
                EditState::Unreadable { reason } => {
                    Check::fail(name, format!("{file}: {reason}"), fix)
                }
            });
        }
        if agent.mcp_only {
            rows.push(mcp_only_row(agent));
        }
        // Why the edit rows above say "out of date" after an npm or plugin update
        // moved `cm`; a failure, because every call of the agent fails meanwhile.
        for missing in &agent.missing_binaries {
            rows.push(Check::fail(
                format!("{} cm path", agent.id),
                format!(
                    "{} runs {}, which no longer exists: {}'s hooks and server fail until setup points them at this cm",
                    missing.file.display(),
                    missing.program,
                    agent.display_name
                ),
                Some(format!("cm setup --agents {}", agent.id)),
            ));
        }
        for duplicate in &agent.duplicates {
            rows.push(Check::fail(
                format!("{} hooks", agent.id),
                format!(
                    "{} registered {} times in {} ({}): every call runs the hook {} times",
                    duplicate.event,
                    duplicate.count,
                    duplicate.file.display(),
                    duplicate.key,
                    duplicate.count
                ),
                Some(duplicate.fix.clone()),
            ));
        }
    }
    if rows.is_empty() {
        let known: Vec<&str> = agents.iter().map(|a| a.id.as_str()).collect();
        rows.push(Check::warn(
            "agents",
            format!("no coding agent found (looked for {})", known.join(", ")),
            Some("cm setup --agents <id>".to_owned()),
        ));
    }
    rows
}
