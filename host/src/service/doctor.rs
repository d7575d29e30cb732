//! `ctx_doctor`: the same checks as `cm doctor`, as a markdown table for the agent.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Reply, Service};
use crate::doctor::{self, DoctorOptions};

/// `ctx_doctor` takes no parameters.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct DoctorParams {}

/// Runs every check for this server's project; `expected_tools` are the tools the
/// `cm serve` self-test must list. A report with failures is still an answer, not a
/// tool error: the table says what is wrong and how to fix it.
pub fn doctor(service: &Service, _params: DoctorParams, expected_tools: &[&'static str]) -> Reply {
    let options = DoctorOptions {
        project: service.project(),
        serve_exe: std::env::current_exe().ok(),
        expected_tools: expected_tools.to_vec(),
        budget: doctor::budget_from_env(),
        agents: None,
    };
    Reply::ok(doctor::render_markdown(&doctor::run(&options, Vec::new())))
}
