use super::*;
use crate::shell;
use context_mode_sdk::policy::{RuleEffect::*, RuleScope::*};

const PROJECT: &str = "/work/proj";

fn rule(pattern: &str, effect: RuleEffect, scope: RuleScope) -> PermissionRule {
    PermissionRule::new(pattern, effect, scope)
}

fn shell_call(command: &str) -> (ToolCall, Subjects) {
    let mut call = ToolCall::new("Bash", ToolKind::Shell);
    call.command = Some(command.to_string());
    let subjects = Subjects {
        shell: shell::split(command),
        ..Subjects::default()
    };
    (call, subjects)
}

fn outcome_of(rules: &[PermissionRule], command: &str) -> Outcome {
    let (call, subjects) = shell_call(command);
    evaluate(rules, &call, &subjects, PROJECT).outcome
}

fn denied_pattern(rules: &[PermissionRule], command: &str) -> Option<String> {
    match outcome_of(rules, command) {
        Outcome::Deny(c) => Some(c.pattern),
        _ => None,
    }
}

#[test]
fn parse_rule_forms() {
    assert_eq!(
        parse_rule("Bash"),
        Some(ParsedRule {
            tool: RuleTool::Bash,
            spec: None
        })
    );
    assert_eq!(
        parse_rule("Bash(*)"),
        Some(ParsedRule {
            tool: RuleTool::Bash,
            spec: None
        })
    );
    assert_eq!(
        parse_rule(" Bash(git:*) "),
        Some(ParsedRule {
            tool: RuleTool::Bash,
            spec: Some("git:*".into())
        })
    );
    assert_eq!(
        parse_rule("Write(src/**)").map(|r| r.tool),
        Some(RuleTool::Edit)
    );
    assert_eq!(parse_rule("Glob").map(|r| r.tool), Some(RuleTool::Grep));
    assert_eq!(
        parse_rule("mcp__github__create_issue").map(|r| r.tool),
        Some(RuleTool::Mcp("mcp__github__create_issue".into()))
    );
    assert_eq!(
        parse_rule("TodoWrite").map(|r| r.tool),
        Some(RuleTool::Named("TodoWrite".into()))
    );
    assert_eq!(parse_rule("Bash(unclosed"), None);
    assert_eq!(parse_rule("(x)"), None);
    assert_eq!(parse_rule(""), None);
}

#[test]
fn bash_spec_forms() {
    assert!(bash_spec_matches("git:*", "git"));
    assert!(bash_spec_matches("git:*", "git push origin main"));
    assert!(!bash_spec_matches("git:*", "gitk --all"));
    assert!(!bash_spec_matches("git:*", "git-lfs pull"));
    assert!(bash_spec_matches("npm run test:*", "npm run test:unit"));
    assert!(bash_spec_matches("sudo *", "sudo"));
    assert!(bash_spec_matches("sudo *", "sudo rm -rf /"));
    assert!(!bash_spec_matches("sudo *", "sudoku"));
    assert!(bash_spec_matches(
        "git push * --force",
        "git push origin --force"
    ));
    assert!(!bash_spec_matches("rm -rf /", "rm -rf /tmp"));
    assert!(bash_spec_matches("rm -rf /", "rm -rf /"));
}

#[test]
fn web_fetch_specs() {
    assert!(web_fetch_spec_matches(
        "domain:example.com",
        "https://example.com/a?b"
    ));
    assert!(web_fetch_spec_matches(
        "domain:EXAMPLE.com",
        "https://user@Example.COM:8443/"
    ));
    assert!(!web_fetch_spec_matches(
        "domain:example.com",
        "https://api.example.com/"
    ));
    assert!(web_fetch_spec_matches(
        "domain:*.example.com",
        "https://api.example.com/"
    ));
    assert!(!web_fetch_spec_matches(
        "domain:example.com",
        "https://example.com.evil.dev/"
    ));
    assert!(web_fetch_spec_matches(
        "https://docs.rs/*",
        "https://docs.rs/serde"
    ));
    assert_eq!(url_host("http://[::1]:8080/x").as_deref(), Some("::1"));
}

