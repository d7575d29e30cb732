//! One incoming line → one decision: deliver a message to rmcp's service loop, or
//! answer it here. Pure (no I/O), so the "every request answered" rule is unit- and
//! property-tested against this function alone (ADR 14).
//!
//! - A line that names a request id always gets one reply with that id: either rmcp
//!   answers the delivered request, or this module returns the error to write.
//! - A notification (a method without an id) and a response never get a reply.
//! - A line that cannot be read as JSON gets the parse error -32700, with the id a
//!   shallow scan recovers, else with a null id.
//! - Lone UTF-16 surrogates in `\u` escapes (Node's `JSON.stringify` writes them when a
//!   string is cut inside an emoji) are read as U+FFFD instead of failing the line.
//! - Batches are answered with one -32600 per element id: MCP removed JSON-RPC
//!   batching in 2025-06-18, and this server negotiates that revision or later.

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequest, CallToolRequestMethod, CallToolRequestParams, ClientRequest, ConstString,
    JsonRpcMessage, JsonRpcRequest, RequestId,
};
use rmcp::service::RxJsonRpcMessage;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;

use super::scan::{ShallowScan, reply_id};
use crate::limits::JSON_NESTING_MAX_LEVELS;

pub const PARSE_ERROR: i32 = -32700;
pub const INVALID_REQUEST: i32 = -32600;
pub const INVALID_PARAMS: i32 = -32602;

/// What the transport does with one line.
#[derive(Debug)]
pub enum Decoded {
    /// A message for rmcp's service loop (which answers every request it is given).
    Deliver(Box<RxJsonRpcMessage<RoleServer>>),
    /// Errors the transport writes itself, one line each; empty = nothing to answer.
    Answer(Vec<FramingError>),
}

/// A JSON-RPC error reply written by the transport. The id is echoed as the client
/// wrote it (an id rmcp cannot represent, like `1.5`, still reaches its sender).
#[derive(Debug, Serialize)]
pub struct FramingError {
    jsonrpc: &'static str,
    pub id: Option<Box<RawValue>>,
    pub error: ErrorBody,
}

#[derive(Debug, Serialize)]
pub struct ErrorBody {
    pub code: i32,
    pub message: String,
}

impl FramingError {
    pub fn new(id: Option<Box<RawValue>>, code: i32, message: impl Into<String>) -> Self {
        FramingError {
            jsonrpc: "2.0",
            id,
            error: ErrorBody {
                code,
                message: crate::human::one_line(&message.into()),
            },
        }
    }

    /// The reply as one line of JSON, newline included.
    pub fn to_line(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec(self).unwrap_or_else(|_| {
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}"#
                .to_vec()
        });
        bytes.push(b'\n');
        bytes
    }
}

/// The envelope of one message, every member left unparsed. A member that is
/// present is `Some` even when it is `null` (`"id": null` is a request, not a
/// notification).
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    jsonrpc: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    method: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// Why serde rejected a line; a lone-surrogate repair may still save it.
enum Rejected {
    /// Not even the envelope could be read.
    Envelope(serde_json::Error),
    /// The envelope of a request was fine; its params were not.
    Params {
        id: Option<Box<RawValue>>,
        method: String,
        err: serde_json::Error,
    },
    /// A notification or response rmcp cannot decode: never answered.
    Unanswerable(serde_json::Error),
}

/// Decides what to do with one line (its newline, a CR and a BOM are ignored).
pub fn decode_line(line: &[u8]) -> Decoded {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Decoded::Answer(Vec::new());
    }
    let text = match std::str::from_utf8(line) {
        Ok(text) => text,
        Err(err) => {
            let why = format!(
                "Parse error: invalid UTF-8 at byte {}; send UTF-8 JSON",
                err.valid_up_to()
            );
            return unreadable(line, PARSE_ERROR, why);
        }
    };
    let decided = decode_text(text);
    match decided {
        Ok(decoded) => decoded,
        Err(rejected) => match repair_lone_surrogates(text) {
            Some(repaired) => {
                decode_text(&repaired).unwrap_or_else(|r| answer_rejected(repaired.as_bytes(), r))
            }
            None => answer_rejected(line, rejected),
        },
    }
}

