//! The wording contract of `reasons.rs`, checked on every text the policy can
//! emit: each reason-producing path of `decide` × short, long and hostile
//! user text × each platform's ctx tool prefix, plus every builder directly.

use crate::policy::{NUDGE_NOISY_OUTPUT, NUDGE_READ, OUTPUT_CAP_BYTES, decide};
use crate::reasons::*;
use crate::rules::Citation;
use context_mode_sdk::policy::{
    Action, PermissionRule, PolicyContext, Rewrite, RuleEffect, RuleScope, ToolCall, ToolKind,
};

/// How platforms name the ctx tools (Claude Code plugin and plain MCP,
/// Gemini-style, single-underscore hosts, and bare names).
const PREFIXES: &[&str] = &[
    "mcp__plugin_context-mode_context-mode__",
    "mcp__context-mode__",
    "mcp_context-mode_",
    "context-mode_",
    "",
];

/// User text embedded in reasons: short, very long, and hostile (control
/// characters, ANSI, both quote kinds, multi-byte characters at every offset).
fn user_texts() -> Vec<String> {
    let long: String = (0..400).map(|i| format!("seg{i}/")).collect();
    let hostile = format!("x\u{1b}[31m\"q\" 'z'\t\r\n{}\u{202e}", "ü€𝄞".repeat(120));
    vec!["item".to_string(), long, hostile]
}

fn context(prefix: &str, rules: Vec<PermissionRule>) -> PolicyContext {
    PolicyContext {
        platform: "test".into(),
        ctx_tools: context_mode_sdk::policy::CtxTool::with_prefix(
            prefix,
            context_mode_sdk::CTX_TOOLS,
        ),
        server_live: true,
        rules,
        nudges_shown: vec![],
        file_size_bytes: None,
        project_dir: "/work/proj".into(),
    }
}

fn shell(command: String) -> ToolCall {
    let mut call = ToolCall::new("Bash", ToolKind::Shell);
    call.command = Some(command);
    call
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Redirect,
    Deny,
    Ask,
    Nudge,
    Rewrite,
}

/// Every path of `decide` that produces text, for one prefix and one piece of user text.
fn scenarios(prefix: &str, text: &str) -> Vec<(String, ToolCall, PolicyContext, Kind)> {
    let mut out = Vec::new();
    let quote = crate::shell::shell_quote(text);
    for scope in RuleScope::CLOSEST_FIRST {
        let deny = vec![PermissionRule::new("Bash(sudo *)", RuleEffect::Deny, scope)];
        out.push((
            format!("deny {scope:?}"),
            shell(format!("sudo {quote}")),
            context(prefix, deny),
            Kind::Deny,
        ));
        let ask = vec![PermissionRule::new(
            "Bash(git push:*)",
            RuleEffect::Ask,
            scope,
        )];
        out.push((
            format!("ask {scope:?}"),
            shell(format!("git push {quote}")),
            context(prefix, ask),
            Kind::Ask,
        ));
    }
    let long_rule = vec![PermissionRule::new(
        &format!("Bash(rm {text}*)"),
        RuleEffect::Deny,
        RuleScope::User,
    )];
    out.push((
        "deny long rule".into(),
        shell(format!("rm {quote}")),
        context(prefix, long_rule),
        Kind::Deny,
    ));

    let mut read = ToolCall::new("Read", ToolKind::Read);
    read.path = Some(format!(".env.{text}"));
    let read_deny = vec![PermissionRule::new(
        "Read(**/.env*)",
        RuleEffect::Deny,
        RuleScope::Project,
    )];
    out.push((
        "read deny".into(),
        read.clone(),
        context(prefix, read_deny),
        Kind::Deny,
    ));

    let mut outside = ToolCall::new(&format!("{prefix}ctx_execute_file"), ToolKind::Ctx);
    outside.mcp_tool = Some("ctx_execute_file".into());
    outside.path = Some(format!("/srv/{text}"));
    out.push((
        "outside project".into(),
        outside,
        context(prefix, vec![]),
        Kind::Deny,
    ));

    let mut fetch = ToolCall::new("WebFetch", ToolKind::WebFetch);
    fetch.url = Some(format!("https://x.dev/{text}"));
    out.push((
        "web fetch".into(),
        fetch,
        context(prefix, vec![]),
        Kind::Redirect,
    ));
    let mut mcp_fetch = ToolCall::new("mcp__fetch__fetch", ToolKind::Mcp);
    mcp_fetch.mcp_server = Some("fetch".into());
    mcp_fetch.mcp_tool = Some("fetch".into());
    mcp_fetch.input_json =
        serde_json::json!({ "url": format!("https://x.dev/{text}") }).to_string();
    out.push((
        "another server's fetch".into(),
        mcp_fetch,
        context(prefix, vec![]),
        Kind::Redirect,
    ));
    out.push((
        "curl".into(),
        shell(format!("curl -s https://x.dev/{quote}")),
        context(prefix, vec![]),
        Kind::Redirect,
    ));
    out.push((
        "wget".into(),
        shell(format!("wget -qO- https://x.dev/{quote}")),
        context(prefix, vec![]),
        Kind::Redirect,
    ));
    let python = format!(
        "python3 -c \"import requests; print(requests.get('https://x.dev/{}').text)\"",
        text.replace(['"', '\'', '\\', '$', '`'], "")
    );
    out.push((
        "inline http".into(),
        shell(python),
        context(prefix, vec![]),
        Kind::Redirect,
    ));
    out.push((
        "build".into(),
        shell(format!("./gradlew build -Pv={quote}")),
        context(prefix, vec![]),
        Kind::Redirect,
    ));
    out.push((
        "build chain".into(),
        shell(format!("cd {quote} && mvn install")),
        context(prefix, vec![]),
        Kind::Redirect,
    ));

    let mut large = ToolCall::new("Read", ToolKind::Read);
    large.path = Some(format!("data/{text}.json"));
    let mut large_context = context(prefix, vec![]);
    large_context.file_size_bytes = Some(OUTPUT_CAP_BYTES * 40);
    out.push((
        "large read".into(),
        large.clone(),
        large_context.clone(),
        Kind::Redirect,
    ));
    large.has_range = true;
    out.push((
        "ranged read nudge".into(),
        large,
        large_context,
        Kind::Nudge,
    ));

    out.push((
        "grep nudge".into(),
        ToolCall::new("Grep", ToolKind::Grep),
        context(prefix, vec![]),
        Kind::Nudge,
    ));
    out.push((
        "noisy nudge".into(),
        shell(format!("npm run test:{quote}")),
        context(prefix, vec![]),
        Kind::Nudge,
    ));

    let mut agent = ToolCall::new("Task", ToolKind::Agent);
    agent.prompt = Some(text.to_string());
    out.push((
        "sub-agent".into(),
        agent,
        context(prefix, vec![]),
        Kind::Rewrite,
    ));
    out
}

