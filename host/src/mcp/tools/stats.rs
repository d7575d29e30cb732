//! `ctx_stats`: shows the bytes kept out of the context.

use super::{Handler, Hints, Registration, ToolSpec};
use crate::service::{self, StatsParams};

const DESCRIPTION: &str = "\
Show how many bytes the ctx_* tools kept out of the context, per tool and in all.
WHEN:
- The user asks what context-mode saved, in this session, this project or all projects
- Checking whether large output really stayed out of the context
WHEN NOT:
- Diagnosing a broken setup: use ctx_doctor
RETURNS:
- Per scope: calls, raw and returned bytes per tool, the kept-out share with a text bar, tokens (bytes / 4)
- ctx_fetch_and_index cache hits and hook latency p50/p95/max per platform and event
EXAMPLE:
- {}";

pub(super) fn spec() -> ToolSpec {
    ToolSpec::new::<StatsParams>(Registration {
        name: "ctx_stats",
        description: DESCRIPTION,
        hints: Hints::READS,
        bulk: false,
        handler: Handler::Blocking(|service, _, _| service::stats(service)),
    })
}
