//! Whole sessions recorded into a real store: the state block a user gets back after
//! compaction, at scale, and with two sessions sharing one database.

use serde_json::json;

use super::support::*;
use crate::journal::{
    Category, build_state_block, pre_compact, record, resume, session_start_context,
};
use crate::limits::{JOURNAL_MAX_ROWS_PER_PRIORITY, RESUME_CAP_BYTES, STATE_BUDGET_BYTES};
use crate::model::{EventKind, NormalizedEvent, SessionSource, ToolKind};
use crate::store::Store;

const FIXED_ERROR: &str =
    "thread 'dates::leap_year' panicked at src/dates.rs:41: assertion failed: left == right";
const OPEN_ERROR: &str = "error TS2339: Property 'foo' does not exist on type 'Api'.";
const GITHUB_TOKEN: &str = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngOnly0123";
const OPENAI_KEY: &str = "sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe";

/// A realistic session: a bug fix with a failing test then its fix, a decision, a
/// denied call, a sub-agent, a commit, MCP calls, a slow call, secrets in a prompt,
/// and a last request that leaves a task and a build error open.
fn scripted_session(s: &str) -> Vec<NormalizedEvent> {
    let mut events = vec![
        session_start(s, SessionSource::Startup),
        prompt(
            s,
            "You are a careful Rust reviewer. Fix the leap-year bug in the date parser and make the tests pass.",
        ),
    ];
    events.extend(ran(
        s,
        &read("src/dates.rs"),
        "pub fn is_leap(y: i32) -> bool { y % 4 == 0 }",
        None,
    ));
    events.extend(ran(
        s,
        &read("CLAUDE.md"),
        "# Rules\nRun cargo test before committing.",
        None,
    ));
    events.extend(ran(
        s,
        &todo(&[
            ("Fix leap-year parsing", "in_progress"),
            ("Add a leap-year test", "pending"),
            ("Update the changelog", "pending"),
        ]),
        "ok",
        None,
    ));
    events.extend(ran(s, &bash("cargo test -p parser"), &format!("running 12 tests\ntest dates::leap_year ... FAILED\n{FIXED_ERROR}\ntest result: FAILED. 11 passed; 1 failed"), Some(101)));
    events.extend(ran(
        s,
        &edit("src/dates.rs"),
        "The file has been updated.",
        None,
    ));
    events.extend(ran(
        s,
        &bash("cargo test -p parser"),
        "running 12 tests\ntest result: ok. 12 passed; 0 failed",
        Some(0),
    ));
    events.extend(ran(
        s,
        &read("CLAUDE.md"),
        "# Rules\nRun cargo test before committing.",
        None,
    ));
    events.push(prompt(
        s,
        "Good. Use pnpm instead of npm for the web part. Don't touch the CI config.",
    ));
    events.extend(ran(
        s,
        &bash("cd web && pnpm install"),
        "Packages: +312\nDone in 4.1s",
        Some(0),
    ));
    events.extend(ran(
        s,
        &call("Write", ToolKind::Edit, json!({ "file_path": format!("{PROJECT}/web/src/api.ts"), "content": "export class Api {}" })),
        "File created successfully",
        None,
    ));
    events.extend(ran(
        s,
        &bash("pnpm run build"),
        &format!("> web@1.0.0 build\n> tsc -p .\n\nsrc/main.ts(3,5): {OPEN_ERROR}\n"),
        Some(2),
    ));
    // The user denies this one: a pre-tool-use and never a post-tool-use.
    events.push(pre(s, &bash("rm -rf node_modules")));
    events.push(prompt(
        s,
        "No, keep node_modules. Commit what works so far.",
    ));
    events.extend(ran(
        s,
        &bash("git add -A && git commit -m 'Fix leap-year parsing'"),
        "[main 4f1c2d9] Fix leap-year parsing\n 2 files changed",
        Some(0),
    ));
    let agent = call(
        "Task",
        ToolKind::Agent,
        json!({ "description": "Survey Api.foo callers", "prompt": "Find every caller of Api.foo in web/", "subagent_type": "Explore" }),
    );
    events.extend(ran(
        s,
        &agent,
        "Found 3 callers: web/src/a.ts:12, web/src/b.ts:40, web/src/c.ts:7",
        None,
    ));
    let issue = call(
        "mcp__github__get_issue",
        ToolKind::Mcp,
        json!({ "owner": "acme", "repo": "app", "number": 88 }),
    );
    events.extend(ran(s, &issue, "{\"title\":\"Leap years\"}", None));
    events.extend(ran(s, &issue, "{\"title\":\"Leap years\"}", None));
    events.extend(ran(
        s,
        &call(
            "WebFetch",
            ToolKind::WebFetch,
            json!({ "url": "https://docs.rs/chrono/latest/chrono/", "prompt": "leap" }),
        ),
        "chrono docs",
        None,
    ));
    events.extend(ran(
        s,
        &todo(&[
            ("Fix leap-year parsing", "completed"),
            ("Add a leap-year test", "completed"),
            ("Update the changelog", "pending"),
        ]),
        "ok",
        None,
    ));
    events.push(pre(s, &bash("sleep 6 && echo warm")));
    events.push(post_timed(
        s,
        &bash("sleep 6 && echo warm"),
        "warm",
        Some(0),
        Some(6_200),
    ));
    events.push(prompt(
        s,
        &format!(
            "For the registry use token={GITHUB_TOKEN} and OPENAI_API_KEY={OPENAI_KEY}, see #88."
        ),
    ));
    events.push(event(EventKind::Stop, s));
    events.push(prompt(
        s,
        "Now update the changelog for release 2.1 and get the TypeScript build green.",
    ));
    events
}

