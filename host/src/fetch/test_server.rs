//! A small real HTTP/1.1 server for tests, on 127.0.0.1 or [::1], that records every
//! request it receives (so a test can prove a cache hit made none).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the server answers to one path.
pub enum Reply {
    Page {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// 200 with a body that never ends (until the client goes away).
    Endless,
    /// Accept the request and never answer.
    Hang,
}

impl Reply {
    pub fn ok(content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Self::Page {
            status: 200,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: body.into(),
        }
    }

    pub fn status(status: u16) -> Self {
        Self::Page {
            status,
            headers: vec![("Content-Type".into(), "text/plain".into())],
            body: format!("status {status}").into_bytes(),
        }
    }

    pub fn redirect(status: u16, location: &str) -> Self {
        Self::Page {
            status,
            headers: vec![("Location".into(), location.into())],
            body: Vec::new(),
        }
    }
}

/// One request as the server saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub path: String,
    pub host: String,
}

type Handler = Arc<dyn Fn(&str) -> Reply + Send + Sync>;

pub struct TestServer {
    pub addr: SocketAddr,
    hits: Arc<Mutex<Vec<Hit>>>,
    accept_task: tokio::task::JoinHandle<()>,
}

impl TestServer {
    /// Serve `handler` on `bind` ("127.0.0.1:0" or "[::1]:0").
    pub async fn start(
        bind: &str,
        handler: impl Fn(&str) -> Reply + Send + Sync + 'static,
    ) -> Self {
        let listener = TcpListener::bind(bind).await.expect("test server binds");
        let addr = listener.local_addr().expect("test server address");
        let hits = Arc::new(Mutex::new(Vec::new()));
        let handler: Handler = Arc::new(handler);
        let seen = Arc::clone(&hits);
        let accept_task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, Arc::clone(&handler), Arc::clone(&seen)));
            }
        });
        Self {
            addr,
            hits,
            accept_task,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn hits(&self) -> Vec<Hit> {
        self.hits.lock().expect("hits lock").clone()
    }

    pub fn hit_count(&self) -> usize {
        self.hits.lock().expect("hits lock").len()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.accept_task.abort();
    }
}

async fn serve(mut stream: TcpStream, handler: Handler, hits: Arc<Mutex<Vec<Hit>>>) {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 65_536 {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
    let host = head
        .lines()
        .find_map(|l| {
            l.strip_prefix("host: ")
                .or_else(|| l.strip_prefix("Host: "))
        })
        .unwrap_or("")
        .trim()
        .to_string();
    hits.lock().expect("hits lock").push(Hit {
        path: path.clone(),
        host,
    });
    match handler(&path) {
        Reply::Page {
            status,
            headers,
            body,
        } => {
            let mut out = format!(
                "HTTP/1.1 {status} Test\r\nContent-Length: {}\r\nConnection: close\r\n",
                body.len()
            );
            for (name, value) in headers {
                out.push_str(&format!("{name}: {value}\r\n"));
            }
            out.push_str("\r\n");
            let mut bytes = out.into_bytes();
            bytes.extend_from_slice(&body);
            let _ = stream.write_all(&bytes).await;
            let _ = stream.shutdown().await;
        }
        Reply::Endless => {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n";
            if stream.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            let chunk = "endless line of text\n".repeat(3_000);
            while stream.write_all(chunk.as_bytes()).await.is_ok() {}
        }
        Reply::Hang => tokio::time::sleep(Duration::from_secs(120)).await,
    }
}
