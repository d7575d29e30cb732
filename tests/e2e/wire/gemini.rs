//! Gemini `generateContent` / `streamGenerateContent?alt=sse`, as Gemini CLI speaks it
//! (`GOOGLE_GEMINI_BASE_URL`): tools as `functionDeclarations`, calls and results as
//! `functionCall` / `functionResponse` parts whose `id` Gemini CLI carries back.

use serde_json::{Value, json};

use super::{Exchange, Offered, PastCall, Turn, result_text};

pub fn read(body: &Value) -> Exchange {
    let mut exchange = Exchange::default();
    for group in body["tools"].as_array().into_iter().flatten() {
        for declaration in group["functionDeclarations"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if let Some(name) = declaration["name"].as_str() {
                let schema = match &declaration["parametersJsonSchema"] {
                    Value::Null => declaration["parameters"].clone(),
                    schema => schema.clone(),
                };
                exchange.offered.push(Offered {
                    name: name.to_owned(),
                    namespace: None,
                    schema,
                });
            }
        }
    }
    let config = &body["generationConfig"];
    exchange.wants_json = !config["responseJsonSchema"].is_null()
        || !config["responseSchema"].is_null()
        || config["responseMimeType"].as_str() == Some("application/json");
    let mut texts = vec![parts_text(&body["systemInstruction"]["parts"])];
    for content in body["contents"].as_array().into_iter().flatten() {
        let role = content["role"].as_str().unwrap_or_default();
        if role == "user" {
            exchange.last_user_text = parts_text(&content["parts"]);
        }
        for part in content["parts"].as_array().into_iter().flatten() {
            if let Some(call) = part.get("functionCall") {
                exchange.calls.push(PastCall {
                    id: call["id"].as_str().unwrap_or_default().to_owned(),
                    name: call["name"].as_str().unwrap_or_default().to_owned(),
                    result: None,
                    is_error: false,
                });
            } else if let Some(response) = part.get("functionResponse") {
                let id = response["id"].as_str().unwrap_or_default();
                let name = response["name"].as_str().unwrap_or_default();
                let pending = exchange
                    .calls
                    .iter_mut()
                    .filter(|c| c.result.is_none())
                    .find(|c| c.id == id || (id.is_empty() && c.name == name));
                if let Some(call) = pending {
                    let body = &response["response"];
                    call.is_error = !body["error"].is_null();
                    call.result = Some(result_text(body));
                }
            } else if role != "model"
                && let Some(text) = part["text"].as_str()
            {
                texts.push(text.to_owned());
            }
        }
    }
    exchange.context = texts.join("\n");
    exchange
}

fn parts_text(parts: &Value) -> String {
    parts
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// One `GenerateContentResponse`; the SSE form is the same object as one `data:` event.
pub fn render(turn: &Turn, stream: bool, prompt_tokens: u64) -> (String, bool) {
    let part = match turn {
        Turn::Call { id, name, args, .. } => {
            json!({"functionCall": {"id": id, "name": name, "args": args}})
        }
        Turn::Text(text) => json!({"text": text}),
        Turn::Parallel(_) => panic!("{}", super::PARALLEL_IS_ANTHROPIC_ONLY),
    };
    let response = json!({
        "candidates": [{"content": {"role": "model", "parts": [part]},
                        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": prompt_tokens, "candidatesTokenCount": 16,
                          "totalTokenCount": prompt_tokens + 16},
        "modelVersion": "gemini-2.5-pro",
    });
    if stream {
        (format!("data: {response}\r\n\r\n"), true)
    } else {
        (response.to_string(), false)
    }
}
