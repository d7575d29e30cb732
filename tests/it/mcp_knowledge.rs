//! The knowledge base through a real `cm serve`: ctx_index (content, file, directory),
//! ctx_search, ctx_purge, the flood guard, ctx_fetch_and_index against a local HTTP
//! server, path rules, and a corrupt project database.

use crate::common;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{McpClient, Sandbox, damage_index_file};
use serde_json::json;

const GUIDE: &str = "# Guide\n\nIntro to the service.\n\n\
## Deploy\n\nThe deploy pipeline pushes images to the kubernetes cluster through helm charts.\n\n\
### Rollback\n\nA rollback restores the previous revision with `helm rollback zephyrctl 3`.\n\n\
## Monitoring\n\nDashboards in grafana show latency percentiles per endpoint.\n";

fn index_content(client: &mut McpClient, content: &str, source: &str) -> String {
    let (text, is_error) =
        client.call_tool("ctx_index", json!({"content": content, "source": source}));
    assert!(!is_error, "ctx_index failed: {text}");
    text
}

fn search(client: &mut McpClient, arguments: serde_json::Value) -> String {
    let (text, is_error) = client.call_tool("ctx_search", arguments);
    assert!(!is_error, "ctx_search failed: {text}");
    text
}

/// A server whose flood guard stays out of the way of tests that search many times.
fn unthrottled_server(sandbox: &Sandbox) -> McpClient {
    let mut command = sandbox.cm();
    command
        .env("CONTEXT_MODE_SEARCH_MAX_RESULTS_AFTER", "1000")
        .env("CONTEXT_MODE_SEARCH_BLOCK_AFTER", "1000");
    McpClient::spawn(command)
}

/// Numbered results ("1. label › title (…)") in a search reply.
fn result_count(reply: &str) -> usize {
    reply
        .lines()
        .filter(|line| {
            let digits: String = line.chars().take_while(char::is_ascii_digit).collect();
            !digits.is_empty() && line[digits.len()..].starts_with(". ")
        })
        .count()
}

#[test]
fn indexed_content_is_found_by_several_queries_in_one_call() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    let reply = index_content(&mut client, GUIDE, "guide");
    assert!(reply.starts_with("Indexed \"guide\":"), "{reply}");
    assert!(
        reply.contains("Guide > Deploy > Rollback"),
        "sections listed: {reply}"
    );

    let reply = search(
        &mut client,
        json!({"queries": ["helm rollback revision", "grafana latency"]}),
    );
    assert!(reply.contains("## helm rollback revision"), "{reply}");
    assert!(reply.contains("## grafana latency"), "{reply}");
    let (first, second) = reply
        .split_once("## grafana latency")
        .expect("two sections");
    assert!(
        first.contains("guide › Guide > Deploy > Rollback"),
        "{reply}"
    );
    assert!(
        first.contains("zephyrctl"),
        "snippet shows the matched text: {reply}"
    );
    assert!(second.contains("guide › Guide > Monitoring"), "{reply}");
    assert!(second.contains("percentiles"), "{reply}");

    // Agents send a bare string where a list is expected.
    let reply = search(&mut client, json!({"queries": "zephyrctl"}));
    assert!(reply.contains("## zephyrctl"), "{reply}");
    assert!(reply.contains("Rollback"), "{reply}");
}