fn all_rows(store: &Store, session: &str) -> Vec<crate::store::JournalEntry> {
    store.journal_list(session, 0, usize::MAX).expect("list")
}

#[test]
fn a_scripted_session_compacts_into_a_block_that_keeps_what_matters() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = open_store(&dir);
    let events = scripted_session("s1");
    assert!(events.len() >= 40, "only {} events", events.len());
    play(&mut store, &events);

    let mut compact = event(EventKind::PreCompact, "s1");
    compact.trigger = Some("auto".into());
    let block = pre_compact(&mut store, &compact).expect("pre-compact");
    eprintln!("state block ({} B):\n{block}", block.len());

    assert!(block.len() <= STATE_BUDGET_BYTES, "{} B", block.len());
    assert!(block.contains("Last request (#"), "{block}");
    assert!(
        block.contains("update the changelog for release 2.1"),
        "last request missing"
    );
    assert!(
        block.contains("src/dates.rs") && block.contains("web/src/api.ts"),
        "changed files missing"
    );
    assert!(
        block.contains("Open tasks: [ ] Update the changelog"),
        "open task missing"
    );
    assert!(
        !block.contains("[~] Fix leap-year parsing"),
        "a completed task is still open"
    );
    assert!(
        block.contains("decision: Use pnpm instead of npm for the web part."),
        "decision missing"
    );
    assert!(
        block.contains("Unresolved error (#") && block.contains("TS2339"),
        "unresolved error missing"
    );
    assert!(
        !block.contains("assertion failed") && !block.contains("dates::leap_year"),
        "the fixed error is still shown"
    );
    assert!(
        block.contains("no result (denied by the user or interrupted): rm -rf node_modules"),
        "denied call missing"
    );

    // Deterministic: same rows → same bytes, from this connection and a fresh one.
    assert_eq!(build_state_block(&store, "s1").expect("rebuild"), block);
    let reopened = open_store(&dir);
    assert_eq!(build_state_block(&reopened, "s1").expect("reopened"), block);

    // After the compaction, the session start hands the stored block back once.
    let injected = session_start_context(
        &mut store,
        "s1",
        SessionSource::Compact,
        &crate::model::CtxToolNames::with_prefix("mcp__cm__"),
    )
    .expect("session start")
    .expect("a block");
    assert!(injected.starts_with(&block) && injected.contains("mcp__cm__ctx_resume(seq)"));
    assert!(
        store.take_state_block("s1").expect("take").is_none(),
        "the block was not consumed"
    );
}