#[test]
fn numeric_hosts_match_rules_as_the_address_they_dial() {
    for url in [
        "http://2130706433/",
        "http://0x7f.1/",
        "http://0177.0.0.1/",
        "http://127.1/",
        "http://0x7F000001:8080/x",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]/",
        "http://127.0.0.1./",
    ] {
        assert!(
            web_fetch_spec_matches("domain:127.0.0.1", url),
            "{url} is 127.0.0.1"
        );
    }
    assert!(web_fetch_spec_matches(
        "domain:2130706433",
        "http://127.0.0.1/"
    ));
    for url in [
        "http://127.0.0.2/",
        "http://1.2.3.com/",
        "http://0x7g.1/",
        "http://256.1.1.1.1/",
    ] {
        assert!(!web_fetch_spec_matches("domain:127.0.0.1", url), "{url}");
    }
    assert_eq!(numeric_host("example.com"), None);
    assert_eq!(numeric_host("::1").as_deref(), Some("::1"));
}

#[test]
fn a_deny_matches_any_part_of_a_chain() {
    let rules = [rule("Bash(sudo *)", Deny, User)];
    assert_eq!(
        denied_pattern(&rules, "git pull && sudo make install"),
        Some("Bash(sudo *)".into())
    );
    assert_eq!(
        denied_pattern(&rules, "ls | sudo tee /etc/x"),
        Some("Bash(sudo *)".into())
    );
    assert_eq!(
        denied_pattern(&rules, "echo $(sudo cat /etc/shadow)"),
        Some("Bash(sudo *)".into())
    );
    assert_eq!(
        denied_pattern(&rules, "echo `sudo id`"),
        Some("Bash(sudo *)".into())
    );
    assert_eq!(
        denied_pattern(&rules, "(cd /; sudo ls)"),
        Some("Bash(sudo *)".into())
    );
    assert_eq!(
        denied_pattern(&rules, "ls\nsudo ls"),
        Some("Bash(sudo *)".into())
    );
    assert_eq!(
        denied_pattern(&rules, "bash -c 'sudo ls'"),
        Some("Bash(sudo *)".into())
    );
    assert_eq!(
        denied_pattern(&rules, "python3 -c \"import os; os.system('sudo ls')\""),
        Some("Bash(sudo *)".into())
    );
    assert_eq!(
        denied_pattern(&rules, "FOO=1 sudo ls"),
        Some("Bash(sudo *)".into())
    );
    assert_eq!(
        denied_pattern(&rules, "\"sudo\" ls"),
        Some("Bash(sudo *)".into())
    );
}

#[test]
fn quoted_and_heredoc_text_never_matches() {
    let rules = [
        rule("Bash(sudo *)", Deny, User),
        rule("Bash(curl:*)", Deny, User),
    ];
    assert_eq!(
        denied_pattern(&rules, "git commit -m 'sudo make me a sandwich'"),
        None
    );
    assert_eq!(
        denied_pattern(&rules, "gh issue edit 3 --body \"mention curl\""),
        None
    );
    assert_eq!(
        denied_pattern(&rules, "cat <<'EOF'\nsudo rm -rf /\nEOF"),
        None
    );
    assert_eq!(denied_pattern(&rules, "echo sudo"), None);
}

#[test]
fn deny_rules_look_through_wrappers_allow_rules_do_not() {
    let deny = [rule("Bash(rm -rf *)", Deny, Project)];
    assert_eq!(
        denied_pattern(&deny, "sudo rm -rf /var"),
        Some("Bash(rm -rf *)".into())
    );
    assert_eq!(
        denied_pattern(&deny, "timeout 10 rm -rf build"),
        Some("Bash(rm -rf *)".into())
    );
    assert_eq!(
        denied_pattern(&deny, "find . -name x | xargs rm -rf"),
        Some("Bash(rm -rf *)".into())
    );
    let allow = [rule("Bash(rm:*)", Allow, Project)];
    assert_eq!(outcome_of(&allow, "rm -rf build"), Outcome::Allow);
    assert_eq!(outcome_of(&allow, "sudo rm -rf build"), Outcome::Unmatched);
}

#[test]
fn allow_needs_every_part_allowed() {
    let rules = [
        rule("Bash(git:*)", Allow, ProjectLocal),
        rule("Bash(npm test)", Allow, User),
    ];
    assert_eq!(
        outcome_of(&rules, "git add . && git commit -m x"),
        Outcome::Allow
    );
    assert_eq!(outcome_of(&rules, "git pull && npm test"), Outcome::Allow);
    assert_eq!(
        outcome_of(&rules, "git pull && npm install"),
        Outcome::Unmatched
    );
    assert_eq!(outcome_of(&rules, "git log | sh"), Outcome::Unmatched);
    assert_eq!(
        outcome_of(&[rule("Bash", Allow, User)], "anything && at all"),
        Outcome::Allow
    );
}