#[test]
fn a_file_and_a_directory_are_indexed_with_gitignore_and_filters() {
    let sandbox = Sandbox::new();
    sandbox.write(".gitignore", b"build/\n");
    sandbox.write(
        "docs/setup.md",
        b"# Setup\n\nInstall the quokkabase driver first.\n",
    );
    sandbox.write(
        "docs/api/errors.md",
        b"# Errors\n\nError E4711 means the wombatqueue is full.\n",
    );
    sandbox.write(
        "docs/notes.txt",
        b"plain notes about the numbatcache warmup\n",
    );
    sandbox.write("build/generated.md", b"# Generated\n\nplatypusgen output\n");
    let single = sandbox.write("README.md", b"# Readme\n\nThe echidnaproject overview.\n");
    let mut client = sandbox.live_server();

    let (reply, is_error) = client.call_tool("ctx_index", json!({"path": single.to_str()}));
    assert!(!is_error, "{reply}");
    assert!(reply.starts_with("Indexed \"README.md\""), "{reply}");
    assert!(search(&mut client, json!({"queries": ["echidnaproject"]})).contains("1. README.md"));

    let (reply, is_error) = client.call_tool("ctx_index", json!({"path": "."}));
    assert!(!is_error, "{reply}");
    assert!(reply.contains("docs/api/errors.md"), "{reply}");
    assert!(
        !reply.contains("build/generated.md"),
        ".gitignore honoured: {reply}"
    );
    let reply = search(
        &mut client,
        json!({"queries": ["wombatqueue", "platypusgen"]}),
    );
    let (found, ignored) = reply.split_once("## platypusgen").expect("two sections");
    assert!(found.contains("docs/api/errors.md"), "{reply}");
    assert!(
        ignored.contains("no results"),
        "ignored file not indexed: {reply}"
    );

    let (reply, is_error) = client.call_tool(
        "ctx_index",
        json!({"path": "docs", "include": ["**/*.md"], "exclude": "api", "source": "kb"}),
    );
    assert!(!is_error, "{reply}");
    assert!(
        reply.starts_with("Indexed \"kb/setup.md\": 1 chunks"),
        "only setup.md is left: {reply}"
    );
    let reply = search(
        &mut client,
        json!({"queries": ["quokkabase"], "source": "kb/"}),
    );
    assert!(reply.contains("1. kb/setup.md"), "{reply}");
    assert_eq!(result_count(&reply), 1, "{reply}");

    let (reply, is_error) = client.call_tool(
        "ctx_index",
        json!({"path": ".", "respectGitignore": "false", "maxFiles": "2", "source": "capped"}),
    );
    assert!(!is_error, "{reply}");
    assert!(reply.starts_with("Indexed 2 files under ."), "{reply}");
    assert!(reply.contains("Stopped at maxFiles 2"), "{reply}");
}

#[test]
fn a_typo_is_corrected_against_the_indexed_words() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    index_content(&mut client, GUIDE, "guide");
    let reply = search(&mut client, json!({"queries": ["dashbords"]}));
    assert!(
        reply.contains("searched for dashbords → dashboards"),
        "{reply}"
    );
    assert!(reply.contains("1. guide › Guide > Monitoring"), "{reply}");
}

#[test]
fn stopwords_and_fts_operators_never_error_or_match_everything() {
    let sandbox = Sandbox::new();
    let mut client = unthrottled_server(&sandbox);
    index_content(&mut client, GUIDE, "guide");
    let reply = search(&mut client, json!({"queries": ["the and of it"]}));
    assert!(
        reply.contains("no results: the query has only common words"),
        "{reply}"
    );
    assert_eq!(result_count(&reply), 0, "{reply}");

    let junk = [
        "\"unbalanced",
        "AND OR NOT",
        "NEAR(",
        "helm*",
        "title:deploy",
        "^rollback",
        "()",
        "-",
        "{deploy}",
        "'; DROP TABLE chunks; --",
        "a\"b\"c OR (",
        "***",
    ];
    for query in junk {
        let (reply, is_error) = client.call_tool("ctx_search", json!({"queries": [query]}));
        assert!(!is_error, "{query}: {reply}");
        let lower = reply.to_lowercase();
        assert!(
            !lower.contains("syntax") && !lower.contains("fts5"),
            "{query}: {reply}"
        );
    }
    // All of them in one call: each gets its own answer.
    let (reply, is_error) = client.call_tool("ctx_search", json!({"queries": junk}));
    assert!(!is_error, "{reply}");
    assert_eq!(reply.matches("\n## ").count() + 1, junk.len(), "{reply}");
    // The store still answers after all of that.
    let reply = search(&mut client, json!({"queries": ["rollback"]}));
    assert!(reply.contains("Rollback"), "{reply}");
}

#[test]
fn limit_is_honoured_as_given() {
    let sandbox = Sandbox::new();
    let mut client = unthrottled_server(&sandbox);
    let content: String = (1..=12)
        .map(|i| {
            format!("## Section {i}\n\nThe capybara ledger entry number {i} is stored here.\n\n")
        })
        .collect();
    index_content(&mut client, &content, "ledger");
    for (limit, expected) in [
        (json!(null), 3),
        (json!(1), 1),
        (json!(7), 7),
        (json!("10"), 10),
    ] {
        let mut args = json!({"queries": ["capybara ledger"]});
        if !limit.is_null() {
            args["limit"] = limit.clone();
        }
        let reply = search(&mut client, args);
        assert_eq!(result_count(&reply), expected, "limit {limit}: {reply}");
    }
}

