//! `fetch_and_index` against real HTTP servers the tests start, with a recording
//! in-memory stand-in for the store (the store itself is another module).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::json;

use super::*;
use crate::fetch::test_server::{Reply, TestServer};

struct Stored {
    source: String,
    url: String,
    at: Instant,
    summary: IndexedSummary,
}

/// Keeps pages in memory and records every call, so tests can see what the tool asked of the store.
#[derive(Default)]
struct RecordingSink {
    stored: Mutex<Vec<Stored>>,
    calls: Mutex<Vec<String>>,
    content_types: Mutex<Vec<String>>,
}

impl RecordingSink {
    fn calls(&self) -> Vec<String> {
        self.calls.lock().expect("calls").clone()
    }
    fn index_calls(&self) -> usize {
        self.calls()
            .iter()
            .filter(|c| c.starts_with("index "))
            .count()
    }
}

impl FetchSink for RecordingSink {
    fn cached(
        &self,
        source: &str,
        url: &str,
        ttl_ms: u64,
    ) -> anyhow::Result<Option<IndexedSummary>> {
        self.calls
            .lock()
            .expect("calls")
            .push(format!("cached {source} {url} {ttl_ms}"));
        let stored = self.stored.lock().expect("stored");
        Ok(stored
            .iter()
            .find(|s| {
                s.source == source && s.url == url && s.at.elapsed() < Duration::from_millis(ttl_ms)
            })
            .map(|s| s.summary.clone()))
    }

    fn index_page(&self, source: &str, page: &FetchedPage) -> anyhow::Result<IndexedSummary> {
        self.calls
            .lock()
            .expect("calls")
            .push(format!("index {source} {}", page.requested_url));
        self.content_types
            .lock()
            .expect("types")
            .push(page.content_type.clone());
        let summary = IndexedSummary {
            chunks: page.body.len().div_ceil(crate::limits::MAX_CHUNK_BYTES),
            bytes: page.body.len(),
            preview: page.body.clone(),
            headings: page
                .body
                .lines()
                .filter(|l| l.starts_with('#'))
                .map(str::to_string)
                .collect(),
            terms: Vec::new(),
        };
        let mut stored = self.stored.lock().expect("stored");
        stored.retain(|s| !(s.source == source && s.url == page.requested_url));
        stored.push(Stored {
            source: source.into(),
            url: page.requested_url.clone(),
            at: Instant::now(),
            summary: summary.clone(),
        });
        Ok(summary)
    }
}

fn params(value: serde_json::Value) -> FetchAndIndexParams {
    serde_json::from_value(value).expect("params parse")
}

async fn run(sink: &Arc<RecordingSink>, value: serde_json::Value) -> FetchReport {
    let opts = FetchOptions {
        timeout: Duration::from_secs(10),
        ..FetchOptions::default()
    };
    fetch_and_index(Arc::clone(sink), params(value), opts, "ctx_search").await
}

fn long_markdown() -> String {
    let mut page = String::from("# Deploy guide\n\n");
    for i in 0..4_000 {
        page.push_str(&format!(
            "Step {i}: roll the canary forward and watch the dashboards.\n"
        ));
    }
    page.push_str("## Rollback\n\nZEBRA-END-MARKER\n");
    page
}

#[tokio::test]
async fn a_page_is_indexed_and_only_a_short_summary_returns() {
    let server = TestServer::start("127.0.0.1:0", |_| {
        Reply::ok("text/markdown", long_markdown())
    })
    .await;
    let sink = Arc::new(RecordingSink::default());
    let url = server.url("/guide/");
    let report = run(&sink, json!({ "url": url })).await;
    let label = format!("{}/guide", server.addr);
    assert!(!report.is_error, "{}", report.text);
    assert!(
        report.text.len() <= 2 * crate::limits::FETCH_PREVIEW_BYTES,
        "{}",
        report.text.len()
    );
    assert!(
        !report.text.contains("ZEBRA-END-MARKER"),
        "page text stays out of the reply"
    );
    assert!(
        report
            .text
            .contains(&format!("- source \"{label}\": {url} → "))
    );
    assert!(
        report
            .text
            .contains("headings: # Deploy guide · ## Rollback")
    );
    assert!(report.text.ends_with(&format!(
        "ctx_search(queries: [\"…\"], source: \"{label}\")"
    )));
    assert_eq!(sink.calls()[1], format!("index {label} {url}"));
    assert_eq!(
        *sink.content_types.lock().expect("types"),
        ["text/markdown"]
    );
    let page = report.outcomes[0].result.as_ref().expect("indexed");
    assert_eq!(page.fetched_bytes, long_markdown().len());
}

