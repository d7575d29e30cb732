//! One behaviour per test, recorded through the real store: error → fix, retry loops,
//! denied calls, pasted data, blockers, tasks, plans, rules files, environment.

use serde_json::json;

use super::support::*;
use crate::journal::{build_state_block, record};
use crate::model::{EventKind, ToolKind};
use crate::store::{JournalEntry, Store};

fn rows(store: &Store, session: &str) -> Vec<JournalEntry> {
    store.journal_list(session, 0, usize::MAX).expect("list")
}

fn of<'a>(rows: &'a [JournalEntry], category: &str) -> Vec<&'a JournalEntry> {
    rows.iter().filter(|r| r.category == category).collect()
}

#[test]
fn a_retry_loop_is_flagged_and_a_later_success_resolves_every_failure() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = open_store(&dir);
    let test = bash("cargo test -p api");
    for _ in 0..4 {
        play(
            &mut store,
            &ran(
                "s",
                &test,
                "test auth::login ... FAILED\nerror: 1 test failed",
                Some(101),
            ),
        );
    }
    let before = rows(&store, "s");
    assert_eq!(of(&before, "error").len(), 4);
    let retry = of(&before, "retry-loop");
    assert_eq!(
        retry.len(),
        1,
        "the loop row is replaced as the count grows"
    );
    assert!(
        retry[0]
            .summary
            .starts_with("retry loop: cargo test -p api failed 4 times in a row"),
        "{}",
        retry[0].summary
    );
    let block = build_state_block(&store, "s").expect("block");
    assert!(
        block.contains("Unresolved error (#")
            && block.contains(", 4×)")
            && block.contains("retry loop"),
        "{block}"
    );

    // A narrower run of the same tests passing resolves them all.
    play(
        &mut store,
        &ran(
            "s",
            &bash("cargo test -p api auth::login"),
            "test result: ok. 1 passed",
            Some(0),
        ),
    );
    let after = rows(&store, "s");
    let fix = of(&after, "error-fix");
    assert_eq!(fix.len(), 1);
    assert!(
        fix[0].summary.contains("succeeded after error #"),
        "{}",
        fix[0].summary
    );
    let block = build_state_block(&store, "s").expect("block");
    assert!(
        !block.contains("Unresolved error") && !block.contains("retry loop"),
        "{block}"
    );
    assert!(
        block.contains("fixed: cargo test -p api auth::login"),
        "{block}"
    );
}

#[test]
fn a_call_without_its_result_becomes_a_rejected_approach() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = open_store(&dir);
    let push = bash("git push --force origin main");
    let status = bash("git status");
    play(&mut store, &[pre("s", &push), pre("s", &status)]);
    assert_eq!(of(&rows(&store, "s"), "pending-call").len(), 2);
    // The policy may rewrite the input: the result still answers its pending call.
    let rewritten = bash("git status --short");
    play(
        &mut store,
        &[
            post("s", &rewritten, "M src/a.rs", Some(0)),
            event(EventKind::Stop, "s"),
        ],
    );
    let all = rows(&store, "s");
    assert!(of(&all, "pending-call").is_empty());
    let rejected = of(&all, "rejected");
    assert_eq!(rejected.len(), 1, "{all:#?}");
    assert_eq!(
        rejected[0].summary,
        "no result (denied by the user or interrupted): git push --force origin main"
    );
    assert!(
        build_state_block(&store, "s")
            .expect("block")
            .contains("git push --force origin main")
    );
}

#[test]
fn grep_without_matches_is_no_error_and_permission_denied_is_a_constraint() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = open_store(&dir);
    play(
        &mut store,
        &ran("s", &bash("grep -rn TODO src"), "", Some(1)),
    );
    assert!(of(&rows(&store, "s"), "error").is_empty());
    play(
        &mut store,
        &ran(
            "s",
            &bash("cat /etc/shadow"),
            "cat: /etc/shadow: Permission denied",
            Some(1),
        ),
    );
    let all = rows(&store, "s");
    assert_eq!(of(&all, "error").len(), 1);
    assert_eq!(
        of(&all, "constraint")[0].summary,
        "cat: /etc/shadow: Permission denied"
    );
}

#[test]
fn large_pasted_data_is_indexed_and_the_row_points_at_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = open_store(&dir);
    let mut paste = String::from("Why does this crash? Log below\n");
    for i in 0..80 {
        paste.push_str(&format!(
            "2024-05-01T10:{i:02}:00 worker-{i} heartbeat ok queue_depth={i}\n"
        ));
    }
    paste.push_str(
        "2024-05-01T11:20:00 worker-7 FATAL zanzibar_overflow in shard 12 password=hunter22\n",
    );
    assert!(paste.len() > 1024);
    let recorded = record(&mut store, &prompt("s", &paste)).expect("record");
    assert_eq!(recorded.pasted.len(), 1);
    let label = &recorded.pasted[0];
    let all = rows(&store, "s");
    let prompt_row = of(&all, "prompt")[0];
    assert!(
        prompt_row.data.len() < 1024 && prompt_row.summary.contains(label.as_str()),
        "{prompt_row:?}"
    );
    assert!(of(&all, "paste")[0].summary.contains(label.as_str()));

    let options = crate::search::SearchOptions::new("s");
    let found = crate::search::search(&store, "zanzibar_overflow", &options).expect("search");
    let hit = found.hits.first().expect("the paste is searchable");
    assert_eq!(&hit.source_label, label);
    assert!(
        hit.snippet.contains("zanzibar_overflow") && !hit.snippet.contains("hunter22"),
        "{}",
        hit.snippet
    );
}