#[test]
fn a_path_outside_the_project_needs_a_read_allow_rule() {
    let sandbox = Sandbox::new();
    let outside_dir = sandbox.home.join("notes");
    std::fs::create_dir_all(&outside_dir).expect("mkdir");
    let outside = outside_dir.join("private.md");
    std::fs::write(&outside, "# Private\n\nThe gharial roadmap.\n").expect("write");
    let mut client = sandbox.live_server();

    let (reply, is_error) = client.call_tool("ctx_index", json!({"path": outside.to_str()}));
    assert!(is_error, "{reply}");
    assert_eq!(reply.lines().count(), 1, "{reply}");
    assert!(reply.contains("outside the project"), "{reply}");
    let rule = reply
        .split('"')
        .find(|part| part.starts_with("Read("))
        .unwrap_or_else(|| panic!("the refusal names a Read(...) rule: {reply}"))
        .to_string();
    assert!(
        rule.contains(outside.to_str().expect("utf-8 path")),
        "{rule}"
    );
    let reply = search(&mut client, json!({"queries": ["gharial"]}));
    assert!(reply.contains("no results"), "nothing was indexed: {reply}");

    sandbox.project_permissions(json!({"allow": [rule]}));
    let (reply, is_error) = client.call_tool("ctx_index", json!({"path": outside.to_str()}));
    assert!(!is_error, "allowed by the rule the refusal named: {reply}");
    let reply = search(&mut client, json!({"queries": ["gharial"]}));
    assert!(reply.contains("Private"), "{reply}");

    // A directory outside, named by a relative path that climbs out: refused the same
    // way, then walked once its own rule is added.
    std::fs::write(
        outside_dir.join("plans.md"),
        "# Plans\n\nThe caracal budget.\n",
    )
    .expect("write");
    let (reply, is_error) = client.call_tool("ctx_index", json!({"path": "../home/notes"}));
    assert!(is_error, "{reply}");
    let dir_rule = reply
        .split('"')
        .find(|part| part.starts_with("Read("))
        .unwrap_or_else(|| panic!("the refusal names a Read(...) rule: {reply}"))
        .to_string();
    assert!(
        dir_rule.contains(outside_dir.to_str().expect("utf-8 path")),
        "{dir_rule}"
    );
    sandbox.project_permissions(json!({"allow": [rule, dir_rule]}));
    let (reply, is_error) = client.call_tool("ctx_index", json!({"path": "../home/notes"}));
    assert!(!is_error, "{reply}");
    assert!(
        reply.starts_with("Indexed 2 files under ../home/notes"),
        "{reply}"
    );
    let reply = search(&mut client, json!({"queries": ["caracal"]}));
    assert!(reply.contains("Plans"), "{reply}");
}

#[test]
fn a_read_deny_rule_refuses_indexing_env_files() {
    let sandbox = Sandbox::new();
    sandbox.write(".env", b"API_TOKEN=tapirsecret123\n");
    sandbox.write("config/.env.production", b"DB_PASSWORD=okapisecret456\n");
    sandbox.write(
        "config/app.md",
        b"# App\n\nThe app reads the narwhal settings.\n",
    );
    sandbox.project_permissions(json!({"deny": ["Read(**/.env*)"]}));
    let mut client = sandbox.live_server();

    let (reply, is_error) = client.call_tool("ctx_index", json!({"path": ".env"}));
    assert!(is_error, "{reply}");
    assert_eq!(reply.lines().count(), 1, "{reply}");
    assert!(
        reply.contains("Read(**/.env*)"),
        "the reason names the rule: {reply}"
    );

    // Walking the directory that holds them must not index them either.
    let (reply, is_error) = client.call_tool("ctx_index", json!({"path": "config"}));
    assert!(!is_error, "{reply}");
    assert!(
        reply.contains("Skipped 1 denied by a permission rule"),
        "{reply}"
    );
    let (reply, is_error) = client.call_tool("ctx_index", json!({"path": "."}));
    assert!(!is_error, "{reply}");
    assert!(
        reply.contains("Skipped 2 denied by a permission rule"),
        "{reply}"
    );
    let reply = search(
        &mut client,
        json!({"queries": ["tapirsecret123", "okapisecret456", "narwhal"]}),
    );
    assert!(
        !reply.contains("API_TOKEN") && !reply.contains("DB_PASSWORD"),
        "denied files indexed: {reply}"
    );
    assert_eq!(reply.matches("no results").count(), 2, "{reply}");
    assert!(reply.contains("config/app.md"), "{reply}");
}

