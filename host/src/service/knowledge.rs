//! `ctx_index`, `ctx_search`, `ctx_purge`, `ctx_fetch_and_index`: the knowledge-base
//! tools, with rule checks for paths and URLs, and the store-backed fetch cache. `cm
//! index` and `cm search` come through here too, so a terminal gets the same rule check
//! and project bounds as the agent.

use std::path::Path;
use std::sync::{Arc, Mutex};

use super::{Reply, Service, canonical_in_project, rule_input};
use crate::chunk::{Format, detect_format};
use crate::fetch::{
    FetchAndIndexParams, FetchOptions, FetchSink, FetchedPage, HopCheck, IndexedSummary,
};
use crate::limits::FETCH_PREVIEW_BYTES;
use crate::search::{
    IndexParams, OtherWorktree, PathIndexReport, PurgeParams, SearchParams, SearchScope,
    ToolContext, ToolReply, WalkHooks, ctx_index_with, ctx_purge, ctx_purge_preview,
    ctx_search_with, distinctive_terms, index_document, purge_scope,
};
use crate::store::{NewSource, SourceKind, Store, content_hash};

/// Headings listed in a fetch summary.
const SUMMARY_HEADINGS: usize = 8;
/// Terms listed in a fetch summary.
const SUMMARY_TERMS: usize = 10;

fn reply(tool_reply: ToolReply) -> Reply {
    Reply {
        text: tool_reply.text,
        is_error: tool_reply.is_error,
    }
}

impl Service {
    fn tool_context<'a>(&'a self, session_id: &'a str) -> ToolContext<'a> {
        ToolContext {
            session_id,
            project_dir: &self.project_dir,
            names: self.reply_names(),
        }
    }
}

/// `_raw` is what the agent sent; the rules see the decoded path (see `rule_input`).
pub fn index(service: &Service, params: IndexParams, _raw: &serde_json::Value) -> Reply {
    let result = index_checked(service, &params, None);
    let raw_bytes = params
        .content
        .as_ref()
        .map_or(result.text.len(), String::len) as u64;
    service.record_stats("ctx_index", raw_bytes, result.text.len() as u64, false);
    result
}

/// `cm index`: [`index`] with a progress callback, unrecorded (a terminal keeps nothing
/// out of an agent's context, so it has no place in the stats).
pub fn index_from_terminal(
    service: &Service,
    params: &IndexParams,
    progress: &mut dyn FnMut(&PathIndexReport),
) -> Reply {
    index_checked(service, params, Some(progress))
}

/// `cm search`: [`search`], unrecorded.
pub fn search_from_terminal(service: &Service, params: &SearchParams) -> Reply {
    answer(service, params)
}

/// Answers each query from the project's store (and, for scope `project`, the stores
/// of the repository's other worktrees).
fn answer(service: &Service, params: &SearchParams) -> Reply {
    let others = match SearchScope::parse(params.scope.as_deref()) {
        Ok(SearchScope::Project) => other_worktree_stores(service),
        _ => Vec::new(),
    };
    let store = match service.store() {
        Ok(store) => store,
        Err(reply) => return reply,
    };
    reply(ctx_search_with(
        &store,
        &service.tool_context(&service.session_id()),
        &service.flood,
        params,
        &others,
    ))
}

