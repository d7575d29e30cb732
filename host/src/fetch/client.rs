//! One hardened HTTP GET: our own connector (dial only the addresses the policy checked,
//! never a second DNS lookup), redirects followed by hand with every hop re-checked, a
//! bounded body and one time budget for the whole exchange.

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::body::Incoming;
use hyper::header::{
    ACCEPT, ACCEPT_ENCODING, CONTENT_ENCODING, CONTENT_TYPE, HOST, LOCATION, USER_AGENT,
};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls::pki_types::ServerName;
use tokio_rustls::rustls::{ClientConfig, RootCertStore};
use url::{Host, Position, Url};

use super::address::{check_scheme, resolve_checked, strict_from_env};
use super::decode::{decode_body, is_binary_content_type, looks_binary, mime_of};
use super::error::{FetchError, FetchFailure};
use crate::limits;

const ACCEPT_VALUE: &str = "text/html,application/xhtml+xml,text/markdown;q=0.9,\
text/plain;q=0.9,application/json;q=0.9,*/*;q=0.8";

/// Asked about every redirect target before it is fetched: `Err` is why it is refused
/// (the user's `WebFetch` rules hold on every hop).
#[derive(Clone)]
pub struct HopCheck(pub std::sync::Arc<HopVerdict>);

/// The function behind a [`HopCheck`].
pub type HopVerdict = dyn Fn(&Url) -> Result<(), FetchFailure> + Send + Sync;

impl std::fmt::Debug for HopCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HopCheck")
    }
}

/// Limits of one fetch. `Default` is the product's limits with strict mode off;
/// [`FetchOptions::from_env`] also reads `CTX_FETCH_STRICT`.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// The whole fetch: lookups, connects, redirects, headers and body.
    pub timeout: Duration,
    /// Body bytes kept; the rest is not read and the page is marked truncated.
    pub body_max_bytes: usize,
    pub max_redirects: usize,
    /// Refuse loopback and private addresses too.
    pub strict: bool,
    /// Judges each redirect target; `None` follows every allowed address.
    pub redirect_check: Option<HopCheck>,
}

impl Default for FetchOptions {
    fn default() -> Self {
        Self {
            timeout: Duration::from_millis(limits::FETCH_TIMEOUT_MS),
            body_max_bytes: limits::FETCH_BODY_MAX_BYTES,
            max_redirects: limits::FETCH_MAX_REDIRECTS,
            strict: false,
            redirect_check: None,
        }
    }
}

impl FetchOptions {
    /// The product's limits, strict when `CTX_FETCH_STRICT` is on.
    pub fn from_env() -> Self {
        Self {
            strict: strict_from_env(),
            ..Self::default()
        }
    }
}

/// A fetched page, decoded to text. HTML stays HTML: the indexer converts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchedPage {
    /// The URL asked for, normalized by the URL parser.
    pub requested_url: String,
    /// Where the last redirect led (equal to `requested_url` without redirects).
    pub final_url: String,
    pub status: u16,
    /// The Content-Type header as sent (empty when absent).
    pub content_type: String,
    pub body: String,
    /// The body was longer than the limit and was cut.
    pub truncated: bool,
}

/// Fetch `url` (http/https only) under the policy and limits in `opts`.
pub async fn fetch_url(url: &str, opts: &FetchOptions) -> Result<FetchedPage, FetchError> {
    let fail = |failure| FetchError::new(url, failure);
    let start =
        Url::parse(url.trim()).map_err(|e| fail(FetchFailure::InvalidUrl(e.to_string())))?;
    check_scheme(&start).map_err(fail)?;
    match tokio::time::timeout(opts.timeout, follow(start, opts)).await {
        Ok(result) => result.map_err(fail),
        Err(_) => Err(fail(FetchFailure::Timeout(opts.timeout))),
    }
}