fn decode_text(text: &str) -> Result<Decoded, Rejected> {
    if text.trim_start().starts_with('[') {
        return decode_batch(text);
    }
    let envelope: Envelope<'_> = serde_json::from_str(text).map_err(Rejected::Envelope)?;
    let Some(raw_id) = envelope.id else {
        return decode_without_id(text, &envelope);
    };
    let id = reply_id(raw_id);
    let refuse = |code, message: &str| {
        Ok(Decoded::Answer(vec![FramingError::new(
            id.clone(),
            code,
            message,
        )]))
    };
    if envelope.method.is_none() && (envelope.result.is_some() || envelope.error.is_some()) {
        // A response to a request of ours (ping, elicitation): rmcp's business; never answered.
        return serde_json::from_str(text)
            .map(|m| Decoded::Deliver(Box::new(m)))
            .map_err(Rejected::Unanswerable);
    }
    if envelope.jsonrpc.map(RawValue::get) != Some(r#""2.0""#) {
        return refuse(
            INVALID_REQUEST,
            r#"Invalid request: "jsonrpc" must be "2.0""#,
        );
    }
    let method = match envelope.method {
        Some(m) if m.get().starts_with('"') => {
            // A string serde can't read (a lone surrogate): let the repair have a go.
            serde_json::from_str::<String>(m.get()).map_err(Rejected::Envelope)?
        }
        _ => {
            return refuse(
                INVALID_REQUEST,
                r#"Invalid request: "method" must be a string"#,
            );
        }
    };
    if serde_json::from_str::<RequestId>(raw_id.get()).is_err() {
        return refuse(
            INVALID_REQUEST,
            r#"Invalid request: "id" must be a string or an integer"#,
        );
    }
    if let Some(params) = envelope.params
        && !params.get().starts_with(['{', 'n'])
    {
        return refuse(
            INVALID_PARAMS,
            &format!("Invalid params: {method} takes its params as an object"),
        );
    }
    let rejected = |err| Rejected::Params {
        id: id.clone(),
        method: method.clone(),
        err,
    };
    if method == CallToolRequestMethod::VALUE {
        return tool_call(raw_id, envelope.params).map_err(rejected);
    }
    let message: RxJsonRpcMessage<RoleServer> = serde_json::from_str(text).map_err(rejected)?;
    if let JsonRpcMessage::Request(JsonRpcRequest {
        request: ClientRequest::CustomRequest(custom),
        ..
    }) = &message
        && KNOWN_REQUEST_METHODS.contains(&custom.method.as_str())
    {
        // rmcp falls back to its custom-request variant when the params of a known
        // method don't fit; that would be answered -32601 "method not found".
        let message = format!("Invalid params: the params of {method} do not have its shape");
        return refuse(INVALID_PARAMS, &message);
    }
    Ok(Decoded::Deliver(Box::new(message)))
}

/// A message without an id: a notification (never answered) or not a message at all.
fn decode_without_id(text: &str, envelope: &Envelope<'_>) -> Result<Decoded, Rejected> {
    if envelope.method.is_none() {
        if envelope.result.is_some() || envelope.error.is_some() {
            // A response without an id (an error reply to something unreadable we sent).
            return Ok(Decoded::Answer(Vec::new()));
        }
        return Ok(Decoded::Answer(vec![FramingError::new(
            None,
            INVALID_REQUEST,
            "Invalid request: neither a request (method and id) nor a notification (method)",
        )]));
    }
    if envelope.jsonrpc.map(RawValue::get) != Some(r#""2.0""#) {
        tracing::debug!("skipping a notification that is not JSON-RPC 2.0");
        return Ok(Decoded::Answer(Vec::new()));
    }
    match serde_json::from_str::<RxJsonRpcMessage<RoleServer>>(text) {
        Ok(message) => Ok(Decoded::Deliver(Box::new(message))),
        Err(err) => Err(Rejected::Unanswerable(err)),
    }
}

/// A `tools/call` request decoded straight into rmcp's typed request (ADR 9): the
/// argument is copied once instead of through serde's buffered untagged decoding.
fn tool_call(raw_id: &RawValue, params: Option<&RawValue>) -> Result<Decoded, serde_json::Error> {
    let id: RequestId = serde_json::from_str(raw_id.get())?;
    let params = params.map_or("null", RawValue::get);
    let mut params: CallToolRequestParams = serde_json::from_str(params)?;
    // rmcp keeps `_meta` (progress token …) in the request's extensions.
    let meta = params.meta.take();
    let mut request = CallToolRequest::new(params);
    if let Some(meta) = meta {
        request.extensions.insert(meta);
    }
    Ok(Decoded::Deliver(Box::new(JsonRpcMessage::Request(
        JsonRpcRequest::new(id, ClientRequest::CallToolRequest(request)),
    ))))
}

const BATCH_REFUSED: &str = "Invalid request: JSON-RPC batches are not part of MCP since \
     2025-06-18; send one message per line";

