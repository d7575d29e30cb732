//! `ctx_batch_execute`, and `ctx_batch` (its 2.0 name): runs several commands and answers
//! queries over their output. Both are listed (ADR 20): a host lets the model call only
//! the tools tools/list shows, and 1.x routing files name one, 2.0's the other.

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

const DESCRIPTION_2_0: &str = "\
Run several commands, index their output and answer queries over it (2.0 name of ctx_batch_execute).
WHEN:
- Your instructions name ctx_batch: it is ctx_batch_execute, same parameters and reply
- Gathering context from many commands at once and searching it in the same call
WHEN NOT:
- A single short command: use ctx_execute
RETURNS:
- Per command: label, exit code and size; then the best matches for each query
EXAMPLE:
- {\"commands\": [\"git log --oneline -50\", \"npm ls\"], \"queries\": [\"fix login\"]}";

pub(super) fn spec() -> ToolSpec {
    registration("ctx_batch_execute", DESCRIPTION)
}

pub(super) fn spec_2_0() -> ToolSpec {
    registration("ctx_batch", DESCRIPTION_2_0)
}

fn registration(name: &'static str, description: &'static str) -> ToolSpec {
    ToolSpec::new::<BatchExecuteParams>(Registration {
        name,
        description,
        hints: Hints::RUNS_CODE,
        bulk: true,
        handler: Handler::Async(|service, params, raw| {
            Box::pin(async move { service::batch_execute(&service, params, &raw).await })
        }),
    })
}
