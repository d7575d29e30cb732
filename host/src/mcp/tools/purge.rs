//! `ctx_purge`: deletes indexed content.

use super::{Handler, Hints, Registration, ToolSpec};
use crate::service::{self, PurgeParams};

const DESCRIPTION: &str = "\
Delete indexed content from the knowledge base.
WHEN:
- Stale or wrong content keeps matching searches
- The user asks to forget a session, a source or the whole project
WHEN NOT:
- Routine cleanup: content older than 14 days is removed automatically
RETURNS:
- What was deleted: sources and chunk counts
EXAMPLE:
- {\"source\": \"old docs\"}
DESTRUCTIVE:
- Deletion cannot be undone; the whole project also needs confirm: true
SCOPES:
- session (this or a given sessionId), source (partial label match), project (everything)";

pub(super) fn spec() -> ToolSpec {
    ToolSpec::new::<PurgeParams>(Registration {
        name: "ctx_purge",
        description: DESCRIPTION,
        hints: Hints::DELETES,
        bulk: true,
        handler: Handler::Blocking(|service, params, _| service::purge(service, params)),
    })
}
