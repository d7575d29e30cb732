//! `ctx_fetch_and_index`: fetch URLs concurrently, hand each page to the index, and answer
//! with a short summary per page — the page text itself never enters the agent's context.
//! The index is reached through [`FetchSink`], so this module does not depend on the store.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use url::Url;

use super::client::{FetchOptions, FetchedPage, fetch_url};
use super::error::FetchError;
use crate::limits;

/// Where fetched pages go: the store's side of `ctx_fetch_and_index`.
/// Methods are blocking (SQLite); they are called on tokio's blocking pool.
pub trait FetchSink: Send + Sync + 'static {
    /// The summary of a page indexed under (`source`, `url`) less than `ttl_ms` ago, if
    /// any; answering it makes no request. `url` is the normalized requested URL, the
    /// same text as [`FetchedPage::requested_url`].
    fn cached(
        &self,
        source: &str,
        url: &str,
        ttl_ms: u64,
    ) -> anyhow::Result<Option<IndexedSummary>>;
    /// Index `page` under `source`, replacing what was indexed before for the same
    /// (`source`, `page.requested_url`), and summarize what was stored.
    fn index_page(&self, source: &str, page: &FetchedPage) -> anyhow::Result<IndexedSummary>;
}

/// What the index holds for one page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexedSummary {
    pub chunks: usize,
    /// Bytes of text indexed (after HTML → markdown).
    pub bytes: usize,
    /// The start of the indexed text; the reply cuts it to `FETCH_PREVIEW_BYTES`.
    pub preview: String,
    /// Top heading paths, most useful first.
    pub headings: Vec<String>,
    /// Distinctive searchable terms.
    pub terms: Vec<String>,
}

/// One URL of a batch, optionally with its own source label.
/// Accepts `{"url": …, "source": …}` or a bare URL string.
#[derive(Debug, Clone, PartialEq, Eq, JsonSchema)]
pub struct FetchRequest {
    /// The URL to fetch (http or https).
    pub url: String,
    /// Label to index this page under (default: the URL's host and path).
    pub source: Option<String>,
}

impl<'de> Deserialize<'de> for FetchRequest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Given {
            Bare(String),
            Full { url: String, source: Option<String> },
        }
        Ok(match Given::deserialize(d)? {
            Given::Bare(url) => Self { url, source: None },
            Given::Full { url, source } => Self { url, source },
        })
    }
}

/// Parameters of `ctx_fetch_and_index`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct FetchAndIndexParams {
    /// The URL to fetch and index (http or https).
    #[serde(default, deserialize_with = "crate::lenient::string_list")]
    #[schemars(with = "Option<String>", transform = without_default)]
    pub url: Vec<String>,
    /// Several pages in one call: [{url, source}], fetched concurrently.
    #[serde(default, deserialize_with = "crate::lenient::item_list")]
    pub requests: Vec<FetchRequest>,
    /// Label to index under, for requests without their own (default: the URL's host and path).
    #[serde(default)]
    pub source: Option<String>,
    /// Requests in flight at once, 1–8 (default 4).
    #[serde(default, deserialize_with = "crate::lenient::opt_u64")]
    pub concurrency: Option<u64>,
    /// Reuse a page indexed less than this many milliseconds ago (default 24 h; 0 refetches).
    #[serde(default, deserialize_with = "crate::lenient::opt_u64")]
    pub ttl: Option<u64>,
    /// Refetch even when a fresh copy is indexed.
    #[serde(default, deserialize_with = "crate::lenient::opt_bool")]
    pub force: Option<bool>,
}

impl FetchAndIndexParams {
    /// Every URL in WHATWG form (`http://2130706433/` is `http://127.0.0.1/`): the text
    /// the fetcher dials and the rules are matched on is one and the same. A URL that
    /// does not parse is kept trimmed; the fetch reports it and connects nowhere.
    pub fn normalised(mut self) -> Self {
        let normalise = |url: &mut String| {
            let trimmed = url.trim();
            *url = Url::parse(trimmed).map_or_else(|_| trimmed.to_string(), String::from);
        };
        self.url.iter_mut().for_each(normalise);
        self.requests.iter_mut().for_each(|r| normalise(&mut r.url));
        self
    }

