//! The JetBrains Copilot platform adapter: GitHub Copilot's agent in a JetBrains IDE
//! (IntelliJ IDEA, PyCharm, …) speaks VS Code Copilot's hook wire protocol (reference:
//! "Shares the same hook wire protocol as VS Code Copilot"; unverified against a real
//! JetBrains client), so the protocol is VS Code's, the SDK's `copilot_wire`. What
//! differs is detection and setup: JetBrains keeps MCP servers in its settings, so
//! setup writes the hooks and prints the steps for the server. Pure: no file,
//! environment or clock access.

mod describe;
mod parse;
mod render;
mod setup;
#[cfg(test)]
mod tests;

context_mode_sdk::export_adapter!();
