//! The `ctx_index`, `ctx_search` and `ctx_purge` services: lenient parameters in,
//! the text the agent reads out (compact, within `OUTPUT_CAP_BYTES`). The MCP server
//! wires them up; confinement of `ctx_index` paths is decided before the call.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Deserialize;

use super::format;
use super::walk::{WalkHooks, WalkOptions, index_path_with};
use super::{FloodGuard, FloodLevel, Scope, SearchOptions, Sort, search};
use crate::chunk::{ContentType, detect_format};
use crate::limits::{
    INDEX_WALK_MAX_FILES, OUTPUT_CAP_BYTES, SEARCH_DEFAULT_LIMIT, SNIPPET_MAX_BYTES,
};
use crate::store::{NewSource, PurgeScope, SourceKind, Store};

/// Who is calling: decides origins, session scope and flood counting.
#[derive(Debug, Clone)]
pub struct ToolContext<'a> {
    pub session_id: &'a str,
    pub project_dir: &'a Path,
    /// How replies name our tools (see `Service::reply_names`).
    pub names: crate::model::CtxToolNames,
}

/// What a tool returns to the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolReply {
    pub text: String,
    pub is_error: bool,
}

impl ToolReply {
    fn ok(text: String) -> Self {
        ToolReply {
            text,
            is_error: false,
        }
    }

    fn error(text: impl Into<String>) -> Self {
        ToolReply {
            text: text.into(),
            is_error: true,
        }
    }
}

/// `ctx_index` parameters.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IndexParams {
    /// Text to index (markdown, JSON, HTML, logs, code). Give this or `path`.
    pub content: Option<String>,
    /// A file or directory to index, relative to the project or absolute.
    pub path: Option<String>,
    /// Label for the indexed content; search results cite it and `source` filters on it.
    pub source: Option<String>,
    /// Globs a file under `path` must match (e.g. "docs/**/*.md").
    #[serde(default, deserialize_with = "crate::lenient::string_list")]
    pub include: Vec<String>,
    /// Globs of files or directories to leave out (e.g. "node_modules", "*.min.js").
    #[serde(default, deserialize_with = "crate::lenient::string_list")]
    pub exclude: Vec<String>,
    /// Directory levels to descend (1 = only the directory's own files).
    #[serde(default, deserialize_with = "crate::lenient::opt_u64")]
    pub max_depth: Option<u64>,
    /// Most files to index from a directory (default 1000).
    #[serde(default, deserialize_with = "crate::lenient::opt_u64")]
    pub max_files: Option<u64>,
    /// Only files with these extensions (e.g. ["md", "rs"]).
    #[serde(default, deserialize_with = "crate::lenient::string_list")]
    pub extensions: Vec<String>,
    /// Skip what .gitignore ignores (default true).
    #[serde(default, deserialize_with = "crate::lenient::opt_bool")]
    pub respect_gitignore: Option<bool>,
    /// Follow symbolic links while walking (default false).
    #[serde(default, deserialize_with = "crate::lenient::opt_bool")]
    pub follow_symlinks: Option<bool>,
}

/// `ctx_search` parameters.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchParams {
    /// One or more search strings; each is answered separately.
    #[serde(
        default,
        alias = "query",
        deserialize_with = "crate::lenient::string_list"
    )]
    pub queries: Vec<String>,
    /// Results per query (default 3).
    #[serde(default, deserialize_with = "crate::lenient::opt_u64")]
    pub limit: Option<u64>,
    /// Only sources whose label contains this text.
    pub source: Option<String>,
    /// "code" or "prose".
    pub content_type: Option<String>,
    /// "worktree" (default: what was indexed in this checkout), "session" (only this
    /// session) or "project" (also the repository's other git worktrees).
    pub scope: Option<String>,
    /// "relevance" (default) or "timeline" (the best matches, oldest first).
    pub sort: Option<String>,
}

/// `ctx_purge` parameters.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PurgeParams {
    /// Must be true to delete the whole project; false deletes nothing.
    #[serde(default, deserialize_with = "crate::lenient::opt_bool")]
    pub confirm: Option<bool>,
    /// "session", "source" or "project" (default: "source" when `source` is given, else "project").
    pub scope: Option<String>,
    /// For scope "source": part of the source labels to delete.
    pub source: Option<String>,
    /// For scope "session": the session to delete (default: this one).
    pub session_id: Option<String>,
}

