//! `cm doctor [--json]`: the diagnostics table; exit code 1 when any check fails.

use std::process::ExitCode;

use clap::Args;

use crate::doctor::{self, DoctorOptions};

#[derive(Args)]
pub struct DoctorArgs {
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: DoctorArgs) -> ExitCode {
    let report = doctor::run(
        &DoctorOptions::current(crate::mcp::tools::names()),
        Vec::new(),
    );
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
