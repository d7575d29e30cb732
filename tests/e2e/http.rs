//! The scripted model server's transport: a plain HTTP/1.1 listener on 127.0.0.1 (port 0),
//! one thread per connection, every request recorded. Each reply closes its connection
//! (`Connection: close`), so a streamed answer ends where the body ends and no client
//! has to guess. `CONNECT` requests (what an agent sends through the `HTTPS_PROXY` the
//! harness points at this server) are recorded and refused: the test sees any traffic
//! an agent tried to send elsewhere, and none of it leaves the machine.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One request as the agent sent it.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// Path with its query (`/v1beta/models/m:streamGenerateContent?alt=sse`).
    pub target: String,
    pub body: Vec<u8>,
}

impl Request {
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }

    pub fn json(&self) -> Option<serde_json::Value> {
        serde_json::from_slice(&self.body).ok()
    }
}

/// What the server answers.
pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn json(value: &serde_json::Value) -> Self {
        Reply {
            status: 200,
            content_type: "application/json",
            body: value.to_string().into_bytes(),
        }
    }

    pub fn sse(body: String) -> Self {
        Reply {
            status: 200,
            content_type: "text/event-stream",
            body: body.into_bytes(),
        }
    }

    pub fn text(status: u16, body: &str) -> Self {
        Reply {
            status,
            content_type: "text/plain",
            body: body.as_bytes().to_vec(),
        }
    }
}

pub type Handler = dyn Fn(&Request) -> Reply + Send + Sync;

/// A running server; it stops accepting when dropped (its threads end with the process).
pub struct Server {
    pub port: u16,
    log: Arc<Mutex<Vec<Request>>>,
}

impl Server {
    pub fn start(handler: Arc<Handler>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let port = listener.local_addr().expect("local addr").port();
        let log: Arc<Mutex<Vec<Request>>> = Arc::default();
        let server_log = Arc::clone(&log);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let handler = Arc::clone(&handler);
                let log = Arc::clone(&server_log);
                std::thread::spawn(move || serve(stream, &*handler, &log));
            }
        });
        Server { port, log }
    }

    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

fn serve(stream: TcpStream, handler: &Handler, log: &Mutex<Vec<Request>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let Some(request) = read_request(&mut reader) else {
        return;
    };
    if let Ok(mut l) = log.lock() {
        l.push(request.clone());
    }
    let reply = if request.method == "CONNECT" {
        Reply::text(403, "the e2e harness lets no traffic leave 127.0.0.1")
    } else {
        handler(&request)
    };
    let mut stream = stream;
    let head = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: {}\r\ncontent-length: {}\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n",
        reply.status,
        if reply.status < 400 { "OK" } else { "Error" },
        reply.content_type,
        reply.body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&reply.body);
    let _ = stream.flush();
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_owned();
    let target = parts.next()?.to_owned();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            break;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_owned(), value.trim().to_owned()));
        }
    }
    let find = |name: &str| {
        headers
            .iter()
            .find(|(n, _): &&(String, String)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    let mut body = Vec::new();
    if find("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).ok()?;
            let size = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
            if size == 0 {
                let mut end = String::new();
                let _ = reader.read_line(&mut end);
                break;
            }
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).ok()?;
            chunk.truncate(size);
            body.extend(chunk);
        }
    } else if let Some(length) = find("content-length").and_then(|v| v.parse::<usize>().ok()) {
        body = vec![0; length];
        reader.read_exact(&mut body).ok()?;
    }
    Some(Request {
        method,
        target,
        body,
    })
}
