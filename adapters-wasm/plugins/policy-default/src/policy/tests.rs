use super::*;
use context_mode_sdk::policy::{PermissionRule, RuleEffect, RuleScope};

const CLAUDE: &str = "mcp__plugin_context-mode_context-mode__";
const PROJECT: &str = "/work/proj";

fn context(rules: &[(&str, RuleEffect, RuleScope)]) -> PolicyContext {
    PolicyContext {
        platform: "claude-code".into(),
        ctx_tools: context_mode_sdk::policy::CtxTool::with_prefix(
            CLAUDE,
            context_mode_sdk::CTX_TOOLS,
        ),
        server_live: true,
        rules: rules
            .iter()
            .map(|(p, e, s)| PermissionRule::new(p, *e, *s))
            .collect(),
        nudges_shown: vec![],
        file_size_bytes: None,
        project_dir: PROJECT.into(),
    }
}

fn bash(command: &str) -> ToolCall {
    let mut call = ToolCall::new("Bash", ToolKind::Shell);
    call.command = Some(command.into());
    call.input_json = serde_json::json!({ "command": command }).to_string();
    call
}

fn ctx(tool: &str, input: serde_json::Value) -> ToolCall {
    let mut call = ToolCall::new(&format!("{CLAUDE}{tool}"), ToolKind::Ctx);
    call.mcp_server = Some("plugin_context-mode_context-mode".into());
    call.mcp_tool = Some(tool.into());
    call.input_json = input.to_string();
    call
}

fn read(path: &str, size: Option<u64>, has_range: bool) -> (ToolCall, PolicyContext) {
    let mut call = ToolCall::new("Read", ToolKind::Read);
    call.path = Some(path.into());
    call.has_range = has_range;
    let mut context = context(&[]);
    context.file_size_bytes = size;
    (call, context)
}

fn action(call: &ToolCall, context: &PolicyContext) -> Action {
    decide(call, context).action
}

fn is_redirect_to(action: &Action, tool: &str) -> bool {
    matches!(action, Action::Redirect(reason) if reason.starts_with(&format!("redirected to {CLAUDE}{tool}(")))
}

use RuleEffect::*;
use RuleScope::*;

#[test]
fn deny_rule_cites_the_rule_and_the_command() {
    let context = context(&[("Bash(sudo *)", Deny, User)]);
    let Action::Deny(reason) = action(&bash("git pull && sudo make install"), &context) else {
        panic!("expected a denial")
    };
    assert_eq!(
        reason,
        "denied by security policy: `sudo make install` matches `Bash(sudo *)` in permissions.deny of ~/.claude/settings.json."
    );
}

#[test]
fn ask_rule_asks() {
    let context = context(&[("Bash(git push:*)", Ask, Project)]);
    let Action::Ask(reason) = action(&bash("git push origin main"), &context) else {
        panic!("expected ask")
    };
    assert!(reason.starts_with("confirmation required by security policy: `git push origin main` matches `Bash(git push:*)`"));
}

#[test]
fn security_applies_without_a_live_server_and_redirects_do_not() {
    let mut context = context(&[("Bash(sudo *)", Deny, User)]);
    context.server_live = false;
    assert!(matches!(
        action(&bash("sudo ls"), &context),
        Action::Deny(_)
    ));
    assert_eq!(
        action(&bash("curl https://x.dev"), &context),
        Action::NoOpinion
    );
    assert_eq!(
        action(&bash("./gradlew build"), &context),
        Action::NoOpinion
    );
    let mut fetch = ToolCall::new("WebFetch", ToolKind::WebFetch);
    fetch.url = Some("https://x.dev".into());
    assert_eq!(action(&fetch, &context), Action::NoOpinion);
    assert_eq!(
        decide(&bash("find . -name x"), &context),
        Decision::no_opinion()
    );
}

#[test]
fn explicit_allow_is_returned_but_redirects_still_apply() {
    let context = context(&[("Bash(curl:*)", Allow, User), ("Bash(git:*)", Allow, User)]);
    assert!(is_redirect_to(
        &action(&bash("curl https://x.dev"), &context),
        "ctx_execute"
    ));
    assert_eq!(action(&bash("git status"), &context), Action::Allow);
    // An allowed noisy command runs without a nudge.
    assert_eq!(
        decide(&bash("git log"), &context),
        Decision::of(Action::Allow)
    );
}

