//! One session identity per agent, shared by `cm serve` and `cm hook` (ADR 0021).
//!
//! The hooks learn the agent's session from their payload; the MCP server often learns
//! nothing (Gemini CLI, Codex and Cursor give it no session variable; Claude Code's
//! `CLAUDE_CODE_SESSION_ID` goes stale after `/clear`). Both are children of one agent
//! process, so that process is the identity both sides can compute: each hook announces
//! "agent process P is in session S" in a small file named by P (pid and start time, so
//! a reused pid names another file), and the server reads the file of its own agent on
//! every call.

use crate::state_memo::StateMemo;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::platform;

/// Ancestors looked at, nearest first, to find the agent past shells and launchers.
const ANCESTORS_MAX: usize = 6;

/// Process names that launch the agent's children without being the agent: a hook runs
/// under `sh -c` (on Windows `cmd /c`, PowerShell or Git Bash), a server may be started
/// through `env`, `npx` or `uvx`. Compared with the OS's process name (Linux's `comm`,
/// at most 15 bytes; on Windows without `.exe`).
const LAUNCHERS: &[&str] = &[
    "sh",
    "bash",
    "dash",
    "zsh",
    "fish",
    "ksh",
    "env",
    "timeout",
    "nice",
    "nohup",
    "npx",
    "uvx",
    "uv",
    "cmd",
    "powershell",
    "pwsh",
];

/// The agent process both sides are children of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentProcess {
    pub pid: u32,
    /// Start time in the OS's unit (`platform::process::ProcessInfo::started`): with the
    /// pid, unique for the machine's uptime.
    pub started: u64,
}

impl AgentProcess {
    /// The fallback session id of an agent that told neither side one; the hooks'
    /// adapters derive the same `pid-<pid>` from the pid they are given.
    pub fn derived_session_id(&self) -> String {
        format!("pid-{}", self.pid)
    }
}

/// What a hook announced for its agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Announcement {
    pub session_id: String,
    pub platform: String,
    /// The model the host named in the hook payload, when it did (for the cost line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// The agent this process runs under: the nearest ancestor that is not a launcher.
/// `None` where the process table cannot be read.
pub fn agent_of_this_process() -> Option<AgentProcess> {
    // Found once per process: `cm serve` asks on every hook it answers, and the chain of
    // ancestors of a living process changes only when its agent is gone, after which
    // nothing announced for it is read.
    static FOUND: std::sync::OnceLock<AgentProcess> = std::sync::OnceLock::new();
    if let Some(agent) = FOUND.get() {
        return Some(*agent);
    }
    let found = find_agent_of_this_process()?;
    Some(*FOUND.get_or_init(|| found))
}

fn find_agent_of_this_process() -> Option<AgentProcess> {
    let mut pid = platform::process::parent_pid();
    for _ in 0..ANCESTORS_MAX {
        if pid <= 1 {
            return None;
        }
        let info = platform::process::info(pid)?;
        if !is_launcher(&info.name) {
            return Some(AgentProcess {
                pid,
                started: info.started,
            });
        }
        pid = info.parent;
    }
    None
}

fn is_launcher(name: &str) -> bool {
    LAUNCHERS.contains(&name) || name.starts_with("npm")
}

fn agents_dir(root: &Path) -> PathBuf {
    root.join("agents")
}

fn announcement_path(root: &Path, agent: AgentProcess) -> PathBuf {
    agents_dir(root).join(format!("{}-{}.json", agent.pid, agent.started))
}

/// Records `announcement` for `agent` (atomically: a reader sees the old or the new one).
/// Most events name no model (Claude Code names it at SessionStart only): the model
/// announced earlier in the same session is kept.
pub fn announce(
    root: &Path,
    agent: AgentProcess,
    announcement: &Announcement,
) -> std::io::Result<()> {
    let path = announcement_path(root, agent);
    let earlier = read(root, agent);
    let mut announcement = announcement.clone();
    if let Some(earlier) = &earlier
        && announcement.model.is_none()
        && earlier.session_id == announcement.session_id
    {
        announcement.model = earlier.model.clone();
    }
    if earlier.as_ref() == Some(&announcement) {
        return Ok(());
    }
    std::fs::create_dir_all(agents_dir(root))?;
    let tmp = crate::paths::temp_name(&agents_dir(root), "agent");
    std::fs::write(
        &tmp,
        serde_json::to_vec(&announcement).map_err(std::io::Error::other)?,
    )?;
    crate::platform::fs::replace_state_file(&tmp, &path)?;
    ANNOUNCEMENTS.wrote(&path, announcement);
    Ok(())
}