#[test]
fn blockers_stay_until_a_prompt_clears_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = open_store(&dir);
    play(
        &mut store,
        &[prompt(
            "s",
            "We're blocked on the staging credentials from ops.",
        )],
    );
    assert!(
        build_state_block(&store, "s")
            .expect("block")
            .contains("blocker: We're blocked on the staging credentials")
    );
    play(
        &mut store,
        &[prompt("s", "Good news, we're unblocked: ops sent them.")],
    );
    let block = build_state_block(&store, "s").expect("block");
    assert!(!block.contains("blocker:"), "{block}");
}

#[test]
fn tasks_created_one_at_a_time_and_plans_keep_only_the_newest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = open_store(&dir);
    let create = |subject: &str| {
        call(
            "TaskCreate",
            ToolKind::Other,
            json!({ "subject": subject, "description": "d" }),
        )
    };
    play(
        &mut store,
        &ran(
            "s",
            &create("Write the migration"),
            "Task #1 created successfully: Write the migration",
            None,
        ),
    );
    play(
        &mut store,
        &ran(
            "s",
            &create("Backfill old rows"),
            "Task #2 created successfully: Backfill old rows",
            None,
        ),
    );
    play(
        &mut store,
        &ran(
            "s",
            &call(
                "TaskUpdate",
                ToolKind::Other,
                json!({ "taskId": "1", "status": "completed" }),
            ),
            "Updated task #1",
            None,
        ),
    );
    play(
        &mut store,
        &ran(
            "s",
            &call(
                "TaskUpdate",
                ToolKind::Other,
                json!({ "taskId": "2", "status": "in_progress" }),
            ),
            "Updated task #2",
            None,
        ),
    );
    let plan = |text: &str| call("ExitPlanMode", ToolKind::Other, json!({ "plan": text }));
    play(
        &mut store,
        &ran("s", &plan("## Plan A\n1. rewrite everything"), "ok", None),
    );
    play(
        &mut store,
        &ran(
            "s",
            &plan("## Plan B\n1. add a column\n2. backfill"),
            "ok",
            None,
        ),
    );
    let block = build_state_block(&store, "s").expect("block");
    assert!(
        block.contains("Open tasks: [~] #2 Backfill old rows")
            && !block.contains("Write the migration"),
        "{block}"
    );
    assert!(
        block.contains("plan: ## Plan B") && !block.contains("Plan A"),
        "{block}"
    );
}

#[test]
fn rules_files_are_stored_once_per_content() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = open_store(&dir);
    for content in ["# Rules v1", "# Rules v1", "# Rules v2"] {
        play(&mut store, &ran("s", &read("AGENTS.md"), content, None));
    }
    play(
        &mut store,
        &ran("s", &read(".cursor/rules/style.mdc"), "use tabs", None),
    );
    play(
        &mut store,
        &ran("s", &read("src/main.rs"), "fn main() {}", None),
    );
    let all = rows(&store, "s");
    let rules: Vec<&str> = of(&all, "rules")
        .iter()
        .map(|r| r.summary.as_str())
        .collect();
    assert_eq!(
        rules,
        vec![
            "rules file AGENTS.md",
            "rules file AGENTS.md",
            "rules file .cursor/rules/style.mdc"
        ]
    );
    assert_eq!(
        of(&all, "file-read").len(),
        3,
        "a re-read file keeps one row"
    );
}

#[test]
fn environment_changes_show_only_the_current_value() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = open_store(&dir);
    for command in [
        "cd api",
        "cd web",
        "cd api && ls",
        "source .venv/bin/activate",
        "nvm use 20",
        "git worktree add ../hotfix hotfix",
    ] {
        play(&mut store, &ran("s", &bash(command), "", Some(0)));
    }
    let block = build_state_block(&store, "s").expect("block");
    assert_eq!(block.matches("cwd: ").count(), 1, "{block}");
    assert!(
        block.contains("cwd: api")
            && block.contains("python venv: .venv")
            && block.contains("node: 20"),
        "{block}"
    );
    assert!(block.contains("worktree: ../hotfix hotfix"), "{block}");
}

#[test]
fn patches_name_their_files_and_secrets_in_commands_are_redacted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = open_store(&dir);
    let patch = "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n-a\n+b\n*** Add File: src/new.rs\n+x\n*** End Patch";
    play(
        &mut store,
        &ran(
            "s",
            &call("apply_patch", ToolKind::Edit, json!({ "input": patch })),
            "Done",
            None,
        ),
    );
    let secret = "xoxb-123456789012-abcdefABCDEF";
    play(
        &mut store,
        &ran(
            "s",
            &bash(&format!(
                "curl -H 'Authorization: Bearer {secret}' https://slack.com/api/x"
            )),
            "invalid_auth",
            Some(22),
        ),
    );
    let all = rows(&store, "s");
    let files: Vec<&str> = of(&all, "file-write")
        .iter()
        .map(|r| r.summary.as_str())
        .collect();
    assert_eq!(files, vec!["wrote src/lib.rs", "wrote src/new.rs"]);
    assert!(
        all.iter()
            .all(|r| !r.summary.contains(secret) && !r.data.contains(secret))
    );
    assert!(of(&all, "error")[0].summary.contains("Bearer [REDACTED]"));
}