#[test]
fn web_fetch_redirects_to_fetch_and_index() {
    let mut call = ToolCall::new("WebFetch", ToolKind::WebFetch);
    call.url = Some("https://docs.rs/serde".into());
    let Action::Redirect(reason) = action(&call, &context(&[])) else {
        panic!("expected a redirect")
    };
    assert!(reason.starts_with(&format!(
        "redirected to {CLAUDE}ctx_fetch_and_index(url: \"https://docs.rs/serde\")"
    )));
    assert!(reason.contains(&format!("{CLAUDE}ctx_search(")));
    let denied = context(&[("WebFetch(domain:docs.rs)", Deny, Project)]);
    assert!(matches!(action(&call, &denied), Action::Deny(_)));
}

#[test]
fn curl_redirect_names_the_exact_command() {
    let Action::Redirect(reason) = action(&bash("curl -s https://api.x.dev/items"), &context(&[]))
    else {
        panic!()
    };
    assert!(reason.starts_with(&format!(
        "redirected to {CLAUDE}ctx_execute(language: \"shell\", code: \"curl -s https://api.x.dev/items\")"
    )));
    assert!(reason.contains(&format!(
        "{CLAUDE}ctx_fetch_and_index(url: \"https://api.x.dev/items\")"
    )));
    assert_eq!(
        action(
            &bash("curl -s -o items.json https://api.x.dev/items"),
            &context(&[])
        ),
        Action::NoOpinion
    );
    assert_eq!(
        action(
            &bash("gh issue edit 1 --body \"mention curl\""),
            &context(&[])
        ),
        Action::NoOpinion
    );
}

#[test]
fn inline_http_and_build_tools_redirect() {
    let python = "python3 -c \"import requests; print(requests.get('https://x.dev').json())\"";
    assert!(is_redirect_to(
        &action(&bash(python), &context(&[])),
        "ctx_execute"
    ));
    let Action::Redirect(reason) = action(&bash("./gradlew build"), &context(&[])) else {
        panic!()
    };
    assert!(
        reason.contains("code: \"./gradlew build 2>&1 | tail -30\""),
        "{reason}"
    );
    let Action::Redirect(reason) = action(&bash("cd app && mvn install"), &context(&[])) else {
        panic!()
    };
    assert!(
        reason.contains("code: \"( cd app && mvn install ) 2>&1 | tail -30\""),
        "{reason}"
    );
}

#[test]
fn rule_order_curl_before_build() {
    let Action::Redirect(reason) = action(
        &bash("./gradlew build && curl https://x.dev"),
        &context(&[]),
    ) else {
        panic!()
    };
    assert!(reason.contains("ctx_fetch_and_index"), "{reason}");
}

#[test]
fn large_whole_file_read_redirects_small_or_ranged_nudges_once() {
    let (call, context) = read("src/big.json", Some(OUTPUT_CAP_BYTES + 1), false);
    let Action::Redirect(reason) = action(&call, &context) else {
        panic!("expected a redirect")
    };
    assert!(reason.starts_with(&format!(
        "redirected to {CLAUDE}ctx_execute_file(path: \"/work/proj/src/big.json\""
    )));
    assert!(reason.contains(&format!("({} bytes)", OUTPUT_CAP_BYTES + 1)));

    let (call, context) = read("src/big.json", Some(OUTPUT_CAP_BYTES + 1), true);
    let decision = decide(&call, &context);
    assert!(matches!(decision.action, Action::AddContext(_)));
    assert_eq!(decision.nudge.as_deref(), Some(NUDGE_READ));

    let (call, mut context) = read("src/small.rs", Some(OUTPUT_CAP_BYTES), false);
    assert_eq!(decide(&call, &context).nudge.as_deref(), Some(NUDGE_READ));
    context.nudges_shown = vec![NUDGE_READ.into()];
    assert_eq!(decide(&call, &context), Decision::no_opinion());

    let (call, context) = read("missing.rs", None, false);
    assert_eq!(decide(&call, &context), Decision::no_opinion());
}