/// 2.0's shape: a named source or session is purged as asked (`ctx_purge {source}`);
/// the whole project still takes `confirm: true`, and `confirm: false` deletes nothing.
#[test]
fn purge_by_source_as_2_0_the_whole_project_only_confirmed() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    index_content(&mut client, GUIDE, "guide");
    index_content(
        &mut client,
        "# Other\n\nThe axolotl tank schedule.\n",
        "other",
    );

    for refused in [
        json!({"scope": "project"}),
        json!({}),
        json!({"source": "guide", "confirm": false}),
    ] {
        let (reply, is_error) = client.call_tool("ctx_purge", refused.clone());
        assert!(is_error, "{refused}: {reply}");
        assert!(reply.contains("confirm"), "{refused}: {reply}");
    }
    assert!(search(&mut client, json!({"queries": ["zephyrctl"]})).contains("Rollback"));

    let (reply, is_error) = client.call_tool("ctx_purge", json!({"source": "guide"}));
    assert!(!is_error, "{reply}");
    assert!(
        reply.starts_with("Deleted from sources matching \"guide\": 1 source ("),
        "{reply}"
    );
    assert!(reply.contains("chunks): guide"), "{reply}");
    let reply = search(&mut client, json!({"queries": ["zephyrctl", "axolotl"]}));
    let (purged, kept) = reply.split_once("## axolotl").expect("two sections");
    assert!(purged.contains("no results"), "{reply}");
    assert!(kept.contains("1. other"), "{reply}");

    let (reply, is_error) =
        client.call_tool("ctx_purge", json!({"scope": "project", "confirm": true}));
    assert!(!is_error, "{reply}");
    assert!(
        reply.starts_with("Deleted from the whole project:"),
        "{reply}"
    );
    assert!(reply.contains("other"), "{reply}");
    let reply = search(&mut client, json!({"queries": ["axolotl"]}));
    assert!(reply.contains("no results"), "{reply}");
}

fn git(dir: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// 2.0's search scopes: `worktree` (the default) is what was indexed in this checkout,
/// `project` adds the repository's other git worktrees (their hits named by worktree),
/// `session` only this session; an unknown scope names the three.
#[test]
fn search_scopes_worktree_by_default_project_across_worktrees() {
    let sandbox = Sandbox::new();
    git(&sandbox.project, &["init", "-q"]);
    git(
        &sandbox.project,
        &["commit", "-q", "--allow-empty", "-m", "init"],
    );
    let other = sandbox.project.parent().expect("parent").join("feature-wt");
    git(
        &sandbox.project,
        &[
            "worktree",
            "add",
            "-q",
            other.to_str().expect("utf-8"),
            "-b",
            "feature",
        ],
    );
    {
        let mut command = sandbox.cm();
        command.current_dir(&other);
        let mut there = McpClient::spawn(command);
        index_content(
            &mut there,
            "# Feature\n\nThe quokka migration plan.\n",
            "plan",
        );
    }
    let mut client = sandbox.live_server();
    index_content(
        &mut client,
        "# Here\n\nThe quokka checklist of main.\n",
        "checklist",
    );

    for default in [
        json!({"queries": ["quokka"]}),
        json!({"queries": ["quokka"], "scope": "worktree"}),
    ] {
        let reply = search(&mut client, default);
        assert!(
            reply.contains("checklist") && !reply.contains("plan"),
            "{reply}"
        );
    }
    let reply = search(
        &mut client,
        json!({"queries": ["quokka"], "scope": "project"}),
    );
    assert!(reply.contains("checklist"), "{reply}");
    assert!(reply.contains("feature-wt: plan"), "{reply}");
    let (reply, is_error) = client.call_tool(
        "ctx_search",
        json!({"queries": ["quokka"], "scope": "galaxy"}),
    );
    assert!(is_error, "{reply}");
    assert!(reply.contains("\"worktree\""), "{reply}");
}

#[test]
fn the_flood_guard_reduces_then_redirects_to_batch() {
    // Upstream's names, then cm's earlier names (still read).
    for (normal, reduced, window) in [
        (
            "CONTEXT_MODE_SEARCH_MAX_RESULTS_AFTER",
            "CONTEXT_MODE_SEARCH_BLOCK_AFTER",
            "CONTEXT_MODE_SEARCH_WINDOW_MS",
        ),
        (
            "CONTEXT_MODE_FLOOD_NORMAL",
            "CONTEXT_MODE_FLOOD_REDUCED",
            "CONTEXT_MODE_FLOOD_WINDOW_MS",
        ),
    ] {
        flood_guard_with(normal, reduced, window);
    }
}

fn flood_guard_with(normal: &str, reduced: &str, window: &str) {
    let sandbox = Sandbox::new();
    let mut command = sandbox.cm();
    command
        .env(normal, "2")
        .env(reduced, "4")
        .env(window, "60000");
    let mut client = McpClient::spawn(command);
    let content: String = (1..=6)
        .map(|i| format!("## Part {i}\n\nThe marmot burrow survey, part {i}.\n\n"))
        .collect();
    index_content(&mut client, &content, "survey");
    let query = json!({"queries": ["marmot burrow"]});
    for call in 1..=2 {
        let reply = search(&mut client, query.clone());
        assert_eq!(result_count(&reply), 3, "call {call} is normal: {reply}");
        assert!(!reply.contains("note:"), "{reply}");
    }
    for call in 3..=4 {
        let reply = search(&mut client, query.clone());
        assert_eq!(result_count(&reply), 1, "call {call} is reduced: {reply}");
        assert!(
            reply.contains(&format!("note: search call {call} in 60 s")),
            "{reply}"
        );
    }
    let reply = search(&mut client, query.clone());
    assert!(
        reply.starts_with("redirected to mcp__context-mode__ctx_batch_execute"),
        "{reply}"
    );
    assert_eq!(result_count(&reply), 0, "{reply}");
}

/// A tiny HTTP/1.1 server on 127.0.0.1 that serves fixed pages and counts requests per path.
struct TestHttp {
    port: u16,
    hits: Arc<Mutex<HashMap<String, usize>>>,
}

impl TestHttp {
    fn start(pages: Vec<(&'static str, &'static str, String)>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let hits = Arc::new(Mutex::new(HashMap::new()));
        let pages: Arc<HashMap<&str, (&str, String)>> = Arc::new(
            pages
                .into_iter()
                .map(|(path, kind, body)| (path, (kind, body)))
                .collect(),
        );
        let counter = hits.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (pages, counter) = (pages.clone(), counter.clone());
                std::thread::spawn(move || serve_one(stream, &pages, &counter));
            }
        });
        TestHttp { port, hits }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn hits(&self, path: &str) -> usize {
        self.hits
            .lock()
            .expect("hits")
            .get(path)
            .copied()
            .unwrap_or(0)
    }
}

