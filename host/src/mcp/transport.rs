//! MCP over stdio: one JSON-RPC message per line.
//!
//! rmcp's own line transport decodes every message through its untagged
//! `JsonRpcMessage` enum, which buffers the whole message in serde's `Content`
//! tree and clones it on the way down: three or four copies of a 5 MB
//! `ctx_index` argument (measured: about 15 % of the server's CPU for that call).
//! This transport reads `tools/call` requests straight into rmcp's typed
//! request (one copy) and hands every other message to rmcp's own decoding, so
//! the protocol behaviour stays rmcp's: unparsable lines are ignored, well-formed
//! JSON of the wrong shape gets an "Invalid request" reply, non-MCP
//! notifications are skipped, over-long lines are dropped.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, ErrorData, JsonRpcMessage,
    JsonRpcRequest, RequestId,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use crate::limits::MCP_MESSAGE_MAX_BYTES;

/// The envelope of one incoming line, with `params` left unparsed.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default)]
    id: Option<RequestId>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
}

/// What one line turned out to be.
enum Parsed {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Nothing to deliver or answer (blank, unparsable, a notification we skip).
    Skip,
    /// Well-formed JSON that is not a valid message: answer "Invalid request".
    Invalid,
}

pub struct StdioTransport<R, W> {
    read: BufReader<R>,
    /// The line being read; kept across cancelled `receive` calls (rmcp polls
    /// `receive` inside a `select!`), cleared once a whole line is handled.
    line: Vec<u8>,
    /// Set while the rest of an over-long line is being dropped.
    discarding: bool,
    write: Arc<Mutex<W>>,
}

/// How many leading bytes of an over-long line are searched for its id.
const OVERSIZED_ID_SCAN_BYTES: usize = 4_096;

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> StdioTransport<R, W> {
    pub fn new(read: R, write: W) -> Self {
        StdioTransport {
            read: BufReader::with_capacity(64 * 1024, read),
            line: Vec::new(),
            discarding: false,
            write: Arc::new(Mutex::new(write)),
        }
    }

    /// Reads up to the next newline into `self.line`.
    async fn read_line(&mut self) -> std::io::Result<LineRead> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                return Ok(LineRead::Eof);
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            if self.discarding {
                self.read.consume(take);
                self.discarding = newline.is_none();
                continue;
            }
            if self.line.len() + take > MCP_MESSAGE_MAX_BYTES {
                tracing::error!(
                    "incoming message over {MCP_MESSAGE_MAX_BYTES} bytes, discarding it"
                );
                let mut head = std::mem::take(&mut self.line);
                if head.len() < OVERSIZED_ID_SCAN_BYTES {
                    head.extend_from_slice(&available[..take.min(OVERSIZED_ID_SCAN_BYTES)]);
                }
                let id = leading_id(&head);
                self.discarding = newline.is_none();
                self.read.consume(take);
                return Ok(LineRead::Oversized(id));
            }
            self.line.extend_from_slice(&available[..take]);
            self.read.consume(take);
            if newline.is_some() {
                return Ok(LineRead::Line);
            }
        }
    }
}

enum LineRead {
    Line,
    /// A message over the limit, with its id when its first bytes name one; the
    /// rest of it is skipped by the next reads.
    Oversized(Option<RequestId>),
    Eof,
}

impl<R, W> Transport<RoleServer> for StdioTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = self.write.clone();
        async move {
            let mut bytes = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            bytes.push(b'\n');
            let mut write = write.lock().await;
            write.write_all(&bytes).await?;
            write.flush().await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read_line().await {
                Ok(LineRead::Line) => {}
                Ok(LineRead::Oversized(id)) => {
                    // A request too long to read still gets its answer, so the
                    // client is not left waiting; a notification gets none.
                    if let Some(id) = id {
                        let reply = TxJsonRpcMessage::<RoleServer>::error(
                            ErrorData::invalid_request(
                                format!(
                                    "message over {MCP_MESSAGE_MAX_BYTES} bytes; send less per call"
                                ),
                                None,
                            ),
                            Some(id),
                        );
                        if self.send(reply).await.is_err() {
                            return None;
                        }
                    }
                    continue;
                }
                Ok(LineRead::Eof) => return None,
                Err(err) => {
                    tracing::error!("cannot read stdin: {err}");
                    return None;
                }
            }
            let parsed = parse_line(&self.line);
            self.line.clear();
            match parsed {
                Parsed::Message(message) => return Some(*message),
                Parsed::Skip => {}
                Parsed::Invalid => {
                    let reply = TxJsonRpcMessage::<RoleServer>::error(
                        ErrorData::invalid_request("Invalid request", None),
                        None,
                    );
                    if self.send(reply).await.is_err() {
                        return None;
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write.lock().await.shutdown().await
    }
}

fn parse_line(line: &[u8]) -> Parsed {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Parsed::Skip;
    }
    if let Some(message) = tool_call(line) {
        return Parsed::Message(Box::new(message));
    }
    match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
        Ok(message) => Parsed::Message(Box::new(message)),
        Err(err) if err.is_syntax() || err.is_eof() => {
            tracing::debug!("ignoring unparsable incoming message: {err}");
            Parsed::Skip
        }
        Err(err) => {
            if is_skippable_notification(line) {
                return Parsed::Skip;
            }
            tracing::debug!("protocol error on incoming message: {err}");
            Parsed::Invalid
        }
    }
}

