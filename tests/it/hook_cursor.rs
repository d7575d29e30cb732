//! Cursor hook payloads piped into the built `cm hook cursor <event>`, replies compared
//! with `tests/golden/cursor/<case>.stdout`. Regenerate after an intended change with
//! `UPDATE_GOLDEN=1 cargo test -p cm --test it hook_cursor::` and review the diff.

use crate::common;

use common::golden::Golden;

const CURSOR: Golden = Golden { platform: "cursor" };

golden_cases! { CURSOR;
    curl_is_redirected: "curl";
    silent_curl_download_passes: "curl-silent";
    gradle_build_is_redirected: "gradlew";
    read_of_a_large_file_is_redirected: "read-large";
    git_status_is_silent: "git-status";
    sudo_inside_a_chain_is_denied: "sudo-chain";
    our_own_tool_passes: "mcp-ours";
    post_tool_use: "posttooluse-shell";
    stop: "stop";
}

/// Cursor shows no hook context to its model: a nudge is neither sent nor held, and
/// routing still works through the deny's agent_message.
#[test]
fn nudges_are_dropped_and_never_held() {
    let sandbox = CURSOR.project();
    let _server = sandbox.live_server();
    let reply = CURSOR.run(&sandbox, "grep");
    CURSOR.assert_golden("grep", &reply);
    assert_eq!(reply, "{}");
    assert!(
        !sandbox.root.join("sessions").exists()
            || std::fs::read_dir(sandbox.root.join("sessions"))
                .expect("sessions dir")
                .flatten()
                .all(|e| !std::fs::read_to_string(e.path())
                    .unwrap_or_default()
                    .contains("held_context")),
        "nothing held for an agent that never sees context"
    );
    let denial = CURSOR.run(&sandbox, "curl");
    let reply: serde_json::Value = serde_json::from_str(&denial).expect("JSON");
    assert_eq!(reply["permission"], "deny");
    assert!(
        reply["agent_message"]
            .as_str()
            .is_some_and(|m| m.starts_with("redirected to ctx_execute(")),
        "{denial}"
    );
}

#[test]
fn without_a_live_server_redirects_pass_through_and_denials_stay() {
    let sandbox = CURSOR.project();
    for case in ["curl", "gradlew", "read-large"] {
        assert_eq!(CURSOR.run(&sandbox, case), "{}", "{case}");
    }
    CURSOR.assert_golden("sudo-chain", &CURSOR.run(&sandbox, "sudo-chain"));
}
