//! Cursor hook behaviour beyond one golden reply (each golden case runs in
//! `hook_goldens`). Replies are compared with `tests/golden/cursor/<case>.stdout`;
//! regenerate after an intended change with `UPDATE_GOLDEN=1 cargo test -p cm --test it
//! hook_` and review the diff.

use crate::common;

use common::golden::Golden;

const CURSOR: Golden = Golden { platform: "cursor" };

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