/// A JSON array: one refusal per element that is a request, none for notifications.
fn decode_batch(text: &str) -> Result<Decoded, Rejected> {
    let items: Vec<&RawValue> = serde_json::from_str(text).map_err(Rejected::Envelope)?;
    let mut answers = Vec::new();
    let mut any_invalid = items.is_empty();
    for item in items {
        match serde_json::from_str::<Envelope<'_>>(item.get()) {
            Ok(Envelope { id: Some(id), .. }) => {
                answers.push(FramingError::new(
                    reply_id(id),
                    INVALID_REQUEST,
                    BATCH_REFUSED,
                ));
            }
            Ok(Envelope {
                method: Some(_), ..
            }) => {}
            _ => any_invalid = true,
        }
    }
    if answers.is_empty() && any_invalid {
        answers.push(FramingError::new(None, INVALID_REQUEST, BATCH_REFUSED));
    }
    Ok(Decoded::Answer(answers))
}

/// The error reply for a line serde rejected, with whatever id a shallow scan finds.
fn answer_rejected(line: &[u8], rejected: Rejected) -> Decoded {
    match rejected {
        Rejected::Envelope(err) if err.is_syntax() || err.is_eof() => {
            unreadable(line, PARSE_ERROR, format!("Parse error: {err}"))
        }
        // JSON, but not an object: a string, a number, `null`.
        Rejected::Envelope(err) => {
            unreadable(line, INVALID_REQUEST, format!("Invalid request: {err}"))
        }
        Rejected::Params { id, method, err } => {
            let scan = ShallowScan::of(line);
            let message = if scan.max_depth >= JSON_NESTING_MAX_LEVELS {
                format!(
                    "Invalid params: {method} params nested deeper than {JSON_NESTING_MAX_LEVELS} levels"
                )
            } else {
                format!("Invalid params for {method}: {err}")
            };
            Decoded::Answer(vec![FramingError::new(id, INVALID_PARAMS, message)])
        }
        Rejected::Unanswerable(err) => {
            tracing::debug!("skipping an undecodable notification or response: {err}");
            Decoded::Answer(Vec::new())
        }
    }
}

/// A line that is not a readable message: `code` with the id its top-level members
/// name, nothing when they make it a notification, else with a null id.
fn unreadable(line: &[u8], code: i32, why: String) -> Decoded {
    let scan = ShallowScan::of(line);
    if !scan.has_id && scan.has_method {
        tracing::debug!("skipping an unreadable notification: {why}");
        return Decoded::Answer(Vec::new());
    }
    Decoded::Answer(vec![FramingError::new(scan.id, code, why)])
}

/// The line with every unpaired UTF-16 surrogate escape (`\ud83d` without its low
/// half, or a low half alone) replaced by `\ufffd`; `None` when there is none.
pub fn repair_lone_surrogates(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(unit) = hex_escape(bytes, i) else {
            i += 2; // an escaped character (`\\`, `\"` …): never the start of another escape
            continue;
        };
        let paired = match unit {
            0xD800..=0xDBFF => {
                hex_escape(bytes, i + 6).is_some_and(|low| (0xDC00..=0xDFFF).contains(&low))
            }
            0xDC00..=0xDFFF => false,
            _ => {
                i += 6;
                continue;
            }
        };
        if paired {
            i += 12;
            continue;
        }
        let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
        out.push_str(&text[copied..i]);
        out.push_str("\\ufffd");
        i += 6;
        copied = i;
    }
    out.map(|mut out| {
        out.push_str(&text[copied..]);
        out
    })
}

/// The code unit of the `\uXXXX` escape at `at`, if one is there.
fn hex_escape(bytes: &[u8], at: usize) -> Option<u16> {
    let escape = bytes.get(at..at + 6)?;
    if escape[0] != b'\\' || escape[1] != b'u' {
        return None;
    }
    let digits = std::str::from_utf8(&escape[2..]).ok()?;
    u16::from_str_radix(digits, 16).ok()
}

/// Requests rmcp types; params that don't fit one of them are invalid params.
const KNOWN_REQUEST_METHODS: &[&str] = &[
    rmcp::model::PingRequestMethod::VALUE,
    rmcp::model::InitializeResultMethod::VALUE,
    rmcp::model::CompleteRequestMethod::VALUE,
    rmcp::model::SetLevelRequestMethod::VALUE,
    rmcp::model::GetPromptRequestMethod::VALUE,
    rmcp::model::ListPromptsRequestMethod::VALUE,
    rmcp::model::ListResourcesRequestMethod::VALUE,
    rmcp::model::ListResourceTemplatesRequestMethod::VALUE,
    rmcp::model::ReadResourceRequestMethod::VALUE,
    rmcp::model::SubscribeRequestMethod::VALUE,
    rmcp::model::UnsubscribeRequestMethod::VALUE,
    rmcp::model::CallToolRequestMethod::VALUE,
    rmcp::model::ListToolsRequestMethod::VALUE,
];

#[cfg(test)]
mod tests;
