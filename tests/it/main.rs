//! The black-box tests: one binary that spawns the built `cm` and talks to it as an agent
//! does (hook JSON on stdin, MCP JSON-RPC over stdio). One module per area; the shared
//! harness is `common`. Run one area with `cargo test -p cm --test it <module>::`.

mod common;
mod sandbox_support;

mod bench_knowledge;
mod bench_savings;
mod cli_knowledge;
mod doctor;
mod hook_claude_code;
mod hook_codex;
mod hook_cursor;
mod hook_fail_open;
mod hook_gemini_cli;
mod hook_goldens;
mod hook_opencode;
mod hook_policy_rewrite;
mod hook_post_tool_use;
mod hook_served;
mod hook_session;
mod hosts_table;
mod mcp_confine;
mod mcp_detection;
mod mcp_framing;
mod mcp_knowledge;
mod mcp_sandbox;
mod mcp_sandbox_rules;
mod mcp_schemas;
mod mcp_server;
mod plugins_cli;
mod plugins_compile;
mod policy_chain;
mod rules_every_path;
mod search_relevance;
mod setup_claude_code;
mod setup_copilot_qwen;
mod setup_gemini_cursor_codex;
mod setup_kimi_kiro_agy;
mod setup_moved_binary;
mod setup_openclaw;
mod setup_opencode_kilo;
mod setup_pi_omp;
mod setup_served_hooks;
mod setup_vscode_jetbrains;
mod setup_zed_antigravity;
mod stats_report;
mod upgrade;
