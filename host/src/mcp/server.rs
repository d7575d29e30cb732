//! The rmcp server handler: lists the registered tools and routes calls to the services.

use std::sync::{Arc, LazyLock};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorCode,
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

use super::tools::{self, ToolSpec, Undecodable};
use crate::service::{Reply, Service, printable};

/// The error code of a request the client cancelled (LSP's RequestCancelled); never
/// sent in practice, rmcp drops the response of a cancelled request.
const REQUEST_CANCELLED: i32 = -32800;

/// The tools with their JSON schemas, made on first use: `cm serve` makes them beside
/// the handshake (see [`CmServer::prepare`]), not before it (issue 31).
static TOOLS: LazyLock<Vec<ToolSpec>> = LazyLock::new(tools::all);
/// Answered, never listed (`tools::unlisted`).
static UNLISTED: LazyLock<Vec<ToolSpec>> = LazyLock::new(tools::unlisted);

#[derive(Clone)]
pub struct CmServer {
    service: Arc<Service>,
}

impl CmServer {
    pub fn new(service: Arc<Service>) -> Self {
        CmServer { service }
    }

    /// Makes the tool list now (a blocking thread's work while the handshake runs).
    pub fn prepare() {
        LazyLock::force(&TOOLS);
        LazyLock::force(&UNLISTED);
    }
}

/// Hands freed heap back to the system after a bulk call. glibc keeps freed memory
/// in its arenas, so one 5 MB `ctx_index` (the document, its chunks, FTS5's pending
/// hashes) left the server some 45 MB larger for the rest of the session. It runs
/// detached, beside the reply going out.
fn release_freed_heap(tool: &ToolSpec) {
    if tool.bulk {
        tokio::task::spawn_blocking(crate::platform::release_freed_heap);
    }
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
            TOOLS.iter().map(ToolSpec::to_tool).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if let Some(name) = client_name(&context) {
            self.service.detect_platform(&name);
        }
        let name = request.name.as_ref();
        let raw = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let decoded = tools::lookup(&TOOLS, name)
            .or_else(|_| tools::lookup(&UNLISTED, name))
            .and_then(|tool| Ok((tool, tool.decode(&raw)?)));
        let (tool, call) = match decoded {
            Ok(found) => found,
            Err(Undecodable::UnknownTool) => {
                return Err(McpError::invalid_params(
                    format!("unknown tool {name}; tools/list names the tools"),
                    None,
                ));
            }
            Err(Undecodable::Arguments(reply)) => return Ok(tool_result(reply)),
        };
        let reply = tokio::select! {
            reply = call(self.service.clone(), raw) => reply,
            // notifications/cancelled: rmcp sends no response for the request; dropping
            // the call stops it (a ctx_execute child is killed with its group).
            () = context.ct.cancelled() => {
                tracing::info!("{name} cancelled by the client");
                return Err(McpError::new(ErrorCode(REQUEST_CANCELLED), "request cancelled", None));
            }
        };
        release_freed_heap(tool);
        Ok(tool_result(reply))
    }
}

/// The client's `clientInfo.name`: from the `initialize` handshake, or, under the
/// stateless protocol (2026-07-28, which Copilot CLI 1.0.102 speaks and which has no
/// handshake), from the request's own `_meta`.
fn client_name(context: &RequestContext<RoleServer>) -> Option<String> {
    match context.peer.peer_info() {
        Some(info) => Some(info.client_info.name.clone()),
        None => context.meta.client_info().map(|info| info.name),
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
