//! VS Code Copilot hook stdin → normalized event: the shared wire protocol
//! ([`context_mode_sdk::copilot_wire::parse_copilot_payload`], where the fields and
//! their sources are listed).

pub use context_mode_sdk::copilot_wire::parse_copilot_payload as parse;