fn serve_one(
    stream: TcpStream,
    pages: &HashMap<&str, (&str, String)>,
    hits: &Mutex<HashMap<String, usize>>,
) {
    let mut reader = BufReader::new(stream);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    loop {
        let mut header = String::new();
        match reader.read_line(&mut header) {
            Ok(0) | Err(_) => break,
            Ok(_) if header.trim().is_empty() => break,
            Ok(_) => {}
        }
    }
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .to_string();
    *hits.lock().expect("hits").entry(path.clone()).or_default() += 1;
    let (status, kind, body) = match pages.get(path.as_str()) {
        Some((kind, body)) => ("200 OK", *kind, body.clone()),
        None => ("404 Not Found", "text/plain", "not here".to_string()),
    };
    let mut stream = reader.into_inner();
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

fn html_page() -> String {
    let filler: String = (0..60)
        .map(|i| {
            format!(
                "<p>Paragraph {i} about the harbour ferry timetable and its seasonal changes.</p>\n"
            )
        })
        .collect();
    format!(
        "<!doctype html><html><head><title>Ferry</title><script>var tracking = 1;</script></head><body>\
         <h1>Ferry Guide</h1>{filler}<h2>Night Service</h2>\
         <p>The pelicanline night ferry leaves at 23:40 from pier nine.</p></body></html>"
    )
}

#[test]
fn fetch_and_index_previews_caches_and_refetches() {
    let http = TestHttp::start(vec![("/ferry", "text/html; charset=utf-8", html_page())]);
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    let url = http.url("/ferry");

    let (reply, is_error) = client.call_tool(
        "ctx_fetch_and_index",
        json!({"url": url, "source": "ferry"}),
    );
    assert!(!is_error, "{reply}");
    assert_eq!(http.hits("/ferry"), 1);
    assert!(reply.starts_with("Indexed 1 of 1 URL;"), "{reply}");
    assert!(reply.contains("preview:"), "{reply}");
    assert!(
        !reply.contains("pelicanline"),
        "the page's end stays out of the reply: {reply}"
    );
    assert!(
        !reply.contains("<p>") && !reply.contains("tracking"),
        "no raw HTML: {reply}"
    );
    assert!(
        reply.len() < html_page().len() / 2,
        "a preview, not the page: {} bytes",
        reply.len()
    );

    let found = search(
        &mut client,
        json!({"queries": ["pelicanline night ferry"], "source": "ferry"}),
    );
    assert!(
        found.contains("1. ferry › Ferry Guide > Night Service"),
        "{found}"
    );
    assert!(found.contains("pier nine"), "{found}");

    let (reply, is_error) = client.call_tool(
        "ctx_fetch_and_index",
        json!({"url": url, "source": "ferry"}),
    );
    assert!(!is_error, "{reply}");
    assert!(reply.contains("(1 from cache)"), "{reply}");
    assert_eq!(http.hits("/ferry"), 1, "a cache hit makes no request");

    let (reply, is_error) = client.call_tool(
        "ctx_fetch_and_index",
        json!({"url": url, "source": "ferry", "force": "true"}),
    );
    assert!(!is_error, "{reply}");
    assert!(!reply.contains("from cache"), "{reply}");
    assert_eq!(http.hits("/ferry"), 2, "force refetches");
    let found = search(&mut client, json!({"queries": ["pelicanline"]}));
    assert_eq!(
        result_count(&found),
        1,
        "the refetch replaced the page, not duplicated it: {found}"
    );
}

#[test]
fn fetch_failures_are_one_line_and_a_batch_survives_one() {
    let http = TestHttp::start(vec![(
        "/ok.md",
        "text/markdown",
        "# Tides\n\nThe lamprey tide table for the estuary.\n".to_string(),
    )]);
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    let missing = http.url("/missing");

    let (reply, is_error) = client.call_tool("ctx_fetch_and_index", json!({"url": missing}));
    assert!(is_error, "{reply}");
    assert_eq!(reply, format!("Failed to fetch {missing}: HTTP 404"));

    let (reply, is_error) = client.call_tool(
        "ctx_fetch_and_index",
        json!({"requests": [{"url": http.url("/ok.md"), "source": "tides"}, {"url": missing}]}),
    );
    assert!(!is_error, "one page was indexed: {reply}");
    assert!(reply.starts_with("Indexed 1 of 2 URLs"), "{reply}");
    assert!(
        reply.contains(&format!("- Failed to fetch {missing}: HTTP 404")),
        "{reply}"
    );
    let found = search(&mut client, json!({"queries": ["lamprey"]}));
    assert!(found.contains("1. tides"), "{found}");
}

#[test]
fn cloud_metadata_addresses_are_refused_before_connecting() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    for url in [
        "http://169.254.169.254/latest/meta-data/",
        "http://2852039166/latest/meta-data/",
        "http://[::ffff:169.254.169.254]/",
    ] {
        let started = Instant::now();
        let (reply, is_error) = client.call_tool("ctx_fetch_and_index", json!({"url": url}));
        // A connection attempt to that address would hang until the 30 s fetch timeout here.
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{url} took {:?}",
            started.elapsed()
        );
        assert!(is_error, "{url}: {reply}");
        assert_eq!(reply.lines().count(), 1, "{reply}");
        assert!(reply.contains("link-local"), "{url}: {reply}");
        assert!(
            !reply.contains("timed out") && !reply.contains("refused the connection"),
            "{reply}"
        );
    }
}

