//! The bench's inputs: every shared fixture of at least 10 KB, and two generated larger
//! corpora (a 1 MB application log, a 5,000-record JSON order export). Generation is
//! deterministic (a fixed-seed LCG) so every run measures the same bytes.

use std::fmt::Write as _;

use crate::sandbox_support::fixtures_dir;

/// Fixtures smaller than this are not bench rows (the target counts rows ≥ 10 KB raw).
pub const MIN_RAW_BYTES: usize = 10 * 1024;

pub struct Corpus {
    /// The file name, also its path under `data/` in the project.
    pub name: String,
    pub text: String,
}

impl Corpus {
    pub fn project_path(&self) -> String {
        format!("data/{}", self.name)
    }
}

/// Every fixture ≥ MIN_RAW_BYTES, by name, then the generated corpora.
pub fn all() -> Vec<Corpus> {
    let dir = fixtures_dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("fixtures {}: {e}", dir.display()))
        .flatten()
        .filter(|e| {
            e.metadata()
                .is_ok_and(|m| m.is_file() && m.len() as usize >= MIN_RAW_BYTES)
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut corpora: Vec<Corpus> = names
        .into_iter()
        .map(|name| {
            let text =
                std::fs::read_to_string(dir.join(&name)).unwrap_or_else(|e| panic!("{name}: {e}"));
            Corpus { name, text }
        })
        .collect();
    corpora.push(Corpus {
        name: "generated-app.log".into(),
        text: app_log(1024 * 1024),
    });
    corpora.push(Corpus {
        name: "generated-orders.json".into(),
        text: orders_json(5_000),
    });
    corpora
}

/// A small deterministic generator (Knuth's MMIX LCG).
pub struct Lcg(u64);

impl Lcg {
    pub fn new(seed: u64) -> Self {
        Lcg(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const SERVICES: &[&str] = &["api", "billing", "auth", "search", "worker", "gateway"];
const ERRORS: &[&str] = &[
    "TimeoutError: upstream payments did not answer within 3000 ms",
    "ConnectionResetError: database connection reset by peer",
    "ValidationError: field email is not a valid address",
];

/// About `target_bytes` of application log: mostly INFO, some WARN and ERROR, three
/// OutOfMemoryError lines and one deadlock line placed at fixed positions.
pub fn app_log(target_bytes: usize) -> String {
    let mut rng = Lcg::new(0x5EED_1065);
    let mut text = String::with_capacity(target_bytes + 256);
    let mut line_no = 0u64;
    while text.len() < target_bytes {
        line_no += 1;
        let (h, m, s, ms) = (
            line_no / 36_000 % 24,
            line_no / 600 % 60,
            line_no / 10 % 60,
            line_no * 7 % 1000,
        );
        let service = SERVICES[rng.below(SERVICES.len() as u64) as usize];
        let request = format!("req-{:06x}", rng.next() & 0xFF_FFFF);
        let latency = 1 + rng.below(4_000);
        let roll = rng.below(1000);
        let _ = write!(text, "2026-03-01T{h:02}:{m:02}:{s:02}.{ms:03}Z ");
        let body = if matches!(line_no, 2_345 | 7_001 | 9_876) {
            format!(
                "ERROR [{service}] {request} OutOfMemoryError: Java heap space in worker-{}",
                line_no % 17
            )
        } else if line_no == 5_555 {
            format!(
                "ERROR [{service}] {request} deadlock detected on table orders; transaction rolled back"
            )
        } else if roll < 30 {
            format!(
                "ERROR [{service}] {request} {}",
                ERRORS[rng.below(ERRORS.len() as u64) as usize]
            )
        } else if roll < 100 {
            format!("WARN [{service}] {request} slow response latency={latency}ms")
        } else {
            format!(
                "INFO [{service}] {request} GET /api/v1/items/{} 200 latency={latency}ms",
                rng.below(100_000)
            )
        };
        text.push_str(&body);
        text.push('\n');
    }
    text
}

const STATUSES: &[&str] = &[
    "paid", "paid", "paid", "paid", "paid", "pending", "failed", "refunded",
];
const PRODUCTS: &[&str] = &[
    "keyboard",
    "monitor",
    "mouse",
    "laptop stand",
    "usb hub",
    "webcam",
    "headset",
];

/// `records` orders as pretty-printed JSON; every 997th is a disputed chargeback.
pub fn orders_json(records: usize) -> String {
    let mut rng = Lcg::new(0x0DDE_5000);
    let orders: Vec<serde_json::Value> = (1..=records)
        .map(|i| {
            let chargeback = i % 997 == 0;
            let status = if chargeback {
                "chargeback"
            } else {
                STATUSES[rng.below(STATUSES.len() as u64) as usize]
            };
            let items: Vec<serde_json::Value> = (0..1 + rng.below(3))
                .map(|_| {
                    serde_json::json!({
                        "product": PRODUCTS[rng.below(PRODUCTS.len() as u64) as usize],
                        "quantity": 1 + rng.below(4),
                        "unit_price_cents": 500 + rng.below(20_000),
                    })
                })
                .collect();
            let amount: u64 = items
                .iter()
                .map(|it| {
                    it["quantity"].as_u64().unwrap_or(0)
                        * it["unit_price_cents"].as_u64().unwrap_or(0)
                })
                .sum();
            let mut order = serde_json::json!({
                "id": format!("ord-{i:05}"),
                "customer": format!("cust-{:03}", rng.below(400)),
                "status": status,
                "amount_cents": amount,
                "created_at": format!("2026-02-{:02}T{:02}:{:02}:00Z", 1 + i % 28, i % 24, i % 60),
                "items": items,
            });
            if chargeback {
                order["note"] =
                    "chargeback disputed by the card issuer; evidence due in 7 days".into();
            }
            order
        })
        .collect();
    serde_json::to_string_pretty(&orders).unwrap_or_default()
}
