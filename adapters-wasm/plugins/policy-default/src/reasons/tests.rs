use super::*;

#[test]
fn sanitize_strips_ansi_controls_and_bidi() {
    assert_eq!(sanitize("\u{1b}[31mred\u{1b}[0m text"), "red text");
    assert_eq!(sanitize("a\nb\r\n\tc"), "a b c");
    assert_eq!(
        sanitize("bell\u{7} nul\u{0} del\u{7f} c1\u{85}"),
        "bell nul del c1"
    );
    assert_eq!(sanitize("\u{1b}]0;title\u{7}after"), "after");
    assert_eq!(sanitize("\u{1b}]8;;http://x\u{1b}\\link"), "link");
    assert_eq!(sanitize("abc\u{202e}fed"), "abcfed");
    assert_eq!(sanitize("naïve — ok ✓"), "naïve — ok ✓");
}

#[test]
fn truncate_cuts_on_a_char_boundary() {
    assert_eq!(truncate("short", 10), "short");
    let text = "é".repeat(100);
    for max in 0..40 {
        let cut = truncate(&text, max);
        assert!(cut.len() <= max.max('…'.len_utf8()), "{max}: {}", cut.len());
        assert!(cut.ends_with('…'));
    }
    assert_eq!(truncate("abcdef", 5), "ab…");
}

#[test]
fn quoting_picks_the_delimiter_the_text_allows() {
    assert_eq!(quoted("ls"), "\"ls\"");
    assert_eq!(quoted("grep \"a b\" f"), "'grep \"a b\" f'");
    assert_eq!(quoted("echo \"it's\""), "\"echo \\\"it's\\\"\"");
}

#[test]
fn fit_shrinks_the_longest_piece_until_the_text_fits() {
    let long = "x".repeat(5_000);
    let short = "keep-me";
    let text = fit(&[&long, short], |p| format!("a {} b {}", p[0], p[1]));
    assert!(text.len() < MAX_REASON_BYTES);
    assert!(text.ends_with(" b keep-me"));
    assert!(text.contains('…'));
    assert_eq!(fit(&["tiny"], |p| format!("[{}]", p[0])), "[tiny]");
}

#[test]
fn subagent_block_contains_its_marker() {
    let tools = Tools::with_prefix("claude-code", "mcp__plugin_context-mode_context-mode__");
    assert!(subagent_routing_block(&tools).contains(&subagent_block_marker(&tools)));
    assert!(subagent_routing_block(&tools).len() <= SUBAGENT_BLOCK_MAX_BYTES);
}

#[test]
fn redirects_say_how_each_host_reaches_a_tool_it_does_not_declare() {
    let url = "https://example.com/page";
    let claude = redirect_web_fetch(
        &Tools::with_prefix("claude-code", "mcp__context-mode__"),
        url,
    );
    assert!(
        claude.contains("ToolSearch(query: \"select:mcp__context-mode__ctx_fetch_and_index\")")
    );
    let qwen = redirect_web_fetch(&Tools::with_prefix("qwen-code", "mcp__context-mode__"), url);
    assert!(
        qwen.contains("tool_call(name: \"mcp__context-mode__ctx_fetch_and_index\""),
        "{qwen}"
    );
    assert!(!qwen.contains("ToolSearch"));
    let gemini = redirect_web_fetch(&Tools::with_prefix("gemini-cli", "mcp_context-mode_"), url);
    assert!(!gemini.contains("ToolSearch") && !gemini.contains("tool_call"));
}
