//! Savings and activity reports: `ctx_stats` / `cm stats` (text or JSON), `cm statusline`
//! (one line), and `ctx_insight` / `cm insight` (one self-contained HTML file). Figures
//! come from the stores' `tool_stats`, `hook_timings`, `sources` and `journal` tables;
//! the journal is shown as activity and never counted as savings.

pub mod insight;
pub mod math;
pub mod prices;
pub mod stats;
pub mod statusline;
pub mod svg;
pub mod text;

#[cfg(test)]
mod tests;

pub use stats::{StatsReport, gather, reported_session};
