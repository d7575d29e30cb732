//! `ctx_batch_execute`: runs several commands and answers queries over their output.

use super::{Handler, Hints, Registration, ToolSpec};
use crate::service::{self, BatchExecuteParams};

const DESCRIPTION: &str = "\
Run several commands, index all their output and answer several queries in one call.
WHEN:
- Gathering context from many commands at once (git log, ls, grep, test runs)
- Searching that output right away without a second call
WHEN NOT:
- A single short command: use ctx_execute
RETURNS:
- Per command: label, exit code and size; then the best matches for each query
- Commands past the shared timeout budget are marked skipped
EXAMPLE:
- {\"commands\": [{\"label\": \"log\", \"command\": \"git log --oneline -50\"}], \"queries\": [\"fix login\"]}";

pub(super) fn spec() -> ToolSpec {
    ToolSpec::new::<BatchExecuteParams>(Registration {
        name: "ctx_batch_execute",
        description: DESCRIPTION,
        hints: Hints::RUNS_CODE,
        bulk: true,
        handler: Handler::Async(|service, params, raw| {
            Box::pin(async move { service::batch_execute(&service, params, &raw).await })
        }),
    })
}
