//! `ctx_fetch_and_index`: fetches URLs and indexes them.

use super::{Handler, Hints, Registration, ToolSpec};
use crate::service::{self, FetchAndIndexParams};

const DESCRIPTION: &str = "\
Fetch URLs, convert them to markdown, index them and get a short preview back.
WHEN:
- Reading web docs, API references, issues or any page
- Several URLs at once (requests, concurrency up to 8)
WHEN NOT:
- Local files: use ctx_index
RETURNS:
- Per URL: source label, chunk count, a short preview, and whether it came from the 24 h cache; then search with ctx_search
EXAMPLE:
- {\"url\": \"https://docs.example.com/guide\", \"source\": \"example guide\"}
- {\"requests\": [{\"url\": \"https://a.example/x\"}, {\"url\": \"https://b.example/y\"}], \"force\": true}";

pub(super) fn spec() -> ToolSpec {
    ToolSpec::new::<FetchAndIndexParams>(Registration {
        name: "ctx_fetch_and_index",
        description: DESCRIPTION,
        hints: Hints::FETCHES,
        bulk: true,
        handler: Handler::Async(|service, params, raw| {
            Box::pin(async move { service::fetch_and_index(&service, params, &raw).await })
        }),
    })
}
