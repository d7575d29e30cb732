//! Real agents driving `cm` end to end: Claude Code (a line that sends MCP tools inline
//! and one that defers them behind ToolSearch), Gemini CLI, Codex, GitHub Copilot CLI
//! and Qwen Code, each installed from npm into a cache outside the clone, set up with
//! `cm setup`, and run non-interactively against a scripted model server on 127.0.0.1
//! (ADR 23).

mod agents;
#[path = "../support/cache_dir.rs"]
mod cache_dir;
mod checks;
#[path = "../support/file_lock.rs"]
mod file_lock;
mod http;
mod install;
mod model;
mod pi;
mod script;
mod session;
mod wire;

#[test]
fn claude_code_2_1_197_tools_inline() {
    session::run(&agents::CLAUDE_INLINE).assert_all();
}

#[test]
fn claude_code_2_1_332_tools_deferred() {
    session::run(&agents::CLAUDE_DEFERRED).assert_all();
}

#[test]
fn gemini_cli_0_61_0() {
    session::run(&agents::GEMINI).assert_all();
}

#[test]
fn codex_0_171_0() {
    session::run(&agents::CODEX).assert_all();
}

#[test]
fn copilot_cli_1_0_102() {
    session::run(&agents::COPILOT).assert_all();
}

#[test]
fn qwen_code_0_24_4() {
    session::run(&agents::QWEN).assert_all();
}

#[test]
fn pi_0_73_1() {
    session::run(&agents::PI).assert_all();
}

#[test]
fn omp_18_2_3() {
    session::run(&agents::OMP).assert_all();
}
