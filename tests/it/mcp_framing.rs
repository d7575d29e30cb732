//! JSON-RPC framing of a real `cm serve`, byte for byte: every line that names a
//! request id gets exactly one reply with that id, notifications get none, stdout
//! carries nothing but JSON objects, and the server keeps serving (ADR 14).

use crate::common;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use common::Sandbox;
use proptest::prelude::*;
use serde_json::{Value, json};

/// Long enough for any reply on a loaded machine; only a server that never answers waits it out.
const NO_REPLY_AFTER: Duration = Duration::from_secs(60);

/// `cm serve` driven with raw bytes; its stdout is read by a thread, line by line.
struct RawServer {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_ping: u64,
    _sandbox: Sandbox,
}

impl RawServer {
    fn start() -> RawServer {
        let sandbox = Sandbox::new();
        let mut child = sandbox
            .cm()
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn cm serve");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut server = RawServer {
            child,
            stdin,
            lines,
            next_ping: 0,
            _sandbox: sandbox,
        };
        let init = json!({"jsonrpc":"2.0","id":"init","method":"initialize","params":{
            "protocolVersion":"2025-06-18","capabilities":{},
            "clientInfo":{"name":"claude-code","version":"1.0.0"}}});
        server.send(init.to_string().as_bytes());
        let (reply, _) = server.until_reply(&json!("init"));
        assert!(reply["result"]["serverInfo"].is_object(), "{reply}");
        server.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        server
    }

    fn send(&mut self, line: &[u8]) {
        self.stdin.write_all(line).expect("write to cm serve");
        self.stdin.write_all(b"\n").expect("write to cm serve");
        self.stdin.flush().expect("flush");
    }

    /// The next message on stdout; it must be one JSON object.
    fn next_message(&mut self) -> Value {
        let line = match self.lines.recv_timeout(NO_REPLY_AFTER) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => {
                panic!("cm serve wrote nothing for {NO_REPLY_AFTER:?}")
            }
            Err(RecvTimeoutError::Disconnected) => {
                panic!("cm serve closed stdout: {:?}", self.child.try_wait())
            }
        };
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("cm serve wrote a non-JSON line {line:?}: {e}"));
        assert!(message.is_object(), "{line}");
        message
    }

    /// Reads until the reply to `id`; returns it and the messages read before it.
    fn until_reply(&mut self, id: &Value) -> (Value, Vec<Value>) {
        let mut before = Vec::new();
        loop {
            let message = self.next_message();
            if message.get("id") == Some(id) && message.get("method").is_none() {
                return (message, before);
            }
            before.push(message);
        }
    }

    /// Like [`RawServer::until_reply`], ids compared by value (`1.5` and `1.50`).
    fn until_reply_key(&mut self, id: &Value) -> (Value, Vec<Value>) {
        let mut before = Vec::new();
        loop {
            let message = self.next_message();
            if id_key(&message["id"]) == id_key(id) {
                return (message, before);
            }
            before.push(message);
        }
    }

    /// A ping, and every message that came before its reply.
    fn ping(&mut self) -> Vec<Value> {
        self.next_ping += 1;
        let id = json!(format!("ping-{}", self.next_ping));
        self.send(
            json!({"jsonrpc":"2.0","id":id,"method":"ping"})
                .to_string()
                .as_bytes(),
        );
        let (reply, before) = self.until_reply(&id);
        assert!(reply["result"].is_object(), "{reply}");
        before
    }

    /// Sends `line`, expects one error reply with `id` and `code`, then proves the
    /// server still answers.
    fn expect_error(&mut self, line: &[u8], id: Value, code: i64) -> Value {
        self.send(line);
        let (reply, before) = self.until_reply(&id);
        assert_eq!(
            reply["error"]["code"],
            code,
            "{}: {reply}",
            String::from_utf8_lossy(line)
        );
        assert!(before.is_empty(), "{before:?}");
        assert!(self.ping().is_empty());
        reply
    }
}

