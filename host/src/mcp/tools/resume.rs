//! `ctx_resume`: shows the session's saved working state.

use super::{Handler, Hints, Registration, ToolSpec};
use crate::service::{self, ResumeParams};

const DESCRIPTION: &str = "\
Show this session's saved working state, or one journal row in full.
WHEN:
- After a compaction or resume, to recover the task, edited files, decisions and open errors
- A state block line points at a row: pass its number as seq
WHEN NOT:
- Searching earlier tool output or docs: use ctx_search
RETURNS:
- Without seq: the state block (last request, tasks, errors, files, decisions), at most 2 KB
- With seq: that row's category, summary and full redacted data, at most 2 KB
EXAMPLE:
- {}
- {\"seq\": 42}";

pub(super) fn spec() -> ToolSpec {
    ToolSpec::new::<ResumeParams>(Registration {
        name: "ctx_resume",
        description: DESCRIPTION,
        hints: Hints::READS,
        bulk: false,
        handler: Handler::Blocking(|service, params, _| service::resume(service, params)),
    })
}