/// A `tools/call` request decoded without the generic enum; `None` for any other
/// message, or when the fast path cannot decode it (rmcp's decoding then decides).
fn tool_call(line: &[u8]) -> Option<RxJsonRpcMessage<RoleServer>> {
    let envelope: Envelope<'_> = serde_json::from_slice(line).ok()?;
    if envelope.method.as_deref() != Some("tools/call") {
        return None;
    }
    let id = envelope.id?;
    let mut params: CallToolRequestParams = serde_json::from_str(envelope.params?.get()).ok()?;
    // rmcp keeps `_meta` (progress token …) in the request's extensions.
    let meta = params.meta.take();
    let mut request = CallToolRequest::new(params);
    if let Some(meta) = meta {
        request.extensions.insert(meta);
    }
    Some(JsonRpcMessage::Request(JsonRpcRequest::new(
        id,
        ClientRequest::CallToolRequest(request),
    )))
}

/// The `"id"` of a request from the first bytes of its line (clients write
/// `jsonrpc`, `id` and `method` before `params`), to answer a message too long to read.
fn leading_id(head: &[u8]) -> Option<RequestId> {
    let head = &head[..head.len().min(OVERSIZED_ID_SCAN_BYTES)];
    let key = head.windows(4).position(|w| w == b"\"id\"")?;
    let rest = &head[key + 4..];
    let colon = rest.iter().position(|b| !b.is_ascii_whitespace())?;
    let rest = rest[colon..].strip_prefix(b":")?;
    serde_json::Deserializer::from_slice(rest)
        .into_iter::<RequestId>()
        .next()?
        .ok()
}

/// A notification (a method without an id) that rmcp cannot decode: an unknown or
/// non-MCP one (LSP traffic, vendor extensions). JSON-RPC never answers a
/// notification, so it is skipped.
fn is_skippable_notification(line: &[u8]) -> bool {
    serde_json::from_slice::<Envelope<'_>>(line)
        .is_ok_and(|envelope| envelope.id.is_none() && envelope.method.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::RequestMetaObject;

    fn call_line(arguments: &str) -> Vec<u8> {
        format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"ctx_index","arguments":{arguments},"_meta":{{"progressToken":"p1"}}}}}}"#
        )
        .into_bytes()
    }

    #[test]
    fn a_tool_call_decodes_like_rmcp_decodes_it() {
        let line = call_line(r#"{"content":"a \"quoted\" line\nand more","source":"s"}"#);
        let Parsed::Message(fast) = parse_line(&line) else {
            panic!("not a message")
        };
        let slow: RxJsonRpcMessage<RoleServer> = serde_json::from_slice(&line).unwrap();
        let (JsonRpcMessage::Request(fast), JsonRpcMessage::Request(slow)) = (*fast, slow) else {
            panic!("not requests")
        };
        assert_eq!(fast.id, slow.id);
        let (ClientRequest::CallToolRequest(fast), ClientRequest::CallToolRequest(slow)) =
            (fast.request, slow.request)
        else {
            panic!("not tool calls")
        };
        assert_eq!(fast.params, slow.params);
        assert_eq!(
            fast.extensions.get::<RequestMetaObject>(),
            slow.extensions.get::<RequestMetaObject>()
        );
        assert!(fast.extensions.get::<RequestMetaObject>().is_some());
    }

    #[test]
    fn other_messages_go_through_rmcp() {
        let line = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        assert!(matches!(parse_line(line), Parsed::Message(_)));
        let notification = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert!(matches!(parse_line(notification), Parsed::Message(_)));
    }

    #[test]
    fn garbage_is_ignored_and_wrong_shapes_are_invalid() {
        assert!(matches!(parse_line(b"{not json\n"), Parsed::Skip));
        assert!(matches!(parse_line(b"   \r\n"), Parsed::Skip));
        assert!(matches!(
            parse_line(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":5}"#),
            Parsed::Skip
        ));
        // A tool call the fast path cannot type is left to rmcp's decoding.
        assert!(
            tool_call(
                br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":1}}"#
            )
            .is_none()
        );
        assert!(matches!(parse_line(b"[1,2]"), Parsed::Invalid));
    }

    #[test]
    fn the_id_of_an_over_long_message_is_found_in_its_head() {
        let head = br#"{"jsonrpc":"2.0", "id" : 42,"method":"tools/call","params":{"arguments":{"content":"xxxx"#;
        assert_eq!(leading_id(head), Some(RequestId::Number(42)));
        assert_eq!(
            leading_id(br#"{"id":"abc","method":"x""#),
            Some(RequestId::String("abc".into()))
        );
        assert_eq!(leading_id(br#"{"method":"tools/call","params":{"#), None);
    }
}