#[test]
fn the_scripted_session_journals_every_category_and_no_secret() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = open_store(&dir);
    play(&mut store, &scripted_session("s1"));
    let rows = all_rows(&store, "s1");
    let has = |category: Category, needle: &str| {
        rows.iter()
            .any(|r| r.category == category.as_str() && r.summary.contains(needle))
    };
    assert!(has(Category::Role, "You are a careful Rust reviewer"));
    assert!(has(Category::Intent, "intent: implement"));
    assert!(has(Category::FileRead, "read src/dates.rs"));
    assert!(has(Category::Rules, "rules file CLAUDE.md"));
    assert_eq!(
        rows.iter().filter(|r| r.category == "rules").count(),
        1,
        "the same rules file is stored once"
    );
    assert!(has(
        Category::Error,
        "cargo test -p parser failed (exit 101)"
    ));
    assert!(has(
        Category::Fix,
        "fixed: cargo test -p parser succeeded after error #"
    ));
    assert!(has(Category::FileEdit, "edited src/dates.rs"));
    assert!(has(Category::FileWrite, "wrote web/src/api.ts"));
    assert!(has(Category::Decision, "Use pnpm instead of npm"));
    assert!(has(Category::Decision, "Don't touch the CI config."));
    assert!(has(Category::Decision, "No, keep node_modules."));
    assert!(has(Category::Env, "cwd: web"));
    assert!(has(Category::Env, "installed: pnpm install"));
    assert!(has(Category::Rejected, "rm -rf node_modules"));
    assert!(has(Category::Git, "git commit -m 'Fix leap-year parsing'"));
    assert!(has(
        Category::Subagent,
        "sub-agent (Explore): Survey Api.foo callers"
    ));
    assert!(has(Category::Mcp, "mcp github.get_issue ×2"));
    assert_eq!(
        rows.iter().filter(|r| r.category == "mcp").count(),
        1,
        "one count row per MCP tool"
    );
    assert!(has(
        Category::Reference,
        "reference https://docs.rs/chrono/latest/chrono/"
    ));
    assert!(has(Category::Reference, "reference #88"));
    assert!(has(
        Category::Slow,
        "slow call (6.2 s): sleep 6 && echo warm"
    ));
    assert!(
        rows.iter().all(|r| r.category != "pending-call"),
        "a pending call was left behind"
    );
    let subagent = rows
        .iter()
        .find(|r| r.category == "subagent")
        .expect("subagent row");
    assert!(
        subagent.data.contains("Find every caller of Api.foo")
            && subagent.data.contains("Found 3 callers")
    );

    for row in &rows {
        for secret in [GITHUB_TOKEN, OPENAI_KEY] {
            assert!(
                !row.summary.contains(secret) && !row.data.contains(secret),
                "secret stored in #{}",
                row.seq
            );
        }
    }
    assert!(rows.iter().any(|r| r.data.contains("token=[REDACTED]")));
}

#[test]
fn resume_answers_the_state_and_single_rows_within_the_cap() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = open_store(&dir);
    play(&mut store, &scripted_session("s1"));
    let state = resume(&store, "s1", None).expect("resume");
    assert_eq!(state, build_state_block(&store, "s1").expect("block"));
    let decision = all_rows(&store, "s1")
        .into_iter()
        .find(|r| r.category == "decision")
        .expect("decision");
    let row = resume(&store, "s1", Some(decision.seq)).expect("row");
    assert!(
        row.starts_with(&format!(
            "#{} decision (P1)\nGood. Use pnpm instead of npm",
            decision.seq
        )) || row.contains("Use pnpm instead of npm"),
        "{row}"
    );
    let error = all_rows(&store, "s1")
        .into_iter()
        .find(|r| r.category == "error")
        .expect("error");
    let full = resume(&store, "s1", Some(error.seq)).expect("error row");
    assert!(
        full.contains(FIXED_ERROR) && full.len() <= RESUME_CAP_BYTES,
        "{full}"
    );
    assert!(
        resume(&store, "s1", Some(9_999))
            .expect("missing")
            .starts_with("No journal row #9999")
    );
    assert_eq!(
        resume(&store, "nobody", None).expect("empty"),
        "No journal rows for this session yet."
    );
}

