//! The agent's side of one bench task: tool calls through the real MCP server, with
//! every byte that came back into the "context" counted.

use crate::common::McpClient;

pub struct Agent<'a> {
    client: &'a mut McpClient,
    /// Bytes of every reply, as the model would receive them.
    pub returned_bytes: u64,
    pub calls: usize,
    /// Replies that were errors (a task with one is not correct).
    pub errors: Vec<String>,
    /// Every reply, for the report of a wrong answer.
    pub transcript: Vec<String>,
}

impl<'a> Agent<'a> {
    pub fn new(client: &'a mut McpClient) -> Self {
        Agent {
            client,
            returned_bytes: 0,
            calls: 0,
            errors: Vec::new(),
            transcript: Vec::new(),
        }
    }

    pub fn call(&mut self, tool: &str, arguments: serde_json::Value) -> String {
        let (text, is_error) = self.client.call_tool(tool, arguments);
        self.returned_bytes += text.len() as u64;
        self.calls += 1;
        if is_error {
            self.errors
                .push(format!("{tool}: {}", text.lines().next().unwrap_or("")));
        }
        self.transcript.push(format!("{tool}:\n{text}"));
        text
    }

    /// `ctx_execute_file` over one corpus file.
    pub fn over_file(&mut self, path: &str, language: &str, code: &str) -> String {
        self.call(
            "ctx_execute_file",
            serde_json::json!({"path": path, "language": language, "code": code}),
        )
    }

    /// Prints a file through `ctx_execute` with an intent, as an agent summarising it would.
    pub fn print_with_intent(&mut self, path: &str, intent: &str) -> String {
        self.call(
            "ctx_execute",
            serde_json::json!({"language": "shell", "code": format!("cat {path}"), "intent": intent}),
        )
    }

    /// `ctx_search` with one query, confined to the source a reply named.
    pub fn search(&mut self, query: &str, source: Option<&str>) -> String {
        let mut arguments = serde_json::json!({"queries": [query]});
        if let Some(source) = source {
            arguments["source"] = source.into();
        }
        self.call("ctx_search", arguments)
    }
}