async fn follow(start: Url, opts: &FetchOptions) -> Result<FetchedPage, FetchFailure> {
    let mut current = start.clone();
    let mut redirects = 0;
    loop {
        let addrs =
            resolve_checked(&current, opts.strict)
                .await
                .map_err(|failure| match redirects {
                    0 => failure,
                    _ => redirect_refusal(&current, failure),
                })?;
        tracing::debug!(url = %current, ?addrs, "fetch hop");
        let exchange = exchange(&current, &addrs, opts.timeout).await?;
        let status = exchange.response.status();
        if status.is_redirection() && status != StatusCode::NOT_MODIFIED {
            let next = redirect_target(&current, &exchange.response)?;
            redirects += 1;
            if redirects > opts.max_redirects {
                return Err(FetchFailure::TooManyRedirects(opts.max_redirects));
            }
            check_scheme(&next).map_err(|failure| redirect_refusal(&next, failure))?;
            if let Some(HopCheck(check)) = &opts.redirect_check {
                check(&next).map_err(|failure| redirect_refusal(&next, failure))?;
            }
            current = next;
            continue;
        }
        if !status.is_success() {
            return Err(FetchFailure::Status(status.as_u16()));
        }
        let content_type = header_text(&exchange.response, CONTENT_TYPE);
        let encoding = header_text(&exchange.response, CONTENT_ENCODING).to_ascii_lowercase();
        if !encoding.is_empty() && encoding != "identity" {
            return Err(FetchFailure::Protocol(format!(
                "the server sent {encoding}-encoded content although identity was asked for"
            )));
        }
        if is_binary_content_type(&content_type) {
            return Err(FetchFailure::NotText(mime_of(&content_type)));
        }
        let (bytes, truncated) = read_body(exchange, opts.body_max_bytes).await?;
        if looks_binary(&bytes) {
            let label = match mime_of(&content_type) {
                mime if mime.is_empty() => "(none)".to_string(),
                mime => mime,
            };
            return Err(FetchFailure::NotText(label));
        }
        return Ok(FetchedPage {
            requested_url: start.to_string(),
            final_url: current.to_string(),
            status: status.as_u16(),
            body: decode_body(&bytes, &content_type, truncated),
            content_type,
            truncated,
        });
    }
}

fn redirect_target(current: &Url, response: &Response<Incoming>) -> Result<Url, FetchFailure> {
    response
        .headers()
        .get(LOCATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|location| current.join(location.trim()).ok())
        .ok_or(FetchFailure::BadRedirect(response.status().as_u16()))
}

fn header_text(response: &Response<Incoming>, name: hyper::header::HeaderName) -> String {
    response
        .headers()
        .get(name)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).trim().to_string())
        .unwrap_or_default()
}

/// A refusal on a redirect hop names the hop, so the agent sees where it was sent.
fn redirect_refusal(hop: &Url, failure: FetchFailure) -> FetchFailure {
    match failure {
        FetchFailure::Blocked(_) | FetchFailure::Scheme(_) => FetchFailure::RedirectRefused {
            target: hop.to_string(),
            reason: Box::new(failure),
        },
        other => other,
    }
}

/// A response whose connection task lives exactly as long as it does.
struct Exchange {
    response: Response<Incoming>,
    _connection: AbortOnDrop,
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

async fn exchange(
    url: &Url,
    addrs: &[SocketAddr],
    budget: Duration,
) -> Result<Exchange, FetchFailure> {
    let tcp = connect(addrs, budget).await?;
    if url.scheme() == "https" {
        let tls = tls_handshake(url, tcp).await?;
        send(url, tls).await
    } else {
        send(url, tcp).await
    }
}

/// Try each checked address in turn; each attempt gets an equal share of the budget so a
/// black-holed first address cannot starve the others.
async fn connect(addrs: &[SocketAddr], budget: Duration) -> Result<TcpStream, FetchFailure> {
    let attempt_budget = budget / u32::try_from(addrs.len().max(1)).unwrap_or(u32::MAX);
    let mut last = FetchFailure::Connect("no address to connect to".into());
    for addr in addrs {
        #[cfg(test)]
        super::net_trace::record(format!("connect {addr}"));
        match tokio::time::timeout(attempt_budget, TcpStream::connect(addr)).await {
            Ok(Ok(stream)) => return Ok(stream),
            Ok(Err(err)) if err.kind() == std::io::ErrorKind::ConnectionRefused => {
                last = FetchFailure::ConnectionRefused;
            }
            Ok(Err(err)) => {
                last =
                    FetchFailure::Connect(format!("cannot connect to {addr}: {}", io_phrase(&err)));
            }
            Err(_) => last = FetchFailure::Connect(format!("connecting to {addr} timed out")),
        }
    }
    Err(last)
}

/// An io error's message without the "(os error N)" suffix, starting lowercase to read
/// well after a colon.
fn io_phrase(err: &std::io::Error) -> String {
    let text = err.to_string();
    let text = text
        .find(" (os error")
        .map_or(text.as_str(), |at| &text[..at]);
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_lowercase().chain(chars).collect())
        .unwrap_or_default()
}

