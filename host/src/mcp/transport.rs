//! MCP over stdio: one JSON-RPC message per line.
//!
//! rmcp's own line transport decodes every message through its untagged
//! `JsonRpcMessage` enum, which buffers the whole message in serde's `Content`
//! tree and clones it on the way down: three or four copies of a 5 MB
//! `ctx_index` argument (measured: about 15 % of the server's CPU for that call).
//! This transport reads `tools/call` requests straight into rmcp's typed
//! request (one copy, ADR 9). What each line is, and which lines the transport
//! answers itself so that no request id goes unanswered, is decided in
//! [`super::framing`] (ADR 14). Over-long lines are dropped and answered.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use super::framing::{Decoded, FramingError, INVALID_REQUEST, decode_line};
use super::lifecycle::Lifecycle;
use super::scan::ShallowScan;
use crate::limits::{MCP_DIRECT_WRITE_MAX_BYTES, MCP_MESSAGE_MAX_BYTES};

pub struct StdioTransport<R, W> {
    read: BufReader<R>,
    /// The line being read; kept across cancelled `receive` calls (rmcp polls
    /// `receive` inside a `select!`), cleared once a whole line is handled.
    line: Vec<u8>,
    /// Set while the rest of an over-long line is being dropped.
    discarding: bool,
    write: Arc<Mutex<W>>,
    /// Told when stdin ends; once closing, nothing more is written.
    lifecycle: Arc<Lifecycle>,
}

/// How many leading bytes of an over-long line are searched for its id.
const OVERSIZED_ID_SCAN_BYTES: usize = 4_096;

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> StdioTransport<R, W> {
    pub fn new(read: R, write: W, lifecycle: Arc<Lifecycle>) -> Self {
        StdioTransport {
            read: BufReader::with_capacity(64 * 1024, read),
            line: Vec::new(),
            discarding: false,
            write: Arc::new(Mutex::new(write)),
            lifecycle,
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
                let id = ShallowScan::of(&head[..head.len().min(OVERSIZED_ID_SCAN_BYTES)]).id;
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
    Oversized(Option<Box<serde_json::value::RawValue>>),
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
        let lifecycle = self.lifecycle.clone();
        async move {
            if lifecycle.is_closing() {
                return Ok(());
            }
            let mut bytes = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            bytes.push(b'\n');
            write_all(&write, &bytes).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let answers = match self.read_line().await {
                Ok(LineRead::Line) => {
                    let decoded = decode_line(&self.line);
                    self.line.clear();
                    match decoded {
                        Decoded::Deliver(message) => return Some(*message),
                        Decoded::Answer(answers) => answers,
                    }
                }
                // A request too long to read still gets its answer, so the client
                // is not left waiting; a notification gets none.
                Ok(LineRead::Oversized(id)) => id
                    .map(|id| {
                        let message = format!(
                            "message over {MCP_MESSAGE_MAX_BYTES} bytes; send less per call"
                        );
                        FramingError::new(Some(id), INVALID_REQUEST, message)
                    })
                    .into_iter()
                    .collect(),
                Ok(LineRead::Eof) => {
                    self.lifecycle.input_ended();
                    return None;
                }
                Err(err) => {
                    tracing::error!("cannot read stdin: {err}");
                    self.lifecycle.input_ended();
                    return None;
                }
            };
            for answer in answers {
                // Written by a task of its own: rmcp may drop this `receive` future
                // at any await, and a reply must not be lost or cut in half.
                if self.lifecycle.is_closing() {
                    continue;
                }
                let write = self.write.clone();
                tokio::spawn(async move {
                    if let Err(err) = write_all(&write, &answer.to_line()).await {
                        tracing::warn!("cannot write an error reply: {err}");
                    }
                });
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write.lock().await.shutdown().await
    }
}

/// The server's stdout. tokio's own writes every message through its blocking pool (a
/// thread hop to write and one back), which was most of a served hook's round trip
/// beyond its work; a short reply is written here directly instead, a long one still
/// through tokio so a slow reader never holds a worker.
pub struct Stdout {
    pooled: tokio::io::Stdout,
    /// A message is on its way through `pooled`: the rest of it and its flush go there.
    pooling: bool,
}

impl Default for Stdout {
    fn default() -> Self {
        Stdout {
            pooled: tokio::io::stdout(),
            pooling: false,
        }
    }
}

impl AsyncWrite for Stdout {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        use std::io::Write;
        if !self.pooling && buf.len() <= MCP_DIRECT_WRITE_MAX_BYTES {
            let mut out = std::io::stdout().lock();
            return std::task::Poll::Ready(out.write_all(buf).map(|()| buf.len()));
        }
        self.pooling = true;
        std::pin::Pin::new(&mut self.pooled).poll_write(cx, buf)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        use std::io::Write;
        if self.pooling {
            let flushed = std::pin::Pin::new(&mut self.pooled).poll_flush(cx);
            if flushed.is_ready() {
                self.pooling = false;
            }
            return flushed;
        }
        std::task::Poll::Ready(std::io::stdout().lock().flush())
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.pooled).poll_shutdown(cx)
    }
}

async fn write_all<W: AsyncWrite + Unpin>(write: &Mutex<W>, bytes: &[u8]) -> std::io::Result<()> {
    let mut write = write.lock().await;
    write.write_all(bytes).await?;
    write.flush().await
}
