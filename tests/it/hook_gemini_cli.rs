//! Gemini CLI hook behaviour beyond one golden reply (each golden case runs in
//! `hook_goldens`). Replies are compared with `tests/golden/gemini-cli/<case>.stdout`;
//! regenerate after an intended change with `UPDATE_GOLDEN=1 cargo test -p cm --test it
//! hook_` and review the diff.

use crate::common;

use common::golden::Golden;

const GEMINI: Golden = Golden {
    platform: "gemini-cli",
};

#[test]
fn a_nudge_before_tool_cannot_carry_is_held_for_the_same_calls_after_tool() {
    let sandbox = GEMINI.project();
    let _server = sandbox.live_server();
    let before = GEMINI.run(&sandbox, "grep");
    GEMINI.assert_golden("grep", &before);
    assert_eq!(before, "", "BeforeTool cannot carry context");
    let after = GEMINI.run(&sandbox, "grep-after");
    GEMINI.assert_golden("grep-after", &after);
    assert!(
        after.contains(r#""hookEventName":"AfterTool","additionalContext":"Tip: "#),
        "{after}"
    );
    assert_eq!(
        GEMINI.run(&sandbox, "grep-after"),
        "",
        "held context is delivered once"
    );
    assert_eq!(
        GEMINI.run(&sandbox, "grep"),
        "",
        "the nudge counts as shown"
    );
}

#[test]
fn without_a_live_server_redirects_pass_through_and_denials_stay() {
    let sandbox = GEMINI.project();
    for case in ["webfetch", "curl", "gradlew", "read-large", "grep"] {
        assert_eq!(GEMINI.run(&sandbox, case), "", "{case}");
    }
    GEMINI.assert_golden("sudo-chain", &GEMINI.run(&sandbox, "sudo-chain"));
}

/// Gemini CLI names MCP tools `mcp_<server>_<tool>`: the redirect speaks that, and
/// Gemini's own `start_line`/`end_line` for a ranged read.
#[test]
fn redirects_use_the_gemini_spelling_and_its_read_parameters() {
    let sandbox = GEMINI.project();
    let _server = sandbox.live_server();
    let reply = GEMINI.run(&sandbox, "read-large");
    assert!(
        reply.contains("redirected to mcp_context-mode_ctx_execute_file("),
        "{reply}"
    );
    assert!(reply.contains("start_line and end_line"), "{reply}");
    assert!(!reply.contains("offset"), "{reply}");
    std::fs::create_dir_all(sandbox.home.join(".gemini")).expect("mkdir");
    std::fs::write(
        sandbox.home.join(".gemini/settings.json"),
        r#"{"mcpServers":{"ctx":{"command":"cm","args":["serve"]}}}"#,
    )
    .expect("write settings.json");
    let reply = GEMINI.run(&sandbox, "curl");
    assert!(
        reply.contains("redirected to mcp_ctx_ctx_execute("),
        "{reply}"
    );
}
