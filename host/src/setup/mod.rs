//! `cm setup`: asks each platform adapter for its setup plan and merges it into the
//! agent's config files — shown first, backed up, applied atomically, rolled back on any
//! failure, recorded so `--remove` takes out exactly what was added.

pub mod json_merge;
pub mod model;
pub mod signature;
pub mod toml_merge;