impl Drop for RawServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn call(id: &str, params: &str) -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","id":"{id}","method":"tools/call","params":{params}}}"#)
        .into_bytes()
}

#[test]
fn a_lone_surrogate_is_read_as_a_replacement_character() {
    let mut server = RawServer::start();
    // What Node's JSON.stringify writes for a string cut inside an emoji.
    server.send(&call(
        "s1",
        r##"{"name":"ctx_index","arguments":{"content":"# Cut\n\ncut inside \ud83d here","source":"cut"}}"##,
    ));
    let (reply, _) = server.until_reply(&json!("s1"));
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    server.send(&call(
        "s2",
        r#"{"name":"ctx_search","arguments":{"queries":["cut inside"]}}"#,
    ));
    let (reply, _) = server.until_reply(&json!("s2"));
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("cut inside \u{fffd} here"), "{reply}");
}

#[test]
fn bytes_that_are_not_utf8_get_a_parse_error_with_the_id() {
    let mut server = RawServer::start();
    let mut line = call(
        "u1",
        r#"{"name":"ctx_index","arguments":{"content":"latin-1 "#,
    );
    line.extend_from_slice(b"caf\xe9\"}}}");
    let reply = server.expect_error(&line, json!("u1"), -32700);
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("UTF-8"),
        "{reply}"
    );
}

#[test]
fn nesting_a_thousand_deep_gets_invalid_params_with_the_id() {
    let mut server = RawServer::start();
    let deep = format!("{}{}", "[".repeat(1_000), "]".repeat(1_000));
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{{"name":"ctx_index","arguments":{{"content":{deep}}}}}}}"#
    );
    server.expect_error(line.as_bytes(), json!(11), -32602);
}

#[test]
fn a_batch_gets_one_error_per_request_and_none_for_its_notification() {
    let mut server = RawServer::start();
    server.send(
        br#"[{"jsonrpc":"2.0","id":21,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b22","method":"tools/list"}]"#,
    );
    let mut answered = HashMap::new();
    while answered.len() < 2 {
        let message = server.next_message();
        *answered.entry(message["id"].to_string()).or_insert(0) += 1;
        assert_eq!(message["error"]["code"], -32600, "{message}");
    }
    assert_eq!(answered.get("21"), Some(&1));
    assert_eq!(answered.get("\"b22\""), Some(&1));
    assert!(server.ping().is_empty());
}

