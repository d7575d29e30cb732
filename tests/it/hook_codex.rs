//! Codex CLI hook behaviour beyond one golden reply (each golden case runs in
//! `hook_goldens`). Replies are compared with `tests/golden/codex/<case>.stdout`;
//! regenerate after an intended change with `UPDATE_GOLDEN=1 cargo test -p cm --test it
//! hook_` and review the diff.

use crate::common;

use common::golden::Golden;

const CODEX: Golden = Golden { platform: "codex" };
const CLAUDE: Golden = Golden {
    platform: "claude-code",
};

fn reason(reply: &str) -> String {
    let value: serde_json::Value = serde_json::from_str(reply).expect("JSON reply");
    value["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .expect("a deny reason")
        .to_string()
}

/// Codex's PreToolUse can only deny: a redirect is a deny carrying the same reason
/// Claude Code gets, with Codex's name for our tools.
#[test]
fn a_redirect_is_a_deny_with_the_same_reason_as_on_claude_code() {
    let sandbox = CODEX.project();
    let _server = sandbox.live_server();
    for case in ["curl", "gradlew"] {
        let codex = CODEX.run(&sandbox, case);
        let claude = CLAUDE.run(&sandbox, case);
        assert!(codex.contains(r#""permissionDecision":"deny""#), "{codex}");
        // Claude Code alone defers MCP tools behind ToolSearch, so only its reason
        // says how to load the tool; the rest is the same, in Codex's spelling.
        let claude = reason(&claude);
        let hint_start = claude
            .find("If deferred, ")
            .expect("Claude's ToolSearch hint");
        let hint_end = hint_start + claude[hint_start..].find("). ").expect("hint end") + 3;
        let claude = format!("{}{}", &claude[..hint_start], &claude[hint_end..]);
        assert_eq!(
            reason(&codex),
            claude.replace("mcp__context-mode__", "mcp__context_mode__"),
            "{case}"
        );
    }
}

#[test]
fn a_nudge_pre_tool_use_cannot_carry_appears_at_the_next_post_tool_use() {
    let sandbox = CODEX.project();
    let _server = sandbox.live_server();
    let before = CODEX.run(&sandbox, "grep");
    CODEX.assert_golden("grep", &before);
    assert_eq!(before, "", "PreToolUse says nothing but deny");
    let after = CODEX.run(&sandbox, "grep-after");
    CODEX.assert_golden("grep-after", &after);
    assert!(
        after.contains(r#""hookEventName":"PostToolUse","additionalContext":"Tip: "#),
        "{after}"
    );
    assert_eq!(CODEX.run(&sandbox, "grep-after"), "", "delivered once");
}

#[test]
fn held_context_also_reaches_the_next_session_start() {
    let sandbox = CODEX.project();
    let _server = sandbox.live_server();
    assert_eq!(CODEX.run(&sandbox, "grep"), "");
    let grep_session = CODEX.payload_value(&sandbox, "grep")["session_id"].clone();
    let mut start = CODEX.payload_value(&sandbox, "sessionstart-startup");
    start["session_id"] = grep_session;
    let reply = CODEX.run_payload(&sandbox, "sessionstart", &start);
    let context = serde_json::from_str::<serde_json::Value>(&reply).expect("JSON")
        ["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .expect("context")
        .to_string();
    assert!(context.starts_with("Tip: "), "held text first: {context}");
    assert!(
        context.contains("context-mode is active"),
        "then the routing block: {context}"
    );
}

#[test]
fn without_a_live_server_redirects_pass_through_and_denials_stay() {
    let sandbox = CODEX.project();
    for case in ["curl", "gradlew", "read-large", "grep"] {
        assert_eq!(CODEX.run(&sandbox, case), "", "{case}");
    }
    CODEX.assert_golden("sudo-chain", &CODEX.run(&sandbox, "sudo-chain"));
}

/// Codex turns the hyphen of a server name into `_` (`mcp__context_mode__…`), from
/// setup's entry or a user's own one in `config.toml`; the redirect names that.
#[test]
fn redirects_use_the_codex_spelling_of_the_registered_server() {
    let sandbox = CODEX.project();
    let _server = sandbox.live_server();
    let reply = CODEX.run(&sandbox, "curl");
    assert!(
        reply.contains("redirected to mcp__context_mode__ctx_execute("),
        "{reply}"
    );
    std::fs::create_dir_all(sandbox.home.join(".codex")).expect("mkdir");
    std::fs::write(
        sandbox.home.join(".codex/config.toml"),
        "[mcp_servers.ctx-tools]\ncommand = \"/opt/cm\"\nargs = [\"serve\"]\n",
    )
    .expect("write config.toml");
    let reply = CODEX.run(&sandbox, "curl");
    assert!(
        reply.contains("redirected to mcp__ctx_tools__ctx_execute("),
        "{reply}"
    );
    assert!(!reply.contains("context-mode"), "{reply}");
}
