//! What goes back into the agent's context: routing block, state after compaction or
//! resume, prompt matches, long-line pointers.

use super::support::*;
use crate::journal::{
    build_state_block, pre_compact, prompt_context, record, resume, routing_block,
    session_start_context,
};
use crate::limits::{
    PROMPT_MATCH_MAX_BYTES, ROUTING_BLOCK_MAX_BYTES, STATE_BUDGET_BYTES, STATE_LINE_MAX_BYTES,
};
use crate::model::{CtxToolNames, EventKind, SessionSource};

const PREFIX: &str = "mcp__plugin_context-mode_context-mode__";

fn names() -> CtxToolNames {
    CtxToolNames::with_prefix(PREFIX)
}

#[test]
fn startup_gets_the_routing_block_and_clear_gets_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = open_store(&dir);
    let block = session_start_context(&mut store, "s", SessionSource::Startup, &names())
        .expect("start")
        .expect("routing block");
    assert!(block.len() <= ROUTING_BLOCK_MAX_BYTES, "{} B", block.len());
    for tool in [
        "ctx_execute(",
        "ctx_batch_execute(",
        "ctx_execute_file(",
        "ctx_fetch_and_index(",
        "ctx_search(",
        "ctx_resume(",
    ] {
        assert!(block.contains(&format!("{PREFIX}{tool}")), "{tool} missing");
    }
    for banned in ["NEVER", "Do NOT", "MANDATORY", "blocked", "BLOCKED"] {
        assert!(!block.contains(banned), "{banned}");
    }
    assert_eq!(routing_block(&names()), block);
    assert!(
        session_start_context(&mut store, "s", SessionSource::Clear, &names())
            .expect("clear")
            .is_none()
    );
    // Unknown source, nothing journalled: treated as a start.
    assert_eq!(
        session_start_context(&mut store, "s", SessionSource::Unknown, &names()).expect("unknown"),
        Some(block)
    );
}

#[test]
fn compact_without_a_stored_block_builds_one_from_the_journal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = open_store(&dir);
    play(
        &mut store,
        &[
            prompt("s", "Port the cache to Redis"),
            post("s", &edit("src/cache.rs"), "ok", None),
        ],
    );
    let context = session_start_context(&mut store, "s", SessionSource::Compact, &names())
        .expect("start")
        .expect("state");
    assert!(
        context.contains("Last request (#1): Port the cache to Redis")
            && context.contains("Files changed: src/cache.rs")
    );
    assert!(
        session_start_context(&mut store, "empty", SessionSource::Compact, &names())
            .expect("empty")
            .is_none()
    );
}

#[test]
fn a_resume_under_a_new_id_takes_over_the_newest_unconsumed_block() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = open_store(&dir);
    play(
        &mut store,
        &[
            prompt("old", "Use Postgres instead of MySQL."),
            post("old", &edit("db/schema.sql"), "ok", None),
        ],
    );
    let block = pre_compact(&mut store, &event(EventKind::PreCompact, "old")).expect("pre-compact");
    assert!(!block.is_empty());

    let context = session_start_context(&mut store, "new", SessionSource::Resume, &names())
        .expect("resume")
        .expect("state");
    assert!(context.starts_with(&block));
    assert!(
        store.take_newest_state_block().expect("take").is_none(),
        "the block was taken once"
    );
    // ctx_resume(seq) in the new session reaches the row the block names.
    let decision = resume(&store, "new", Some(1)).expect("row");
    assert!(
        decision.contains("of session old") && decision.contains("Use Postgres instead of MySQL."),
        "{decision}"
    );
    // A second window starting fresh gets no one else's state.
    assert!(
        session_start_context(&mut store, "third", SessionSource::Resume, &names())
            .expect("third")
            .is_none()
    );
}

