//! `cm`: context-mode's native host — MCP server, hook dispatcher, plugin host and CLI.

fn main() -> std::process::ExitCode {
    cm::cli::main()
}