fn resolve(project_dir: &Path, path: &str) -> PathBuf {
    let path = Path::new(path.trim());
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        project_dir.join(path)
    }
}

/// `ctx_index`: chunk and index text, a file or a directory. The caller has checked
/// that `params.path` may be read; `confine_to` (the project, unless a rule granted
/// more) keeps a walk that follows symlinks from reaching past it.
pub fn ctx_index(
    store: &mut Store,
    cx: &ToolContext<'_>,
    params: &IndexParams,
    confine_to: Option<&Path>,
) -> ToolReply {
    ctx_index_with(store, cx, params, confine_to, WalkHooks::default())
}

/// [`ctx_index`] with the walk's callbacks (per-file permission check, progress).
pub fn ctx_index_with(
    store: &mut Store,
    cx: &ToolContext<'_>,
    params: &IndexParams,
    confine_to: Option<&Path>,
    hooks: WalkHooks<'_>,
) -> ToolReply {
    let source = params
        .source
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    match (
        params.content.as_deref(),
        params
            .path
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty()),
    ) {
        (Some(_), Some(_)) => ToolReply::error("ctx_index takes content or path, not both"),
        (None, None) => ToolReply::error(
            "ctx_index needs content (text to index) or path (a file or directory)",
        ),
        (Some(content), None) => {
            if content.trim().is_empty() {
                return ToolReply::error("ctx_index: content is empty; nothing to index");
            }
            let label = source.map_or_else(|| format::default_label(content), str::to_string);
            let format = detect_format(content, Some(label.as_str()));
            let new = NewSource::new(
                &label,
                SourceKind::Content,
                Some(cx.session_id),
                content.len(),
            );
            match super::index_document(store, new, content, format) {
                Ok(indexed) => ToolReply::ok(format::indexed_content(
                    store,
                    &label,
                    content.len(),
                    &indexed,
                    &cx.names,
                )),
                Err(err) => ToolReply::error(format!("ctx_index failed: {err}")),
            }
        }
        (None, Some(path)) => {
            let target = resolve(cx.project_dir, path);
            let options = WalkOptions {
                include: params.include.clone(),
                exclude: params.exclude.clone(),
                extensions: params.extensions.clone(),
                max_depth: params
                    .max_depth
                    .map(|d| usize::try_from(d).unwrap_or(usize::MAX)),
                max_files: params.max_files.map_or(INDEX_WALK_MAX_FILES, |n| {
                    usize::try_from(n).unwrap_or(usize::MAX).max(1)
                }),
                respect_gitignore: params.respect_gitignore.unwrap_or(true),
                follow_symlinks: params.follow_symlinks.unwrap_or(false),
                confine_to: confine_to.map(Path::to_path_buf),
            };
            match index_path_with(
                store,
                &target,
                cx.project_dir,
                source,
                Some(cx.session_id),
                &options,
                hooks,
            ) {
                Ok(report) => ToolReply::ok(format::indexed_path(
                    path, source, &options, &report, &cx.names,
                )),
                Err(err) => ToolReply::error(format!("ctx_index failed: {err}")),
            }
        }
    }
}

/// Where `ctx_search` looks (2.0's scopes; `project` and `global` of 1.x are accepted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchScope {
    /// Only what this session indexed or journalled.
    Session,
    /// This project's store: what was indexed in this checkout (the default).
    Worktree,
    /// This store and the stores of the repository's other git worktrees.
    Project,
}

impl SearchScope {
    /// The scope a `scope` argument names, or the one line saying what it may be.
    pub fn parse(scope: Option<&str>) -> Result<SearchScope, ToolReply> {
        match scope.map(|s| s.trim().to_ascii_lowercase()).as_deref() {
            None | Some("") | Some("worktree") => Ok(SearchScope::Worktree),
            Some("project") | Some("global") | Some("all") => Ok(SearchScope::Project),
            Some("session") => Ok(SearchScope::Session),
            Some(other) => Err(ToolReply::error(format!(
                "scope must be \"session\", \"worktree\" or \"project\", got {other:?}"
            ))),
        }
    }
}