/// The stores the repository's other worktrees have (none is created for the asking).
fn other_worktree_stores(service: &Service) -> Vec<OtherWorktree> {
    crate::worktree::other_worktrees(&service.project_dir)
        .into_iter()
        .filter_map(|dir| {
            let db = crate::paths::project_db(&service.root, &dir);
            if !db.is_file() {
                return None;
            }
            let store = Store::open_path(&db)
                .map_err(|e| tracing::warn!("cannot open the store of {}: {e}", dir.display()))
                .ok()?;
            let name = dir.file_name().map_or_else(
                || dir.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            Some(OtherWorktree { name, store })
        })
        .collect()
}

/// Indexes content, or a path the rules let be read, walking no further than the
/// project (or the path a rule granted outside it), each file read asked about.
fn index_checked(
    service: &Service,
    params: &IndexParams,
    progress: Option<&mut dyn FnMut(&PathIndexReport)>,
) -> Reply {
    let mut confine_to = service.project_dir.clone();
    let mut rules = None;
    if let Some(path) = params.path.as_deref().filter(|p| !p.trim().is_empty()) {
        let canonical = match canonical_in_project(&service.project_dir, path) {
            Ok(p) => p,
            Err(reply) => return reply,
        };
        let mut check = match service.rule_check() {
            Ok(check) => check,
            Err(refusal) => return refusal,
        };
        let input = rule_input::index(&canonical);
        if let Err(refusal) = check.check_ctx("ctx_index", &input, Some(&canonical)) {
            return refusal;
        }
        // A rule granted a path outside the project: the walk may go there, no further.
        if !canonical.starts_with(&service.project_dir) {
            confine_to = canonical;
        }
        rules = Some(check);
    }
    // A path (a directory walk, seconds for a large tree) is indexed on a connection of
    // its own, committing file by file: the server's connection stays free for the
    // searches, stats and hooks that come meanwhile (ADR 35). Content goes through the
    // server's, which it holds only for that one document.
    let mut own;
    let mut shared;
    let store: &mut crate::store::Store = if rules.is_some() {
        own = match service.own_store() {
            Ok(store) => store,
            Err(reply) => return reply,
        };
        &mut own
    } else {
        shared = match service.store() {
            Ok(store) => store,
            Err(reply) => return reply,
        };
        &mut shared
    };
    // Every file a directory walk reaches is a read the user's rules may deny.
    let mut admit = |file: &Path| {
        rules
            .as_mut()
            .is_none_or(|check| match check.check_read(file) {
                Ok(()) => true,
                Err(refusal) => {
                    tracing::debug!("ctx_index skips {}: {}", file.display(), refusal.text);
                    false
                }
            })
    };
    let hooks = WalkHooks {
        admit: Some(&mut admit),
        // Reborrowed for the walk's shorter lifetime.
        progress: match progress {
            Some(show) => Some(show),
            None => None,
        },
    };
    reply(ctx_index_with(
        store,
        &service.tool_context(&service.session_id()),
        params,
        Some(&confine_to),
        hooks,
    ))
}

pub fn search(service: &Service, params: SearchParams) -> Reply {
    let result = answer(service, &params);
    let returned = result.text.len() as u64;
    service.record_stats("ctx_search", returned, returned, false);
    result
}

pub fn purge(service: &Service, params: PurgeParams) -> Reply {
    let mut store = match service.store() {
        Ok(store) => store,
        Err(reply) => return reply,
    };
    reply(ctx_purge(
        &mut store,
        &service.tool_context(&service.session_id()),
        &params,
    ))
}

/// What a purge with these parameters would delete, deleting nothing; its confirmation
/// is the caller's (`cm purge` asks at the terminal).
pub fn purge_preview(service: &Service, params: &PurgeParams) -> Reply {
    let session_id = service.session_id();
    let cx = service.tool_context(&session_id);
    let scope = match purge_scope(&cx, params, true) {
        Ok(scope) => scope,
        Err(refusal) => return reply(refusal),
    };
    let mut store = match service.store() {
        Ok(store) => store,
        Err(reply) => return reply,
    };
    reply(ctx_purge_preview(&mut store, &scope))
}

pub async fn fetch_and_index(
    service: &Service,
    params: FetchAndIndexParams,
    _raw: &serde_json::Value,
) -> Reply {
    // One normalisation: the rules are matched on the URLs exactly as they are fetched.
    let params = params.normalised();
    let input = rule_input::fetch_and_index(&params);
    let mut rules = match service.rule_check() {
        Ok(rules) => rules,
        Err(refusal) => return refusal,
    };
    if let Err(refusal) = rules.check_ctx("ctx_fetch_and_index", &input, None) {
        return refusal;
    }
    // A redirect is a fetch too: each hop is asked about as its own URL.
    let rules = Mutex::new(rules);
    let mut options = FetchOptions::from_env();
    options.redirect_check = Some(HopCheck(Arc::new(move |hop: &url::Url| {
        let input = serde_json::json!({ "requests": [{ "url": hop.as_str() }] });
        rules
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .check_ctx("ctx_fetch_and_index", &input, None)
            .map_err(|refusal| crate::fetch::FetchFailure::Blocked(refusal.text))
    })));
    let store = match service.store_handle() {
        Ok(store) => store,
        Err(reply) => return reply,
    };
    let sink = Arc::new(StoreSink {
        store,
        session_id: service.session_id(),
    });
    let names = service.reply_names();
    let search = names.name("ctx_search");
    let report = crate::fetch::fetch_and_index(sink, params, options, search).await;
    // What the agent would have received: the page text, fetched now or earlier.
    let fetched: usize = report
        .outcomes
        .iter()
        .filter_map(|o| o.result.as_ref().ok())
        .map(|page| {
            if page.cached {
                page.summary.bytes
            } else {
                page.fetched_bytes
            }
        })
        .sum();
    let all_cached = !report.outcomes.is_empty()
        && report
            .outcomes
            .iter()
            .all(|o| matches!(&o.result, Ok(page) if page.cached));
    service.record_stats(
        "ctx_fetch_and_index",
        fetched as u64,
        report.text.len() as u64,
        all_cached,
    );
    Reply {
        text: report.text,
        is_error: report.is_error,
    }
}

/// The fetch cache and page indexer on top of the project store.
struct StoreSink {
    store: Arc<Mutex<Store>>,
    session_id: String,
}

impl StoreSink {
    fn lock(&self) -> std::sync::MutexGuard<'_, Store> {
        self.store
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn summary(store: &Store, source_id: i64, bytes: usize) -> anyhow::Result<IndexedSummary> {
        let chunks = store.source_chunks(source_id)?;
        let mut preview = String::new();
        let mut headings = Vec::new();
        for (title, content) in &chunks {
            if preview.len() < FETCH_PREVIEW_BYTES {
                preview.push_str(content);
                preview.push('\n');
            }
            if !title.is_empty() && !headings.contains(title) && headings.len() < SUMMARY_HEADINGS {
                headings.push(title.clone());
            }
        }
        Ok(IndexedSummary {
            chunks: chunks.len(),
            bytes,
            preview,
            headings,
            terms: distinctive_terms(store, source_id, SUMMARY_TERMS)?,
        })
    }
}

impl FetchSink for StoreSink {
    fn cached(
        &self,
        source: &str,
        url: &str,
        ttl_ms: u64,
    ) -> anyhow::Result<Option<IndexedSummary>> {
        if ttl_ms == 0 {
            return Ok(None);
        }
        let store = self.lock();
        let Some(found) = store.latest_source_for_url(url, Some(source))? else {
            return Ok(None);
        };
        let fetched_at = found.fetched_at.unwrap_or(found.created_at);
        let age_ms = crate::store::now_ms().saturating_sub(fetched_at);
        if age_ms < 0 || age_ms as u64 > ttl_ms {
            return Ok(None);
        }
        Ok(Some(Self::summary(
            &store,
            found.id,
            usize::try_from(found.bytes).unwrap_or(0),
        )?))
    }

    fn index_page(&self, source: &str, page: &FetchedPage) -> anyhow::Result<IndexedSummary> {
        let format = page_format(page);
        let hash = content_hash(&page.body);
        let mut store = self.lock();
        let mut new = NewSource::new(
            source,
            SourceKind::Url,
            Some(&self.session_id),
            page.body.len(),
        );
        new.url = Some(&page.requested_url);
        new.content_hash = Some(&hash);
        new.fetched_at = Some(crate::store::now_ms());
        let indexed = index_document(&mut store, new, &page.body, format)?;
        Self::summary(&store, indexed.source_id, page.body.len())
    }
}

/// The chunker to use for a page, from its content type, else from its URL and text.
fn page_format(page: &FetchedPage) -> Format {
    let content_type = page.content_type.to_ascii_lowercase();
    if content_type.contains("html") {
        Format::Html
    } else if content_type.contains("json") {
        Format::Json
    } else if content_type.contains("markdown") {
        Format::Markdown
    } else {
        let name = Path::new(page.final_url.split(['?', '#']).next().unwrap_or(""))
            .file_name()
            .and_then(|n| n.to_str())
            .map(str::to_string);
        detect_format(&page.body, name.as_deref())
    }
}