const FORBIDDEN_WORDS: &[&str] = &[
    "not",
    "never",
    "blocked",
    "block",
    "don't",
    "cannot",
    "can't",
    "won't",
    "must",
    "mandatory",
];
const FORBIDDEN_PHRASES: &[&str] = &[
    "for efficiency",
    "to save",
    "in order to",
    "because",
    "please",
    "important",
];
const ALLOWED_CAPITALS: &[&str] = &[
    "DNS",
    "EAI_AGAIN",
    "ETIMEDOUT",
    "ENETUNREACH",
    "URL",
    "URLS",
];

/// What every emitted text is, whatever the user wrote: short, free of
/// control characters, bidi overrides and escape junk.
fn assert_safe(text: &str, limit: usize, what: &str) {
    assert_bounded(text, limit, what);
    for junk in ["\\n", "\\t", "\\r", "\\u00", "\\x1b", "\\e[", "[31m"] {
        assert!(
            !text.contains(junk),
            "{what}: escape junk {junk:?} in {text}"
        );
    }
}

/// Length, control characters and bidi overrides (user backslashes allowed).
fn assert_bounded(text: &str, limit: usize, what: &str) {
    assert!(text.len() < limit, "{what}: {} bytes: {text}", text.len());
    assert!(
        !text.chars().any(|c| c.is_control()),
        "{what}: control character in {text:?}"
    );
    assert!(
        !text
            .chars()
            .any(|c| matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')),
        "{what}: bidi override"
    );
}

/// How our own wording reads (checked with user text that has no such words).
fn assert_wording(text: &str, what: &str) {
    let lower = text.to_lowercase();
    for word in lower.split(|c: char| !(c.is_alphanumeric() || c == '\'')) {
        assert!(
            !FORBIDDEN_WORDS.contains(&word),
            "{what}: forbidden word {word:?} in {text}"
        );
    }
    for phrase in FORBIDDEN_PHRASES {
        assert!(
            !lower.contains(phrase),
            "{what}: forbidden phrase {phrase:?} in {text}"
        );
    }
    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        let shouting = word.len() >= 3
            && word.chars().any(|c| c.is_alphabetic())
            && word == word.to_uppercase();
        assert!(
            !shouting || ALLOWED_CAPITALS.contains(&word),
            "{what}: shouting {word:?} in {text}"
        );
    }
}

fn assert_clean(text: &str, limit: usize, what: &str) {
    assert_safe(text, limit, what);
    assert_wording(text, what);
}

fn assert_redirect(reason: &str, prefix: &str, what: &str) {
    assert_clean(reason, MAX_REASON_BYTES, what);
    assert_redirect_shape(reason, prefix, what);
}

