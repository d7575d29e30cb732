//! JetBrains Copilot hook stdin → normalized event: VS Code Copilot's wire protocol
//! ([`context_mode_sdk::copilot_wire::parse_copilot_payload`]), whose camelCase
//! fallbacks cover a JetBrains payload that spells the tool fields differently
//! (unverified either way).

pub use context_mode_sdk::copilot_wire::parse_copilot_payload as parse;
