//! The scripted model server: routes each request to its provider's wire format, answers
//! the agent's main loop from `script` (or `parallel`), side requests (titles, routing,
//! checks) with a short text, and serves the fixture the scripted `curl` fetches.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use serde_json::{Value, json};

use crate::http::{Handler, Reply, Request, Server};
use crate::script;
use crate::wire::{self, Exchange, Turn};

/// Where the scripted shell command points; the body proves a fetch really happened.
pub const FIXTURE_PATH: &str = "/e2e/fixture";
pub const FIXTURE_BODY: &str = "cm-e2e-fixture: the page the scripted curl fetched\n";

/// The provider a request was written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    Anthropic,
    Gemini,
    Responses,
    /// OpenAI Chat Completions: Copilot CLI (BYOK) and Qwen Code.
    Chat,
}

impl Provider {
    pub fn of(request: &Request) -> Option<Provider> {
        let path = request.path();
        if request.method != "POST" {
            None
        } else if path.ends_with("/messages") {
            Some(Provider::Anthropic)
        } else if path.contains(":generateContent") || path.contains(":streamGenerateContent") {
            Some(Provider::Gemini)
        } else if path.ends_with("/responses") {
            Some(Provider::Responses)
        } else if path.ends_with("/chat/completions") {
            Some(Provider::Chat)
        } else {
            None
        }
    }

    /// The request read into the provider-neutral form.
    pub fn read(self, body: &Value) -> Exchange {
        match self {
            Provider::Anthropic => wire::anthropic::read(body),
            Provider::Gemini => wire::gemini::read(body),
            Provider::Responses => wire::responses::read(body),
            Provider::Chat => wire::chat::read(body),
        }
    }
}

/// Tokens the answers report as the prompt's size: small, so no agent compacts on its own.
const REPORTED_PROMPT_TOKENS: u64 = 1200;
/// Reported with the script's last tool call: past every agent's compaction threshold
/// (Claude Code's context window, Gemini CLI's half of 1M, Codex's configured limit).
const COMPACTION_TRIGGER_TOKENS: u64 = 950_000;

/// Kimi Code compacts when the usage plus its 50 000-token reserve reaches the model's
/// `max_context_size` (128 000 in the harness's config): past that, within the window.
const KIMI_COMPACTION_TRIGGER_TOKENS: u64 = 100_000;

/// What the model does in the main loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Script {
    /// The tour of `script`: the shell redirect, the `ctx_*` tools, a compaction.
    Tour,
    /// `parallel`: a first turn of several calls at once, then a closing text.
    ParallelFirstTurn,
}

/// Starts the server; the fixture's URL is known once the port is. `project` is the
/// agent's working directory (the parallel script reads files there).
pub fn start(scripted: Script, project: &Path) -> Server {
    let port: Arc<OnceLock<u16>> = Arc::default();
    let handler_port = Arc::clone(&port);
    let project = project.to_path_buf();
    let handler: Arc<Handler> = Arc::new(move |request: &Request| {
        let port = handler_port.get().copied().unwrap_or_default();
        answer(
            request,
            &format!("http://127.0.0.1:{port}"),
            scripted,
            &project,
        )
    });
    let server = Server::start(handler);
    let _ = port.set(server.port);
    server
}

fn answer(request: &Request, base: &str, scripted: Script, project: &Path) -> Reply {
    let path = request.path();
    if request.method == "GET" && path == FIXTURE_PATH {
        return Reply::text(200, FIXTURE_BODY);
    }
    if path.ends_with("/count_tokens") {
        return Reply::json(&json!({"input_tokens": REPORTED_PROMPT_TOKENS}));
    }
    if path.contains(":countTokens") {
        return Reply::json(&json!({"totalTokens": REPORTED_PROMPT_TOKENS}));
    }
    let Some(provider) = Provider::of(request) else {
        return Reply::text(404, "not a route of the scripted model");
    };
    let Some(body) = request.json() else {
        return Reply::text(400, "the scripted model reads JSON bodies only");
    };
    let exchange = provider.read(&body);
    let mut tokens = REPORTED_PROMPT_TOKENS;
    let turn = if script::is_compaction(&exchange) {
        Turn::Text(script::COMPACT_SUMMARY.to_owned())
    } else if scripted == Script::ParallelFirstTurn && script::shell_tool(&exchange).is_some() {
        crate::parallel::answer(&exchange, base, project)
    } else if script::shell_tool(&exchange).is_some() {
        let answer = script::answer(&exchange, &format!("{base}{FIXTURE_PATH}"));
        // Copilot CLI's and Qwen Code's compaction is not asserted, and both refuse a
        // prompt past their model's window (Qwen Code: "Context is too large to send");
        // Kimi Code compacts once the usage leaves less than its reserve of the window.
        if answer.compact_next && provider != Provider::Chat {
            tokens = COMPACTION_TRIGGER_TOKENS;
        } else if answer.compact_next && script::is_kimi(&exchange) {
            tokens = KIMI_COMPACTION_TRIGGER_TOKENS;
        }
        answer.turn
    } else if exchange.wants_json {
        // Gemini CLI's side checks (next speaker, loop detection) ask for JSON.
        Turn::Text(
            json!({"reasoning": "the scripted model is done", "next_speaker": "user"}).to_string(),
        )
    } else {
        Turn::Text("cm e2e".to_owned())
    };
    let stream = body["stream"].as_bool() == Some(true) || request.target.contains("alt=sse");
    match provider {
        Provider::Anthropic => {
            let model = body["model"].as_str().unwrap_or("claude");
            sse_or_json(wire::anthropic::render(&turn, model, stream, tokens))
        }
        Provider::Gemini => sse_or_json(wire::gemini::render(&turn, stream, tokens)),
        Provider::Responses => Reply::sse(wire::responses::render(&turn, tokens)),
        Provider::Chat => {
            let model = body["model"].as_str().unwrap_or("gpt-4.1");
            sse_or_json(wire::chat::render(&turn, model, stream, tokens))
        }
    }
}

fn sse_or_json((body, sse): (String, bool)) -> Reply {
    if sse {
        Reply::sse(body)
    } else {
        Reply {
            status: 200,
            content_type: "application/json",
            body: body.into_bytes(),
        }
    }
}
