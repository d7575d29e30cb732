//! Generated command lines against the shell reader and the rules that use it.
//! Invariants: no input makes it panic; a denied command word is denied wherever the
//! chain puts it; quoted text is data (it never becomes a redirection or a command).
//!
//! 256 cases per property by default; `PROPTEST_CASES=10000 cargo test
//! --manifest-path adapters-wasm/Cargo.toml -p policy-default proptests` before a release.

use proptest::prelude::*;

use crate::shell::split;
use context_mode_sdk::policy::{
    Action, PermissionRule, PolicyContext, RuleEffect, RuleScope, ToolCall, ToolKind,
};

/// Pieces of shell syntax, so generated lines hit the parser's every branch.
fn shell_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{1,6}",
        Just(" ".to_string()),
        prop::sample::select(vec![
            ";",
            "&&",
            "||",
            "|",
            "&",
            "\n",
            "$(",
            ")",
            "`",
            "(",
            "'",
            "\"",
            "\\",
            ">",
            ">>",
            "2>&1",
            "<",
            "<<EOF\n",
            "\nEOF\n",
            "<<<",
            "{",
            "}",
            "$",
            "#",
            "sh -c ",
            "bash -c '",
            "python3 -c ",
            "*",
            "=",
            "if ",
            "then ",
            "fi",
            "do ",
            "done",
            "<(",
            "\t",
        ])
        .prop_map(str::to_string),
        any::<char>().prop_map(|c| c.to_string()),
    ]
}

fn shell_line() -> impl Strategy<Value = String> {
    prop::collection::vec(shell_piece(), 0..40).prop_map(|pieces| pieces.concat())
}

/// A harmless command to put around the denied one.
fn harmless() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "ls",
        "echo hi",
        "git status",
        "true",
        "cat a.txt",
        "pwd",
    ])
    .prop_map(str::to_string)
}

/// Every place a shell line can hold a command, `{}` being the denied one.
const POSITIONS: &[&str] = &[
    "{a}; {}",
    "{a} && {}",
    "{a} || {}",
    "{a} | {}",
    "{a} & {}",
    "{a}\n{}",
    "{}; {a}",
    "{a} $({})",
    "{a} `{}`",
    "echo \"$({})\"",
    "( {} )",
    "{ {}; }",
    "if {a}; then {}; fi",
    "sh -c '{}'",
    "{a} && bash -c \"{}\"",
    "sudo {}",
    "env X=1 {}",
    "timeout 5 {}",
];

fn rm_denied() -> PolicyContext {
    PolicyContext {
        platform: "claude-code".into(),
        ctx_tools: context_mode_sdk::policy::CtxTool::with_prefix(
            "mcp__context-mode__",
            context_mode_sdk::CTX_TOOLS,
        ),
        server_live: true,
        rules: vec![PermissionRule::new(
            "Bash(rm *)",
            RuleEffect::Deny,
            RuleScope::Project,
        )],
        nudges_shown: vec![],
        file_size_bytes: None,
        project_dir: "/work/proj".into(),
    }
}

fn bash(command: &str) -> ToolCall {
    let mut call = ToolCall::new("Bash", ToolKind::Shell);
    call.command = Some(command.into());
    call.input_json = serde_json::json!({ "command": command }).to_string();
    call
}

/// `ctx_batch_execute` with the line in one of the shapes the host accepts.
fn batch(command: &str, shape: usize) -> ToolCall {
    let object = serde_json::json!({"label": "a", "command": command});
    let commands = match shape % 5 {
        0 => serde_json::json!([object]),
        1 => serde_json::json!(object.to_string()),
        2 => serde_json::json!(format!("  {object}")),
        3 => serde_json::json!(serde_json::json!([command]).to_string()),
        _ => serde_json::json!(command),
    };
    let mut call = ToolCall::new("mcp__context-mode__ctx_batch_execute", ToolKind::Ctx);
    call.mcp_tool = Some("ctx_batch_execute".into());
    call.input_json = serde_json::json!({ "commands": commands }).to_string();
    call
}

proptest! {
    #[test]
    fn no_line_makes_the_reader_panic(line in shell_line()) {
        let _ = split(&line);
    }

    #[test]
    fn no_text_at_all_makes_the_reader_panic(line in any::<String>()) {
        let _ = split(&line);
    }

    #[test]
    fn a_denied_word_is_denied_in_every_chain_position(
        position in prop::sample::select(POSITIONS),
        a in harmless(),
        target in "[a-z][a-z0-9._-]{0,8}",
        flags in prop::sample::select(vec!["", "-f ", "-rf ", "-- "]),
        shape in 0usize..5,
    ) {
        let denied = format!("rm {flags}{target}");
        let line = position.replace("{a}", &a).replacen("{}", &denied, 1);
        let context = rm_denied();
        for call in [bash(&line), batch(&line, shape)] {
            let action = crate::decide(&call, &context).action;
            prop_assert!(matches!(action, Action::Deny(_)), "{line:?} via {}: {action:?}", call.name);
        }
    }

    #[test]
    fn single_quoted_text_is_never_a_redirection_or_a_command(text in "[^']{0,40}") {
        let line = format!("echo '{text}'");
        let commands = split(&line);
        prop_assert_eq!(commands.len(), 1, "{:?}", commands);
        prop_assert!(commands[0].redirects.is_empty(), "{:?}", commands[0]);
        prop_assert_eq!(commands[0].words.last().map(|w| w.text.as_str()), Some(text.as_str()));
    }

    #[test]
    fn double_quoted_text_is_never_a_redirection(text in "[^\"\\\\$`]{0,40}") {
        let line = format!("echo \"{text}\" > out.txt");
        let commands = split(&line);
        prop_assert_eq!(commands.len(), 1, "{:?}", commands);
        // Only the redirection written outside the quotes.
        prop_assert_eq!(commands[0].redirects.len(), 1, "{:?}", commands[0]);
        prop_assert_eq!(commands[0].redirects[0].target.as_str(), "out.txt");
    }

    #[test]
    fn a_fetch_quoted_as_data_is_not_redirected(url in "[a-z]{1,10}\\.[a-z]{2,3}") {
        let line = format!("git commit -m 'curl https://{url}/x'");
        let action = crate::decide(&bash(&line), &rm_denied()).action;
        prop_assert!(!matches!(action, Action::Redirect(_)), "{line:?}: {action:?}");
    }
}