#[tokio::test]
async fn a_fresh_page_is_answered_from_the_index_without_a_request() {
    let server = TestServer::start("[::1]:0", |_| Reply::ok("text/plain", "fresh text")).await;
    let sink = Arc::new(RecordingSink::default());
    let url = format!("http://[::1]:{}/notes", server.addr.port());

    let first = run(&sink, json!({ "url": url })).await;
    assert!(!first.text.contains("cached"), "{}", first.text);
    let second = run(&sink, json!({ "url": url })).await;
    assert_eq!(server.hit_count(), 1, "cache hit made no request");
    assert!(second.text.contains("(1 from cache)"), "{}", second.text);
    assert!(second.text.contains("(cached; `force: true` refetches)"));
    assert!(second.outcomes[0].result.as_ref().is_ok_and(|p| p.cached));

    run(&sink, json!({ "url": url, "force": "true" })).await;
    assert_eq!(server.hit_count(), 2, "force refetches");
    run(&sink, json!({ "url": url, "ttl": 0 })).await;
    assert_eq!(server.hit_count(), 3, "ttl 0 refetches");
    // The copy is surely older than 1 ms (a call right after the fetch may or may not
    // be, however busy the machine); `ttl` also comes as a string.
    tokio::time::sleep(Duration::from_millis(5)).await;
    run(&sink, json!({ "url": url, "ttl": "1" })).await;
    assert_eq!(server.hit_count(), 4, "an expired copy is refetched");
    assert_eq!(sink.index_calls(), 4);
}