#[test]
fn deny_beats_ask_beats_allow_within_a_scope() {
    let rules = [
        rule("Bash(git:*)", Allow, Project),
        rule("Bash(git push:*)", Ask, Project),
        rule("Bash(git push --force:*)", Deny, Project),
    ];
    assert_eq!(outcome_of(&rules, "git status"), Outcome::Allow);
    assert!(
        matches!(outcome_of(&rules, "git push origin"), Outcome::Ask(c) if c.pattern == "Bash(git push:*)")
    );
    assert!(matches!(
        outcome_of(&rules, "git push --force"),
        Outcome::Deny(_)
    ));
}

#[test]
fn a_deny_in_any_scope_outranks_an_allow_in_a_closer_one() {
    let rules = [
        rule("Bash(sudo *)", Deny, User),
        rule("Bash(sudo apt *)", Allow, ProjectLocal),
        rule("Bash(docker:*)", Deny, Project),
        rule("Bash(docker ps)", Allow, User),
        rule("Bash(git:*)", Allow, ProjectLocal),
    ];
    // Claude Code merges the scopes: deny, then ask, then allow, whatever the file.
    assert!(matches!(outcome_of(&rules, "sudo apt update"), Outcome::Deny(c) if c.scope == User));
    assert!(matches!(outcome_of(&rules, "sudo rm x"), Outcome::Deny(c) if c.scope == User));
    assert!(matches!(outcome_of(&rules, "docker ps"), Outcome::Deny(c) if c.scope == Project));
    assert_eq!(outcome_of(&rules, "git status"), Outcome::Allow);
    // One denied part denies the call.
    assert!(
        matches!(outcome_of(&rules, "git status && sudo reboot"), Outcome::Deny(c) if c.subject == "sudo reboot")
    );
}

#[test]
fn equally_strong_rules_cite_the_closest_scope() {
    let rules = [
        rule("Bash(rm *)", Deny, User),
        rule("Bash(rm -rf *)", Deny, ProjectLocal),
    ];
    assert!(matches!(outcome_of(&rules, "rm -rf x"), Outcome::Deny(c) if c.scope == ProjectLocal));
}

#[test]
fn a_denied_part_wins_over_an_earlier_ask() {
    let rules = [
        rule("Bash(git push:*)", Ask, User),
        rule("Bash(rm:*)", Deny, User),
    ];
    assert!(
        matches!(outcome_of(&rules, "git push && rm -rf x"), Outcome::Deny(c) if c.pattern == "Bash(rm:*)")
    );
}

#[test]
fn citation_names_the_part_and_the_scope() {
    let rules = [rule("  Bash(sudo *)  ", Deny, ProjectLocal)];
    let Outcome::Deny(citation) = outcome_of(&rules, "ls && sudo rm -rf /") else {
        panic!("expected a denial")
    };
    assert_eq!(citation.subject, "sudo rm -rf /");
    assert_eq!(citation.pattern, "Bash(sudo *)");
    assert_eq!(citation.scope, ProjectLocal);
    assert_eq!(citation.effect, Deny);
}

fn path_call(kind: ToolKind, path: &str) -> (ToolCall, Subjects) {
    let mut call = ToolCall::new(
        if kind == ToolKind::Read {
            "Read"
        } else {
            "Edit"
        },
        kind,
    );
    call.path = Some(path.to_string());
    let normalized = path::normalize(path, PROJECT);
    let subjects = match kind {
        ToolKind::Edit => Subjects {
            edit_path: Some(normalized),
            ..Subjects::default()
        },
        _ => Subjects {
            read_path: Some(normalized),
            ..Subjects::default()
        },
    };
    (call, subjects)
}

