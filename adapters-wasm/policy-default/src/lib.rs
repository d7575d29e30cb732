//! The built-in routing policy of context-mode (`default`).
//!
//! It decides, for one normalized tool call, allow / redirect / deny / ask /
//! rewrite / add-context, and owns the wording of every reason (DESIGN §3).
//! All logic is plain Rust ([`policy::decide`]) over the mirror types in
//! [`model`]; `component` only converts at the WIT boundary, so every rule
//! is tested natively.

pub mod embedded;
pub mod model;
pub mod policy;
pub mod reasons;
pub mod routing;
pub mod rules;
pub mod shell;
pub mod subjects;

mod component;

#[cfg(test)]
mod contract_tests;

pub use policy::{OUTPUT_CAP_BYTES, decide};

/// The policy's stable id.
pub const POLICY_ID: &str = "default";
