//! OpenAI Chat Completions (`POST <base_url>/chat/completions`), as GitHub Copilot CLI
//! speaks it to a BYOK provider (`COPILOT_PROVIDER_BASE_URL`, wire API "completions", its
//! default) and Qwen Code to an `openai` auth provider (`OPENAI_BASE_URL`): tools as
//! `{"type": "function", "function": {name, parameters}}`, the model's calls as an
//! assistant message's `tool_calls`, results as `role: "tool"` messages carrying the
//! `tool_call_id`. Both clients ask with `stream: true` and `stream_options.include_usage`;
//! the answer is then `chat.completion.chunk` events ending in `data: [DONE]`.
//! Qwen Code 0.24 defers MCP tools: a user-message reminder lists them by name
//! (`- "mcp__context-mode__ctx_execute": "…"`), `tool_search` shows a schema and the
//! `tool_call` bridge (`{"name": …, "arguments": {…}}`) runs one.

use serde_json::{Value, json};

use super::{Exchange, Offered, PastCall, Turn, result_text};

/// The sentence of Qwen Code's reminder before the deferred MCP tools' names.
const DEFERRED_HEADER: &str = "reachable through `tool_search` and `tool_call`";

pub fn read(body: &Value) -> Exchange {
    let mut exchange = Exchange::default();
    for tool in body["tools"].as_array().into_iter().flatten() {
        let function = &tool["function"];
        if let Some(name) = function["name"].as_str() {
            exchange.offered.push(Offered {
                name: name.to_owned(),
                namespace: None,
                schema: function["parameters"].clone(),
            });
        }
    }
    let format = body["response_format"]["type"].as_str();
    exchange.wants_json = matches!(format, Some("json_schema") | Some("json_object"));
    let mut texts = Vec::new();
    for message in body["messages"].as_array().into_iter().flatten() {
        let role = message["role"].as_str().unwrap_or_default();
        match role {
            "assistant" => {
                for call in message["tool_calls"].as_array().into_iter().flatten() {
                    exchange.calls.push(PastCall {
                        id: call["id"].as_str().unwrap_or_default().to_owned(),
                        name: call["function"]["name"]
                            .as_str()
                            .unwrap_or_default()
                            .to_owned(),
                        result: None,
                        is_error: false,
                    });
                }
            }
            "tool" => {
                let id = message["tool_call_id"].as_str().unwrap_or_default();
                if let Some(call) = exchange
                    .calls
                    .iter_mut()
                    .find(|c| c.id == id && c.result.is_none())
                {
                    call.result = Some(result_text(&message["content"]));
                }
            }
            _ => {
                let text = result_text(&message["content"]);
                if role == "user" {
                    exchange.last_user_text = text.clone();
                }
                texts.push(text);
            }
        }
    }
    exchange.context = texts.join("\n");
    exchange.deferred = deferred_names(&exchange.context);
    exchange
}

/// The `- "name": "description"` entries after each of Qwen Code's deferred-tools
/// sentences (one reminder for its own deferred tools, one for MCP servers'), up to the
/// end of that reminder.
fn deferred_names(context: &str) -> Vec<String> {
    context
        .match_indices(DEFERRED_HEADER)
        .flat_map(|(at, _)| {
            context[at..]
                .lines()
                .skip(1)
                .take_while(|line| !line.contains("</system-reminder>"))
                .filter_map(|line| line.trim().strip_prefix("- \""))
                .filter_map(|rest| rest.split_once("\":"))
                .map(|(name, _)| name.to_owned())
        })
        .collect()
}

