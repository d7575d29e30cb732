//! Whatever `cm hook antigravity …` is handed, `parse` refuses it as an unknown event, typed
//! and without panicking. The host has no payloads of its own, so Claude Code's golden
//! payloads seed the generated stdin (what a mistaken hook entry would pipe in).

context_mode_sdk::generated_parse_test!("antigravity", seeded_by = "claude-code");