    /// Every URL of the call, `url` first, then `requests`; empty ones are not fetched.
    pub fn urls(&self) -> impl Iterator<Item = &str> {
        self.url
            .iter()
            .map(String::as_str)
            .chain(self.requests.iter().map(|r| r.url.as_str()))
            .map(str::trim)
            .filter(|url| !url.is_empty())
    }
}

/// `url` is advertised as a string; its serde default (an empty list) is no default of that.
fn without_default(schema: &mut schemars::Schema) {
    schema.remove("default");
}

/// The answer to one call: the text for the agent plus per-URL outcomes for stats.
#[derive(Debug, Clone)]
pub struct FetchReport {
    pub text: String,
    /// Nothing was indexed (bad parameters, or every request failed).
    pub is_error: bool,
    pub outcomes: Vec<RequestOutcome>,
}

#[derive(Debug, Clone)]
pub struct RequestOutcome {
    /// The URL as given.
    pub url: String,
    pub source: String,
    /// The page summary, or why there is none.
    pub result: Result<PageIndexed, RequestFailure>,
}

/// Why one URL of a `ctx_fetch_and_index` call was not indexed; displayed as one line.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RequestFailure {
    #[error(transparent)]
    Fetch(#[from] FetchError),
    /// The page came back but could not be indexed (`message` is one line).
    #[error("Failed to index {url}: {message}")]
    Index { url: String, message: String },
    /// The task running the request died (a panic inside it).
    #[error("Failed to fetch {url}: internal error")]
    Internal { url: String },
}

#[derive(Debug, Clone)]
pub struct PageIndexed {
    pub summary: IndexedSummary,
    /// Answered from the index without a request.
    pub cached: bool,
    /// Where redirects ended, when that differs from the requested URL.
    pub redirected_to: Option<String>,
    /// Bytes of page text received (0 when cached): what stayed out of the context.
    pub fetched_bytes: usize,
    pub truncated: bool,
}

struct Job {
    url: String,
    /// Normalized URL, the cache key; `None` when the URL does not parse (fetch reports it).
    key: Option<String>,
    source: String,
}

/// Run `ctx_fetch_and_index`; the reply names `ctx_search` as `search_tool`.
pub async fn fetch_and_index<S: FetchSink + ?Sized>(
    sink: Arc<S>,
    params: FetchAndIndexParams,
    opts: FetchOptions,
    search_tool: &str,
) -> FetchReport {
    let jobs = plan(&params);
    if jobs.is_empty() {
        return FetchReport {
            text: "ctx_fetch_and_index needs `url` or `requests: [{url, source}]`.".into(),
            is_error: true,
            outcomes: Vec::new(),
        };
    }
    let concurrency = concurrency_of(params.concurrency);
    let ttl_ms = params.ttl.unwrap_or(limits::FETCH_TTL_DEFAULT_MS);
    let use_cache = ttl_ms > 0 && !params.force.unwrap_or(false);
    let permits = Arc::new(tokio::sync::Semaphore::new(concurrency));

    let mut handles = Vec::with_capacity(jobs.len());
    for job in &jobs {
        let (sink, permits, opts) = (Arc::clone(&sink), Arc::clone(&permits), opts.clone());
        let (url, key, source) = (job.url.clone(), job.key.clone(), job.source.clone());
        handles.push(tokio::spawn(async move {
            let _permit = permits.acquire_owned().await;
            let cache = use_cache.then_some(ttl_ms);
            run_one(sink, &url, key, &source, cache, &opts).await
        }));
    }
    let mut outcomes = Vec::with_capacity(jobs.len());
    for (job, handle) in jobs.into_iter().zip(handles) {
        let result = handle.await.unwrap_or_else(|_| {
            Err(RequestFailure::Internal {
                url: job.url.clone(),
            })
        });
        outcomes.push(RequestOutcome {
            url: job.url,
            source: job.source,
            result,
        });
    }
    let text = super::reply::render(&outcomes, search_tool);
    FetchReport {
        is_error: outcomes.iter().all(|o| o.result.is_err()),
        text,
        outcomes,
    }
}