#[test]
fn read_deny_rules_apply_to_the_read_tool() {
    let (call, mut context) = read(".env.production", Some(10), false);
    context.rules = vec![PermissionRule::new("Read(**/.env*)", Deny, Project)];
    assert!(
        matches!(action(&call, &context), Action::Deny(r) if r.contains("/work/proj/.env.production"))
    );
}

#[test]
fn grep_and_noisy_shell_nudge_once_per_session() {
    let grep = ToolCall::new("Grep", ToolKind::Grep);
    let decision = decide(&grep, &context(&[]));
    assert!(
        matches!(&decision.action, Action::AddContext(text) if text.contains(&format!("{CLAUDE}ctx_batch_execute")))
    );
    assert_eq!(decision.nudge.as_deref(), Some(NUDGE_NOISY_OUTPUT));

    let decision = decide(&bash("git log --stat"), &context(&[]));
    assert!(matches!(&decision.action, Action::AddContext(text) if text.contains("`git log`")));
    let mut seen = context(&[]);
    seen.nudges_shown = vec![NUDGE_NOISY_OUTPUT.into()];
    assert_eq!(
        decide(&bash("git log --stat"), &seen),
        Decision::no_opinion()
    );
    assert_eq!(decide(&grep, &seen), Decision::no_opinion());
}

#[test]
fn bounded_commands_have_no_opinion() {
    for command in [
        "pwd",
        "git status",
        "node --version",
        "mkdir -p x && mv a b && cp c d && touch e && chmod +x e",
        "ls -la",
    ] {
        assert_eq!(
            decide(&bash(command), &context(&[])),
            Decision::no_opinion(),
            "{command}"
        );
    }
}

#[test]
fn subagent_prompt_gets_the_routing_block_once() {
    let mut call = ToolCall::new("Task", ToolKind::Agent);
    call.prompt = Some("Find the flaky test.".into());
    let Action::Rewrite(Rewrite {
        command: None,
        prompt: Some(prompt),
        reason: None,
    }) = action(&call, &context(&[]))
    else {
        panic!()
    };
    assert!(prompt.starts_with("Find the flaky test.\n\nContext tools: "));
    assert!(prompt.contains(&format!("{CLAUDE}ctx_execute(language, code)")));
    call.prompt = Some(prompt);
    assert_eq!(action(&call, &context(&[])), Action::NoOpinion);
    let mut offline = context(&[]);
    offline.server_live = false;
    call.prompt = Some("Find it.".into());
    assert_eq!(action(&call, &offline), Action::NoOpinion);
}

#[test]
fn ctx_execute_shell_code_is_checked_against_bash_rules() {
    let context = context(&[("Bash(sudo *)", Deny, User)]);
    let call = ctx(
        "ctx_execute",
        serde_json::json!({ "language": "shell", "code": "ls\nsudo rm -rf /" }),
    );
    assert!(matches!(action(&call, &context), Action::Deny(r) if r.contains("`sudo rm -rf /`")));
    let fine = ctx(
        "ctx_execute",
        serde_json::json!({ "language": "shell", "code": "curl -s https://x.dev | jq ." }),
    );
    assert_eq!(decide(&fine, &context), Decision::no_opinion());
}

#[test]
fn ctx_execute_embedded_shell_calls_are_checked() {
    let context = context(&[("Bash(git push:*)", Deny, Project)]);
    let cases = [
        (
            "python",
            "import subprocess\nsubprocess.run(['git', 'push', '--force'])",
        ),
        (
            "javascript",
            "require('child_process').execSync('git push --force')",
        ),
        ("typescript", "await Bun.$`git push --force`"),
        ("ruby", "`git push --force`"),
        ("perl", "system('git push --force');"),
        ("php", "<?php shell_exec('git push --force');"),
        ("go", "exec.Command(\"git\", \"push\", \"--force\").Run()"),
    ];
    for (language, code) in cases {
        let call = ctx(
            "ctx_execute",
            serde_json::json!({ "language": language, "code": code }),
        );
        assert!(
            matches!(action(&call, &context), Action::Deny(_)),
            "{language}: {code}"
        );
    }
    let harmless = ctx(
        "ctx_execute",
        serde_json::json!({ "language": "python", "code": "print('git push --force')" }),
    );
    assert_eq!(action(&harmless, &context), Action::NoOpinion);
}

