//! `ctx_doctor`: checks the installation.

use super::{Handler, Hints, Registration, ToolSpec};
use crate::service::{self, DoctorParams};

const DESCRIPTION: &str = "\
Check this context-mode installation and show how to fix what is wrong.
WHEN:
- A ctx_* tool fails in a way that points at the setup: a missing runtime, a database error, a plugin error
- The user asks whether context-mode is installed and working
WHEN NOT:
- Debugging the user's own code or tests: use ctx_execute
RETURNS:
- A table with one row per check (version, SQLite + FTS5, data root, project database, runtimes, plugins, .cwasm cache, hook errors, a cm serve self-test), each PASS, WARN or FAIL with a detail and the command that fixes it
- Secrets are masked and the home directory is shown as ~; nothing is changed
EXAMPLE:
- {}";

pub(super) fn spec() -> ToolSpec {
    ToolSpec::new::<DoctorParams>(Registration {
        name: "ctx_doctor",
        description: DESCRIPTION,
        hints: Hints::READS,
        bulk: false,
        handler: Handler::Blocking(|service, params, _| {
            service::doctor(service, params, &super::names())
        }),
    })
}
