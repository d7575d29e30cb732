//! `cm`: context-mode's native host — MCP server, hook dispatcher, plugin host and CLI.

mod chunk;
mod cli;
mod fetch;
mod hooks;
mod lenient;
mod limits;
mod mcp;
mod paths;
mod permissions;
mod plugins;
mod readiness;
mod sandbox;
mod search;
mod service;
mod store;
mod timestamp;

fn main() -> std::process::ExitCode {
    cli::main()
}
