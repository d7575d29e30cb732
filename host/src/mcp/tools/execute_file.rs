//! `ctx_execute_file`: runs code over one file.

use super::{Handler, Hints, Registration, ToolSpec};
use crate::service::{self, ExecuteFileParams};

const DESCRIPTION: &str = "\
Run code over one file so its content stays out of the context.
WHEN:
- Analysing a large file: logs, CSV, JSON, generated code
- The script reads the path from FILE_PATH and the text from FILE_CONTENT (env vars in shell, variables in other languages)
WHEN NOT:
- Editing the file: use the normal read and edit tools
RETURNS:
- What the script prints, shaped like ctx_execute output (indexed when large)
- A refusal naming the permission rule to add when the path is outside the project
EXAMPLE:
- {\"path\": \"logs/access.log\", \"language\": \"python\", \"code\": \"print(sum(' 500 ' in l for l in FILE_CONTENT.splitlines()))\"}";

pub(super) fn spec() -> ToolSpec {
    ToolSpec::new::<ExecuteFileParams>(Registration {
        name: "ctx_execute_file",
        description: DESCRIPTION,
        hints: Hints::RUNS_CODE,
        bulk: true,
        handler: Handler::Async(|service, params, raw| {
            Box::pin(async move { service::execute_file(&service, params, &raw).await })
        }),
    })
}
