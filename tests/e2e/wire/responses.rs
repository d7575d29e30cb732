//! OpenAI Responses API (`POST <base_url>/responses`, SSE), as Codex speaks it to a
//! provider configured with `wire_api = "responses"`: its MCP tools come as a
//! `namespace` tool (`mcp__context_mode` holding `ctx_execute`, …), history and tool
//! outputs as `input` items.

use serde_json::{Value, json};

use super::{Exchange, Offered, PastCall, Turn, result_text};

pub fn read(body: &Value) -> Exchange {
    let mut exchange = Exchange::default();
    for tool in body["tools"].as_array().into_iter().flatten() {
        offer(tool, None, &mut exchange.offered);
    }
    let mut texts = vec![body["instructions"].as_str().unwrap_or_default().to_owned()];
    for item in body["input"].as_array().into_iter().flatten() {
        match item["type"].as_str() {
            Some("function_call") | Some("custom_tool_call") => {
                let name = item["name"].as_str().unwrap_or_default();
                let name = match item["namespace"].as_str() {
                    Some(ns) => format!("{ns}__{name}"),
                    None => name.to_owned(),
                };
                exchange.calls.push(PastCall {
                    id: item["call_id"].as_str().unwrap_or_default().to_owned(),
                    name,
                    result: None,
                    is_error: false,
                });
            }
            Some("function_call_output") | Some("custom_tool_call_output") => {
                let id = item["call_id"].as_str().unwrap_or_default();
                if let Some(call) = exchange.calls.iter_mut().find(|c| c.id == id) {
                    call.result = Some(result_text(&item["output"]));
                    call.is_error = item["output"]["success"].as_bool() == Some(false);
                }
            }
            Some("message") if item["role"].as_str() != Some("assistant") => {
                let text = result_text(&item["content"]);
                if item["role"].as_str() == Some("user") {
                    exchange.last_user_text = text.clone();
                }
                texts.push(text);
            }
            _ => {}
        }
    }
    exchange.context = texts.join("\n");
    exchange
}

fn offer(tool: &Value, namespace: Option<&str>, offered: &mut Vec<Offered>) {
    match tool["type"].as_str() {
        Some("namespace") => {
            let ns = tool["name"].as_str().unwrap_or_default();
            for inner in tool["tools"].as_array().into_iter().flatten() {
                offer(inner, Some(ns), offered);
            }
        }
        Some("function") | Some("custom") => {
            let Some(name) = tool["name"].as_str() else {
                return;
            };
            offered.push(Offered {
                name: match namespace {
                    Some(ns) => format!("{ns}__{name}"),
                    None => name.to_owned(),
                },
                namespace: namespace.map(|ns| (ns.to_owned(), name.to_owned())),
                schema: tool["parameters"].clone(),
            });
        }
        _ => {}
    }
}

/// The SSE stream of one response: created, the one output item, completed (with the
/// usage Codex reads to decide on compaction).
pub fn render(turn: &Turn, total_tokens: u64) -> String {
    let item = match turn {
        Turn::Call {
            id,
            name,
            namespace,
            args,
        } => {
            let mut item = json!({"type": "function_call", "id": format!("fc_{id}"),
                                  "call_id": id, "arguments": args.to_string(), "name": name});
            if let Some((ns, inner)) = namespace {
                item["namespace"] = json!(ns);
                item["name"] = json!(inner);
            }
            item
        }
        Turn::Text(text) => json!({"type": "message", "role": "assistant", "id": "msg_e2e",
                                   "content": [{"type": "output_text", "text": text}]}),
        Turn::Parallel(_) => panic!("{}", super::PARALLEL_IS_ANTHROPIC_ONLY),
    };
    let events = [
        json!({"type": "response.created", "response": {"id": "resp_e2e"}}),
        json!({"type": "response.output_item.done", "item": item}),
        json!({"type": "response.completed", "response": {"id": "resp_e2e", "usage": {
            "input_tokens": total_tokens.saturating_sub(16), "input_tokens_details": null,
            "output_tokens": 16, "output_tokens_details": null, "total_tokens": total_tokens}}}),
    ];
    events
        .iter()
        .map(|e| {
            format!(
                "event: {}\ndata: {e}\n\n",
                e["type"].as_str().unwrap_or_default()
            )
        })
        .collect()
}