/// The answer: SSE chunks (the turn, its finish reason, the usage, `[DONE]`) when the
/// request streams, else one `chat.completion`.
pub fn render(turn: &Turn, model: &str, stream: bool, prompt_tokens: u64) -> (String, bool) {
    let (message, finish) = match turn {
        Turn::Call { id, name, args, .. } => (
            json!({"role": "assistant", "content": null, "tool_calls": [{
                "index": 0, "id": id, "type": "function",
                "function": {"name": name, "arguments": args.to_string()}}]}),
            "tool_calls",
        ),
        Turn::Text(text) => (json!({"role": "assistant", "content": text}), "stop"),
        Turn::Parallel(_) => panic!("{}", super::PARALLEL_IS_ANTHROPIC_ONLY),
    };
    let usage = json!({"prompt_tokens": prompt_tokens, "completion_tokens": 16,
                       "total_tokens": prompt_tokens + 16});
    let head = json!({"id": "chatcmpl-e2e", "created": 1, "model": model});
    if !stream {
        let mut message = message;
        if let Some(calls) = message["tool_calls"].as_array_mut() {
            for call in calls {
                if let Some(call) = call.as_object_mut() {
                    call.remove("index");
                }
            }
        }
        let mut body = head;
        body["object"] = json!("chat.completion");
        body["choices"] = json!([{"index": 0, "message": message, "finish_reason": finish}]);
        body["usage"] = usage;
        return (body.to_string(), false);
    }
    let chunk = |choices: Value, usage: Option<&Value>| {
        let mut c = head.clone();
        c["object"] = json!("chat.completion.chunk");
        c["choices"] = choices;
        if let Some(usage) = usage {
            c["usage"] = usage.clone();
        }
        format!("data: {c}\n\n")
    };
    let mut out = chunk(
        json!([{"index": 0, "delta": message, "finish_reason": null}]),
        None,
    );
    out += &chunk(
        json!([{"index": 0, "delta": {}, "finish_reason": finish}]),
        None,
    );
    out += &chunk(json!([]), Some(&usage));
    out += "data: [DONE]\n\n";
    (out, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_gives_its_tools_calls_results_and_deferred_names() {
        let body = json!({
            "tools": [{"type": "function", "function": {"name": "run_shell_command",
                       "parameters": {"type": "object"}}}],
            "messages": [
                {"role": "system", "content": "sys"},
                {"role": "user", "content": [{"type": "text", "text":
                    "<system-reminder>\nThe following MCP tools became available after startup and are reachable through `tool_search` and `tool_call`.\n\n### MCP servers\n#### context-mode\n- \"mcp__context-mode__ctx_execute\": \"Run code\"\n</system-reminder>"}]},
                {"role": "assistant", "content": null, "tool_calls": [{"id": "e2e_shell",
                    "type": "function", "function": {"name": "run_shell_command", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "e2e_shell",
                 "content": [{"type": "text", "text": "redirected to x"}]},
            ],
        });
        let exchange = read(&body);
        assert_eq!(exchange.offered[0].name, "run_shell_command");
        assert_eq!(exchange.deferred, ["mcp__context-mode__ctx_execute"]);
        let call = exchange.call("e2e_shell").expect("the call");
        assert_eq!(call.result.as_deref(), Some("redirected to x"));
        assert!(exchange.context.starts_with("sys\n"));
    }

    #[test]
    fn a_streamed_call_is_one_delta_a_finish_reason_the_usage_and_done() {
        let turn = Turn::Call {
            id: "e2e_execute".to_owned(),
            name: "context-mode-ctx_execute".to_owned(),
            namespace: None,
            args: json!({"language": "shell"}),
        };
        let (body, sse) = render(&turn, "gpt-4.1", true, 1200);
        assert!(sse);
        let events: Vec<Value> = body
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .filter(|d| *d != "[DONE]")
            .map(|d| serde_json::from_str(d).expect("json"))
            .collect();
        assert_eq!(events.len(), 3);
        let call = &events[0]["choices"][0]["delta"]["tool_calls"][0];
        assert_eq!(call["function"]["name"], "context-mode-ctx_execute");
        assert_eq!(call["function"]["arguments"], r#"{"language":"shell"}"#);
        assert_eq!(events[1]["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(events[2]["usage"]["prompt_tokens"], 1200);
        assert!(body.ends_with("data: [DONE]\n\n"));
    }
}
