//! `fetch_url` against real HTTP servers started by the tests on 127.0.0.1 and [::1].
//! Tests run on a current-thread runtime so `net_trace` sees every lookup and connect.

use std::time::{Duration, Instant};

use super::*;
use crate::fetch::net_trace;
use crate::fetch::test_server::{Reply, TestServer};

fn opts() -> FetchOptions {
    FetchOptions {
        timeout: Duration::from_secs(10),
        ..FetchOptions::default()
    }
}

async fn fail(url: &str, opts: &FetchOptions) -> String {
    let err = fetch_url(url, opts).await.expect_err("fetch should fail");
    let line = err.to_string();
    assert!(!line.contains('\n'), "one line: {line}");
    assert_eq!(format!("{err:?}"), line, "Debug is the same line");
    line
}

#[tokio::test]
async fn html_page_over_ipv4() {
    let server = TestServer::start("127.0.0.1:0", |_| {
        Reply::ok(
            "text/html; charset=utf-8",
            "<html><h1>Guide</h1><p>Deploy with care.</p></html>",
        )
    })
    .await;
    let url = server.url("/docs/guide?x=1");
    let page = fetch_url(&url, &opts()).await.expect("fetch");
    assert_eq!(page.status, 200);
    assert_eq!(page.content_type, "text/html; charset=utf-8");
    assert!(page.body.contains("<h1>Guide</h1>"));
    assert!(!page.truncated);
    assert_eq!(
        (page.requested_url.as_str(), page.final_url.as_str()),
        (url.as_str(), url.as_str())
    );
    let hits = server.hits();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].path, "/docs/guide?x=1");
    assert_eq!(hits[0].host, server.addr.to_string());
}

