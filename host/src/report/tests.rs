//! The stats report against real stores: exact figures, the empty state, journalling
//! that never counts as savings, all projects with an unreadable one, the insight page.

use crate::platform::fs::Canonical as _;
use std::path::Path;

use super::text::{render, unmeasured_line};
use super::{gather, insight, reported_session};
use crate::model::{EventKind, NormalizedEvent, SessionSource};
use crate::store::{NewSource, SourceKind, Store};

fn event(kind: EventKind, session: &str, prompt: Option<String>) -> NormalizedEvent {
    NormalizedEvent {
        kind,
        native_event: "test".into(),
        session_id: session.into(),
        project_dir: None,
        transcript_path: None,
        tool: None,
        outcome: None,
        prompt,
        source: (kind == EventKind::SessionStart).then_some(SessionSource::Startup),
        trigger: None,
    }
}

fn report_text(store: &Store, root: &Path, project: &Path, session: Option<&str>) -> String {
    render(&gather(Some(store), root, project, session).expect("gather"))
}

#[test]
fn with_nothing_measured_each_scope_says_so_in_one_line() {
    let root = tempfile::tempdir().expect("root");
    let project = tempfile::tempdir().expect("project");
    let text = render(&gather(None, root.path(), project.path(), None).expect("gather"));
    assert!(
        text.contains(
            "\nThis session\n  No tool output measured yet in this session — savings appear after the first ctx_* call.\n"
        ),
        "{text}"
    );
    assert!(text.contains(&unmeasured_line("in this project")), "{text}");
    assert!(text.contains(&unmeasured_line("in any project")), "{text}");
    assert!(!text.contains('█') && !text.contains('░'), "no bar: {text}");
    assert!(text.contains("All projects (0 databases)"), "{text}");
}

#[test]
fn known_byte_counts_give_exact_figures() {
    let root = tempfile::tempdir().expect("root");
    let project = tempfile::tempdir().expect("project");
    let mut store = Store::open(root.path(), project.path()).expect("store");
    store
        .record_tool_stats("s1", "ctx_execute", 20_000, 1_234, false)
        .expect("1");
    store
        .record_tool_stats("s1", "ctx_fetch_and_index", 50_000, 1_000, true)
        .expect("2");
    store
        .record_tool_stats("s1", "ctx_fetch_and_index", 30_000, 1_000, false)
        .expect("3");
    store
        .record_tool_stats("old", "ctx_execute", 10_000, 100, false)
        .expect("4");
    let text = report_text(&store, root.path(), project.path(), Some("s1"));
    // Session: 100,000 raw, 3,234 returned → 96,766 kept out = 96.7% (96.766 floored).
    let session = text
        .split("This project, all time")
        .next()
        .expect("session part");
    assert!(session.contains("This session · s1\n"), "{text}");
    assert!(
        session.contains("  kept out  ███████████████████████░  96.7%\n"),
        "{text}"
    );
    assert!(
        session.contains(
            "  94.5 KB of 97.7 KB raw stayed out of the context (≈ 24,191 tokens); 3.2 KB returned; 3 calls\n"
        ),
        "{text}"
    );
    assert!(
        session.contains(
            "  ctx_fetch_and_index       2    78.1 KB     2.0 KB     97.5%  ███████████████████████░\n"
        ),
        "{text}"
    );
    assert!(
        session.contains(
            "  ctx_fetch_and_index cache hits: 1 of 2 calls answered from the index without a request"
        ),
        "{text}"
    );
    assert!(
        session.contains(
            "  ctx_execute               1    19.5 KB     1.2 KB     93.8%  ██████████████████████░░\n"
        ),
        "{text}"
    );
    // Project all time: 110,000 raw, 3,334 returned → 96.9%.
    let project_part = text
        .split("This project, all time")
        .nth(1)
        .and_then(|rest| rest.split("All projects").next())
        .expect("project part");
    assert!(project_part.contains("  96.9%\n"), "{text}");
    assert!(project_part.contains("4 calls"), "{text}");
    assert!(project_part.contains("No hook runs timed yet."), "{text}");
    let all = text
        .split("All projects (1 database)")
        .nth(1)
        .expect("all part");
    let canonical = project.path().canonical().expect("canonical");
    assert!(
        all.contains(&canonical.display().to_string()),
        "the project is named by its path: {text}"
    );
}