/// The announcements this process read or wrote: every hook `cm serve` answers reads
/// its agent's.
static ANNOUNCEMENTS: StateMemo<Announcement> = StateMemo::new();

/// What the hooks of `agent` announced last, if anything readable.
pub fn read(root: &Path, agent: AgentProcess) -> Option<Announcement> {
    ANNOUNCEMENTS.read(&announcement_path(root, agent), |bytes| {
        serde_json::from_slice::<Announcement>(bytes)
            .ok()
            .filter(|a| !a.session_id.trim().is_empty())
    })
}

/// Removes the announcements of agents that are gone (server start-up housekeeping).
pub fn remove_departed(root: &Path) {
    let Ok(entries) = std::fs::read_dir(agents_dir(root)) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some((pid, started)) = name
            .strip_suffix(".json")
            .and_then(|stem| stem.split_once('-'))
        else {
            continue;
        };
        let (Ok(pid), Ok(started)) = (pid.parse::<u32>(), started.parse::<u64>()) else {
            continue;
        };
        let alive = platform::process::is_running(pid, Some(started));
        if !alive {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The model a hook payload names: a top-level `model` string (Claude Code's
/// SessionStart, Codex and Cursor hooks) or `model.id`. Read leniently by the host, as
/// no adapter field carries it.
pub fn payload_model(stdin: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(stdin).ok()?;
    let model = value.get("model")?;
    model
        .as_str()
        .or_else(|| model.get("id").and_then(serde_json::Value::as_str))
        .map(str::trim)
        .filter(|m| !m.is_empty() && m.len() <= 128)
        .map(String::from)
}

/// The session of `cm serve`, asked on every call: what its agent's hooks announced
/// last, else the host's session variable, else an id derived from the agent process.
#[derive(Debug, Clone)]
pub struct ServerSession {
    root: PathBuf,
    agent: Option<AgentProcess>,
    fallback: String,
}

/// The session variables agents set for the MCP servers they start, first match wins:
/// Claude Code's (verified in 2.1.332, which sets it for MCP servers and hooks) and the
/// name upstream context-mode reads.
pub const SERVER_SESSION_ENV_VARS: [&str; 2] = ["CLAUDE_CODE_SESSION_ID", "CLAUDE_SESSION_ID"];

impl ServerSession {
    pub fn new(root: PathBuf, agent: Option<AgentProcess>, env_session: Option<String>) -> Self {
        let fallback = env_session
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .or_else(|| agent.map(|a| a.derived_session_id()))
            .unwrap_or_else(|| {
                format!(
                    "serve-{}-{}",
                    std::process::id(),
                    crate::timestamp::now_ms()
                )
            });
        ServerSession {
            root,
            agent,
            fallback,
        }
    }

    /// For this process: its agent and the first session variable set.
    pub fn of_this_process(root: PathBuf) -> Self {
        let env_session = SERVER_SESSION_ENV_VARS
            .iter()
            .find_map(|name| std::env::var(name).ok().filter(|v| !v.trim().is_empty()));
        ServerSession::new(root, agent_of_this_process(), env_session)
    }

    /// A session fixed at `id` (tests, terminal front ends).
    pub fn fixed(id: impl Into<String>) -> Self {
        ServerSession {
            root: PathBuf::new(),
            agent: None,
            fallback: id.into(),
        }
    }

    fn announced(&self) -> Option<Announcement> {
        self.agent.and_then(|agent| read(&self.root, agent))
    }

    pub fn id(&self) -> String {
        self.announced()
            .map(|a| a.session_id)
            .unwrap_or_else(|| self.fallback.clone())
    }

    /// The model the agent's hooks named, if any.
    pub fn model(&self) -> Option<String> {
        self.announced().and_then(|a| a.model)
    }
}

#[cfg(test)]
mod tests;
