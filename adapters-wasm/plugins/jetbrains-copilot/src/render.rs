//! Normalized reply → the JSON JetBrains Copilot reads from a hook's stdout: VS Code
//! Copilot's wire protocol ([`crate::wire::render`]).

pub use crate::wire::render;