#[test]
fn journalling_never_changes_the_savings() {
    let root = tempfile::tempdir().expect("root");
    let project = tempfile::tempdir().expect("project");
    let mut store = Store::open(root.path(), project.path()).expect("store");
    store
        .record_tool_stats("server", "ctx_execute", 8_000, 200, false)
        .expect("record");
    let before_json = serde_json::to_value(
        gather(Some(&store), root.path(), project.path(), Some("server")).expect("before"),
    )
    .expect("json");

    let pasted = "log line with some words in it\n".repeat(200);
    for ev in [
        event(EventKind::SessionStart, "hook", None),
        event(
            EventKind::UserPrompt,
            "hook",
            Some("Fix the flaky test.".into()),
        ),
        event(EventKind::UserPrompt, "hook", Some(pasted)),
        event(EventKind::Stop, "hook", None),
    ] {
        crate::journal::record(&mut store, &ev).expect("journal");
    }
    crate::journal::pre_compact(&mut store, &event(EventKind::PreCompact, "hook", None))
        .expect("pre-compact");
    assert!(
        !store.journal_category_counts().expect("counts").is_empty(),
        "the journal has rows"
    );

    let after_json = serde_json::to_value(
        gather(Some(&store), root.path(), project.path(), Some("server")).expect("after"),
    )
    .expect("json");
    assert_eq!(before_json, after_json);
    // The hooks' session is the most recent one, but it measured nothing: the reported
    // session stays the one that recorded tool calls.
    assert_eq!(
        store.most_recent_session().expect("recent").as_deref(),
        Some("hook")
    );
    assert_eq!(
        reported_session(&store, None).expect("session").as_deref(),
        Some("server")
    );
}

#[test]
fn all_projects_names_each_and_skips_an_unreadable_one() {
    let root = tempfile::tempdir().expect("root");
    let a = tempfile::tempdir().expect("a");
    let b = tempfile::tempdir().expect("b");
    let mut store_a = Store::open(root.path(), a.path()).expect("a store");
    store_a
        .record_tool_stats("s", "ctx_execute", 4_000, 1_000, false)
        .expect("a");
    let mut store_b = Store::open(root.path(), b.path()).expect("b store");
    store_b
        .record_tool_stats("t", "ctx_index", 6_000, 500, false)
        .expect("b");
    store_b
        .record_hook_timing("claude-code", "pretooluse", 3_000)
        .expect("timing");
    let broken = root.path().join("projects").join("broken");
    std::fs::create_dir_all(&broken).expect("mkdir");
    std::fs::write(broken.join("context.db"), vec![7u8; 8192]).expect("garbage");

    let report = gather(Some(&store_a), root.path(), a.path(), Some("s")).expect("gather");
    let all = &report.all_projects;
    assert_eq!(all.projects.len(), 2);
    assert_eq!(
        all.projects[0].name,
        b.path().canonical().expect("b").display().to_string()
    );
    // 10,000 raw, 1,500 returned.
    assert_eq!(all.scope.totals.kept_out_percent, Some(85.0));
    assert_eq!(all.unreadable.len(), 1);
    assert!(all.unreadable[0].db.ends_with("broken/context.db"));
    let hooks = all.scope.hooks.as_ref().expect("hooks");
    assert_eq!(hooks.len(), 1);
    assert_eq!((hooks[0].runs, hooks[0].p50_us), (1, 3_000));
    let text = render(&report);
    assert!(text.contains("skipped "), "{text}");
    assert!(text.contains("broken/context.db: "), "{text}");
    assert!(text.contains("claude-code      pretooluse"), "{text}");
    // Reading every project wrote nothing into the broken one.
    assert_eq!(
        std::fs::read(broken.join("context.db")).expect("read"),
        vec![7u8; 8192]
    );
}

#[test]
fn the_insight_page_has_every_chart_and_no_address() {
    let root = tempfile::tempdir().expect("root");
    let project = tempfile::tempdir().expect("project");
    let mut store = Store::open(root.path(), project.path()).expect("store");
    store
        .record_tool_stats("s", "ctx_execute", 40_000, 900, false)
        .expect("stats");
    store
        .record_hook_timing("claude-code", "pretooluse", 2_500)
        .expect("timing");
    let label = "<script>alert('x')</script> docs";
    crate::search::index_document(
        &mut store,
        NewSource::new(label, SourceKind::Content, Some("s"), 0),
        "# Title\n\nSome text about https://example.com/page to index.\n",
        crate::chunk::Format::Markdown,
    )
    .expect("index");
    crate::journal::record(
        &mut store,
        &event(EventKind::UserPrompt, "s", Some("Ship the report.".into())),
    )
    .expect("journal");

    let data =
        insight::gather(Some(&store), project.path(), crate::store::now_ms()).expect("gather");
    let page = insight::render(&data);
    assert_eq!(page.matches("<svg").count(), 5, "five charts");
    assert!(
        page.contains(r#"data-value="39100""#),
        "today's kept-out bytes"
    );
    assert!(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; docs"));
    for banned in [
        "http://", "https://", "src=", "<link", "<script", "url(", "xmlns",
    ] {
        assert!(!page.contains(banned), "{banned} in the page");
    }
    let summary = insight::summary(&data);
    assert_eq!(summary.lines().count(), 2, "{summary}");
    assert!(
        summary.starts_with(
            "38.2 KB of 39.1 KB raw kept out of the context (97.7%) over 1 call in this project."
        ),
        "{summary}"
    );
    let empty = insight::render(
        &insight::gather(None, project.path(), crate::store::now_ms()).expect("empty"),
    );
    assert_eq!(empty.matches("Nothing recorded yet.").count(), 5);
}
