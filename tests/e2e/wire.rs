//! What the scripted model reads from a request and what it answers, independent of the
//! provider's wire format. `anthropic`, `chat`, `gemini` and `responses` translate
//! between these types and the bytes each client sends and expects.

pub mod anthropic;
pub mod chat;
pub mod gemini;
pub mod responses;

use serde_json::Value;

/// A tool the agent offered the model in this request.
#[derive(Debug, Clone)]
pub struct Offered {
    /// The name the model calls it by (Codex's namespaced tools joined as
    /// `<namespace>__<name>`, the way Codex names them to users).
    pub name: String,
    /// Codex's namespace (`mcp__context_mode`) and the tool's own name in it.
    pub namespace: Option<(String, String)>,
    pub schema: Value,
}

/// A tool call the model made earlier in this conversation, with its result if the
/// request carries one.
#[derive(Debug, Clone)]
pub struct PastCall {
    pub id: String,
    pub name: String,
    pub result: Option<String>,
    pub is_error: bool,
}

/// One request, read.
#[derive(Debug, Clone, Default)]
pub struct Exchange {
    pub offered: Vec<Offered>,
    /// Names listed as loadable on demand (Claude Code's ToolSearch).
    pub deferred: Vec<String>,
    pub calls: Vec<PastCall>,
    /// Every system, developer and user text of the request, joined.
    pub context: String,
    /// The text of the last user message (empty when it only carries tool results).
    pub last_user_text: String,
    /// True when the request asks for JSON matching a schema (Gemini's side checks).
    pub wants_json: bool,
}

impl Exchange {
    pub fn offers(&self, name: &str) -> Option<&Offered> {
        self.offered.iter().find(|o| o.name == name)
    }

    /// The offered tool whose name ends in `_<tool>` or `-<tool>` (or is `<tool>`), e.g. `ctx_execute`
    /// → `mcp__context-mode__ctx_execute`; never `ctx_execute_file` for `ctx_execute`.
    pub fn ctx_tool(&self, tool: &str) -> Option<&Offered> {
        self.offered.iter().find(|o| names_tool(&o.name, tool))
    }

    /// The same among the deferred names.
    pub fn deferred_ctx_tool(&self, tool: &str) -> Option<&str> {
        self.deferred
            .iter()
            .find(|n| names_tool(n, tool))
            .map(String::as_str)
    }

    /// The call with this id; OpenClaw sends ids back with only their letters and
    /// digits (`e2e_shell` as `e2eshell`).
    pub fn call(&self, id: &str) -> Option<&PastCall> {
        let bare: String = id.chars().filter(char::is_ascii_alphanumeric).collect();
        self.calls
            .iter()
            .find(|c| c.id == id)
            .or_else(|| self.calls.iter().find(|c| c.id == bare))
    }
}

/// `mcp__context-mode__ctx_execute`, `mcp_context-mode_ctx_execute`, Copilot CLI's
/// `context-mode-ctx_execute`.
fn names_tool(name: &str, tool: &str) -> bool {
    name == tool || name.ends_with(&format!("_{tool}")) || name.ends_with(&format!("-{tool}"))
}

/// The model's next turn.
#[derive(Debug, Clone)]
pub enum Turn {
    Call {
        id: String,
        name: String,
        namespace: Option<(String, String)>,
        args: Value,
    },
    Text(String),
    /// Several calls in one assistant message, each a `Call` (Claude Code runs the
    /// concurrency-safe ones at once); only the Anthropic wire renders it.
    Parallel(Vec<Turn>),
}

/// Why a wire other than Anthropic's refuses a `Turn::Parallel`.
pub const PARALLEL_IS_ANTHROPIC_ONLY: &str = "only the Anthropic wire renders parallel calls";

impl Turn {
    /// A call of `name` as offered (Codex's namespaced form when it is one).
    pub fn call(id: &str, name: &str, exchange: &Exchange, args: Value) -> Turn {
        Turn::Call {
            id: id.to_owned(),
            name: name.to_owned(),
            namespace: exchange.offers(name).and_then(|o| o.namespace.clone()),
            args,
        }
    }
}

/// The text of a tool result in any of the shapes the clients send: a string, a list of
/// text blocks, an object with `output`/`content`/`result`/`error`.
pub fn result_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(result_text).collect::<Vec<_>>().join("\n"),
        Value::Object(map) => {
            for key in ["text", "output", "content", "result", "error", "llmContent"] {
                if let Some(inner) = map.get(key) {
                    return result_text(inner);
                }
            }
            value.to_string()
        }
        Value::Null => String::new(),
        other => other.to_string(),
    }
}