fn project_databases(sandbox: &Sandbox) -> Vec<PathBuf> {
    let projects = sandbox.root.join("projects");
    std::fs::read_dir(&projects)
        .map(|dirs| {
            dirs.flatten()
                .map(|d| d.path().join("context.db"))
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_garbage_database_file_is_moved_aside_and_the_server_still_works() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    index_content(&mut client, GUIDE, "guide");
    assert!(client.close().success());

    let databases = project_databases(&sandbox);
    assert_eq!(databases.len(), 1, "{databases:?}");
    let db = &databases[0];
    let garbage: Vec<u8> = (0..64 * 1024).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(db, &garbage).expect("overwrite");
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }

    let mut client = sandbox.live_server();
    index_content(
        &mut client,
        "# Fresh\n\nThe dugong migration notes.\n",
        "fresh",
    );
    let reply = search(&mut client, json!({"queries": ["dugong"]}));
    assert!(reply.contains("1. fresh"), "{reply}");
    let moved: Vec<_> = std::fs::read_dir(db.parent().expect("parent"))
        .expect("read dir")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".corrupt-"))
        .collect();
    assert!(
        !moved.is_empty(),
        "the garbage was kept aside for inspection"
    );
}

/// A document large enough that each index file spans many pages.
fn saga() -> String {
    (0..600)
        .map(|i| format!("## Chapter {i}\n\nThe walrusHerd{i} crossed the tundra{i} at dawn.\n\n"))
        .collect()
}

#[test]
fn a_damaged_index_file_is_rebuilt_and_every_call_still_answers() {
    for name in ["context.words.db", "context.substrings.db"] {
        let sandbox = Sandbox::new();
        let mut client = unthrottled_server(&sandbox);
        index_content(&mut client, &saga(), "saga");
        assert!(client.close().success());
        let databases = project_databases(&sandbox);
        let index_file = databases[0].with_file_name(name);
        damage_index_file(&index_file);

        let mut client = unthrottled_server(&sandbox);
        // A word (words index) and the inside of an identifier (substrings index).
        for query in ["walrusHerd17 tundra17", "rusHerd42"] {
            let reply = search(&mut client, json!({"queries": [query]}));
            assert!(reply.contains("1. saga"), "{name}, {query}: {reply}");
        }
        index_content(&mut client, "# Later\n\nThe narwhalTusk notes.\n", "later");
        let reply = search(&mut client, json!({"queries": ["whalTus"]}));
        assert!(reply.contains("1. later"), "{name}: {reply}");
        assert!(client.close().success());
    }
}

