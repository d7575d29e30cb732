//! The command line: parses arguments and hands each command to its service.

mod doctor;
mod knowledge;
mod plugin;
mod plugin_new;
mod purge;
mod report;
mod setup;
mod upgrade;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "cm",
    version,
    about = "context-mode: keeps tool output out of your coding agent's context window"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the MCP server over stdio (started by the agent).
    Serve,
    /// Handle one agent hook call: host JSON on stdin, the host's reply on stdout.
    Hook {
        /// The agent host, e.g. claude-code.
        platform: String,
        /// The host's event name, e.g. pretooluse.
        event: String,
    },
    /// Manage wasm plugins (platform adapters and routing policies).
    Plugin {
        #[command(subcommand)]
        command: plugin::PluginCommand,
    },
    /// Index a file or directory into the project's knowledge base.
    Index(knowledge::IndexArgs),
    /// Search the project's knowledge base.
    Search(knowledge::SearchArgs),
    /// Delete indexed content: a source, a session or the whole project (asks first).
    Purge(purge::PurgeArgs),
    /// Check the installation: SQLite, data root, runtimes, plugins, the MCP server.
    /// Exits 1 when a check fails.
    Doctor(doctor::DoctorArgs),
    /// Register context-mode with your coding agents (MCP server, hooks), or remove it.
    Setup(setup::SetupArgs),
    /// Show how cm was installed and the commands that update it that way, and refresh
    /// the agents already set up.
    Upgrade,
    /// Bytes kept out of the context: this session, this project, all projects.
    Stats(report::StatsArgs),
    /// One line for an agent's status bar (reads the agent's status JSON on stdin).
    Statusline,
    /// Write the local HTML insight report and print its path.
    Insight(report::InsightArgs),
}

pub fn main() -> ExitCode {
    // The hook is spawned on every tool call: it must never print usage errors to stdout
    // or exit non-zero, so its arguments are taken before clap sees them.
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("hook") {
        let platform = args.get(2).map(String::as_str).unwrap_or("");
        let event = args.get(3).map(String::as_str).unwrap_or("");
        let code = crate::hooks::run(platform, event);
        return ExitCode::from(u8::try_from(code).unwrap_or(0));
    }
    // The status bar runs this every few seconds: one line, exit 0, whatever happens.
    if args.get(1).map(String::as_str) == Some("statusline") {
        report::statusline();
        return ExitCode::SUCCESS;
    }
    let cli = Cli::parse();
    if !matches!(
        cli.command,
        Command::Serve | Command::Hook { .. } | Command::Statusline
    ) {
        crate::platform::end_quietly_when_stdout_closes();
    }
    let result = match cli.command {
        Command::Serve => crate::mcp::serve(),
        Command::Hook { platform, event } => {
            let code = crate::hooks::run(&platform, &event);
            return ExitCode::from(u8::try_from(code).unwrap_or(0));
        }
        Command::Plugin { command } => plugin::run(command),
        Command::Index(args) => knowledge::index(args),
        Command::Search(args) => knowledge::search(args),
        Command::Purge(args) => purge::run(args),
        Command::Doctor(args) => return doctor::run(args),
        Command::Setup(args) => setup::run(args),
        Command::Upgrade => upgrade::run(),
        Command::Stats(args) => report::stats(args),
        Command::Statusline => {
            report::statusline();
            Ok(())
        }
        Command::Insight(args) => report::insight(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("cm: {}", crate::human::one_line(&format!("{err:#}")));
            ExitCode::FAILURE
        }
    }
}

/// The data root, or a clear error.
fn data_root() -> anyhow::Result<std::path::PathBuf> {
    Ok(crate::paths::data_root()?)
}