/// Opening with the exact call, the network sentence, the retry ending.
fn assert_redirect_shape(reason: &str, prefix: &str, what: &str) {
    let opening = format!("redirected to {prefix}ctx_");
    assert!(reason.starts_with(&opening), "{what}: opening of {reason}");
    let call = &reason[opening.len()..];
    let tool_end = call.find('(').unwrap_or(0);
    assert!(
        tool_end > 0
            && call[..tool_end]
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '_'),
        "{what}: call in {reason}"
    );
    assert!(
        reason.contains(NETWORK_SENTENCE),
        "{what}: network sentence in {reason}"
    );
    assert!(
        reason.ends_with(RETRY_SENTENCE),
        "{what}: retry ending in {reason}"
    );
}

fn assert_denial(reason: &str, cited: Option<&str>, what: &str) {
    assert_clean(reason, MAX_REASON_BYTES, what);
    assert_denial_shape(reason, cited, what);
}

fn assert_denial_shape(reason: &str, cited: Option<&str>, what: &str) {
    assert!(reason.starts_with(DENIAL_OPENING), "{what}: {reason}");
    if let Some(pattern) = cited {
        let shown = sanitize(pattern);
        let head: String = shown.chars().take(20).collect();
        assert!(
            reason.contains(&format!("`{head}")),
            "{what}: rule {pattern} uncited in {reason}"
        );
    }
}

