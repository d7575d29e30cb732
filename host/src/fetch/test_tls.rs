//! Test-only TLS material and an HTTPS server: a CA trusted only by test builds (see
//! `client::tls_config`) and a leaf for `localhost` and 127.0.0.1 (not ::1), valid 2020–2126.
//! The keys protect nothing; they exist so the HTTPS path is exercised end to end offline.

const CA_PEM: &str = "\
-----BEGIN CERTIFICATE-----
MIIBazCCARCgAwIBAgICEAAwCgYIKoZIzj0EAwIwGzEZMBcGA1UEAwwQY20gZmV0
Y2ggdGVzdCBDQTAgFw0yMDAxMDEwMDAwMDBaGA8yMTI2MDEwMTAwMDAwMFowGzEZ
MBcGA1UEAwwQY20gZmV0Y2ggdGVzdCBDQTBZMBMGByqGSM49AgEGCCqGSM49AwEH
A0IABBRW6q5/Jp6j/UqfiSZXae9vRr7G0R1JCQe/p+Osrh5LR1taY6eaE2CEaC6F
2C8oBniavjy6zTTX9NHD6biW7imjQjBAMA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0P
AQH/BAQDAgIEMB0GA1UdDgQWBBRvFf/m7f74FY/V84mhR87krSZo9DAKBggqhkjO
PQQDAgNJADBGAiEA91vj2GP4HQzm+TN11WKKccZa8IZyVaUM6Ak+NZWseoMCIQCW
nsVSSbcMAiVsI0b7LxE0EA4fJW3HTFL3KkFX6LrIUQ==
-----END CERTIFICATE-----
";

const LEAF_PEM: &str = "\
-----BEGIN CERTIFICATE-----
MIIBtDCCAVqgAwIBAgICEAEwCgYIKoZIzj0EAwIwGzEZMBcGA1UEAwwQY20gZmV0
Y2ggdGVzdCBDQTAgFw0yMDAxMDEwMDAwMDBaGA8yMTI2MDEwMTAwMDAwMFowFDES
MBAGA1UEAwwJbG9jYWxob3N0MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE9/65
UBjKgLL7NfQDBjoWQaL815Cp+4flGp2L1is0uelS0LwLvYrlBLCHj9wGefQwrYjz
C6iuOa3CGt7o9F+ymKOBkjCBjzAMBgNVHRMBAf8EAjAAMA4GA1UdDwEB/wQEAwIH
gDATBgNVHSUEDDAKBggrBgEFBQcDATAaBgNVHREEEzARgglsb2NhbGhvc3SHBH8A
AAEwHwYDVR0jBBgwFoAUbxX/5u3++BWP1fOJoUfO5K0maPQwHQYDVR0OBBYEFI9w
mm7cULNv4wTaCuMs4biF1HnfMAoGCCqGSM49BAMCA0gAMEUCIQDR5qy0I78rygGV
g5bgcYbC9PeY7W3x6WnuEVO/w33UbQIgQXr9OVqUu1pmbFDrkjcz75cnKfWQqoYL
/72jly/dnA8=
-----END CERTIFICATE-----
";

const LEAF_KEY_PEM: &str = "\
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg+6lKHBQ63AjW+zVP
xziGWsh/bBy4hmz1123SQa4hXHKhRANCAAT3/rlQGMqAsvs19AMGOhZBovzXkKn7
h+UanYvWKzS56VLQvAu9iuUEsIeP3AZ59DCtiPMLqK45rcIa3uj0X7KY
-----END PRIVATE KEY-----
";

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// The test CA, added to the client's roots in test builds only.
pub fn ca_der() -> CertificateDer<'static> {
    CertificateDer::from_pem_slice(CA_PEM.as_bytes()).expect("test CA parses")
}

/// An HTTPS server answering every request with what it saw of the TLS session:
/// `sni=<name or none> alpn=<protocol> host=<Host header>`.
pub struct TlsTestServer {
    pub addr: SocketAddr,
    accept_task: tokio::task::JoinHandle<()>,
}

impl TlsTestServer {
    pub async fn start(bind: &str) -> Self {
        let leaf = CertificateDer::from_pem_slice(LEAF_PEM.as_bytes()).expect("test leaf parses");
        let key = PrivateKeyDer::from_pem_slice(LEAF_KEY_PEM.as_bytes()).expect("test key parses");
        let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("protocol versions")
            .with_no_client_auth()
            .with_single_cert(vec![leaf, ca_der()], key)
            .expect("server config");
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let acceptor = TlsAcceptor::from(Arc::new(config));
        let listener = TcpListener::bind(bind)
            .await
            .expect("TLS test server binds");
        let addr = listener.local_addr().expect("address");
        let accept_task = tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    let Ok(mut tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let (_, session) = tls.get_ref();
                    let sni = session.server_name().unwrap_or("none").to_string();
                    let alpn = session.alpn_protocol().map_or("none".to_string(), |p| {
                        String::from_utf8_lossy(p).into_owned()
                    });
                    let mut head = Vec::new();
                    let mut buf = [0u8; 4096];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        match tls.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => head.extend_from_slice(&buf[..n]),
                        }
                    }
                    let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
                    let host = head
                        .lines()
                        .find_map(|l| l.strip_prefix("host: "))
                        .unwrap_or("")
                        .trim()
                        .to_string();
                    let body = format!("sni={sni} alpn={alpn} host={host}");
                    let reply = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\
                         Connection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = tls.write_all(reply.as_bytes()).await;
                    let _ = tls.shutdown().await;
                });
            }
        });
        Self { addr, accept_task }
    }
}

impl Drop for TlsTestServer {
    fn drop(&mut self) {
        self.accept_task.abort();
    }
}
