//! Knowledge-base speed through the real MCP server, timed at the client: `ctx_index` of
//! a generated 5 MB markdown document (the whole call: JSON-RPC, chunking, both FTS5
//! indexes, commit, reply) and 50 mixed `ctx_search` calls. A measurement, not a timed
//! assertion. Run:
//!     cargo test --release -p cm --test it bench_knowledge:: -- --ignored --nocapture

use crate::common;

mod ab;

use std::time::{Duration, Instant};

use common::{McpClient, Sandbox};
use serde_json::json;

const DOCUMENT_BYTES: usize = 5 * 1024 * 1024;
const QUERIES: usize = 50;
/// Each measurement is repeated, on a fresh project, and the best run is reported: the
/// machine is shared, and the best run is the one least disturbed by other processes.
const RUNS: usize = 3;

/// A deterministic pseudo-random sequence (xorshift), so every run indexes the same text.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Letters in rough English frequency, so words and their trigrams vary like real text.
const LETTERS: &[u8] = b"eeeeeeeeeeeetttttttttaaaaaaaaoooooooiiiiiiinnnnnnnssssssrrrrrrhhhhhlllldddcccuuummmffppggwwyybbvkxjqz";

fn vocabulary(rng: &mut Rng, size: usize) -> Vec<String> {
    (0..size)
        .map(|_| {
            let len = 2 + rng.below(6) + rng.below(6);
            (0..len)
                .map(|_| LETTERS[rng.below(LETTERS.len())] as char)
                .collect()
        })
        .collect()
}

/// About `target` bytes of markdown: nested headings, paragraphs of Zipf-like words, rust
/// code fences with identifiers, lists and tables. Returns the text and its vocabulary.
pub(crate) fn generated_markdown(target: usize) -> (String, Vec<String>) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let words = vocabulary(&mut rng, 20_000);
    let word = |rng: &mut Rng| {
        let u = rng.below(1_000_000) as f64 / 1e6;
        words[((u * u * u) * words.len() as f64) as usize].clone()
    };
    let mut out = String::with_capacity(target + 4096);
    let mut section = 0;
    while out.len() < target {
        section += 1;
        let level = 1 + rng.below(4);
        out.push_str(&format!(
            "{} {} {} {section}\n\n",
            "#".repeat(level),
            word(&mut rng),
            word(&mut rng)
        ));
        for _ in 0..1 + rng.below(4) {
            let sentence: Vec<String> = (0..8 + rng.below(30)).map(|_| word(&mut rng)).collect();
            out.push_str(&sentence.join(" "));
            out.push_str(".\n\n");
        }
        match rng.below(4) {
            0 => {
                out.push_str("```rust\n");
                for _ in 0..3 + rng.below(15) {
                    let (a, b, c, d) = (
                        word(&mut rng),
                        word(&mut rng),
                        word(&mut rng),
                        word(&mut rng),
                    );
                    out.push_str(&format!("let {a} = {b}::{c}_{d}(&{a}Config);\n"));
                }
                out.push_str("```\n\n");
            }
            1 => {
                for _ in 0..2 + rng.below(6) {
                    out.push_str(&format!(
                        "- {} {} {}\n",
                        word(&mut rng),
                        word(&mut rng),
                        word(&mut rng)
                    ));
                }
                out.push('\n');
            }
            2 => {
                out.push_str("| name | value | note |\n|---|---|---|\n");
                for _ in 0..2 + rng.below(5) {
                    out.push_str(&format!(
                        "| {} | {} | {} |\n",
                        word(&mut rng),
                        rng.below(10_000),
                        word(&mut rng)
                    ));
                }
                out.push('\n');
            }
            _ => {}
        }
    }
    (out, words)
}

/// 50 queries of the kinds agents send: one to three words, a word prefix, an
/// identifier from a code block, a typo (no match: the correction path), and two
/// queries per call now and then.
fn mixed_queries(words: &[String]) -> Vec<serde_json::Value> {
    (0..QUERIES)
        .map(|i| {
            // Words from the frequent end of the vocabulary, so most queries match.
            let w = |k: usize| words[(i * 37 + k * 101) % 400].clone();
            match i % 7 {
                0 => json!([w(0)]),
                1 => json!([format!("{} {}", w(0), w(1))]),
                2 => json!([format!("{} {} {}", w(0), w(1), w(2))]),
                3 => json!([w(0)[..w(0).len().min(4)].to_string()]),
                4 => json!([format!("{}_{}", w(1), w(2))]),
                5 => json!([format!("{}x{}", w(0), w(3))]),
                _ => json!([w(0), format!("{} {}", w(1), w(2))]),
            }
        })
        .collect()
}

fn server(sandbox: &Sandbox) -> McpClient {
    let mut command = sandbox.cm();
    // Measure search, not the flood guard's redirect.
    command
        .env("CONTEXT_MODE_SEARCH_MAX_RESULTS_AFTER", "100000")
        .env("CONTEXT_MODE_SEARCH_BLOCK_AFTER", "100000");
    McpClient::spawn(command)
}

