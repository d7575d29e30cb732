//! JetBrains Copilot hook stdin → normalized event: VS Code Copilot's wire protocol
//! ([`crate::wire::parse`]), whose camelCase fallbacks cover a JetBrains payload that
//! spells the tool fields differently (unverified either way).

pub use crate::wire::parse;
