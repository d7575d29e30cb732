//! Interleaved A/B of `ctx_search` on the 5 MB document: a baseline build (A, from
//! `CM_BENCH_BASELINE`) and this build (B) each index the same document, then every
//! query goes to both servers, in alternating order per round, so drift of the shared
//! machine hits both alike. A measurement, not a timed assertion. Run:
//!     CM_BENCH_BASELINE=/path/to/old/cm \
//!     cargo test --release -p cm --test it bench_knowledge::ab:: -- --ignored --nocapture

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::json;

use super::{DOCUMENT_BYTES, generated_markdown, mixed_queries, ms, percentile, server_cpu};
use crate::common::{self, McpClient, Sandbox};

/// Rounds of indexing (fresh projects) and of searching (every query once per side).
const INDEX_ROUNDS: usize = 3;
const SEARCH_ROUNDS: usize = 8;

struct Side {
    label: &'static str,
    binary: PathBuf,
    index_wall: Vec<Duration>,
    index_cpu: Vec<Duration>,
    server: Option<(Sandbox, McpClient)>,
    /// Search times per query kind.
    times: [Vec<Duration>; 2],
}

impl Side {
    fn start(&mut self) -> &mut McpClient {
        let sandbox = Sandbox::new();
        let mut command = sandbox.command(&self.binary);
        command
            .env("CONTEXT_MODE_FLOOD_NORMAL", "100000")
            .env("CONTEXT_MODE_FLOOD_REDUCED", "100000")
            .env("CONTEXT_MODE_SEARCH_MAX_RESULTS_AFTER", "100000")
            .env("CONTEXT_MODE_SEARCH_BLOCK_AFTER", "100000");
        let mut client = McpClient::spawn(command);
        let (reply, is_error) = client.call_tool("ctx_search", json!({"queries": ["warmup"]}));
        assert!(!is_error, "{reply}");
        if let Some((_, old)) = self.server.take() {
            assert!(old.close().success());
        }
        &mut self.server.insert((sandbox, client)).1
    }

    fn client(&mut self) -> &mut McpClient {
        &mut self.server.as_mut().expect("started").1
    }
}

/// Partial words from inside frequent words and typos (two letters swapped): the paths
/// ADR 22 added, which the mixed queries barely touch.
fn partial_and_typo_queries(words: &[String]) -> Vec<serde_json::Value> {
    words[..400]
        .iter()
        .filter(|w| w.len() >= 7)
        .take(20)
        .enumerate()
        .map(|(i, w)| {
            if i % 2 == 0 {
                json!([w[1..w.len() - 1].to_string()])
            } else {
                let mut letters: Vec<char> = w.chars().collect();
                letters.swap(2, 3);
                json!([letters.into_iter().collect::<String>()])
            }
        })
        .collect()
}

#[test]
#[ignore = "measurement; needs CM_BENCH_BASELINE; run in release mode with --ignored --nocapture"]
fn measure_search_against_a_baseline_build() {
    let baseline = std::env::var_os("CM_BENCH_BASELINE")
        .expect("CM_BENCH_BASELINE names the baseline cm binary");
    let (document, words) = generated_markdown(DOCUMENT_BYTES);
    let kinds = [mixed_queries(&words), partial_and_typo_queries(&words)];
    let mut sides = [
        Side {
            label: "A",
            binary: PathBuf::from(baseline),
            index_wall: Vec::new(),
            index_cpu: Vec::new(),
            server: None,
            times: Default::default(),
        },
        Side {
            label: "B",
            binary: PathBuf::from(common::CM),
            index_wall: Vec::new(),
            index_cpu: Vec::new(),
            server: None,
            times: Default::default(),
        },
    ];
    let content = json!({"content": document, "source": "bench-content"});
    for round in 0..INDEX_ROUNDS {
        for i in [round % 2, 1 - round % 2] {
            let side = &mut sides[i];
            let client = side.start();
            let cpu_before = server_cpu(client.pid());
            let started = Instant::now();
            let (reply, is_error) = client.call_tool("ctx_index", content.clone());
            let wall = started.elapsed();
            let cpu = server_cpu(client.pid()) - cpu_before;
            assert!(!is_error, "{reply}");
            side.index_wall.push(wall);
            side.index_cpu.push(cpu);
        }
    }
    for round in 0..SEARCH_ROUNDS {
        for (kind, queries) in kinds.iter().enumerate() {
            for query in queries {
                for i in [round % 2, 1 - round % 2] {
                    let side = &mut sides[i];
                    let arguments = json!({"queries": query, "source": "bench-content"});
                    let started = Instant::now();
                    let (reply, is_error) = side.client().call_tool("ctx_search", arguments);
                    side.times[kind].push(started.elapsed());
                    assert!(!is_error, "{reply}");
                }
            }
        }
    }
    eprintln!("| measurement | A (baseline) | B (this build) | B/A |");
    eprintln!("|---|---|---|---|");
    let best = |d: &[Duration]| d.iter().copied().min().unwrap_or_default();
    let (a, b) = (&sides[0], &sides[1]);
    eprintln!(
        "| ctx_index 5 MB content, wall, best of {INDEX_ROUNDS} | {:.0} ms | {:.0} ms | {:.2} |",
        ms(best(&a.index_wall)),
        ms(best(&b.index_wall)),
        ms(best(&b.index_wall)) / ms(best(&a.index_wall))
    );
    eprintln!(
        "| ctx_index 5 MB content, server CPU, best of {INDEX_ROUNDS} | {:.0} ms | {:.0} ms | {:.2} |",
        ms(best(&a.index_cpu)),
        ms(best(&b.index_cpu)),
        ms(best(&b.index_cpu)) / ms(best(&a.index_cpu))
    );
    for (kind, name) in ["the 50 mixed queries", "partial words and typos"]
        .iter()
        .enumerate()
    {
        let mut stats = Vec::new();
        for side in [a, b] {
            let mut times = side.times[kind].clone();
            times.sort();
            stats.push((percentile(&times, 50), percentile(&times, 90), times.len()));
        }
        eprintln!(
            "| ctx_search p50 / p90, {name} ({} calls per side) | {:.2} / {:.2} ms | {:.2} / {:.2} ms | {:.2} |",
            stats[0].2,
            ms(stats[0].0),
            ms(stats[0].1),
            ms(stats[1].0),
            ms(stats[1].1),
            ms(stats[1].0) / ms(stats[0].0)
        );
    }
    for side in &mut sides {
        if let Some((_, client)) = side.server.take() {
            assert!(client.close().success(), "{}", side.label);
        }
    }
}
