//! The rmcp server handler: lists the registered tools and routes calls to them.

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

use super::tools::{ToolOutput, ToolSpec};

/// State shared by every tool call of one server process.
#[derive(Clone)]
pub struct CmServer {
    inner: Arc<ServerState>,
}

pub struct ServerState {
    pub root: PathBuf,
    pub tools: Vec<ToolSpec>,
}

impl CmServer {
    pub fn new(root: PathBuf) -> anyhow::Result<Self> {
        Ok(Self {
            inner: Arc::new(ServerState {
                root,
                tools: Vec::new(),
            }),
        })
    }

    async fn dispatch(&self, request: CallToolRequestParams) -> ToolOutput {
        let name = request.name.as_ref();
        ToolOutput::error(format!("unknown tool {name}"))
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
            self.inner.tools.iter().map(ToolSpec::to_tool).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        Ok(self.dispatch(request).await.into_result().into())
    }
}
