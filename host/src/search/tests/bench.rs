//! Throughput and latency measurement (not a timed assertion): run with
//! `cargo test --release -p cm -- --ignored --nocapture measure_index_and_search`.

use std::time::{Duration, Instant};

use crate::chunk::Format;
use crate::search::*;
use crate::store::{NewSource, SourceKind};

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

/// About `target` bytes of markdown: nested headings, paragraphs of Zipf-distributed
/// words, code fences with identifiers, lists and tables.
pub fn generated_markdown(target: usize) -> String {
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
                    out.push_str(&format!(
                        "let {} = {}::{}(&{});\n",
                        word(&mut rng),
                        word(&mut rng),
                        word(&mut rng),
                        word(&mut rng)
                    ));
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
    out
}

/// CPU time of this thread (Linux), to tell our cost from the load of other processes.
fn thread_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace()
        .next()?
        .parse()
        .ok()
        .map(Duration::from_nanos)
}

fn percentile(sorted: &[Duration], q: usize) -> Duration {
    sorted[(sorted.len() - 1) * q / 100]
}

#[test]
#[ignore = "measurement; run in release mode with --nocapture"]
fn measure_index_and_search() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = Store::open_path(&dir.path().join("context.db")).expect("store");
    let doc = generated_markdown(5 * 1024 * 1024);

    let started = Instant::now();
    let chunks = crate::chunk::chunk_text(&doc, Format::Markdown);
    let chunking = started.elapsed();
    let started = Instant::now();
    let cpu_before = thread_cpu();
    let indexed = index_document(
        &mut store,
        NewSource::new("bench.md", SourceKind::Content, Some("bench"), doc.len()),
        &doc,
        Format::Markdown,
    )
    .expect("index");
    let total = started.elapsed();
    let cpu = thread_cpu()
        .zip(cpu_before)
        .map(|(after, before)| after - before);
    let mb = doc.len() as f64 / 1_048_576.0;
    eprintln!(
        "index: {mb:.2} MB, {} chunks; chunking alone {:.1} ms ({:.0} MB/s); chunk+store {:.1} ms = {:.1} MB/s",
        indexed.chunks,
        chunking.as_secs_f64() * 1e3,
        mb / chunking.as_secs_f64(),
        total.as_secs_f64() * 1e3,
        mb / total.as_secs_f64()
    );
    if let Some(cpu) = cpu {
        eprintln!(
            "index: chunk+store CPU {:.1} ms = {:.1} MB/s of CPU",
            cpu.as_secs_f64() * 1e3,
            mb / cpu.as_secs_f64()
        );
    }
    assert_eq!(indexed.chunks, chunks.len());

    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let words = vocabulary(&mut rng, 20_000);
    let mut queries: Vec<String> = Vec::new();
    for i in 0..50 {
        // Words from the frequent end of the vocabulary, so most queries match.
        let w = |k: usize| words[(i * 37 + k * 101) % 400].clone();
        queries.push(match i % 5 {
            0 => w(0),
            1 => format!("{} {}", w(0), w(1)),
            2 => format!("{} {} {}", w(0), w(1), w(2)),
            3 => w(0)[..w(0).len().min(5)].to_string(),
            _ => format!("{}x", w(0)), // usually no match: the typo-correction path
        });
    }
    let options = SearchOptions::new("bench");
    let mut times = Vec::new();
    for _ in 0..3 {
        for query in &queries {
            let started = Instant::now();
            let outcome = search(&store, query, &options).expect("search");
            times.push(started.elapsed());
            std::hint::black_box(outcome);
        }
    }
    times.sort();
    eprintln!(
        "search: {} queries, p50 {:.2} ms, p90 {:.2} ms, max {:.2} ms",
        times.len(),
        percentile(&times, 50).as_secs_f64() * 1e3,
        percentile(&times, 90).as_secs_f64() * 1e3,
        times[times.len() - 1].as_secs_f64() * 1e3
    );
}
