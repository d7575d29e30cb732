//! `ctx_upgrade`: shows how to rebuild and reinstall cm.

use super::{Handler, Hints, Registration, ToolSpec};
use crate::service::{self, UpgradeParams};

const DESCRIPTION: &str = "\
Get the commands that rebuild and reinstall cm from its source and refresh the agents' hooks.
WHEN:
- The user asks to upgrade or update context-mode, or hooks point at an old cm path
- You want the installed version and the version of the source tree cm was built from
WHEN NOT:
- Checking whether the hooks and the server work: use ctx_doctor
RETURNS:
- The installed version, the source tree with its version and commit, or that it no longer exists
- Shell commands to run in order: git pull, cargo install, then cm upgrade (refreshes the hooks of agents already set up, drops stale plugin cache entries); this call runs and downloads nothing
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