#[test]
fn ctx_batch_execute_commands_in_every_shape_under_both_names() {
    let context = context(&[("Bash(rm:*)", Deny, User)]);
    let shapes = [
        serde_json::json!({ "commands": [{ "label": "a", "command": "ls" }, { "label": "b", "command": "rm -rf x" }] }),
        serde_json::json!({ "commands": ["ls", "rm -rf x"] }),
        serde_json::json!({ "commands": "[\"ls\", \"rm -rf x\"]" }),
        serde_json::json!({ "commands": "rm -rf x" }),
    ];
    for input in shapes {
        for tool in ["ctx_batch_execute", "ctx_batch"] {
            assert!(
                matches!(action(&ctx(tool, input.clone()), &context), Action::Deny(_)),
                "{tool} {input}"
            );
        }
    }
}

#[test]
fn ctx_execute_file_is_confined_to_the_project() {
    let mut call = ctx(
        "ctx_execute_file",
        serde_json::json!({ "path": "/etc/hosts", "language": "python", "code": "print(1)" }),
    );
    call.path = Some("/etc/hosts".into());
    let Action::Deny(reason) = action(&call, &context(&[])) else {
        panic!("expected a denial")
    };
    assert_eq!(
        reason,
        "denied by security policy: /etc/hosts is outside the project /work/proj; to allow it add \"Read(/etc/hosts)\" to permissions.allow in .claude/settings.json"
    );
    // The suggested rule really grants it.
    assert_eq!(
        action(&call, &context(&[("Read(/etc/hosts)", Allow, Project)])),
        Action::NoOpinion
    );
    // Inside the project: fine; a Read deny still applies.
    call.path = Some("/work/proj/data/big.csv".into());
    assert_eq!(action(&call, &context(&[])), Action::NoOpinion);
    call.path = Some("/work/proj/.env".into());
    assert!(
        matches!(action(&call, &context(&[("Read(.env)", Deny, User)])), Action::Deny(r) if r.contains("Read(.env)"))
    );
}

#[test]
fn ctx_index_path_confinement_uses_the_input_when_the_host_gave_no_path() {
    let call = ctx("ctx_index", serde_json::json!({ "path": "../../etc" }));
    assert!(
        matches!(action(&call, &context(&[])), Action::Deny(r) if r.contains("/etc is outside the project"))
    );
    let content = ctx(
        "ctx_index",
        serde_json::json!({ "content": "# notes", "source": "notes" }),
    );
    assert_eq!(action(&content, &context(&[])), Action::NoOpinion);
    let sibling = ctx(
        "ctx_index",
        serde_json::json!({ "path": "/work/project-other/x" }),
    );
    assert!(matches!(action(&sibling, &context(&[])), Action::Deny(_)));
}

#[test]
fn ctx_fetch_and_index_follows_web_fetch_rules() {
    let context = context(&[("WebFetch(domain:internal.corp)", Deny, User)]);
    let one = ctx(
        "ctx_fetch_and_index",
        serde_json::json!({ "url": "https://internal.corp/wiki" }),
    );
    assert!(matches!(action(&one, &context), Action::Deny(_)));
    let many = ctx(
        "ctx_fetch_and_index",
        serde_json::json!({ "requests": [{ "url": "https://ok.dev" }, { "url": "https://internal.corp/x" }] }),
    );
    assert!(matches!(action(&many, &context), Action::Deny(_)));
    let fine = ctx(
        "ctx_fetch_and_index",
        serde_json::json!({ "url": "https://ok.dev" }),
    );
    assert_eq!(action(&fine, &context), Action::NoOpinion);
}

#[test]
fn mcp_rule_on_our_own_tool_name() {
    let context = context(&[(&format!("{CLAUDE}ctx_purge"), Deny, User)]);
    let call = ctx("ctx_purge", serde_json::json!({ "confirm": true }));
    assert!(matches!(action(&call, &context), Action::Deny(r) if r.contains("ctx_purge")));
}

