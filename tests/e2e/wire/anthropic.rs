//! Anthropic Messages (`POST /v1/messages`), as Claude Code speaks it: tools in `tools`,
//! MCP tools it defers listed by name in a system text for ToolSearch to load, tool
//! results as `tool_result` blocks; the answer streamed as SSE when `stream` is true.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};

use super::{Exchange, Offered, PastCall, Turn, result_text};

/// The sentence Claude Code puts before the names ToolSearch can load.
const DEFERRED_HEADER: &str = "deferred tools are now available via ToolSearch";

pub fn read(body: &Value) -> Exchange {
    let mut exchange = Exchange::default();
    for tool in body["tools"].as_array().into_iter().flatten() {
        if let Some(name) = tool["name"].as_str() {
            exchange.offered.push(Offered {
                name: name.to_owned(),
                namespace: None,
                schema: tool["input_schema"].clone(),
            });
        }
    }
    let mut texts = vec![text_of(&body["system"])];
    for message in body["messages"].as_array().into_iter().flatten() {
        let role = message["role"].as_str().unwrap_or_default();
        if role == "user" {
            exchange.last_user_text = blocks(&message["content"])
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n");
        }
        for block in blocks(&message["content"]) {
            match block["type"].as_str() {
                Some("tool_use") => exchange.calls.push(PastCall {
                    id: block["id"].as_str().unwrap_or_default().to_owned(),
                    name: block["name"].as_str().unwrap_or_default().to_owned(),
                    result: None,
                    is_error: false,
                }),
                Some("tool_result") => {
                    let id = block["tool_use_id"].as_str().unwrap_or_default();
                    if let Some(call) = exchange.calls.iter_mut().find(|c| c.id == id) {
                        call.result = Some(result_text(&block["content"]));
                        call.is_error = block["is_error"].as_bool() == Some(true);
                    }
                }
                Some("text") if role != "assistant" => {
                    texts.push(block["text"].as_str().unwrap_or_default().to_owned())
                }
                _ => {}
            }
        }
    }
    exchange.context = texts.join("\n");
    exchange.deferred = deferred_names(&exchange.context);
    exchange
}

fn blocks(content: &Value) -> Vec<Value> {
    match content {
        Value::String(s) => vec![json!({"type": "text", "text": s})],
        Value::Array(items) => items.clone(),
        _ => Vec::new(),
    }
}

fn text_of(system: &Value) -> String {
    blocks(system)
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The names listed after Claude Code's deferred-tools sentence, one a line, up to the
/// first blank line.
fn deferred_names(context: &str) -> Vec<String> {
    let Some(at) = context.find(DEFERRED_HEADER) else {
        return Vec::new();
    };
    context[at..]
        .lines()
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .map(|line| line.trim().to_owned())
        .filter(|line| !line.contains(' '))
        .collect()
}

/// The answer: a JSON message, or its SSE stream when the request asked for one; a
/// `Turn::Parallel` is one message with a block per call.
pub fn render(turn: &Turn, model: &str, stream: bool, input_tokens: u64) -> (String, bool) {
    // Every message its own id: Claude Code groups a conversation's rounds by it.
    static NEXT_ID: AtomicU64 = AtomicU64::new(1);
    let id = format!("msg_e2e_{}", NEXT_ID.fetch_add(1, Ordering::Relaxed));
    let turns = match turn {
        Turn::Parallel(turns) => turns.as_slice(),
        single => std::slice::from_ref(single),
    };
    let stop = match turn {
        Turn::Text(_) => "end_turn",
        _ => "tool_use",
    };
    let usage = json!({"input_tokens": input_tokens, "output_tokens": 16});
    if !stream {
        let content: Vec<Value> = turns.iter().map(|t| block(t).0).collect();
        let message = json!({
            "id": id, "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": stop, "stop_sequence": null, "usage": usage,
        });
        return (message.to_string(), false);
    }
    let mut events = vec![(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage}}),
    )];
    for (index, turn) in turns.iter().enumerate() {
        let (_, start, delta) = block(turn);
        events.extend([
            (
                "content_block_start",
                json!({"type": "content_block_start", "index": index, "content_block": start}),
            ),
            (
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": delta}),
            ),
            (
                "content_block_stop",
                json!({"type": "content_block_stop", "index": index}),
            ),
        ]);
    }
    events.extend([
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
                   "usage": {"output_tokens": 16}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ]);
    let body = events
        .iter()
        .map(|(event, data)| format!("event: {event}\ndata: {data}\n\n"))
        .collect();
    (body, true)
}

/// One content block: whole, and as a stream starts it and its one delta.
fn block(turn: &Turn) -> (Value, Value, Value) {
    match turn {
        Turn::Call { id, name, args, .. } => (
            json!({"type": "tool_use", "id": id, "name": name, "input": args}),
            json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": args.to_string()}),
        ),
        Turn::Text(text) => (
            json!({"type": "text", "text": text}),
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": text}),
        ),
        Turn::Parallel(_) => panic!("a parallel turn holds calls, not parallel turns"),
    }
}
