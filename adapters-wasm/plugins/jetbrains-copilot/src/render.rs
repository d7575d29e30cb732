//! Normalized reply → the JSON JetBrains Copilot reads from a hook's stdout: VS Code
//! Copilot's wire protocol ([`context_mode_sdk::copilot_wire::render_copilot_reply`]).

pub use context_mode_sdk::copilot_wire::render_copilot_reply as render;
