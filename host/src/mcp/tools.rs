//! The registry of `ctx_*` tools: name, description, input schema, annotations and
//! the handler each call is routed to.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};

/// What a tool call returns to the agent: text, and whether it is an error.
pub struct ToolOutput {
    pub text: String,
    pub is_error: bool,
}

impl ToolOutput {
    pub fn ok(text: impl Into<String>) -> Self {
        Self { text: text.into(), is_error: false }
    }

    /// An error the model reads: always one line.
    pub fn error(text: impl AsRef<str>) -> Self {
        let line = text
            .as_ref()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        Self { text: line, is_error: true }
    }

    pub fn into_result(self) -> CallToolResult {
        let content = vec![ContentBlock::text(self.text)];
        if self.is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        }
    }
}

/// One registered tool.
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub schema: Arc<JsonObject>,
    pub annotations: ToolAnnotations,
}

impl ToolSpec {
    pub fn to_tool(&self) -> Tool {
        Tool::new(self.name, self.description, self.schema.clone())
            .with_annotations(self.annotations.clone())
    }
}

/// The JSON schema of a parameter struct, as MCP wants it.
pub fn schema_of<T: schemars::JsonSchema>() -> Arc<JsonObject> {
    let schema = schemars::schema_for!(T);
    match serde_json::to_value(schema) {
        Ok(serde_json::Value::Object(map)) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

/// Annotations in one call: (read-only, destructive, idempotent, open-world).
pub fn annotations(read_only: bool, destructive: bool, idempotent: bool, open_world: bool) -> ToolAnnotations {
    ToolAnnotations::from_raw(
        None,
        Some(read_only),
        Some(destructive),
        Some(idempotent),
        Some(open_world),
    )
}

/// Parses tool arguments into a parameter struct; a failure is one line for the model.
pub fn parse_args<T: serde::de::DeserializeOwned>(
    tool: &str,
    args: Option<JsonObject>,
) -> Result<T, ToolOutput> {
    let value = serde_json::Value::Object(args.unwrap_or_default());
    serde_json::from_value(value).map_err(|e| ToolOutput::error(format!("{tool}: invalid arguments: {e}")))
}