#[test]
fn read_and_edit_rules_match_paths() {
    let rules = [
        rule("Read(**/.env*)", Deny, User),
        rule("Edit(/config/**)", Ask, Project),
    ];
    let (call, subjects) = path_call(ToolKind::Read, "sub/.env.local");
    assert!(
        matches!(evaluate(&rules, &call, &subjects, PROJECT).outcome, Outcome::Deny(c) if c.subject == "/work/proj/sub/.env.local")
    );
    let (call, subjects) = path_call(ToolKind::Read, "src/main.rs");
    assert_eq!(
        evaluate(&rules, &call, &subjects, PROJECT).outcome,
        Outcome::Unmatched
    );
    let (call, subjects) = path_call(ToolKind::Edit, "config/app.toml");
    assert!(matches!(
        evaluate(&rules, &call, &subjects, PROJECT).outcome,
        Outcome::Ask(_)
    ));
    // Read rules do not cover edits.
    let (call, subjects) = path_call(ToolKind::Edit, ".env");
    assert_eq!(
        evaluate(&rules, &call, &subjects, PROJECT).outcome,
        Outcome::Unmatched
    );
}

#[test]
fn read_allow_is_reported_for_confinement() {
    let rules = [rule("Read(//etc/hosts)", Allow, User)];
    let (call, subjects) = path_call(ToolKind::Read, "/etc/hosts");
    let evaluation = evaluate(&rules, &call, &subjects, PROJECT);
    assert!(evaluation.read_path_allowed);
    assert_eq!(evaluation.outcome, Outcome::Allow);
    let (call, subjects) = path_call(ToolKind::Read, "/etc/passwd");
    assert!(!evaluate(&rules, &call, &subjects, PROJECT).read_path_allowed);
}

#[test]
fn rules_apply_by_kind_not_by_host_name() {
    let rules = [rule("Bash(sudo *)", Deny, User)];
    let mut call = ToolCall::new("run_shell_command", ToolKind::Shell);
    call.command = Some("sudo ls".into());
    let subjects = Subjects {
        shell: shell::split("sudo ls"),
        ..Subjects::default()
    };
    assert!(matches!(
        evaluate(&rules, &call, &subjects, PROJECT).outcome,
        Outcome::Deny(_)
    ));
    let whole = [rule("Bash", Deny, User)];
    let empty = Subjects::default();
    assert!(
        matches!(evaluate(&whole, &call, &empty, PROJECT).outcome, Outcome::Deny(c) if c.subject == "run_shell_command")
    );
}

#[test]
fn mcp_rules_by_tool_and_by_server() {
    let mut call = ToolCall::new("mcp__github__create_issue", ToolKind::Mcp);
    call.mcp_server = Some("github".into());
    call.mcp_tool = Some("create_issue".into());
    let none = Subjects::default();
    let by_tool = [rule("mcp__github__create_issue", Deny, User)];
    assert!(matches!(
        evaluate(&by_tool, &call, &none, PROJECT).outcome,
        Outcome::Deny(_)
    ));
    let by_server = [rule("mcp__github", Ask, User)];
    assert!(matches!(
        evaluate(&by_server, &call, &none, PROJECT).outcome,
        Outcome::Ask(_)
    ));
    let wildcard = [rule("mcp__github__*", Allow, User)];
    assert_eq!(
        evaluate(&wildcard, &call, &none, PROJECT).outcome,
        Outcome::Allow
    );
    let other = [
        rule("mcp__gitlab", Deny, User),
        rule("mcp__github__create_issue_x", Deny, User),
    ];
    assert_eq!(
        evaluate(&other, &call, &none, PROJECT).outcome,
        Outcome::Unmatched
    );
}

#[test]
fn agent_rules_by_subagent_type() {
    let call = ToolCall::new("Task", ToolKind::Agent);
    let subjects = Subjects {
        agent_type: Some("general-purpose".into()),
        ..Subjects::default()
    };
    let rules = [rule("Task(general-*)", Deny, User)];
    assert!(matches!(
        evaluate(&rules, &call, &subjects, PROJECT).outcome,
        Outcome::Deny(_)
    ));
    let rules = [rule("Agent(reviewer)", Deny, User)];
    assert_eq!(
        evaluate(&rules, &call, &subjects, PROJECT).outcome,
        Outcome::Unmatched
    );
}

#[test]
fn named_rules_and_unparseable_rules() {
    let call = ToolCall::new("TodoWrite", ToolKind::Other);
    let rules = [
        rule("Bash(oops", Deny, User),
        rule("TodoWrite", Allow, User),
    ];
    assert_eq!(
        evaluate(&rules, &call, &Subjects::default(), PROJECT).outcome,
        Outcome::Allow
    );
    assert_eq!(
        evaluate(&[], &call, &Subjects::default(), PROJECT).outcome,
        Outcome::Unmatched
    );
}
