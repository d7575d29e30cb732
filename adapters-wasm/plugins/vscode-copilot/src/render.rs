//! Normalized reply → the JSON VS Code Copilot reads from a hook's stdout: the shared
//! wire protocol ([`crate::wire::render`]).

pub use crate::wire::render;
