//! Normalized reply → the JSON VS Code Copilot reads from a hook's stdout: the shared
//! wire protocol ([`context_mode_sdk::copilot_wire::render_copilot_reply`]).

pub use context_mode_sdk::copilot_wire::render_copilot_reply as render;
