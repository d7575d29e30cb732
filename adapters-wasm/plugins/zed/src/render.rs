//! Nothing to render: the host reads no hook reply.

pub use context_mode_sdk::mcp_only::render_nothing as render;