/// Requests in flight at once: the caller's `concurrency` clamped to 1..=max.
fn concurrency_of(requested: Option<u64>) -> usize {
    requested
        .map_or(limits::FETCH_CONCURRENCY_DEFAULT, |n| {
            usize::try_from(n).unwrap_or(usize::MAX)
        })
        .clamp(1, limits::FETCH_CONCURRENCY_MAX)
}

fn plan(params: &FetchAndIndexParams) -> Vec<Job> {
    let shared_source = params
        .source
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    params
        .url
        .iter()
        .map(|url| (url.as_str(), None))
        .chain(
            params
                .requests
                .iter()
                .map(|r| (r.url.as_str(), r.source.as_deref())),
        )
        .map(|(url, own)| (url.trim(), own.map(str::trim).filter(|s| !s.is_empty())))
        .filter(|(url, _)| !url.is_empty())
        .map(|(url, own)| {
            let parsed = Url::parse(url).ok();
            let source = own
                .or(shared_source)
                .map(str::to_string)
                .unwrap_or_else(|| {
                    parsed
                        .as_ref()
                        .map_or_else(|| url.to_string(), default_source)
                });
            Job {
                url: url.to_string(),
                key: parsed.map(String::from),
                source,
            }
        })
        .collect()
}

/// The label a page is indexed under when the caller gives none: host (with a
/// non-default port) and path, without a trailing slash.
pub fn default_source(url: &Url) -> String {
    let mut label = url.host_str().unwrap_or_default().to_string();
    if let Some(port) = url.port() {
        label.push_str(&format!(":{port}"));
    }
    label.push_str(url.path().trim_end_matches('/'));
    label
}

async fn run_one<S: FetchSink + ?Sized>(
    sink: Arc<S>,
    url: &str,
    key: Option<String>,
    source: &str,
    cache_ttl_ms: Option<u64>,
    opts: &FetchOptions,
) -> Result<PageIndexed, RequestFailure> {
    if let (Some(ttl_ms), Some(key)) = (cache_ttl_ms, key) {
        let (store, src) = (Arc::clone(&sink), source.to_string());
        match tokio::task::spawn_blocking(move || store.cached(&src, &key, ttl_ms)).await {
            Ok(Ok(Some(summary))) => {
                return Ok(PageIndexed {
                    summary,
                    cached: true,
                    redirected_to: None,
                    fetched_bytes: 0,
                    truncated: false,
                });
            }
            Ok(Ok(None)) => {}
            Ok(Err(err)) => tracing::warn!(url, "fetch cache lookup failed: {err:#}"),
            Err(err) => tracing::warn!(url, "fetch cache lookup panicked: {err}"),
        }
    }
    let page = fetch_url(url, opts).await?;
    let redirected_to = (page.final_url != page.requested_url).then(|| page.final_url.clone());
    let (fetched_bytes, truncated) = (page.body.len(), page.truncated);
    let src = source.to_string();
    let summary = tokio::task::spawn_blocking(move || sink.index_page(&src, &page))
        .await
        .map_err(|_| RequestFailure::Index {
            url: url.to_string(),
            message: "internal error".into(),
        })?
        .map_err(|err| RequestFailure::Index {
            url: url.to_string(),
            message: format!("{err:#}").replace(['\r', '\n'], " "),
        })?;
    Ok(PageIndexed {
        summary,
        cached: false,
        redirected_to,
        fetched_bytes,
        truncated,
    })
}

#[cfg(test)]
mod tests;