/// Names of the files in the project's database directory.
fn database_dir_files(sandbox: &Sandbox) -> Vec<String> {
    let databases = project_databases(sandbox);
    let dir = databases[0].parent().expect("parent");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Bytes of the project's database files and their WALs.
fn database_bytes(sandbox: &Sandbox) -> u64 {
    let databases = project_databases(sandbox);
    let dir = databases[0].parent().expect("parent");
    std::fs::read_dir(dir)
        .expect("read dir")
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().ends_with("-shm"))
        .map(|e| e.metadata().map(|m| m.len()).unwrap_or(0))
        .sum()
}

#[test]
fn purging_a_large_source_gives_the_space_back_and_leaves_no_new_files() {
    let sandbox = Sandbox::new();
    let mut client = unthrottled_server(&sandbox);
    index_content(&mut client, &saga().repeat(4), "saga");
    index_content(&mut client, GUIDE, "guide");
    assert!(client.close().success());
    let before = database_bytes(&sandbox);
    let files_before = database_dir_files(&sandbox);

    let mut client = unthrottled_server(&sandbox);
    let (reply, is_error) =
        client.call_tool("ctx_purge", json!({"source": "saga", "confirm": true}));
    assert!(!is_error, "{reply}");
    assert!(search(&mut client, json!({"queries": ["zephyrctl"]})).contains("1. guide"));
    assert!(client.close().success());
    let after = database_bytes(&sandbox);
    assert!(
        after * 2 < before,
        "the files kept their size: {before} bytes before, {after} after"
    );
    assert_eq!(database_dir_files(&sandbox), files_before);

    let mut client = unthrottled_server(&sandbox);
    let (reply, is_error) =
        client.call_tool("ctx_purge", json!({"scope": "project", "confirm": true}));
    assert!(!is_error, "{reply}");
    assert!(client.close().success());
    let emptied = database_bytes(&sandbox);
    assert!(emptied <= after, "{after} bytes before, {emptied} after");
    assert_eq!(database_dir_files(&sandbox), files_before);
}

/// One Claude Code `Stop` hook run in the project (it journals and records its time).
fn stop_hook(sandbox: &Sandbox) {
    let stop = json!({
        "session_id": "hook-session",
        "transcript_path": "/home/dev/.claude/projects/x/hook-session.jsonl",
        "cwd": sandbox.project,
        "hook_event_name": "Stop",
    });
    let out = sandbox.hook("claude-code", "stop", stop.to_string().as_bytes());
    assert!(out.status.success(), "{out:?}");
}

/// A project whose database only hooks wrote (the journal): a server start and a purge
/// leave it without index files, as it was.
#[test]
fn purging_a_project_that_never_indexed_creates_no_index_files() {
    let sandbox = Sandbox::new();
    stop_hook(&sandbox);
    let files_before = database_dir_files(&sandbox);
    assert!(
        files_before
            .iter()
            .all(|f| !f.contains(".words.") && !f.contains(".substrings."))
    );
    let mut client = sandbox.live_server();
    let (reply, is_error) =
        client.call_tool("ctx_purge", json!({"scope": "project", "confirm": true}));
    assert!(!is_error, "{reply}");
    assert!(client.close().success());
    assert_eq!(database_dir_files(&sandbox), files_before);
}

#[test]
fn an_index_started_while_another_process_holds_the_write_lock_waits_for_it() {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    index_content(&mut client, GUIDE, "guide");
    let db = project_databases(&sandbox).remove(0);
    let (locked_tx, locked_rx) = std::sync::mpsc::channel();
    let holder = std::thread::spawn(move || {
        let conn = rusqlite::Connection::open(&db).expect("open project db");
        conn.execute_batch(
            "BEGIN IMMEDIATE; INSERT INTO meta(key, value) VALUES ('lock-test', '1');",
        )
        .expect("take the write lock");
        locked_tx.send(()).expect("signal");
        std::thread::sleep(Duration::from_millis(1_500));
        conn.execute_batch("COMMIT").expect("release");
    });
    locked_rx.recv().expect("lock taken");
    let (reply, is_error) = client.call_tool(
        "ctx_index",
        json!({"content": "# Locked\n\nThe okapi enclosure notes.\n", "source": "locked"}),
    );
    holder.join().expect("lock holder");
    assert!(
        !is_error,
        "ctx_index failed while the lock was held: {reply}"
    );
    assert!(search(&mut client, json!({"queries": ["okapi"]})).contains("1. locked"));
}