#[test]
fn envelopes_that_are_not_json_rpc_2_get_invalid_request_with_the_id() {
    let mut server = RawServer::start();
    server.expect_error(
        br#"{"jsonrpc":"1.0","id":31,"method":"tools/list"}"#,
        json!(31),
        -32600,
    );
    server.expect_error(br#"{"id":32,"method":"tools/list"}"#, json!(32), -32600);
    server.expect_error(
        br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
        json!(1.5),
        -32600,
    );
}

#[test]
fn wrong_params_on_tools_call_are_invalid_params_not_method_not_found() {
    let mut server = RawServer::start();
    server.expect_error(&call("p1", r#"["ctx_stats", {}]"#), json!("p1"), -32602);
    server.expect_error(&call("p2", r#"{"name":5}"#), json!("p2"), -32602);
    server.expect_error(
        &call("p3", r#"{"name":"ctx_stats","arguments":"all"}"#),
        json!("p3"),
        -32602,
    );
    let reply = server.expect_error(
        &call("p4", r#"{"name":"ctx_nope","arguments":{}}"#),
        json!("p4"),
        -32602,
    );
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("ctx_nope"),
        "{reply}"
    );
}

#[test]
fn unreadable_lines_get_a_parse_error_and_notifications_nothing() {
    let mut server = RawServer::start();
    server.expect_error(b"{not json", Value::Null, -32700);
    server.expect_error(
        br#"{"jsonrpc":"2.0","id":61,"method":"tools/list","#,
        json!(61),
        -32700,
    );
    for notification in [
        br#"{"jsonrpc":"2.0","method":"vendor/unknown","params":[1]}"#.as_slice(),
        br#"{"jsonrpc":"2.0","method":"notifications/progress","params":5}"#,
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"none"}}"#,
        b"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"s\":\"\xff\"}}",
    ] {
        server.send(notification);
        // Nothing answers it: the next two pings' replies are all stdout carries.
        assert!(
            server.ping().is_empty(),
            "{}",
            String::from_utf8_lossy(notification)
        );
        assert!(server.ping().is_empty());
    }
}

// --- one bounded property over a real server ----------------------------------

/// How one generated line names its id; the harness picks unique values.
#[derive(Debug, Clone, Copy)]
enum IdKind {
    Integer,
    Text,
    Fraction,
    Huge,
    /// `null`, `true` or an object: answered with a null id.
    Uncarryable(u8),
    None,
}

/// How a generated line is spoiled, if at all.
#[derive(Debug, Clone, Copy)]
enum Spoil {
    Nothing,
    LoneSurrogate,
    NotUtf8,
    Deep(usize),
    OldJsonRpc,
    ParamsArray,
    CutShort(usize),
    Batch,
}

fn any_line() -> impl Strategy<Value = (IdKind, u8, Spoil)> {
    let id = prop_oneof![
        3 => Just(IdKind::Integer),
        3 => Just(IdKind::Text),
        1 => Just(IdKind::Fraction),
        1 => Just(IdKind::Huge),
        1 => (0u8..3).prop_map(IdKind::Uncarryable),
        2 => Just(IdKind::None),
    ];
    let spoil = prop_oneof![
        4 => Just(Spoil::Nothing),
        1 => Just(Spoil::LoneSurrogate),
        1 => Just(Spoil::NotUtf8),
        1 => (128usize..1_200).prop_map(Spoil::Deep),
        1 => Just(Spoil::OldJsonRpc),
        1 => Just(Spoil::ParamsArray),
        1 => (1usize..40).prop_map(Spoil::CutShort),
        1 => Just(Spoil::Batch),
    ];
    (id, 0u8..6, spoil)
}

/// What the server must answer for one line.
#[derive(Debug, Default)]
struct Expected {
    /// Ids that must each be answered exactly once.
    ids: Vec<Value>,
    /// Null-id replies allowed at most.
    null_replies: usize,
    /// Ids that may be answered once or not at all (lines cut short).
    maybe: Vec<Value>,
}

fn render(n: u64, kind: IdKind, method: u8, spoil: Spoil, expected: &mut Expected) -> Vec<u8> {
    let (id_text, id) = match kind {
        IdKind::Integer => (n.to_string(), Some(json!(n))),
        IdKind::Text => (format!("\"g-{n}\""), Some(json!(format!("g-{n}")))),
        IdKind::Fraction => (format!("{n}.5"), Some(json!(n as f64 + 0.5))),
        IdKind::Huge => {
            let big = u64::MAX - n;
            (big.to_string(), Some(json!(big)))
        }
        IdKind::Uncarryable(k) => (["null", "true", "{\"k\":1}"][k as usize].to_string(), None),
        IdKind::None => (String::new(), None),
    };
    let text = match spoil {
        Spoil::LoneSurrogate => "cut \\ud83d",
        _ => "plain",
    };
    let deep = |d: usize| format!("{}{}", "[".repeat(d), "]".repeat(d));
    let (method_name, mut params) = match method {
        0 => ("tools/list", "{}".to_string()),
        1 => ("ping", "{}".to_string()),
        2 => (
            "tools/call",
            format!(r#"{{"name":"ctx_search","arguments":{{"queries":["{text}"]}}}}"#),
        ),
        3 => (
            "tools/call",
            r#"{"name":"ctx_stats","arguments":{}}"#.to_string(),
        ),
        4 => (
            "tools/call",
            r#"{"name":"ctx_missing","arguments":{"x":1}}"#.to_string(),
        ),
        _ => ("vendor/unknown", format!(r#"{{"s":"{text}"}}"#)),
    };
    if let Spoil::Deep(d) = spoil {
        params = format!(
            r#"{{"name":"ctx_search","arguments":{{"queries":{}}}}}"#,
            deep(d)
        );
    }
    if let Spoil::ParamsArray = spoil {
        params = "[1,2]".to_string();
    }
    let jsonrpc = if let Spoil::OldJsonRpc = spoil {
        "1.0"
    } else {
        "2.0"
    };
    let id_member = if matches!(kind, IdKind::None) {
        String::new()
    } else {
        format!(r#""id":{id_text},"#)
    };
    let mut line = format!(
        r#"{{"jsonrpc":"{jsonrpc}",{id_member}"method":"{method_name}","params":{params}}}"#
    )
    .into_bytes();
    if let Spoil::NotUtf8 = spoil {
        line.pop();
        line.extend_from_slice(b",\"z\":\"\xff\"}");
    }
    let has_id = !matches!(kind, IdKind::None);
    match spoil {
        Spoil::CutShort(cut) => {
            line.truncate(line.len().saturating_sub(cut).max(1));
            expected.maybe.extend(id);
            expected.null_replies += 1;
        }
        Spoil::Batch => {
            let mut batch = b"[".to_vec();
            batch.extend_from_slice(&line);
            batch.extend_from_slice(br#",{"jsonrpc":"2.0","method":"notifications/initialized"}]"#);
            line = batch;
            match id {
                Some(id) => expected.ids.push(id),
                None if has_id => expected.null_replies += 1,
                None => {}
            }
        }
        _ => match id {
            Some(id) => expected.ids.push(id),
            None if has_id => expected.null_replies += 1,
            None => {}
        },
    }
    line
}

fn id_key(id: &Value) -> String {
    match id.as_f64() {
        Some(f) if id.is_f64() => format!("{f}"),
        _ => id.to_string(),
    }
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(32)
}

#[test]
fn a_real_server_answers_every_generated_request_exactly_once() {
    let server = std::cell::RefCell::new(RawServer::start());
    let counter = std::cell::Cell::new(1_000u64);
    let config = ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    proptest!(config, |(lines in prop::collection::vec(any_line(), 1..8))| {
        let mut server = server.borrow_mut();
        let mut expected = Expected::default();
        for (kind, method, spoil) in lines {
            counter.set(counter.get() + 1);
            let line = render(counter.get(), kind, method, spoil, &mut expected);
            server.send(&line);
        }
        // Requests run concurrently: read until every expected id is in, then one
        // more ping to collect anything answered twice.
        let mut messages = server.ping();
        let answered = |messages: &[Value], id: &Value| messages.iter().any(|m| id_key(&m["id"]) == id_key(id));
        while let Some(missing) = expected.ids.iter().find(|id| !answered(&messages, id)).cloned() {
            let (reply, before) = server.until_reply_key(&missing);
            messages.extend(before);
            messages.push(reply);
        }
        messages.extend(server.ping());
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut nulls = 0usize;
        for message in messages.iter().filter(|m| m.get("method").is_none()) {
            if message["id"].is_null() {
                nulls += 1;
            } else {
                *seen.entry(id_key(&message["id"])).or_default() += 1;
            }
        }
        for id in &expected.ids {
            prop_assert_eq!(seen.remove(&id_key(id)), Some(1), "{}", id);
        }
        for id in &expected.maybe {
            prop_assert!(seen.remove(&id_key(id)).unwrap_or(0) <= 1, "{}", id);
        }
        prop_assert!(seen.is_empty(), "unexpected replies: {:?}", seen);
        prop_assert!(nulls <= expected.null_replies, "{} null-id replies", nulls);
    });
    let mut server = server.into_inner();
    assert!(server.ping().is_empty());
}
