//! `ctx_execute`: runs code in the sandbox.

use super::{Handler, Hints, Registration, ToolSpec};
use crate::service::{self, ExecuteParams};

const DESCRIPTION: &str = "\
Run code in a local sandbox; only what it prints comes back.
WHEN:
- Output would be large: tests, builds, logs, API calls, git history, data files
- You want a count, a filter or a summary rather than the raw data
WHEN NOT:
- Reading a small file you are about to edit: use the normal read tool
RETURNS:
- Printed output whole up to 4 KB; larger output is indexed, and you get the parts matching `intent` (or a head/tail preview) plus a ctx_search hint
- isError with the exit code and the stderr tail when the code fails; the code has full network access
EXAMPLE:
- {\"language\": \"shell\", \"code\": \"npm test 2>&1 | tail -40\", \"intent\": \"failing tests\"}
- languages: javascript, typescript, python, shell, ruby, go, rust, php, perl, r, elixir, csharp";

pub(super) fn spec() -> ToolSpec {
    ToolSpec::new::<ExecuteParams>(Registration {
        name: "ctx_execute",
        description: DESCRIPTION,
        hints: Hints::RUNS_CODE,
        bulk: true,
        handler: Handler::Async(|service, params, raw| {
            Box::pin(async move { service::execute(&service, params, &raw).await })
        }),
    })
}
