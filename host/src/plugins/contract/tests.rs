use std::path::{Path, PathBuf};

use super::{ContractVersion, WIT_PACKAGE, v0_2, v0_3, v0_4};
use crate::model;
use crate::plugins::PluginKind;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn snapshot(version: ContractVersion) -> String {
    let path = repo().join(format!("wit/plugin@{version}/plugin.wit"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Released contracts, by the sha256 of their snapshot: a plugin built for one must keep
/// loading, so its WIT never changes again (a change is a new version).
const RELEASED: &[(ContractVersion, &str)] = &[
    (
        ContractVersion::V0_2,
        "5fd5a5b3830f7864df6beda09c4371dfcf0342b5c8a90ccfd9d43c1ee98b794c",
    ),
    (
        ContractVersion::V0_3,
        "a1224d440f5c70b859b7ed4b3b2edd87fb8cc566e5f42363f59a84fd89040f8f",
    ),
];

#[test]
fn every_accepted_version_has_its_snapshot_and_export_names() {
    for version in ContractVersion::ALL {
        assert!(
            snapshot(version).contains(&format!("package {WIT_PACKAGE}@{version};")),
            "wit/plugin@{version}/plugin.wit declares another version"
        );
        assert_eq!(
            version.export(PluginKind::Adapter),
            format!("context-mode:plugin/adapter@{version}")
        );
        assert_eq!(
            version.export(PluginKind::Policy),
            format!("context-mode:plugin/routing-policy@{version}")
        );
    }
    assert_eq!(
        ContractVersion::NEWEST,
        *ContractVersion::ALL.last().expect("a version")
    );
    assert_eq!(
        ContractVersion::accepted(),
        "context-mode:plugin@0.2.0 or @0.3.0 or @0.4.0"
    );
}

#[test]
fn released_snapshots_are_frozen() {
    for (version, sha256) in RELEASED {
        assert_eq!(
            crate::plugins::registry::sha256_hex(snapshot(*version).as_bytes()),
            *sha256,
            "wit/plugin@{version}/ was edited: a released contract is frozen, add a new version instead"
        );
    }
}

/// The "wrong version" test plugin must differ from a real contract only in its
/// version, or the refusal test would prove nothing.
#[test]
fn the_wrong_version_test_plugin_is_a_contract_with_another_version() {
    let theirs = std::fs::read_to_string(repo().join("tests/plugins/wrong-version/wit/plugin.wit"))
        .expect("copy");
    let expected = snapshot(ContractVersion::V0_2).replace(
        &format!("package {WIT_PACKAGE}@0.2.0;"),
        &format!("package {WIT_PACKAGE}@0.9.0;"),
    );
    assert_eq!(
        theirs, expected,
        "regenerate tests/plugins/wrong-version/wit/plugin.wit from wit/plugin@0.2.0/plugin.wit"
    );
}

/// What names generated code: a module outside `plugins/` that does is coupled to one
/// contract version again.
const GENERATED_MARKERS: &[&str] = &[
    "plugins::bindings",
    "contract::v0_",
    "adapter_world",
    "policy_world",
    "bindgen!",
    "context_mode::plugin::",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Files outside `host/src/plugins/` that name generated binding types.
fn files_naming_generated_types(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let plugins = src.join("plugins");
    files
        .iter()
        .filter(|path| !path.starts_with(&plugins))
        .filter_map(|path| {
            let text = std::fs::read_to_string(path).ok()?;
            let marker = GENERATED_MARKERS.iter().find(|m| text.contains(*m))?;
            Some(format!("{} names {marker}", path.display()))
        })
        .collect()
}

#[test]
fn nothing_outside_plugins_names_generated_types() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    assert_eq!(files_naming_generated_types(&src), Vec::<String>::new());
}

#[test]
fn the_scan_sees_a_module_that_imports_generated_types() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("plugins/contract")).expect("mkdir");
    std::fs::create_dir_all(dir.path().join("journal")).expect("mkdir");
    std::fs::write(
        dir.path().join("plugins/contract/v0_3.rs"),
        "wasmtime::component::bindgen!({});",
    )
    .expect("write");
    std::fs::write(
        dir.path().join("journal/ok.rs"),
        "use crate::model::ToolCall;",
    )
    .expect("write");
    std::fs::write(
        dir.path().join("journal/bad.rs"),
        "use crate::plugins::contract::v0_3::adapter_world;",
    )
    .expect("write");
    let bad = dir.path().join("journal").join("bad.rs");
    assert_eq!(
        files_naming_generated_types(dir.path()),
        [format!("{} names contract::v0_", bad.display())]
    );
}

fn call() -> model::ToolCall {
    model::ToolCall {
        name: "Bash".into(),
        kind: model::ToolKind::Shell,
        input_json: r#"{"command":"ls"}"#.into(),
        command: Some("ls".into()),
        path: Some("a.txt".into()),
        has_range: true,
        url: Some("https://x.dev".into()),
        prompt: Some("p".into()),
        pattern: Some("re".into()),
        mcp_server: Some("s".into()),
        mcp_tool: Some("t".into()),
    }
}

fn event() -> model::NormalizedEvent {
    model::NormalizedEvent {
        kind: model::EventKind::PostToolUse,
        native_event: "PostToolUse".into(),
        session_id: "s".into(),
        project_dir: Some("/p".into()),
        transcript_path: Some("/t.jsonl".into()),
        tool: Some(call()),
        outcome: Some(model::ToolResult {
            output: "out".into(),
            is_error: true,
            exit_code: Some(2),
            duration_ms: Some(7),
        }),
        prompt: Some("why".into()),
        source: Some(model::SessionSource::Compact),
        trigger: Some("auto".into()),
    }
}

fn reply() -> model::Reply {
    model::Reply {
        event: model::EventKind::PreToolUse,
        native_event: "pretooluse".into(),
        verdict: model::Verdict::Redirect,
        reason: Some("r".into()),
        tool: Some(call()),
        updated_command: Some("c".into()),
        updated_prompt: Some("p".into()),
        updated_output: Some("o".into()),
        additional_context: Some("a".into()),
    }
}

fn context() -> model::PolicyContext {
    model::PolicyContext {
        platform: "claude-code".into(),
        ctx_tools: model::CtxToolNames::with_prefix("mcp__x__"),
        server_live: true,
        rules: vec![model::PermissionRule {
            pattern: "Bash(sudo *)".into(),
            effect: model::RuleEffect::Deny,
            scope: model::RuleScope::ProjectLocal,
        }],
        nudges_shown: vec!["grep".into()],
        file_size_bytes: Some(9),
        project_dir: "/p".into(),
    }
}

/// Every field survives model → version → model: a converter that drops or swaps one
/// fails here, not in a hook.
macro_rules! round_trips {
    ($version:ident) => {{
        use $version::adapter_world::context_mode::plugin::types as wit;
        use $version::adapter_world::exports::context_mode::plugin::adapter as wit_adapter;
        let back: model::NormalizedEvent = wit::NormalizedEvent::from(event()).into();
        assert_eq!(back, event());
        let back: model::Reply = wit_adapter::Reply::from(reply()).into();
        assert_eq!(back, reply());
        let caps = model::Capabilities::BLOCK | model::Capabilities::INJECT_CONTEXT;
        let back: model::Capabilities = wit_adapter::Capabilities::from(caps).into();
        assert_eq!(back, caps);
        assert_eq!(
            model::Capabilities::from(wit_adapter::Capabilities::from(model::Capabilities::all())),
            model::Capabilities::all()
        );
        let (wit_call, wit_context) = $version::policy_question(&call(), &context());
        assert_eq!(model::ToolCall::from(wit_call), call());
        assert_eq!(wit_context.rules.len(), 1);
        assert_eq!(wit_context.file_size_bytes, Some(9));
        wit_context
    }};
}

#[test]
fn contract_0_4_0_converts_every_field_both_ways() {
    let wit_context = round_trips!(v0_4);
    assert_eq!(wit_context.ctx_tools.len(), model::CTX_TOOLS.len());
}

#[test]
fn contract_0_3_0_converts_every_field_both_ways() {
    let wit_context = round_trips!(v0_3);
    let names: Vec<(String, String)> = wit_context
        .ctx_tools
        .into_iter()
        .map(|t| (t.tool, t.name))
        .collect();
    assert_eq!(names.len(), model::CTX_TOOLS.len());
    assert!(names.contains(&("ctx_search".into(), "mcp__x__ctx_search".into())));
}

#[test]
fn contract_0_2_0_converts_every_field_both_ways() {
    let wit_context = round_trips!(v0_2);
    // A 0.2.0 policy is told the prefix that stands before `ctx_execute`.
    assert_eq!(wit_context.ctx_tool_prefix, "mcp__x__");
}