#[tokio::test]
async fn a_batch_with_one_failure_indexes_the_rest() {
    let server = TestServer::start("127.0.0.1:0", |path| match path {
        "/missing" => Reply::status(404),
        "/api" => Reply::ok("application/json", r#"{"status":"green"}"#),
        _ => Reply::ok("text/html", "<h1>Home</h1>"),
    })
    .await;
    let v6 = TestServer::start("[::1]:0", |_| Reply::ok("text/plain", "over ipv6")).await;
    let sink = Arc::new(RecordingSink::default());
    let missing = server.url("/missing");
    let requests = json!([
        { "url": server.url("/"), "source": "home" },
        { "url": missing },
        server.url("/api"),
        format!("http://[::1]:{}/v6", v6.addr.port()),
    ]);
    let report = run(
        &sink,
        json!({ "requests": requests.to_string(), "concurrency": "2", "source": "batch" }),
    )
    .await;
    assert!(!report.is_error);
    let failures: Vec<&str> = report
        .text
        .lines()
        .filter(|l| l.contains("Failed"))
        .collect();
    assert_eq!(failures, [format!("- Failed to fetch {missing}: HTTP 404")]);
    assert!(
        report.text.starts_with("Indexed 3 of 4 URLs;"),
        "{}",
        report.text
    );
    let sources: Vec<&str> = report.outcomes.iter().map(|o| o.source.as_str()).collect();
    assert_eq!(sources, ["home", "batch", "batch", "batch"]);
    assert_eq!(sink.index_calls(), 3);
    assert_eq!(v6.hit_count(), 1);
    assert!(
        report
            .text
            .ends_with("source: \"home\") — sources of this call: \"home\", \"batch\""),
        "{}",
        report.text
    );
}

#[tokio::test]
async fn only_failures_is_an_error_reply_of_failure_lines() {
    let sink = Arc::new(RecordingSink::default());
    let report = run(
        &sink,
        json!({ "requests": ["file:///etc/passwd", "http://169.254.169.254/latest/"] }),
    )
    .await;
    assert!(report.is_error);
    assert_eq!(
        report.text,
        "Failed to fetch file:///etc/passwd: scheme \"file:\" is not allowed (only http and https)\n\
         Failed to fetch http://169.254.169.254/latest/: address 169.254.169.254 is link-local (blocked)"
    );
    assert_eq!(sink.index_calls(), 0);
}

#[tokio::test]
async fn redirects_are_reported_and_cached_under_the_requested_url() {
    let server = TestServer::start("127.0.0.1:0", |path| match path {
        "/old" => Reply::redirect(301, "/new"),
        _ => Reply::ok("text/plain", "moved here"),
    })
    .await;
    let sink = Arc::new(RecordingSink::default());
    let report = run(&sink, json!({ "url": server.url("/old") })).await;
    assert!(
        report
            .text
            .contains(&format!("  redirected to {}", server.url("/new")))
    );
    run(&sink, json!({ "url": server.url("/old") })).await;
    assert_eq!(
        server.hit_count(),
        2,
        "second call was a cache hit: no request at all"
    );
}

#[tokio::test]
async fn no_url_is_a_clear_error() {
    let sink = Arc::new(RecordingSink::default());
    let report = run(&sink, json!({ "url": "  ", "requests": [] })).await;
    assert!(report.is_error);
    assert_eq!(
        report.text,
        "ctx_fetch_and_index needs `url` or `requests: [{url, source}]`."
    );
}

#[test]
fn params_are_accepted_the_way_agents_send_them() {
    let bare = params(json!({ "requests": "http://a/x" }));
    assert_eq!(
        bare.requests,
        [FetchRequest {
            url: "http://a/x".into(),
            source: None
        }]
    );
    let text =
        params(json!({ "requests": r#"["http://a/1", {"url": "http://a/2", "source": "two"}]"# }));
    assert_eq!(text.requests.len(), 2);
    assert_eq!(text.requests[1].source.as_deref(), Some("two"));
    let list =
        params(json!({ "url": ["http://a/1", "http://a/2"], "force": "TRUE", "ttl": "60000" }));
    assert_eq!(
        (list.url.len(), list.force, list.ttl),
        (2, Some(true), Some(60_000))
    );
    assert!(serde_json::from_value::<FetchAndIndexParams>(json!({ "force": "maybe" })).is_err());
}

#[test]
fn concurrency_is_clamped() {
    assert_eq!(
        concurrency_of(None),
        crate::limits::FETCH_CONCURRENCY_DEFAULT
    );
    assert_eq!(concurrency_of(Some(0)), 1);
    assert_eq!(
        concurrency_of(Some(20)),
        crate::limits::FETCH_CONCURRENCY_MAX
    );
    assert_eq!(concurrency_of(Some(3)), 3);
}

#[test]
fn default_source_is_host_and_path() {
    let label = |u: &str| default_source(&Url::parse(u).expect("url"));
    assert_eq!(
        label("https://docs.rs/tokio/latest/"),
        "docs.rs/tokio/latest"
    );
    assert_eq!(label("https://Example.com/?q=1"), "example.com");
    assert_eq!(label("http://[::1]:8080/a"), "[::1]:8080/a");
}

#[test]
fn schema_describes_url_as_a_string_and_requests_as_objects() {
    let schema = serde_json::to_value(schemars::schema_for!(FetchAndIndexParams)).expect("schema");
    let props = &schema["properties"];
    assert_eq!(props["url"]["type"], json!(["string", "null"]), "{schema}");
    assert!(props["url"].get("default").is_none(), "{schema}");
    assert!(props["requests"]["type"] == "array", "{schema}");
    for field in ["source", "concurrency", "ttl", "force"] {
        assert!(props[field].is_object(), "{field} missing: {schema}");
    }
    assert!(
        schema["required"].as_array().is_none_or(|r| r.is_empty()),
        "{schema}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_on_the_multi_thread_runtime_the_server_uses() {
    let server = TestServer::start("127.0.0.1:0", |path| {
        Reply::ok("text/plain", format!("page {path}"))
    })
    .await;
    let sink: Arc<dyn FetchSink> = Arc::new(RecordingSink::default());
    let urls: Vec<String> = (0..12).map(|i| server.url(&format!("/p{i}"))).collect();
    let run = fetch_and_index(
        Arc::clone(&sink),
        params(json!({ "url": urls, "concurrency": 3 })),
        FetchOptions::default(),
        "ctx_search",
    );
    let report = tokio::spawn(run).await.expect("task");
    assert!(
        report.text.starts_with("Indexed 12 of 12 URLs;"),
        "{}",
        report.text
    );
    assert_eq!(server.hit_count(), 12);
}