#[test]
fn malformed_input_json_is_harmless() {
    let mut call = ctx("ctx_execute", serde_json::json!({}));
    call.input_json = "{not json".into();
    assert_eq!(
        decide(&call, &context(&[("Bash", Deny, User)])),
        Decision::no_opinion()
    );
    let mut shell = ToolCall::new("Bash", ToolKind::Shell);
    shell.input_json = "[]".into();
    assert_eq!(decide(&shell, &context(&[])), Decision::no_opinion());
}

#[test]
fn the_shell_command_falls_back_to_the_input() {
    let mut call = ToolCall::new("run_shell_command", ToolKind::Shell);
    call.input_json = serde_json::json!({ "command": "curl https://x.dev" }).to_string();
    assert!(is_redirect_to(&action(&call, &context(&[])), "ctx_execute"));
}

#[test]
fn gemini_prefix_is_used_in_reasons() {
    let mut context = context(&[]);
    context.ctx_tools = context_mode_sdk::policy::CtxTool::with_prefix(
        "mcp__context-mode__",
        context_mode_sdk::CTX_TOOLS,
    );
    let Action::Redirect(reason) = action(&bash("curl https://x.dev"), &context) else {
        panic!()
    };
    assert!(reason.starts_with("redirected to mcp__context-mode__ctx_execute("));
}

#[test]
fn path_fields_are_found_in_the_input_of_every_host() {
    let rules = context(&[
        ("Read(secrets/**)", Deny, Project),
        ("Edit(*.ipynb)", Ask, User),
    ]);
    let mut grep = ToolCall::new("search_file_content", ToolKind::Grep);
    grep.input_json = serde_json::json!({ "pattern": "key", "path": "secrets/prod" }).to_string();
    assert!(
        matches!(action(&grep, &rules), Action::Deny(r) if r.contains("/work/proj/secrets/prod"))
    );
    let mut edit = ToolCall::new("NotebookEdit", ToolKind::Edit);
    edit.input_json =
        serde_json::json!({ "notebook_path": "/work/proj/a/analysis.ipynb" }).to_string();
    assert!(matches!(action(&edit, &rules), Action::Ask(_)));
}

/// A host whose names are not one prefix + the tool's own name (a user's own server
/// entry, a host that rewrites names): every tool a reason names is the host's own.
#[test]
fn reasons_name_each_tool_by_the_hosts_own_name() {
    let mut context = context(&[]);
    context.ctx_tools = context_mode_sdk::CTX_TOOLS
        .iter()
        .map(|tool| context_mode_sdk::policy::CtxTool {
            tool: tool.to_string(),
            name: format!("srv.{}", tool.replace("ctx_", "x-")),
        })
        .collect();
    let mut call = ToolCall::new("WebFetch", ToolKind::WebFetch);
    call.url = Some("https://docs.rs/serde".into());
    let Action::Redirect(reason) = action(&call, &context) else {
        panic!("expected a redirect")
    };
    assert!(
        reason.starts_with("redirected to srv.x-fetch_and_index(url: "),
        "{reason}"
    );
    assert!(reason.contains("then srv.x-search(queries: "), "{reason}");
    assert!(reason.contains("or srv.x-execute to process"), "{reason}");
    assert!(!reason.contains("ctx_"), "{reason}");
}

/// Claude Code defers MCP tools behind ToolSearch: the redirect says how to load the
/// tool it names; other hosts get no such sentence.
#[test]
fn claude_redirects_say_how_to_load_a_deferred_tool() {
    let Action::Redirect(reason) = action(&bash("curl -s https://api.x.dev/items"), &context(&[]))
    else {
        panic!()
    };
    assert!(
        reason.contains(&format!(
            "If deferred, first call ToolSearch(query: \"select:{CLAUDE}ctx_execute\")."
        )),
        "{reason}"
    );
    let mut gemini = context(&[]);
    gemini.platform = "gemini-cli".into();
    let Action::Redirect(reason) = action(&bash("curl -s https://api.x.dev/items"), &gemini) else {
        panic!()
    };
    assert!(!reason.contains("ToolSearch"), "{reason}");
}

