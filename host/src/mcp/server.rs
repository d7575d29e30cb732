//! The rmcp server handler: lists the registered tools and routes calls to the services.

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorCode,
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

use super::call::{ToolCall, Undecodable};
use super::tools::{self, ToolSpec};
use crate::service::{Reply, Service, printable};

/// The error code of a request the client cancelled (LSP's RequestCancelled); never
/// sent in practice, rmcp drops the response of a cancelled request.
const REQUEST_CANCELLED: i32 = -32800;

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
        let name = request.name.as_ref();
        let raw = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let call = match ToolCall::decode(name, &raw) {
            Ok(call) => call,
            Err(Undecodable::UnknownTool) => {
                return Err(McpError::invalid_params(
                    format!("unknown tool {name}; tools/list names the tools"),
                    None,
                ));
            }
            Err(Undecodable::Arguments(reply)) => return Ok(tool_result(reply)),
        };
        let reply = tokio::select! {
            reply = call.run(&self.service, raw) => reply,
            // notifications/cancelled: rmcp sends no response for the request; dropping
            // the call stops it (a ctx_execute child is killed with its group).
            () = context.ct.cancelled() => {
                tracing::info!("{name} cancelled by the client");
                return Err(McpError::new(ErrorCode(REQUEST_CANCELLED), "request cancelled", None));
            }
        };
        release_freed_heap(name);
        Ok(tool_result(reply))
    }
}

/// A reply as MCP's tool result, its text made safe for the model to read.
fn tool_result(reply: Reply) -> CallToolResponse {
    let content = vec![ContentBlock::text(printable(&reply.text).into_owned())];
    let result = if reply.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    result.into()
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