#[test]
fn prompt_matches_come_only_from_before_the_compaction() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = open_store(&dir);
    play(
        &mut store,
        &[prompt(
            "s",
            "Profile the tokenizer with a flamegraph; the hot loop is in lexer::advance.",
        )],
    );
    for i in 0..40 {
        play(
            &mut store,
            &[prompt(
                "s",
                &format!("Rename helper number {i} in the formatter"),
            )],
        );
    }
    assert!(
        prompt_context(&store, "s", "what did the flamegraph of the tokenizer show")
            .expect("before")
            .is_none()
    );
    let block = pre_compact(&mut store, &event(EventKind::PreCompact, "s")).expect("pre-compact");
    assert!(
        !block.contains("flamegraph"),
        "the old row would be in the block already: {block}"
    );
    record(
        &mut store,
        &prompt("s", "what did the flamegraph of the tokenizer show"),
    )
    .expect("prompt");

    let matched = prompt_context(&store, "s", "what did the flamegraph of the tokenizer show")
        .expect("after")
        .expect("a match");
    assert!(matched.len() <= PROMPT_MATCH_MAX_BYTES);
    assert!(
        matched.contains("#1 prompt: Profile the tokenizer with a flamegraph"),
        "{matched}"
    );
    assert!(
        !matched.contains("what did the flamegraph"),
        "the new prompt matched itself"
    );
    assert!(
        prompt_context(&store, "s", "kubernetes ingress annotations")
            .expect("none")
            .is_none()
    );
}

#[test]
fn a_long_line_becomes_a_pointer_and_the_block_stays_in_budget() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = open_store(&dir);
    let long = format!(
        "Use the builder pattern instead of the long constructor {}",
        "with many optional fields ".repeat(30)
    );
    play(&mut store, &[prompt("s", &long)]);
    for i in 0..60 {
        play(
            &mut store,
            &[prompt(
                "s",
                &format!("Never log request bodies in module {i}."),
            )],
        );
    }
    let block = build_state_block(&store, "s").expect("block");
    assert!(block.len() <= STATE_BUDGET_BYTES);
    assert!(
        block
            .lines()
            .all(|l| l.len() <= STATE_LINE_MAX_BYTES.max(STATE_BUDGET_BYTES / 6)),
        "{block}"
    );
    let last = block
        .lines()
        .find(|l| l.starts_with("Last request"))
        .expect("last request");
    assert!(last.contains("Never log request bodies in module 59."));
    // Newest first within P1: the newest decision is there, the oldest one is not.
    assert!(
        block.contains("decision: Never log request bodies in module 59.")
            && !block.contains("module 0."),
        "{block}"
    );

    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = open_store(&dir);
    play(&mut store, &[prompt("t", &long), prompt("t", "ok")]);
    let block = build_state_block(&store, "t").expect("block");
    let pointer = block
        .lines()
        .find(|l| l.contains("decision: Use the builder pattern"))
        .expect("decision line");
    assert!(
        pointer.ends_with("… ctx_resume(2)") && pointer.len() <= STATE_LINE_MAX_BYTES,
        "{pointer}"
    );
}

#[test]
fn the_whole_injection_fits_the_budget_with_the_pointer_line() {
    use crate::journal::state_injection;
    // A full block (what pre-compact may save) leaves no room for the pointer line:
    // its last lines give way, never the pointer.
    let mut block = String::from(crate::journal::state::HEADER);
    for n in 0.. {
        let line = format!("\n- row {n}: edited src/module_{n}.rs after the review comments");
        if block.len() + line.len() > STATE_BUDGET_BYTES {
            break;
        }
        block.push_str(&line);
    }
    let long = CtxToolNames::with_prefix("mcp__plugin_context-mode_a-much-longer-server-name__");
    for names in [names(), long] {
        let injected = state_injection(&block, &names);
        assert!(injected.len() <= STATE_BUDGET_BYTES, "{} B", injected.len());
        assert!(injected.starts_with(crate::journal::state::HEADER));
        assert!(
            injected.ends_with(&format!("{}(queries).", names.name("ctx_search"))),
            "{injected}"
        );
    }
    // A small block is given whole.
    let small = format!("{}\n- one row", crate::journal::state::HEADER);
    assert!(state_injection(&small, &names()).starts_with(&small));
}