/// Another git worktree's store, searched for scope `project`.
pub struct OtherWorktree {
    /// How its hits are labelled: the worktree's directory name.
    pub name: String,
    pub store: Store,
}

/// `ctx_search`: answer each query from the index, throttled by the flood guard.
pub fn ctx_search(
    store: &Store,
    cx: &ToolContext<'_>,
    flood: &FloodGuard,
    params: &SearchParams,
) -> ToolReply {
    ctx_search_with(store, cx, flood, params, &[])
}

/// [`ctx_search`], with `others` searched too (scope `project`); their journal rows are left out, a
/// `ctx_resume` pointer would name a row of the wrong store.
pub fn ctx_search_with(
    store: &Store,
    cx: &ToolContext<'_>,
    flood: &FloodGuard,
    params: &SearchParams,
    others: &[OtherWorktree],
) -> ToolReply {
    let queries: Vec<&str> = params
        .queries
        .iter()
        .map(|q| q.trim())
        .filter(|q| !q.is_empty())
        .collect();
    if queries.is_empty() {
        return ToolReply::error(
            "ctx_search needs queries: one or more search strings, e.g. [\"deploy rollback\"]",
        );
    }
    if let Some(refusal) = super::too_many_queries("ctx_search", queries.len()) {
        return ToolReply::error(refusal);
    }
    let cut_note = super::query_cut_note(&queries);
    let queries: Vec<&str> = queries.into_iter().map(super::searched_query).collect();
    let content_type = match params
        .content_type
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        None => None,
        Some(text) => match ContentType::parse(text) {
            Some(t) => Some(t),
            None => {
                return ToolReply::error(format!(
                    "contentType must be \"code\" or \"prose\", got {text:?}"
                ));
            }
        },
    };
    let scope = match SearchScope::parse(params.scope.as_deref()) {
        Ok(SearchScope::Session) => Scope::Session,
        Ok(_) => Scope::Project,
        Err(reply) => return reply,
    };
    let sort = match params
        .sort
        .as_deref()
        .map(|s| s.trim().to_ascii_lowercase())
        .as_deref()
    {
        None | Some("") | Some("relevance") => Sort::Relevance,
        Some("timeline") | Some("time") | Some("chronological") => Sort::Timeline,
        Some(other) => {
            return ToolReply::error(format!(
                "sort must be \"relevance\" or \"timeline\", got {other:?}"
            ));
        }
    };
    let level = flood.register(cx.session_id);
    if let FloodLevel::Redirect { call } = level {
        return ToolReply::ok(format::flood_redirect(call, flood.window(), &cx.names));
    }
    let mut limit = params.limit.map_or(SEARCH_DEFAULT_LIMIT, |l| {
        usize::try_from(l).unwrap_or(usize::MAX)
    });
    if matches!(level, FloodLevel::Reduced { .. }) {
        limit = limit.min(1);
    }
    let mut options = SearchOptions::new(cx.session_id);
    options.limit = limit;
    options.source = params
        .source
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    options.content_type = content_type;
    options.scope = scope;
    options.sort = sort;
    options.snippet_bytes = snippet_budget(queries.len(), limit);
    let mut answers = Vec::with_capacity(queries.len());
    for query in &queries {
        match search(store, query, &options) {
            Ok(mut outcome) => {
                for other in others {
                    add_hits_of(other, query, &options, &mut outcome);
                }
                answers.push((*query, outcome));
            }
            Err(err) => return ToolReply::error(format!("ctx_search failed: {err}")),
        }
    }
    let empty_index = answers.iter().all(|(_, o)| o.hits.is_empty())
        && store
            .content_counts()
            .map(|(sources, _)| sources == 0)
            .unwrap_or(false);
    let mut text = cut_note.unwrap_or_default();
    text.push_str(&format::search_answers(
        &answers,
        empty_index,
        OUTPUT_CAP_BYTES.saturating_sub(text.len()),
        &cx.names,
    ));
    if let FloodLevel::Reduced { call } = level {
        text.push_str(&format::flood_note(call, flood.window(), &cx.names));
    }
    ToolReply::ok(format::cap(text, OUTPUT_CAP_BYTES))
}

