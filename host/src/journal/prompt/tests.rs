use super::*;

fn decision(s: &str) -> bool {
    is_decision(&s.to_lowercase())
}

#[test]
fn decisions_and_corrections() {
    for s in [
        "Use pnpm instead of npm.",
        "ok, please use the existing retry helper",
        "Don't touch the migrations",
        "No, the other config file",
        "Actually, keep the old name",
        "let's go with SQLite",
        "we decided to drop Windows support",
        "I prefer small commits",
        "Never commit generated files",
        "Switch to tokio for this",
    ] {
        assert!(decision(s), "{s}");
    }
    for s in [
        "Should we use pnpm instead?",
        "the function returns null instead of a list",
        "never mind",
        "I don't know why it fails",
        "Fix the parser",
        "nothing to add",
    ] {
        assert!(!decision(s), "{s}");
    }
}

#[test]
fn constraints_blockers_roles() {
    assert!(is_constraint("it must run on windows"));
    assert!(is_constraint("docker is not supported on this box"));
    assert!(!is_constraint("is docker supported?"));
    assert!(is_blocker("we're blocked on the api key from ops"));
    assert!(is_blocker("waiting for the design review"));
    assert!(is_unblock("ok we're unblocked, the key arrived"));
    assert!(is_role("you are a senior rust reviewer"));
    assert!(is_role("please act as a security auditor"));
    assert!(!is_role("you are right"));
}

#[test]
fn intents_come_from_the_earliest_phrase() {
    assert_eq!(
        intent("Why does the build fail? Then fix it"),
        Some("investigate")
    );
    assert_eq!(intent("Fix the flaky test"), Some("implement"));
    assert_eq!(intent("Please review PR 12"), Some("review"));
    assert_eq!(
        intent("What do you think about moving to Axum?"),
        Some("discuss")
    );
    assert_eq!(intent("hello there"), None);
    assert_eq!(intent("the address is wrong"), None);
}

#[test]
fn references_urls_and_issues() {
    assert_eq!(
        references(
            "see https://github.com/a/b/issues/7, and #123 (also #45) plus rust-lang/rust#9876 not abc#1 or /p#2 color #1234567"
        ),
        vec![
            "https://github.com/a/b/issues/7",
            "#123",
            "#45",
            "rust-lang/rust#9876"
        ]
    );
}

#[test]
fn slash_commands_and_sentences() {
    assert_eq!(slash_command("/review-pr 12"), Some("/review-pr"));
    assert_eq!(slash_command("/usr/bin/env is odd"), None);
    assert_eq!(
        sentences("Fix the parser. Use pnpm instead of npm!\n- don't touch CI; thanks"),
        vec![
            "Fix the parser.",
            "Use pnpm instead of npm!",
            "don't touch CI;",
            "thanks"
        ]
    );
    assert_eq!(sentences("v1.2 is out"), vec!["v1.2 is out"]);
}