#[test]
fn a_thousand_events_yield_the_newest_state_within_the_bound() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = open_store(&dir);
    let started = std::time::Instant::now();
    let mut events = 0;
    for i in 0..200 {
        let check = bash(&format!("cargo check -p m{i}"));
        let (output, exit) = if i % 3 == 0 {
            ("error[E0425]: cannot find value `x`", 101)
        } else {
            ("Finished", 0)
        };
        let batch = [
            prompt(
                "big",
                &format!("Step {i}: adjust module m{i} and keep the API stable"),
            ),
            post("big", &edit(&format!("docs/m{i}.md")), "updated", None),
            post("big", &edit(&format!("src/m{i}.rs")), "updated", None),
            post("big", &edit(&format!("tests/m{i}.rs")), "updated", None),
            post("big", &check, output, Some(exit)),
        ];
        events += batch.len();
        play(&mut store, &batch);
    }
    let recording = started.elapsed();
    assert_eq!(events, 1_000);

    let started = std::time::Instant::now();
    let block = build_state_block(&store, "big").expect("block");
    let building = started.elapsed();
    let rows = all_rows(&store, "big");
    eprintln!(
        "1,000 events recorded in {recording:?} ({:?} per event); state block of {} rows built in {building:?}",
        recording / 1_000,
        rows.len()
    );
    assert!(block.len() <= STATE_BUDGET_BYTES);
    assert!(
        block.contains("Last request (#") && block.contains("Step 199: adjust module m199"),
        "{block}"
    );
    assert!(
        block.contains("Files changed: tests/m199.rs, src/m199.rs, docs/m199.md, tests/m198.rs"),
        "{block}"
    );
    assert!(
        !block.contains("m0.rs") && !block.contains("Step 0:"),
        "day-one state in the block: {block}"
    );
    assert!(
        block.contains("Unresolved error (#")
            && block.contains("cargo check -p m198 failed (exit 101)"),
        "{block}"
    );
    // P2 (prompts, edits) overflowed its share: the oldest went, the newest stayed.
    let p2 = rows.iter().filter(|r| r.priority == 2).count();
    assert_eq!(p2, JOURNAL_MAX_ROWS_PER_PRIORITY[1]);
    assert!(!rows.iter().any(|r| r.summary == "edited src/m0.rs"));
    assert!(rows.iter().any(|r| r.summary == "edited src/m199.rs"));
    let total: usize = JOURNAL_MAX_ROWS_PER_PRIORITY.iter().sum();
    assert!(rows.len() <= total);
    // A check of one module passing never resolves another module's failure.
    assert!(
        rows.iter().all(|r| r.category != "error-fix"),
        "a different module's success resolved an error"
    );
}

#[test]
fn two_interleaved_sessions_keep_separate_journals() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = open_store(&dir);
    let a = scripted_session("alpha");
    let b = [
        prompt("beta", "Investigate why the scheduler drops jobs"),
        pre("beta", &read("src/scheduler.rs")),
        post("beta", &read("src/scheduler.rs"), "fn tick() {}", None),
        pre("beta", &edit("src/queue.rs")),
        post("beta", &edit("src/queue.rs"), "ok", None),
        prompt("beta", "Use a bounded channel instead of the Vec queue"),
        pre("beta", &bash("cargo test -p scheduler")),
        post(
            "beta",
            &bash("cargo test -p scheduler"),
            "error: test failed, to rerun pass `-p scheduler --lib`",
            Some(101),
        ),
    ];
    let mut b_iter = b.iter();
    for e in &a {
        record(&mut store, e).expect("a");
        if let Some(e) = b_iter.next() {
            record(&mut store, e).expect("b");
        }
    }
    let block_a = build_state_block(&store, "alpha").expect("a");
    let block_b = build_state_block(&store, "beta").expect("b");
    assert!(
        block_a.contains("update the changelog") && !block_a.contains("scheduler"),
        "{block_a}"
    );
    assert!(
        block_b.contains("bounded channel") && block_b.contains("src/queue.rs"),
        "{block_b}"
    );
    assert!(
        !block_b.contains("pnpm") && !block_b.contains("dates.rs"),
        "{block_b}"
    );
    assert!(
        block_b.contains("cargo test -p scheduler failed"),
        "{block_b}"
    );
    let seqs: Vec<i64> = all_rows(&store, "beta").iter().map(|r| r.seq).collect();
    assert_eq!(seqs.first(), Some(&1), "each session counts its own seqs");
}