fn tls_config() -> Result<Arc<ClientConfig>, FetchFailure> {
    static CONFIG: OnceLock<Result<Arc<ClientConfig>, String>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let mut roots = RootCertStore::empty();
            roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
            #[cfg(test)]
            roots
                .add(super::test_tls::ca_der())
                .map_err(|e| e.to_string())?;
            let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
            let mut config = ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map_err(|e| e.to_string())?
                .with_root_certificates(roots)
                .with_no_client_auth();
            // We speak HTTP/1.1 only; say so, or an h2-only answer would be garbage to us.
            config.alpn_protocols = vec![b"http/1.1".to_vec()];
            Ok(Arc::new(config))
        })
        .clone()
        .map_err(FetchFailure::Tls)
}

async fn tls_handshake(
    url: &Url,
    tcp: TcpStream,
) -> Result<tokio_rustls::client::TlsStream<TcpStream>, FetchFailure> {
    let server_name = match url.host() {
        Some(Host::Domain(domain)) => ServerName::try_from(domain.to_string())
            .map_err(|_| FetchFailure::Tls(format!("invalid server name {domain}")))?,
        Some(Host::Ipv4(ip)) => ServerName::IpAddress(std::net::IpAddr::V4(ip).into()),
        Some(Host::Ipv6(ip)) => ServerName::IpAddress(std::net::IpAddr::V6(ip).into()),
        None => return Err(FetchFailure::InvalidUrl("no host".into())),
    };
    TlsConnector::from(tls_config()?)
        .connect(server_name, tcp)
        .await
        .map_err(|e| FetchFailure::Tls(io_phrase(&e)))
}

async fn send<T>(url: &Url, io: T) -> Result<Exchange, FetchFailure>
where
    T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(io))
        .await
        .map_err(|e| FetchFailure::Protocol(format!("HTTP handshake failed: {e}")))?;
    let task = tokio::spawn(async move {
        if let Err(err) = connection.await {
            tracing::debug!(%err, "fetch connection ended");
        }
    });
    let guard = AbortOnDrop(task);
    let request = Request::get(request_target(url))
        .header(HOST, host_header(url))
        .header(
            USER_AGENT,
            concat!("context-mode/", env!("CARGO_PKG_VERSION")),
        )
        .header(ACCEPT, ACCEPT_VALUE)
        // No compression: the body limit then counts what we keep, and no decoder is needed.
        .header(ACCEPT_ENCODING, "identity")
        .body(Empty::<Bytes>::new())
        .map_err(|e| FetchFailure::InvalidUrl(e.to_string()))?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| FetchFailure::Protocol(format!("no valid HTTP response: {e}")))?;
    Ok(Exchange {
        response,
        _connection: guard,
    })
}

/// Path and query, with the few bytes the URL parser leaves raw but HTTP request
/// targets forbid (`{ } | ^ \` and backquote) percent-encoded.
fn request_target(url: &Url) -> String {
    let raw = &url[Position::BeforePath..Position::AfterQuery];
    let mut target = String::with_capacity(raw.len());
    for byte in raw.bytes() {
        if byte.is_ascii_graphic() && !b"{}|^\\`\"<>".contains(&byte) {
            target.push(byte as char);
        } else {
            target.push_str(&format!("%{byte:02X}"));
        }
    }
    if target.is_empty() {
        target.push('/');
    }
    target
}

fn host_header(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default();
    match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_string(),
    }
}

/// Stream the body, keeping at most `max` bytes; beyond that the connection is dropped.
async fn read_body(exchange: Exchange, max: usize) -> Result<(Vec<u8>, bool), FetchFailure> {
    let Exchange {
        response,
        _connection,
    } = exchange;
    let mut body = response.into_body();
    let mut kept = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame =
            frame.map_err(|e| FetchFailure::Protocol(format!("reading the body failed: {e}")))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        let room = max - kept.len();
        if data.len() > room {
            kept.extend_from_slice(&data[..room]);
            return Ok((kept, true));
        }
        kept.extend_from_slice(&data);
    }
    Ok((kept, false))
}

#[cfg(test)]
mod tests;
