//! VS Code Copilot hook stdin → normalized event: the shared wire protocol
//! ([`crate::wire::parse`], where the fields and their sources are listed).

pub use crate::wire::parse;
