//! No hook ever calls this adapter: every event name is unknown to it.

pub use context_mode_sdk::mcp_only::parse_no_event as parse;
