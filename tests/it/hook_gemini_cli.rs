//! Gemini CLI hook payloads piped into the built `cm hook gemini-cli <event>`, replies
//! compared with `tests/golden/gemini-cli/<case>.stdout`. Regenerate after an intended
//! change with `UPDATE_GOLDEN=1 cargo test -p cm --test it hook_gemini_cli::` and review the diff.

use crate::common;

use common::golden::Golden;

const GEMINI: Golden = Golden {
    platform: "gemini-cli",
};

golden_cases! { GEMINI;
    web_fetch_is_redirected: "webfetch";
    curl_is_redirected: "curl";
    silent_curl_download_passes: "curl-silent";
    gradle_build_is_redirected: "gradlew";
    read_of_a_large_file_is_redirected: "read-large";
    git_status_is_silent: "git-status";
    sudo_inside_a_chain_is_denied: "sudo-chain";
    after_tool: "aftertool-shell";
    pre_compress_is_silent: "precompress";
    session_start_startup_gets_the_routing_block: "sessionstart-startup";
    session_start_resume: "sessionstart-resume";
}

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
