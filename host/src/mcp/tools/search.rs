//! `ctx_search`: searches the knowledge base.

use super::{Handler, Hints, Registration, ToolSpec};
use crate::service::{self, SearchParams};

const DESCRIPTION: &str = "\
Search the indexed knowledge base with one or more queries.
WHEN:
- Finding the relevant part of output that ctx_execute, ctx_index or ctx_fetch_and_index indexed
- Looking up identifiers, error messages or headings; typos are corrected
WHEN NOT:
- Nothing was indexed yet: index or execute first
RETURNS:
- Per query: up to `limit` snippets (default 3) with source, heading path and origin (this session, earlier session, memory)
EXAMPLE:
- {\"queries\": [\"rate limit\", \"useEffect cleanup\"], \"source\": \"react docs\", \"limit\": 5}";

pub(super) fn spec() -> ToolSpec {
    ToolSpec::new::<SearchParams>(Registration {
        name: "ctx_search",
        description: DESCRIPTION,
        hints: Hints::READS,
        bulk: false,
        handler: Handler::Blocking(|service, params, _| service::search(service, params)),
    })
}