#[test]
fn a_huge_query_is_cut_and_answered_and_too_many_queries_get_one_line() {
    let sandbox = Sandbox::new();
    let mut client = unthrottled_server(&sandbox);
    index_content(&mut client, GUIDE, "guide");
    let huge = format!("zephyrctl {}", "x".repeat(10 * 1024 * 1024));
    let reply = search(&mut client, json!({"queries": [huge]}));
    assert!(
        reply.contains("1. guide"),
        "{}",
        &reply[..reply.len().min(2_000)]
    );
    assert!(
        reply.starts_with("Note: query 1 (10.0 MB) searched by its first 1.0 KB only"),
        "{}",
        &reply[..reply.len().min(2_000)]
    );
    assert!(reply.len() <= 16_384);

    let many: Vec<String> = (0..10_000).map(|i| format!("term{i}")).collect();
    let (reply, is_error) = client.call_tool("ctx_search", json!({"queries": many}));
    assert!(is_error, "{}", &reply[..reply.len().min(2_000)]);
    assert_eq!(reply.lines().count(), 1, "{reply}");
    assert!(
        reply.contains("at most 32 queries") && reply.contains("10000"),
        "{reply}"
    );

    let (reply, is_error) = client.call_tool(
        "ctx_batch_execute",
        json!({"commands": [{"label": "a", "command": "echo ran > ran.txt"}], "queries": many}),
    );
    assert!(is_error, "{}", &reply[..reply.len().min(2_000)]);
    assert_eq!(reply.lines().count(), 1, "{reply}");
    assert!(reply.contains("at most 32 queries"), "{reply}");
    assert!(
        !sandbox.project.join("ran.txt").exists(),
        "the commands ran"
    );
}

fn hook_timing_rows(db: &std::path::Path) -> i64 {
    rusqlite::Connection::open(db)
        .expect("open project db")
        .query_row("SELECT count(*) FROM hook_timings", [], |r| r.get(0))
        .expect("count")
}

/// `HOOK_TIMINGS_MAX_ROWS` (20,000) and `HOOK_TIMINGS_PRUNE_EVERY_ROWS` (256) of limits.rs.
const HOOK_TIMINGS_MAX_ROWS: i64 = 20_000;

#[test]
fn hook_timings_stay_bounded_after_many_hook_runs() {
    let sandbox = Sandbox::new();
    stop_hook(&sandbox);
    let db = project_databases(&sandbox).remove(0);
    // As many runs as a few weeks of use leave, then the runs that cross the next
    // prune point (every 256th id): the table is cut back to the cap.
    let fill = |conn: &rusqlite::Connection, up_to: i64| {
        conn.execute(
            "WITH RECURSIVE n(i) AS (SELECT (SELECT max(id) FROM hook_timings) + 1
                                    UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
             INSERT INTO hook_timings(id, platform, event, duration_us, created_at)
             SELECT i, 'claude-code', 'stop', 1000, 0 FROM n",
            [up_to],
        )
        .expect("fill hook_timings");
    };
    fill(&rusqlite::Connection::open(&db).expect("open"), 20_479);
    for _ in 0..3 {
        stop_hook(&sandbox);
    }
    let rows = hook_timing_rows(&db);
    assert!(rows <= HOOK_TIMINGS_MAX_ROWS + 256, "{rows} rows kept");

    // A server start prunes too (a project whose hooks never hit a prune point).
    fill(&rusqlite::Connection::open(&db).expect("open"), 60_100);
    let client = sandbox.live_server();
    let deadline = Instant::now() + Duration::from_secs(20);
    while hook_timing_rows(&db) > HOOK_TIMINGS_MAX_ROWS && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(client.close().success());
    let rows = hook_timing_rows(&db);
    assert!(rows <= HOOK_TIMINGS_MAX_ROWS, "{rows} rows kept");
}

/// A reply names the next call as the host's redirects do (`mcp__context-mode__…` for
/// Claude Code, whose deferred tools load only by that name); a client no adapter claims
/// gets the tools' own names.
#[test]
fn replies_name_tools_as_the_hosts_redirects_do() {
    let sandbox = Sandbox::new();
    for (client_name, search) in [
        ("claude-code", "mcp__context-mode__ctx_search"),
        ("some-mcp-client", "ctx_search"),
    ] {
        let mut client = McpClient::spawn_as(sandbox.cm().arg("serve"), client_name);
        let reply = index_content(&mut client, GUIDE, "guide");
        assert!(
            reply.contains(&format!("Search it: {search}(queries: [")),
            "{client_name}: {reply}"
        );
        assert!(client.close().success());
    }
}