#[test]
fn every_path_of_decide_keeps_the_wording_contract() {
    let mut checked = 0;
    for prefix in PREFIXES {
        for text in user_texts() {
            for (name, call, context, kind) in scenarios(prefix, &text) {
                let what = format!("{name} [{prefix}] [{} bytes of user text]", text.len());
                let decision = decide(&call, &context);
                let cited = context.rules.first().map(|r| r.pattern.clone());
                match (&decision.action, kind) {
                    (Action::Redirect(reason), Kind::Redirect) => {
                        assert_redirect(reason, prefix, &what)
                    }
                    (Action::Deny(reason), Kind::Deny) => {
                        assert_denial(reason, cited.as_deref(), &what)
                    }
                    (Action::Ask(reason), Kind::Ask) => {
                        assert_clean(reason, MAX_REASON_BYTES, &what);
                        assert!(reason.starts_with(ASK_OPENING), "{what}: {reason}");
                    }
                    (Action::AddContext(tip), Kind::Nudge) => {
                        assert_clean(tip, MAX_REASON_BYTES, &what);
                        assert!(tip.contains(&format!("{prefix}ctx_")), "{what}: {tip}");
                        assert!(
                            matches!(
                                decision.nudge.as_deref(),
                                Some(NUDGE_READ | NUDGE_NOISY_OUTPUT)
                            ),
                            "{what}"
                        );
                    }
                    (
                        Action::Rewrite(Rewrite {
                            command: None,
                            prompt: Some(prompt),
                            reason: None,
                        }),
                        Kind::Rewrite,
                    ) => {
                        let block = prompt
                            .strip_prefix(&format!("{text}\n\n"))
                            .unwrap_or_else(|| panic!("{what}: {prompt}"));
                        assert_clean(block, SUBAGENT_BLOCK_MAX_BYTES + 1, &what);
                        assert!(
                            block.contains(&format!("{prefix}ctx_execute(language, code)")),
                            "{what}"
                        );
                    }
                    (other, expected) => panic!("{what}: expected {expected:?}, got {other:?}"),
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, PREFIXES.len() * user_texts().len() * 21);
}

#[test]
fn every_builder_keeps_the_wording_contract() {
    for (prefix, platform) in PREFIXES
        .iter()
        .flat_map(|p| ["claude-code", "gemini-cli", "codex"].map(|host| (p, host)))
    {
        let tools = Tools::with_prefix(platform, prefix);
        for text in user_texts() {
            let redirects = [
                redirect_web_fetch(&tools, &text),
                redirect_fetch_command(&tools, &text, Some(&text)),
                redirect_fetch_command(&tools, &text, None),
                redirect_inline_http(&tools, &text),
                redirect_build(&tools, &text, true),
                redirect_build(&tools, &text, false),
                redirect_large_read(&tools, &text, u64::MAX),
            ];
            for reason in &redirects {
                assert_redirect(reason, prefix, "builder");
            }
            for scope in RuleScope::CLOSEST_FIRST {
                for effect in [RuleEffect::Deny, RuleEffect::Ask] {
                    let citation = Citation {
                        subject: text.clone(),
                        pattern: format!("Bash({text})"),
                        effect,
                        scope,
                    };
                    assert_denial(
                        &deny_rule(&citation),
                        Some(&citation.pattern),
                        "deny builder",
                    );
                    let ask = ask_rule(&citation);
                    assert_clean(&ask, MAX_REASON_BYTES, "ask builder");
                    assert!(ask.starts_with(ASK_OPENING));
                }
            }
            assert_denial(
                &deny_outside_project(&tools, &text, &text),
                None,
                "outside builder",
            );
            for tip in [
                read_nudge(&tools),
                grep_nudge(&tools),
                noisy_shell_nudge(&tools, &text),
            ] {
                assert_clean(&tip, MAX_REASON_BYTES, "nudge builder");
            }
            assert_clean(
                &subagent_routing_block(&tools),
                SUBAGENT_BLOCK_MAX_BYTES + 1,
                "sub-agent block",
            );
        }
    }
}

#[test]
fn the_outside_project_reason_names_a_rule_that_grants_the_path() {
    let claude = Tools::with_prefix("claude-code", "mcp__context-mode__");
    let reason = deny_outside_project(&claude, "/etc/hosts", "/p");
    assert_eq!(
        reason,
        "denied by security policy: /etc/hosts is outside the project /p; to allow it add \"Read(/etc/hosts)\" to permissions.allow in .claude/settings.json"
    );
    let gemini = Tools::with_prefix("gemini-cli", "mcp_context-mode_");
    let reason = deny_outside_project(&gemini, "/etc/hosts", "/p");
    assert!(
        reason.ends_with("permissions.allow in the project's .claude/settings.json (context-mode reads its permission rules from Claude Code's settings files, whichever agent runs it)"),
        "{reason}"
    );
}

#[test]
fn redirects_keep_the_users_own_backslashes() {
    let reason = redirect_fetch_command(
        &Tools::with_prefix("test", "p__"),
        r"curl -s https://x.dev | sed 's/a\.b/c/'",
        Some("https://x.dev"),
    );
    assert!(reason.contains(r"sed 's/a\.b/c/'"), "{reason}");
}

/// Random lines built from shell-significant pieces: `decide` never panics,
/// and whatever text it emits keeps the contract.
#[test]
fn random_lines_never_break_the_contract() {
    const PIECES: &[&str] = &[
        "curl",
        "wget",
        "-s",
        "-o",
        "f",
        "https://x.dev",
        "sudo",
        "rm",
        "-rf",
        "/",
        "bash",
        "-c",
        "'",
        "\"",
        "$(",
        ")",
        "(",
        "`",
        "|",
        "&&",
        ";",
        "\n",
        "<<",
        "EOF",
        "<<<",
        ">",
        "2>&1",
        "\\",
        "python3",
        "-e",
        "os.system(",
        "requests.get(",
        "./gradlew",
        "git",
        "log",
        "find",
        ".",
        "{",
        "}",
        "$'",
        "\u{1b}[1m",
        "é",
        "#",
        "=",
        "FOO=1",
        "xargs",
        "timeout",
        "5",
        "*",
        "[",
        "]",
        "!",
        "&",
        "\t",
    ];
    let rules = vec![
        PermissionRule::new("Bash(sudo *)", RuleEffect::Deny, RuleScope::User),
        PermissionRule::new("Bash(git:*)", RuleEffect::Allow, RuleScope::Project),
        PermissionRule::new("Bash(rm -rf *)", RuleEffect::Ask, RuleScope::ProjectLocal),
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize
    };
    for _ in 0..3_000 {
        let length = next() % 24;
        let line: Vec<&str> = (0..length).map(|_| PIECES[next() % PIECES.len()]).collect();
        let separator = if next() % 2 == 0 { " " } else { "" };
        let line = line
            .join(separator)
            .replace("\\n", "\n")
            .replace("\\t", "\t");
        let prefix = PREFIXES[next() % PREFIXES.len()];
        let calls = [shell(line.clone()), {
            let mut call = ToolCall::new("ctx", ToolKind::Ctx);
            call.mcp_tool = Some("ctx_execute".into());
            let language = [
                "python",
                "javascript",
                "ruby",
                "perl",
                "php",
                "go",
                "rust",
                "r",
                "elixir",
                "csharp",
                "shell",
            ][next() % 11];
            call.input_json = serde_json::json!({ "language": language, "code": line }).to_string();
            call
        }];
        for call in calls {
            let decision = decide(&call, &context(prefix, rules.clone()));
            let what = format!("random line {line:?}");
            match &decision.action {
                Action::Redirect(reason) => {
                    assert_bounded(reason, MAX_REASON_BYTES, &what);
                    assert_redirect_shape(reason, prefix, &what);
                }
                Action::Deny(reason) => {
                    assert_bounded(reason, MAX_REASON_BYTES, &what);
                    assert_denial_shape(reason, None, &what);
                }
                Action::Ask(reason) | Action::AddContext(reason) => {
                    assert_bounded(reason, MAX_REASON_BYTES, &what)
                }
                Action::NoOpinion | Action::Allow | Action::Rewrite(_) => {}
            }
        }
    }
}
