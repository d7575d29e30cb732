//! The `ctx_index` / `ctx_search` / `ctx_purge` services as an agent calls them: JSON
//! parameters the way agents send them in, the reply text out.

use std::time::Duration;

use crate::limits::OUTPUT_CAP_BYTES;
use crate::search::*;

struct Env {
    _db: tempfile::TempDir,
    project: tempfile::TempDir,
    store: Store,
}

fn env() -> Env {
    let db = tempfile::tempdir().expect("db");
    let project = tempfile::tempdir().expect("project");
    let store = Store::open_path(&db.path().join("context.db")).expect("store");
    Env {
        _db: db,
        project,
        store,
    }
}

fn params<T: serde::de::DeserializeOwned>(json: &str) -> T {
    serde_json::from_str(json).expect("params")
}

fn guard() -> FloodGuard {
    FloodGuard::new(Duration::from_secs(60), 3, 8)
}

#[test]
fn index_content_then_search_it() {
    let mut e = env();
    let cx = ToolContext {
        session_id: "s1",
        project_dir: e.project.path(),
        names: Default::default(),
    };
    let doc = "# Runbook\n## Restart\nUse `systemctl restart shop` to restart.\n## Logs\nLogs live in /var/log/shop.\n";
    let reply = ctx_index(
        &mut e.store,
        &cx,
        &params(&serde_json::json!({"content": doc, "source": "runbook"}).to_string()),
        None,
    );
    assert!(!reply.is_error, "{}", reply.text);
    assert!(
        reply.text.starts_with("Indexed \"runbook\": 2 chunks"),
        "{}",
        reply.text
    );
    assert!(reply.text.contains("Runbook > Restart"));

    let reply = ctx_search(
        &e.store,
        &cx,
        &guard(),
        &params(r#"{"queries": "systemctl restart", "limit": "1"}"#),
    );
    assert!(!reply.is_error);
    assert!(
        reply
            .text
            .contains("1. runbook › Runbook > Restart (this session, prose)"),
        "{}",
        reply.text
    );
    assert!(reply.text.contains("systemctl restart shop"));
}

#[test]
fn index_a_directory_by_relative_path() {
    let mut e = env();
    std::fs::create_dir_all(e.project.path().join("docs")).expect("mkdir");
    std::fs::write(e.project.path().join("docs/a.md"), "# A\nalpha\n").expect("write");
    std::fs::write(e.project.path().join("docs/b.txt"), "beta\n").expect("write");
    let cx = ToolContext {
        session_id: "s1",
        project_dir: e.project.path(),
        names: Default::default(),
    };
    let reply = ctx_index(
        &mut e.store,
        &cx,
        &params(r#"{"path": "docs", "extensions": "md"}"#),
        None,
    );
    assert_eq!(
        reply.text,
        "Indexed \"docs/a.md\": 1 chunks from 10 B.\nSearch: ctx_search(queries: [\"…\"], source: \"docs\")"
    );
    let missing = ctx_index(&mut e.store, &cx, &params(r#"{"path": "nope"}"#), None);
    assert!(
        missing.is_error && missing.text.starts_with("ctx_index failed: cannot read"),
        "{}",
        missing.text
    );
    assert!(!missing.text.contains('\n'));
}

#[test]
fn bad_inputs_get_one_line_errors() {
    let mut e = env();
    let cx = ToolContext {
        session_id: "s1",
        project_dir: e.project.path(),
        names: Default::default(),
    };
    for reply in [
        ctx_index(&mut e.store, &cx, &params("{}"), None),
        ctx_index(
            &mut e.store,
            &cx,
            &params(r#"{"content": "x", "path": "y"}"#),
            None,
        ),
        ctx_search(&e.store, &cx, &guard(), &params("{}")),
        ctx_search(
            &e.store,
            &cx,
            &guard(),
            &params(r#"{"queries": ["x"], "contentType": "video"}"#),
        ),
        ctx_search(
            &e.store,
            &cx,
            &guard(),
            &params(r#"{"queries": ["x"], "scope": "galaxy"}"#),
        ),
        ctx_purge(&mut e.store, &cx, &params(r#"{"scope": "project"}"#)),
        ctx_purge(
            &mut e.store,
            &cx,
            &params(r#"{"confirm": "true", "scope": "source"}"#),
        ),
    ] {
        assert!(reply.is_error, "{}", reply.text);
        assert!(
            !reply.text.contains('\n') && reply.text.len() < 300,
            "{}",
            reply.text
        );
    }
}

#[test]
fn search_on_an_empty_index_says_so_and_stopwords_say_why() {
    let e = env();
    let cx = ToolContext {
        session_id: "s1",
        project_dir: e.project.path(),
        names: Default::default(),
    };
    let reply = ctx_search(
        &e.store,
        &cx,
        &guard(),
        &params(r#"{"queries": ["deploy", "the of and"]}"#),
    );
    assert!(
        reply
            .text
            .contains("## deploy\nno results: the index is empty"),
        "{}",
        reply.text
    );
    assert!(
        reply
            .text
            .contains("## the of and\nno results: the query has only common words"),
        "{}",
        reply.text
    );
}

#[test]
fn flood_guard_reduces_then_redirects() {
    let mut e = env();
    let cx = ToolContext {
        session_id: "s1",
        project_dir: e.project.path(),
        names: Default::default(),
    };
    let doc: String = (0..20)
        .map(|i| format!("## Part {i}\nshared keyword number {i}\n"))
        .collect();
    ctx_index(
        &mut e.store,
        &cx,
        &params(&serde_json::json!({"content": doc, "source": "parts"}).to_string()),
        None,
    );
    let flood = guard();
    let search = |flood: &FloodGuard| {
        ctx_search(
            &e.store,
            &cx,
            flood,
            &params(r#"{"queries": ["shared keyword"], "limit": 5}"#),
        )
    };
    for _ in 0..3 {
        let reply = search(&flood);
        assert!(reply.text.contains("\n5. parts"), "{}", reply.text);
    }
    for call in 4..=8 {
        let reply = search(&flood);
        assert!(
            reply.text.contains("\n1. parts") && !reply.text.contains("\n2. parts"),
            "{}",
            reply.text
        );
        assert!(
            reply
                .text
                .contains(&format!("note: search call {call} in 60 s")),
            "{}",
            reply.text
        );
    }
    let reply = search(&flood);
    assert!(
        reply
            .text
            .starts_with("redirected to ctx_batch_execute: this is search call 9"),
        "{}",
        reply.text
    );
    let other = ToolContext {
        session_id: "s2",
        project_dir: e.project.path(),
        names: Default::default(),
    };
    let reply = ctx_search(
        &e.store,
        &other,
        &flood,
        &params(r#"{"queries": ["shared keyword"]}"#),
    );
    assert!(
        reply.text.contains("\n3. parts"),
        "another session is not throttled: {}",
        reply.text
    );
}

#[test]
fn many_results_stay_within_the_output_cap() {
    let mut e = env();
    let cx = ToolContext {
        session_id: "s1",
        project_dir: e.project.path(),
        names: Default::default(),
    };
    let doc: String = (0..300)
        .map(|i| {
            format!(
                "## Part {i}\n{}\n",
                "common words repeated here ".repeat(40)
            )
        })
        .collect();
    ctx_index(
        &mut e.store,
        &cx,
        &params(&serde_json::json!({"content": doc}).to_string()),
        None,
    );
    let reply = ctx_search(
        &e.store,
        &cx,
        &guard(),
        &params(r#"{"queries": ["common words", "repeated"], "limit": 100}"#),
    );
    assert!(reply.text.len() <= OUTPUT_CAP_BYTES, "{}", reply.text.len());
    assert!(
        reply.text.contains("## common words\n1. ") && reply.text.contains("## repeated\n1. "),
        "{}",
        reply.text
    );
    assert!(
        reply
            .text
            .contains("more results not shown to stay within the output cap")
    );
}

#[test]
fn purge_by_source_session_and_project_says_what_went() {
    let mut e = env();
    let a = ToolContext {
        session_id: "sa",
        project_dir: e.project.path(),
        names: Default::default(),
    };
    let b = ToolContext {
        session_id: "sb",
        project_dir: e.project.path(),
        names: Default::default(),
    };
    for (cx, label) in [(&a, "build-log"), (&a, "test-log"), (&b, "api-notes")] {
        let json = serde_json::json!({"content": format!("text of {label}"), "source": label});
        ctx_index(&mut e.store, cx, &params(&json.to_string()), None);
    }
    let reply = ctx_purge(
        &mut e.store,
        &a,
        &params(r#"{"confirm": true, "source": "LOG"}"#),
    );
    assert_eq!(
        reply.text,
        "Deleted from sources matching \"LOG\": 2 sources (2 chunks): build-log, test-log."
    );
    let reply = ctx_purge(
        &mut e.store,
        &a,
        &params(r#"{"confirm": true, "scope": "session", "sessionId": "sb"}"#),
    );
    assert_eq!(
        reply.text,
        "Deleted from session sb: 1 source (1 chunks): api-notes."
    );
    let reply = ctx_purge(&mut e.store, &a, &params(r#"{"confirm": "true"}"#));
    assert_eq!(reply.text, "Nothing to delete for the whole project.");
    assert_eq!(e.store.content_counts().expect("counts"), (0, 0));
}

#[test]
fn parameter_schemas_use_the_upstream_names() {
    let index = serde_json::to_value(schemars::schema_for!(IndexParams)).expect("schema");
    let props = index["properties"].as_object().expect("properties");
    for name in [
        "content",
        "path",
        "source",
        "include",
        "exclude",
        "maxDepth",
        "maxFiles",
        "extensions",
        "respectGitignore",
        "followSymlinks",
    ] {
        assert!(props.contains_key(name), "ctx_index lacks {name}");
    }
    let search = serde_json::to_value(schemars::schema_for!(SearchParams)).expect("schema");
    let props = search["properties"].as_object().expect("properties");
    for name in ["queries", "limit", "source", "contentType", "scope", "sort"] {
        assert!(props.contains_key(name), "ctx_search lacks {name}");
    }
    let purge = serde_json::to_value(schemars::schema_for!(PurgeParams)).expect("schema");
    let props = purge["properties"].as_object().expect("properties");
    for name in ["confirm", "scope", "source", "sessionId"] {
        assert!(props.contains_key(name), "ctx_purge lacks {name}");
    }
}