#[tokio::test]
async fn json_over_an_ipv6_literal() {
    let server = TestServer::start("[::1]:0", |_| {
        Reply::ok("application/json", r#"{"items":[1,2,3]}"#)
    })
    .await;
    let url = format!("http://[::1]:{}/api/items", server.addr.port());
    let page = fetch_url(&url, &opts()).await.expect("fetch over IPv6");
    assert_eq!(page.body, r#"{"items":[1,2,3]}"#);
    assert_eq!(page.content_type, "application/json");
    assert_eq!(
        server.hits()[0].host,
        format!("[::1]:{}", server.addr.port())
    );
}

#[tokio::test]
async fn text_in_a_declared_charset_is_decoded() {
    let server = TestServer::start("127.0.0.1:0", |_| {
        Reply::ok(
            "text/plain; charset=iso-8859-1",
            b"caf\xe9 cr\xe8me".to_vec(),
        )
    })
    .await;
    let page = fetch_url(&server.url("/menu.txt"), &opts())
        .await
        .expect("fetch");
    assert_eq!(page.body, "café crème");
}

#[tokio::test]
async fn not_found_is_one_line() {
    let server = TestServer::start("127.0.0.1:0", |_| Reply::status(404)).await;
    let url = server.url("/missing");
    assert_eq!(
        fail(&url, &opts()).await,
        format!("Failed to fetch {url}: HTTP 404")
    );
}

#[tokio::test]
async fn connection_refused_is_one_line() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    let url = format!("http://127.0.0.1:{port}/");
    assert_eq!(
        fail(&url, &opts()).await,
        format!("Failed to fetch {url}: connection refused")
    );
}

#[tokio::test]
async fn localhost_tries_every_checked_address() {
    let server = TestServer::start("127.0.0.1:0", |_| Reply::ok("text/plain", "local")).await;
    net_trace::take();
    let url = format!("http://localhost:{}/", server.addr.port());
    let page = fetch_url(&url, &opts()).await.expect("localhost fetch");
    assert_eq!(page.body, "local");
    let events = net_trace::take();
    assert_eq!(events.first().map(String::as_str), Some("lookup localhost"));
    assert!(
        events.contains(&format!("connect 127.0.0.1:{}", server.addr.port())),
        "{events:?}"
    );
}

#[tokio::test]
async fn redirect_chain_is_followed_across_hosts() {
    let v6 = TestServer::start("[::1]:0", |_| Reply::ok("text/plain", "arrived")).await;
    let final_url = format!("http://[::1]:{}/c", v6.addr.port());
    let target = final_url.clone();
    let v4 = TestServer::start("127.0.0.1:0", move |path| match path {
        "/a" => Reply::redirect(302, "/b"),
        _ => Reply::redirect(301, &target),
    })
    .await;
    let page = fetch_url(&v4.url("/a"), &opts())
        .await
        .expect("redirects followed");
    assert_eq!(page.body, "arrived");
    assert_eq!(page.requested_url, v4.url("/a"));
    assert_eq!(page.final_url, final_url);
    let paths: Vec<String> = v4.hits().into_iter().map(|h| h.path).collect();
    assert_eq!(paths, ["/a", "/b"]);
    assert_eq!(v6.hit_count(), 1);
}

#[tokio::test]
async fn redirect_to_a_blocked_address_is_refused_before_connecting() {
    for location in [
        "http://169.254.169.254/latest/meta-data/",
        "http://0xa9fea9fe/latest/meta-data/",
        "http://[::ffff:169.254.169.254]/",
    ] {
        let target = location.to_string();
        let server = TestServer::start("127.0.0.1:0", move |_| Reply::redirect(302, &target)).await;
        net_trace::take();
        let url = server.url("/go");
        let line = fail(&url, &opts()).await;
        assert!(
            line.starts_with(&format!("Failed to fetch {url}: redirect to http://")),
            "{line}"
        );
        assert!(line.contains("is link-local (blocked)"), "{line}");
        let events = net_trace::take();
        assert_eq!(
            events,
            [format!("connect {}", server.addr)],
            "only the first hop connected"
        );
    }
}

#[tokio::test]
async fn redirect_to_another_scheme_is_refused() {
    let server = TestServer::start("127.0.0.1:0", |_| {
        Reply::redirect(301, "file:///etc/passwd")
    })
    .await;
    let url = server.url("/");
    assert_eq!(
        fail(&url, &opts()).await,
        format!(
            "Failed to fetch {url}: redirect to file:///etc/passwd refused: \
             scheme \"file:\" is not allowed (only http and https)"
        )
    );
}

#[tokio::test]
async fn redirect_loops_stop_at_the_limit() {
    let server = TestServer::start("127.0.0.1:0", |_| Reply::redirect(307, "/loop")).await;
    let url = server.url("/loop");
    assert_eq!(
        fail(&url, &opts()).await,
        format!(
            "Failed to fetch {url}: too many redirects (more than {})",
            limits::FETCH_MAX_REDIRECTS
        )
    );
    assert_eq!(server.hit_count(), limits::FETCH_MAX_REDIRECTS + 1);
}

#[tokio::test]
async fn an_endless_body_is_cut_at_the_limit() {
    let server = TestServer::start("127.0.0.1:0", |_| Reply::Endless).await;
    let limited = FetchOptions {
        body_max_bytes: 200_000,
        ..opts()
    };
    let started = Instant::now();
    let page = fetch_url(&server.url("/stream"), &limited)
        .await
        .expect("cut, not failed");
    assert!(page.truncated);
    assert_eq!(page.body.len(), 200_000);
    assert!(page.body.starts_with("endless line of text\n"));
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_silent_server_times_out_within_budget() {
    let server = TestServer::start("127.0.0.1:0", |_| Reply::Hang).await;
    let quick = FetchOptions {
        timeout: Duration::from_millis(300),
        ..opts()
    };
    let url = server.url("/slow");
    let started = Instant::now();
    assert_eq!(
        fail(&url, &quick).await,
        format!("Failed to fetch {url}: timed out after 0.3 s")
    );
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn binary_content_is_not_fetched_as_text() {
    let server = TestServer::start("127.0.0.1:0", |path| match path {
        "/logo.png" => Reply::ok("image/png", b"\x89PNG\r\n\x1a\n\0\0".to_vec()),
        _ => Reply::ok("text/plain", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec()),
    })
    .await;
    let png = server.url("/logo.png");
    assert_eq!(
        fail(&png, &opts()).await,
        format!("Failed to fetch {png}: content type image/png is not text (not indexed)")
    );
    let mislabelled = server.url("/notes.txt");
    assert!(
        fail(&mislabelled, &opts())
            .await
            .ends_with("content type text/plain is not text (not indexed)")
    );
}

#[tokio::test]
async fn strict_mode_refuses_loopback_without_connecting() {
    let server = TestServer::start("127.0.0.1:0", |_| Reply::ok("text/plain", "secret")).await;
    let strict = FetchOptions {
        strict: true,
        ..opts()
    };
    net_trace::take();
    let url = server.url("/");
    assert_eq!(
        fail(&url, &strict).await,
        format!(
            "Failed to fetch {url}: address 127.0.0.1 is loopback (blocked by CTX_FETCH_STRICT)"
        )
    );
    let by_name = format!("http://localhost:{}/", server.addr.port());
    assert!(fail(&by_name, &strict).await.ends_with(
        "host localhost resolves to 127.0.0.1, which is loopback (blocked by CTX_FETCH_STRICT)"
    ));
    assert!(
        fail("http://[::1]:9/", &strict)
            .await
            .contains("address ::1 is loopback")
    );
    assert!(
        fail("http://10.0.0.1/", &strict)
            .await
            .contains("address 10.0.0.1 is private")
    );
    assert_eq!(
        net_trace::take(),
        ["lookup localhost"],
        "resolved, never connected"
    );
    assert_eq!(server.hit_count(), 0);
}

#[tokio::test]
async fn refused_urls_cause_no_network_traffic() {
    let cases = [
        (
            "file:///etc/passwd",
            "scheme \"file:\" is not allowed (only http and https)",
        ),
        (
            "data:text/plain,hello",
            "scheme \"data:\" is not allowed (only http and https)",
        ),
        (
            "ftp://example.com/x",
            "scheme \"ftp:\" is not allowed (only http and https)",
        ),
        (
            "gopher://example.com/",
            "scheme \"gopher:\" is not allowed (only http and https)",
        ),
        (
            "http://169.254.169.254/latest/meta-data/",
            "address 169.254.169.254 is link-local (blocked)",
        ),
        (
            "http://2852039166/",
            "address 169.254.169.254 is link-local (blocked)",
        ),
        (
            "http://0251.0376.0251.0376/",
            "address 169.254.169.254 is link-local (blocked)",
        ),
        (
            "http://0xa9fea9fe/",
            "address 169.254.169.254 is link-local (blocked)",
        ),
        (
            "http://0xa9.0xfe.0xa9.0xfe/",
            "address 169.254.169.254 is link-local (blocked)",
        ),
        (
            "http://169.254.43518/",
            "address 169.254.169.254 is link-local (blocked)",
        ),
        (
            "https://169.254.169.254./",
            "address 169.254.169.254 is link-local (blocked)",
        ),
        (
            "http://[::ffff:169.254.169.254]/",
            "address ::ffff:169.254.169.254 is link-local (blocked)",
        ),
        (
            "http://[::ffff:a9fe:a9fe]/",
            "address ::ffff:169.254.169.254 is link-local (blocked)",
        ),
        (
            "http://[fe80::1]/",
            "address fe80::1 is link-local (blocked)",
        ),
        (
            "http://[fd00:ec2::254]/",
            "address fd00:ec2::254 is a cloud metadata endpoint (blocked)",
        ),
        (
            "http://0.0.0.0:8080/",
            "address 0.0.0.0 is unspecified (blocked)",
        ),
        ("http://0/", "address 0.0.0.0 is unspecified (blocked)"),
        ("http://[::]/", "address :: is unspecified (blocked)"),
        (
            "http://224.0.0.1/",
            "address 224.0.0.1 is multicast (blocked)",
        ),
        (
            "http://[ff02::1]/",
            "address ff02::1 is multicast (blocked)",
        ),
        (
            "http://255.255.255.255/",
            "address 255.255.255.255 is broadcast (blocked)",
        ),
        (
            "http://240.0.0.1/",
            "address 240.0.0.1 is reserved (blocked)",
        ),
        ("not a url", "invalid URL (relative URL without a base)"),
    ];
    net_trace::take();
    for (url, expected) in cases {
        let line = fail(url, &opts()).await;
        assert_eq!(line, format!("Failed to fetch {url}: {expected}"), "{url}");
        assert!(net_trace::take().is_empty(), "{url} touched the network");
    }
}

#[test]
fn request_targets_are_valid_http() {
    let url = Url::parse("http://h/a b/{x}|y?q=^`&r=é#frag").expect("url");
    assert_eq!(request_target(&url), "/a%20b/%7Bx%7D%7Cy?q=%5E%60&r=%C3%A9");
    assert_eq!(
        host_header(&Url::parse("http://[::1]:8080/").expect("url")),
        "[::1]:8080"
    );
    assert_eq!(
        host_header(&Url::parse("https://example.com:443/").expect("url")),
        "example.com"
    );
}

#[tokio::test]
async fn https_by_name_sends_sni_alpn_and_host() {
    let server = crate::fetch::test_tls::TlsTestServer::start("127.0.0.1:0").await;
    let port = server.addr.port();
    let page = fetch_url(&format!("https://localhost:{port}/secure"), &opts())
        .await
        .expect("HTTPS fetch with a trusted certificate");
    assert_eq!(
        page.body,
        format!("sni=localhost alpn=http/1.1 host=localhost:{port}")
    );
}

#[tokio::test]
async fn https_to_an_ip_literal_checks_the_ip_in_the_certificate() {
    let good = crate::fetch::test_tls::TlsTestServer::start("127.0.0.1:0").await;
    let page = fetch_url(&format!("https://{}/", good.addr), &opts())
        .await
        .expect("IP SAN matches");
    assert!(
        page.body.starts_with("sni=none alpn=http/1.1"),
        "{}",
        page.body
    );

    let wrong = crate::fetch::test_tls::TlsTestServer::start("[::1]:0").await;
    let url = format!("https://[::1]:{}/", wrong.addr.port());
    let line = fail(&url, &opts()).await;
    assert!(
        line.starts_with(&format!(
            "Failed to fetch {url}: TLS handshake failed: invalid peer certificate"
        )),
        "{line}"
    );
}

#[tokio::test]
async fn https_to_a_plain_http_server_fails_in_one_line() {
    // Like a plain HTTP server given a ClientHello: it answers 400 in clear text and closes.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        if let Ok((mut tcp, _)) = listener.accept().await {
            let mut hello = [0u8; 512];
            let _ = tcp.read(&mut hello).await;
            let _ = tcp
                .write_all(b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n")
                .await;
        }
    });
    let url = format!("https://{addr}/");
    let line = fail(&url, &opts()).await;
    assert!(
        line.starts_with(&format!("Failed to fetch {url}: TLS handshake failed: ")),
        "{line}"
    );
}

#[tokio::test]
async fn compressed_content_we_did_not_ask_for_is_refused_clearly() {
    let server = TestServer::start("127.0.0.1:0", |_| Reply::Page {
        status: 200,
        headers: vec![
            ("Content-Type".into(), "text/html".into()),
            ("Content-Encoding".into(), "gzip".into()),
        ],
        body: b"\x1f\x8b\x08\0\0\0\0\0".to_vec(),
    })
    .await;
    let url = server.url("/");
    assert_eq!(
        fail(&url, &opts()).await,
        format!(
            "Failed to fetch {url}: the server sent gzip-encoded content although identity was asked for"
        )
    );
}

#[test]
fn the_fetch_future_can_move_across_threads() {
    fn assert_send<T: Send>(_: &T) {}
    let opts = FetchOptions::default();
    assert_send(&fetch_url("http://127.0.0.1:9/", &opts));
}