/// CPU time the server process has used so far, all threads (user + system).
fn server_cpu(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc/<pid>/stat");
    // Fields after the command name (which may hold spaces) start at its closing ')'.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .expect("stat format")
        .1
        .split_whitespace()
        .collect();
    let ticks: u64 =
        fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime");
    // SAFETY: sysconf has no preconditions.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Duration::from_nanos(ticks * 1_000_000_000 / per_second)
}

/// One tool call: wall time at the client, server CPU time, reply.
fn timed_call(
    client: &mut McpClient,
    tool: &str,
    arguments: serde_json::Value,
) -> (Duration, Duration, String) {
    let cpu_before = server_cpu(client.pid());
    let started = Instant::now();
    let (reply, is_error) = client.call_tool(tool, arguments);
    let took = started.elapsed();
    let cpu = server_cpu(client.pid()) - cpu_before;
    assert!(!is_error, "{reply}");
    (took, cpu, reply)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn percentile(sorted: &[Duration], q: usize) -> Duration {
    sorted[(sorted.len() - 1) * q / 100]
}

#[test]
#[ignore = "measurement; run in release mode with --ignored --nocapture"]
fn measure_index_and_search_through_cm_serve() {
    let (document, words) = generated_markdown(DOCUMENT_BYTES);
    if let Some(path) = std::env::var_os("CM_BENCH_DOCUMENT_OUT") {
        // For profiling the same document outside the test (perf on a bare server).
        std::fs::write(path, &document).expect("write the document");
    }
    let mb = document.len() as f64 / 1_048_576.0;
    let queries = mixed_queries(&words);
    let mut content_calls = Vec::new();
    let mut file_calls = Vec::new();
    let mut search_runs: Vec<(Vec<Duration>, Duration)> = Vec::new();
    let mut chunks_reply = String::new();
    for _ in 0..RUNS {
        let sandbox = Sandbox::new();
        let file = sandbox.write("bench.md", document.as_bytes());
        let mut client = server(&sandbox);
        // Warm-up: the store is opened, and the routing policy that checks paths is
        // compiled once (an installed `cm` keeps it in its .cwasm cache across servers).
        let (reply, is_error) = client.call_tool("ctx_search", json!({"queries": ["warmup"]}));
        assert!(!is_error, "{reply}");
        sandbox.write("warmup.md", b"# Warm-up\n\nwarm\n");
        let (reply, is_error) = client.call_tool("ctx_index", json!({"path": "warmup.md"}));
        assert!(!is_error, "{reply}");

        let arguments = json!({"content": document, "source": "bench-content"});
        let (took, cpu, reply) = timed_call(&mut client, "ctx_index", arguments);
        content_calls.push((took, cpu));
        chunks_reply = reply.lines().next().unwrap_or_default().to_string();

        let arguments = json!({"path": file.to_str(), "source": "bench-file"});
        let (took, cpu, _) = timed_call(&mut client, "ctx_index", arguments);
        file_calls.push((took, cpu));

        let mut times = Vec::with_capacity(queries.len());
        let mut answered = 0;
        let cpu_before = server_cpu(client.pid());
        for query in &queries {
            let started = Instant::now();
            let (reply, is_error) = client.call_tool(
                "ctx_search",
                json!({"queries": query, "source": "bench-file"}),
            );
            times.push(started.elapsed());
            assert!(!is_error, "{reply}");
            answered += usize::from(reply.contains("\n1. "));
        }
        assert!(
            answered * 10 >= queries.len() * 7,
            "most queries find something: {answered}/{}",
            queries.len()
        );
        let cpu_per_call = (server_cpu(client.pid()) - cpu_before) / queries.len() as u32;
        times.sort();
        search_runs.push((times, cpu_per_call));
        assert!(client.close().success());
    }
    eprintln!("document: {mb:.2} MB markdown; {chunks_reply}");
    for (name, calls) in [("content", &content_calls), ("path", &file_calls)] {
        let best = calls.iter().map(|c| c.0).min().unwrap_or_default();
        let best_cpu = calls.iter().map(|c| c.1).min().unwrap_or_default();
        let runs: Vec<String> = calls
            .iter()
            .map(|(wall, cpu)| format!("{:.0}/{:.0}", ms(*wall), ms(*cpu)))
            .collect();
        eprintln!(
            "ctx_index {name:<7}: best {:.0} ms = {:.1} MB/s wall; server CPU best {:.0} ms = {:.1} MB/s (runs wall/cpu ms: {})",
            ms(best),
            mb / best.as_secs_f64(),
            ms(best_cpu),
            mb / best_cpu.as_secs_f64(),
            runs.join(", ")
        );
    }
    for (run, (times, cpu_per_call)) in search_runs.iter().enumerate() {
        eprintln!(
            "ctx_search run {}: {} calls, p50 {:.2} ms, p90 {:.2} ms, max {:.2} ms; server CPU {:.2} ms per call",
            run + 1,
            times.len(),
            ms(percentile(times, 50)),
            ms(percentile(times, 90)),
            ms(times[times.len() - 1]),
            ms(*cpu_per_call)
        );
    }
}
