//! `ctx_upgrade`: shows how to update cm the way it was installed.

use super::{Handler, Hints, Registration, ToolSpec};
use crate::service::{self, UpgradeParams};

const DESCRIPTION: &str = "\
Get the commands that update cm the way it was installed and refresh the agents' hooks.
WHEN:
- The user asks to upgrade or update context-mode, or hooks point at an old cm path
- You want the installed version and how it was installed
WHEN NOT:
- Checking whether the hooks and the server work: use ctx_doctor
RETURNS:
- The installed version, its path and install channel; for cargo and source builds the source tree with its version and commit, or that it no longer exists
- Shell commands to run in order: the channel's update (npm install -g, cargo install, git pull and cargo build), then cm upgrade (refreshes the hooks of agents already set up, drops stale plugin cache entries); an installed Claude Code or Codex plugin's update; this call runs and downloads nothing
EXAMPLE:
- {}";

pub(super) fn spec() -> ToolSpec {
    ToolSpec::new::<UpgradeParams>(Registration {
        name: "ctx_upgrade",
        description: DESCRIPTION,
        hints: Hints::READS,
        bulk: false,
        handler: Handler::Blocking(|_, params, _| service::upgrade(params)),
    })
}