/// Gemini CLI's read_file reads a range with `start_line`/`end_line`.
#[test]
fn large_read_names_the_hosts_range_parameters() {
    let mut call = ToolCall::new("read_file", ToolKind::Read);
    call.path = Some("big.log".into());
    let mut gemini = context(&[]);
    gemini.platform = "gemini-cli".into();
    gemini.file_size_bytes = Some(OUTPUT_CAP_BYTES + 1);
    let Action::Redirect(reason) = action(&call, &gemini) else {
        panic!("expected a redirect")
    };
    assert!(
        reason.contains("a read_file with start_line and end_line runs as usual"),
        "{reason}"
    );
    assert!(!reason.contains("offset"), "{reason}");
    let mut claude = context(&[]);
    claude.file_size_bytes = Some(OUTPUT_CAP_BYTES + 1);
    let Action::Redirect(reason) = action(
        &ToolCall {
            name: "Read".into(),
            ..call
        },
        &claude,
    ) else {
        panic!("expected a redirect")
    };
    assert!(
        reason.contains("a Read with offset and limit runs as usual"),
        "{reason}"
    );
}

fn mcp(name: &str, input: serde_json::Value) -> ToolCall {
    let parsed = context_mode_sdk::tool_name::parse_tool_name(name);
    let mut call = ToolCall::new(name, parsed.kind);
    call.mcp_server = parsed.mcp_server;
    call.mcp_tool = parsed.mcp_tool;
    call.input_json = input.to_string();
    call
}

#[test]
fn another_servers_fetch_tool_takes_the_web_fetch_redirect() {
    let url = "https://docs.rs/serde";
    let mut web_fetch = ToolCall::new("WebFetch", ToolKind::WebFetch);
    web_fetch.url = Some(url.into());
    let expected = action(&web_fetch, &context(&[]));
    for name in ["mcp_web_fetch", "mcp_fetch_tool", "mcp__fetch__fetch"] {
        let call = mcp(name, serde_json::json!({ "url": url }));
        assert_eq!(action(&call, &context(&[])), expected, "{name}");
    }
}

#[test]
fn fetch_tool_redirect_keeps_the_users_rules() {
    let call = mcp(
        "mcp__fetch__fetch",
        serde_json::json!({ "url": "https://internal.corp/wiki" }),
    );
    let denied = context(&[("mcp__fetch__fetch", Deny, User)]);
    assert!(matches!(action(&call, &denied), Action::Deny(r) if r.contains("`mcp__fetch__fetch`")));
    let server_denied = context(&[("mcp__fetch", Deny, Project)]);
    assert!(matches!(action(&call, &server_denied), Action::Deny(_)));
    let domain = context(&[("WebFetch(domain:internal.corp)", Deny, User)]);
    assert!(matches!(action(&call, &domain), Action::Deny(r) if r.contains("internal.corp")));
    let asked = context(&[("WebFetch(domain:*.corp)", Ask, ProjectLocal)]);
    assert!(matches!(action(&call, &asked), Action::Ask(_)));
    // As for WebFetch, an allow grants the tool and the redirect stays in force.
    let mut allowed = context(&[("mcp__fetch__fetch", Allow, User)]);
    assert!(is_redirect_to(
        &action(&call, &allowed),
        "ctx_fetch_and_index"
    ));
    allowed.server_live = false;
    assert_eq!(action(&call, &allowed), Action::Allow);
    // A WebFetch domain allow alone grants a page, never another server's tool.
    let mut domain_allowed = context(&[("WebFetch(domain:internal.corp)", Allow, User)]);
    domain_allowed.server_live = false;
    assert_eq!(action(&call, &domain_allowed), Action::NoOpinion);
}

#[test]
fn our_fetch_and_fetch_tools_without_a_url_are_left_alone() {
    let url = serde_json::json!({ "url": "https://docs.rs/serde" });
    let ours = ctx("ctx_fetch_and_index", url.clone());
    assert_eq!(action(&ours, &context(&[])), Action::NoOpinion);
    let no_url = mcp("mcp__git__fetch", serde_json::json!({ "remote": "origin" }));
    assert_eq!(action(&no_url, &context(&[])), Action::NoOpinion);
    let other = mcp("mcp__github__get_issue", url.clone());
    assert_eq!(action(&other, &context(&[])), Action::NoOpinion);
    let mut offline = context(&[]);
    offline.server_live = false;
    assert_eq!(
        action(&mcp("mcp_web_fetch", url), &offline),
        Action::NoOpinion
    );
}