/// Merges another worktree's chunk hits into `outcome` by score, keeping `limit`.
fn add_hits_of(
    other: &OtherWorktree,
    query: &str,
    options: &SearchOptions<'_>,
    outcome: &mut super::SearchOutcome,
) {
    match search(&other.store, query, options) {
        Ok(found) => {
            let chunks = found
                .hits
                .into_iter()
                .filter(|hit| matches!(hit.key, super::HitRef::Chunk { .. }));
            for mut hit in chunks {
                hit.source_label = format!("{}: {}", other.name, hit.source_label);
                hit.origin = super::HitOrigin::EarlierSession;
                outcome.hits.push(hit);
            }
            outcome.hits.sort_by(|a, b| b.score.total_cmp(&a.score));
            outcome.hits.truncate(options.limit);
        }
        Err(err) => tracing::warn!("search of worktree {} failed: {err}", other.name),
    }
}

/// Snippet bytes per result so that all results of all queries fit the output cap.
fn snippet_budget(queries: usize, limit: usize) -> usize {
    const HEADER_BYTES_PER_QUERY: usize = 160;
    const HEADER_BYTES_PER_RESULT: usize = 140;
    const MIN_SNIPPET_BYTES: usize = 160;
    let results = queries.saturating_mul(limit).max(1);
    let room = OUTPUT_CAP_BYTES.saturating_sub(queries * HEADER_BYTES_PER_QUERY) / results;
    room.saturating_sub(HEADER_BYTES_PER_RESULT)
        .clamp(MIN_SNIPPET_BYTES, SNIPPET_MAX_BYTES)
}

/// What a `ctx_purge` call deletes, or the one line saying why it deletes nothing.
/// 2.0 purges a named source or session as asked; the whole project, everything
/// indexed, takes `confirm: true` (1.x's guard, kept where it matters: ADR 20). An
/// explicit `confirm: false` deletes nothing.
pub fn purge_scope(
    cx: &ToolContext<'_>,
    params: &PurgeParams,
    confirmed_elsewhere: bool,
) -> Result<PurgeScope, ToolReply> {
    if params.confirm == Some(false) {
        return Err(ToolReply::error(
            "ctx_purge: confirm is false, nothing deleted",
        ));
    }
    let source = params
        .source
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let scope_name = params
        .scope
        .as_deref()
        .map(|s| s.trim().to_ascii_lowercase())
        .filter(|s| !s.is_empty());
    let scope = match (scope_name.as_deref(), source) {
        (Some("source"), Some(label)) | (None, Some(label)) => {
            PurgeScope::Source(label.to_string())
        }
        (Some("source"), None) => {
            return Err(ToolReply::error(
                "scope \"source\" needs source: part of the labels to delete",
            ));
        }
        (Some("session"), _) => PurgeScope::Session(
            params
                .session_id
                .as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .unwrap_or(cx.session_id)
                .to_string(),
        ),
        (Some("project") | Some("all"), _) | (None, None) => PurgeScope::Project,
        (Some(other), _) => {
            return Err(ToolReply::error(format!(
                "scope must be \"session\", \"source\" or \"project\", got {other:?}"
            )));
        }
    };
    if scope == PurgeScope::Project && params.confirm != Some(true) && !confirmed_elsewhere {
        return Err(ToolReply::error(
            "ctx_purge of the whole project deletes everything indexed and cannot be undone; \
             call it again with confirm: true, or give source or scope \"session\" to delete less",
        ));
    }
    Ok(scope)
}

/// `ctx_purge`: delete by session, source or the whole project; says what went.
pub fn ctx_purge(store: &mut Store, cx: &ToolContext<'_>, params: &PurgeParams) -> ToolReply {
    let scope = match purge_scope(cx, params, false) {
        Ok(scope) => scope,
        Err(reply) => return reply,
    };
    match store.purge(&scope) {
        Ok(report) => ToolReply::ok(format::purged(&scope, &report)),
        Err(err) => ToolReply::error(format!("ctx_purge failed: {err}")),
    }
}

/// What [`ctx_purge`] would delete, deleting nothing (`cm purge --dry-run`).
pub fn ctx_purge_preview(store: &mut Store, scope: &PurgeScope) -> ToolReply {
    match store.purge_preview(scope) {
        Ok(report) => ToolReply::ok(format::would_purge(scope, &report)),
        Err(err) => ToolReply::error(format!("ctx_purge failed: {err}")),
    }
}
