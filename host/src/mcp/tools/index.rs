//! `ctx_index`: indexes text, a file or a directory.

use super::{Handler, Hints, Registration, ToolSpec};
use crate::service::{self, IndexParams};

const DESCRIPTION: &str = "\
Index text, a file or a directory into the local knowledge base for ctx_search.
WHEN:
- Docs, source trees or notes you will search more than once
- Content you already have as text (pass content and a source label)
WHEN NOT:
- A URL: use ctx_fetch_and_index
RETURNS:
- The source label, files and chunks indexed, and bytes kept out of the context
EXAMPLE:
- {\"path\": \"docs\", \"include\": [\"**/*.md\"], \"source\": \"project docs\"}
- {\"content\": \"# Notes ...\", \"source\": \"meeting notes\"}";

pub(super) fn spec() -> ToolSpec {
    ToolSpec::new::<IndexParams>(Registration {
        name: "ctx_index",
        description: DESCRIPTION,
        hints: Hints::STORES,
        bulk: true,
        handler: Handler::Blocking(service::index),
    })
}
