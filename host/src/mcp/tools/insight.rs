//! `ctx_insight`: writes the HTML insight report.

use super::{Handler, Hints, Registration, ToolSpec};
use crate::service::{self, InsightParams};

const DESCRIPTION: &str = "\
Write the local insight report (one HTML file) and get its path.
WHEN:
- The user wants charts: kept-out bytes per day and per tool, largest sources, hook latency, journal
WHEN NOT:
- A quick figure in the conversation: use ctx_stats
RETURNS:
- The path of a self-contained HTML file under the data root (no script, no network) and a two-line summary
EXAMPLE:
- {}";

pub(super) fn spec() -> ToolSpec {
    ToolSpec::new::<InsightParams>(Registration {
        name: "ctx_insight",
        description: DESCRIPTION,
        // Writes (and rewrites) one report file under the data root; nothing else.
        hints: Hints::STORES,
        bulk: false,
        handler: Handler::Blocking(|service, _, _| service::insight(service)),
    })
}
