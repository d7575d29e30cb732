//! `cm doctor [--json]`: the diagnostics table; exit code 1 when any check fails.

use std::process::ExitCode;

use clap::Args;

use crate::doctor::{self, DoctorOptions};

#[derive(Args)]
pub struct DoctorArgs {
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Only these agents' rows (comma-separated ids, as `cm setup --agents` takes them).
    #[arg(long, value_delimiter = ',')]
    agents: Option<Vec<String>>,
}

pub fn run(args: DoctorArgs) -> ExitCode {
    let mut options = DoctorOptions::current(crate::mcp::tools::names());
    options.agents = args.agents;
    let report = doctor::run(&options, Vec::new());
    if args.json {
        println!("{}", report.to_json());
    } else {
        print!("{}", doctor::render_table(&report));
    }
    if report.has_failures() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
