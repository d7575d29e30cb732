//! The rmcp server handler: lists the registered tools and routes calls to the services.

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde::de::DeserializeOwned;

use super::tools::{self, ToolSpec};
use crate::service::{self, Reply, Service};

#[derive(Clone)]
pub struct CmServer {
    service: Arc<Service>,
    tools: Arc<Vec<ToolSpec>>,
}

impl CmServer {
    pub fn new(service: Arc<Service>) -> Self {
        CmServer {
            service,
            tools: Arc::new(tools::all()),
        }
    }

    async fn dispatch(&self, name: &str, args: Option<JsonObject>) -> Reply {
        let raw = serde_json::Value::Object(args.unwrap_or_default());
        let s = &self.service;
        match name {
            "ctx_execute" => match parse(name, &raw) {
                Ok(p) => service::execute(s, p, &raw).await,
                Err(e) => e,
            },
            "ctx_execute_file" => match parse(name, &raw) {
                Ok(p) => service::execute_file(s, p, &raw).await,
                Err(e) => e,
            },
            "ctx_batch_execute" => match parse(name, &raw) {
                Ok(p) => service::batch_execute(s, p, &raw).await,
                Err(e) => e,
            },
            "ctx_fetch_and_index" => match parse(name, &raw) {
                Ok(p) => service::fetch_and_index(s, p, &raw).await,
                Err(e) => e,
            },
            "ctx_index" | "ctx_search" | "ctx_purge" | "ctx_resume" | "ctx_doctor"
            | "ctx_stats" | "ctx_insight" => {
                // SQLite work is blocking: keep it off the async workers.
                let (service, name_owned) = (s.clone(), name.to_string());
                let joined = tokio::task::spawn_blocking(move || match name_owned.as_str() {
                    "ctx_index" => parse(&name_owned, &raw)
                        .map_or_else(|e| e, |p| service::index(&service, p, &raw)),
                    "ctx_search" => parse(&name_owned, &raw)
                        .map_or_else(|e| e, |p| service::search(&service, p)),
                    "ctx_resume" => parse(&name_owned, &raw)
                        .map_or_else(|e| e, |p| service::resume(&service, p)),
                    "ctx_doctor" => parse(&name_owned, &raw)
                        .map_or_else(|e| e, |p| service::doctor(&service, p)),
                    "ctx_stats" => parse::<service::StatsParams>(&name_owned, &raw)
                        .map_or_else(|e| e, |_| service::stats(&service)),
                    "ctx_insight" => parse::<service::InsightParams>(&name_owned, &raw)
                        .map_or_else(|e| e, |_| service::insight(&service)),
                    _ => {
                        parse(&name_owned, &raw).map_or_else(|e| e, |p| service::purge(&service, p))
                    }
                })
                .await;
                joined.unwrap_or_else(|e| Reply::error(format!("{name} failed: {e}")))
            }
            "ctx_upgrade" => {
                // Reads the source tree and asks git for its commit: off the async workers.
                let joined = tokio::task::spawn_blocking(move || {
                    parse("ctx_upgrade", &raw).map_or_else(|e| e, service::upgrade)
                })
                .await;
                joined.unwrap_or_else(|e| Reply::error(format!("{name} failed: {e}")))
            }
            other => Reply::error(format!("unknown tool {other}")),
        }
    }
}

/// Arguments into a parameter struct; a failure is one line for the model.
/// Deserialized from the borrowed value: a large `content` is copied once, not cloned first.
fn parse<T: DeserializeOwned>(tool: &str, raw: &serde_json::Value) -> Result<T, Reply> {
    T::deserialize(raw).map_err(|e| Reply::error(format!("{tool}: invalid arguments: {e}")))
}

/// Tools whose calls can hold megabytes at once: a document, a command's output, a page.
const BULK_TOOLS: &[&str] = &[
    "ctx_index",
    "ctx_execute",
    "ctx_execute_file",
    "ctx_batch_execute",
    "ctx_fetch_and_index",
    "ctx_purge",
];

/// Hands freed heap back to the system after a bulk call. glibc keeps freed memory
/// in its arenas, so one 5 MB `ctx_index` (the document, its chunks, FTS5's pending
/// hashes) left the server some 45 MB larger for the rest of the session. It runs
/// detached, beside the reply going out.
fn release_freed_heap(tool: &str) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if BULK_TOOLS.contains(&tool) {
        tokio::task::spawn_blocking(|| {
            // SAFETY: malloc_trim only walks glibc's own arenas; no pointers are passed.
            unsafe { libc::malloc_trim(0) };
        });
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = tool;
}

impl ServerHandler for CmServer {
    fn get_info(&self) -> ServerConfig {
        let mut config = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        config.server_info = Implementation::new("context-mode", env!("CARGO_PKG_VERSION"));
        config
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(
            self.tools.iter().map(ToolSpec::to_tool).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if let Some(info) = context.peer.peer_info() {
            self.service.detect_platform(&info.client_info.name);
        }
        let reply = self
            .dispatch(request.name.as_ref(), request.arguments)
            .await;
        release_freed_heap(request.name.as_ref());
        let content = vec![ContentBlock::text(reply.text)];
        let result = if reply.is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        };
        Ok(result.into())
    }
}

/// The project this server works for: the agent's project variable, else the cwd.
pub fn project_dir() -> PathBuf {
    [
        "CONTEXT_MODE_PROJECT_DIR",
        "CLAUDE_PROJECT_DIR",
        "GEMINI_PROJECT_DIR",
    ]
    .iter()
    .filter_map(std::env::var_os)
    .map(PathBuf::from)
    .find(|p| p.is_absolute() && p.is_dir())
    .or_else(|| std::env::current_dir().ok())
    .map(|p| p.canonicalize().unwrap_or(p))
    .unwrap_or_else(|| PathBuf::from("/"))
}
