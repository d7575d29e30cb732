//! The framing rules one by one, then as properties over generated lines.

use proptest::prelude::*;
use rmcp::model::{ClientNotification, RequestMetaObject};
use serde_json::{Value, json};

use super::*;

/// One reply the line gets: from rmcp (a delivered request) or from the transport.
#[derive(Debug, PartialEq)]
enum Reply {
    /// rmcp will answer this request id.
    ByRmcp(Value),
    /// The transport answers: (id, code).
    Here(Value, i32),
}

fn replies(line: &[u8]) -> Vec<Reply> {
    match decode_line(line) {
        Decoded::Deliver(message) => match *message {
            JsonRpcMessage::Request(request) => {
                vec![Reply::ByRmcp(serde_json::to_value(&request.id).unwrap())]
            }
            _ => Vec::new(),
        },
        Decoded::Answer(answers) => answers
            .iter()
            .map(|a| {
                let line = a.to_line();
                assert_eq!(line.iter().filter(|b| **b == b'\n').count(), 1);
                let reply: Value = serde_json::from_slice(&line).expect("a JSON reply");
                assert_eq!(reply["jsonrpc"], "2.0");
                Reply::Here(reply["id"].clone(), a.error.code)
            })
            .collect(),
    }
}

fn here(line: &str) -> Vec<(Value, i32)> {
    replies(line.as_bytes())
        .into_iter()
        .map(|r| match r {
            Reply::Here(id, code) => (id, code),
            other => panic!("{line}: delivered to rmcp: {other:?}"),
        })
        .collect()
}

fn call_line(arguments: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"ctx_index","arguments":{arguments},"_meta":{{"progressToken":"p1"}}}}}}"#
    )
    .into_bytes()
}

fn delivered_call(line: &[u8]) -> CallToolRequest {
    let Decoded::Deliver(message) = decode_line(line) else {
        panic!("not delivered: {}", String::from_utf8_lossy(line))
    };
    let JsonRpcMessage::Request(JsonRpcRequest {
        request: ClientRequest::CallToolRequest(call),
        ..
    }) = *message
    else {
        panic!("not a tool call")
    };
    call
}

#[test]
fn a_tool_call_decodes_like_rmcp_decodes_it() {
    let line = call_line(r#"{"content":"a \"quoted\" line\nand more","source":"s"}"#);
    let fast = delivered_call(&line);
    let slow: RxJsonRpcMessage<RoleServer> = serde_json::from_slice(&line).unwrap();
    let JsonRpcMessage::Request(slow) = slow else {
        panic!("not a request")
    };
    let ClientRequest::CallToolRequest(slow) = slow.request else {
        panic!("not a tool call")
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
    assert_eq!(
        replies(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
        vec![Reply::ByRmcp(json!(1))]
    );
    let Decoded::Deliver(message) =
        decode_line(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
    else {
        panic!("notification not delivered")
    };
    assert!(matches!(
        *message,
        JsonRpcMessage::Notification(n) if matches!(n.notification, ClientNotification::InitializedNotification(_))
    ));
}

#[test]
fn lone_surrogates_are_read_as_replacement_characters() {
    let call = delivered_call(&call_line(
        r#"{"content":"cut \ud83d","source":"a\udc00b"}"#,
    ));
    let arguments = call.params.arguments.expect("arguments");
    assert_eq!(arguments["content"], "cut \u{fffd}");
    assert_eq!(arguments["source"], "a\u{fffd}b");
    // A whole pair stays an emoji; an escaped backslash is not an escape.
    let call = delivered_call(&call_line(r#"{"content":"\ud83d\ude00 \\ud83d"}"#));
    assert_eq!(call.params.arguments.unwrap()["content"], "😀 \\ud83d");
    assert_eq!(repair_lone_surrogates(r#"{"a":"\ud83d\ude00"}"#), None);
}

#[test]
fn bytes_that_are_not_utf8_get_a_parse_error_with_the_id() {
    let mut line = br#"{"jsonrpc":"2.0","id":"u1","method":"tools/call","params":{"name":"ctx_index","arguments":{"content":""#.to_vec();
    line.extend_from_slice(b"\xff\xfe\"}}}");
    assert_eq!(replies(&line), vec![Reply::Here(json!("u1"), PARSE_ERROR)]);
    assert_eq!(
        replies(b"\xff\xfe"),
        vec![Reply::Here(Value::Null, PARSE_ERROR)]
    );
    assert_eq!(
        replies(b"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"p\":\"\xff\"}"),
        vec![]
    );
}

#[test]
fn deep_nesting_is_invalid_params_with_the_id() {
    let deep = format!("{}{}", "[".repeat(1_000), "]".repeat(1_000));
    let line = call_line(&format!(r#"{{"content":{deep}}}"#));
    assert_eq!(replies(&line), vec![Reply::Here(json!(7), INVALID_PARAMS)]);
    let line =
        format!(r#"{{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{{"cursor":{deep}}}}}"#);
    assert_eq!(here(&line), vec![(json!(8), INVALID_PARAMS)]);
    let line =
        format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"x":{deep}}}}}"#);
    assert_eq!(here(&line), vec![]);
}

#[test]
fn batches_are_refused_once_per_request_in_them() {
    let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"tools/list"}]"#;
    assert_eq!(
        here(batch),
        vec![(json!(1), INVALID_REQUEST), (json!("b"), INVALID_REQUEST)]
    );
    assert_eq!(here("[]"), vec![(Value::Null, INVALID_REQUEST)]);
    assert_eq!(here("[1,2]"), vec![(Value::Null, INVALID_REQUEST)]);
    assert_eq!(
        here(r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#),
        vec![]
    );
}

#[test]
fn envelopes_that_are_not_json_rpc_2_are_invalid_requests_with_the_id() {
    for line in [
        r#"{"jsonrpc":"1.0","id":3,"method":"tools/list"}"#,
        r#"{"id":3,"method":"tools/list"}"#,
        r#"{"jsonrpc":2,"id":3,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":5}"#,
        r#"{"jsonrpc":"2.0","id":3}"#,
    ] {
        assert_eq!(here(line), vec![(json!(3), INVALID_REQUEST)], "{line}");
    }
    // Ids a reply can't carry as given: echoed when they are numbers, else null.
    assert_eq!(
        here(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#),
        vec![(json!(1.5), INVALID_REQUEST)]
    );
    assert_eq!(
        here(r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#),
        vec![(json!(18446744073709551615u64), INVALID_REQUEST)]
    );
    for id in ["null", "true", "{}", "[1]"] {
        let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        assert_eq!(here(&line), vec![(Value::Null, INVALID_REQUEST)], "{line}");
    }
    assert_eq!(here("{}"), vec![(Value::Null, INVALID_REQUEST)]);
    assert_eq!(
        here(r#""not a request""#),
        vec![(Value::Null, INVALID_REQUEST)]
    );
}

#[test]
fn params_of_the_wrong_shape_are_invalid_params_with_the_id() {
    for line in [
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":["ctx_stats",{}]}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":"x"}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":5}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ctx_stats","arguments":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call"}"#,
    ] {
        assert_eq!(here(line), vec![(json!(4), INVALID_PARAMS)], "{line}");
    }
}

#[test]
fn garbage_gets_a_parse_error_and_notifications_nothing() {
    assert_eq!(here("{not json"), vec![(Value::Null, PARSE_ERROR)]);
    assert_eq!(
        here(r#"{"jsonrpc":"2.0","id":9,"method":"tools/list","#),
        vec![(json!(9), PARSE_ERROR)]
    );
    assert_eq!(here("   \r\n"), vec![]);
    assert_eq!(
        here(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":5}"#),
        vec![]
    );
    assert_eq!(here(r#"{"jsonrpc":"2.0","method":"vendor/thing"}"#), vec![]);
    assert_eq!(here(r#"{"jsonrpc":"2.0","method":"x","#), vec![]);
    assert_eq!(
        here(r#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#),
        vec![]
    );
}

// --- properties -------------------------------------------------------------

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(256)
}

/// An id of any JSON type, as text; `Some(value)` when a reply can carry it.
fn any_id() -> impl Strategy<Value = (String, Option<Value>)> {
    prop_oneof![
        any::<i64>().prop_map(|n| (n.to_string(), Some(json!(n)))),
        any::<u64>().prop_map(|n| (n.to_string(), Some(json!(n)))),
        (-1e6f64..1e6).prop_map(|f| {
            // Read back from its text: the value the reply's echo parses to.
            let text = json!(f).to_string();
            let value = serde_json::from_str(&text).ok();
            (text, value)
        }),
        "[a-zA-Z0-9 _é😀\"\\\\-]{0,12}".prop_map(|s| (json!(s).to_string(), Some(json!(s)))),
        Just(("null".to_string(), None)),
        any::<bool>().prop_map(|b| (b.to_string(), None)),
        Just(("{\"a\":1}".to_string(), None)),
        Just(("[1,2]".to_string(), None)),
    ]
}

fn any_json_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just(json!(null)),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        ".{0,10}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
    .prop_map(|v| v.to_string())
}

fn any_params() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => any_json_text().prop_map(|v| format!(r#"{{"name":"ctx_search","arguments":{{"queries":{v}}}}}"#)),
        2 => any_json_text(),
        1 => (128usize..1_500).prop_map(|n| format!(r#"{{"arguments":{{"x":{}{}}}}}"#, "[".repeat(n), "]".repeat(n))),
        1 => Just(r#"{"name":"ctx_stats","arguments":{"s":"cut \ud83d"}}"#.to_string()),
        1 => Just(r#"{"name":"ctx_nope"}"#.to_string()),
    ]
}

/// A generated message line and the id its reply must carry: `Some(Some(id))` a
/// request with that id, `Some(None)` a request answered with a null id, `None` a
/// notification (no reply).
#[derive(Debug, Clone)]
struct Generated {
    line: Vec<u8>,
    expect: Option<Option<Value>>,
    /// Cut short: at most one reply, with the id or a null one.
    truncated: bool,
    /// Has an `id` member (of any type).
    has_id: bool,
    /// Has a `method` member.
    has_method: bool,
}

fn any_message() -> impl Strategy<Value = Generated> {
    let jsonrpc = prop_oneof![
        6 => Just(Some(r#""2.0""#.to_string())),
        1 => Just(Some(r#""1.0""#.to_string())),
        1 => Just(Some("2".to_string())),
        1 => Just(None),
    ];
    let method = prop_oneof![
        Just(Some(r#""tools/call""#.to_string())),
        Just(Some(r#""tools/list""#.to_string())),
        Just(Some(r#""ping""#.to_string())),
        Just(Some(r#""notifications/cancelled""#.to_string())),
        Just(Some(r#""vendor/x\ud83d""#.to_string())),
        Just(Some("5".to_string())),
        Just(None),
    ];
    (
        jsonrpc,
        prop::option::weighted(0.8, any_id()),
        method,
        prop::option::of(any_params()),
        any::<bool>(),
        prop::option::weighted(0.15, 1usize..200),
        prop::option::weighted(0.1, Just(())),
    )
        .prop_map(|(jsonrpc, id, method, params, shuffle, cut, bad_utf8)| {
            let mut members: Vec<(&str, String)> = Vec::new();
            if let Some(j) = jsonrpc {
                members.push(("jsonrpc", j));
            }
            if let Some((text, _)) = &id {
                members.push(("id", text.clone()));
            }
            if let Some(m) = &method {
                members.push(("method", m.clone()));
            }
            if let Some(p) = params {
                members.push(("params", p));
            }
            if shuffle {
                members.reverse();
            }
            let mut line: Vec<u8> = format!(
                "{{{}}}",
                members
                    .iter()
                    .map(|(k, v)| format!("\"{k}\":{v}"))
                    .collect::<Vec<_>>()
                    .join(",")
            )
            .into_bytes();
            if bad_utf8.is_some() {
                line.pop();
                line.extend_from_slice(b",\"z\":\"\xff\"}");
            }
            let truncated = cut.is_some_and(|n| n < line.len());
            if let Some(n) = cut.filter(|_| truncated) {
                line.truncate(line.len() - n);
            }
            let expect = match (&id, &method) {
                (Some((_, id)), _) => Some(id.clone()),
                (None, Some(_)) => None,
                (None, None) => Some(None),
            };
            Generated {
                line,
                expect,
                truncated,
                has_id: id.is_some(),
                has_method: method.is_some(),
            }
        })
}

/// JSON-equal ids (numbers compared by value: `2.0` names request 2).
fn same_id(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) if a.is_number() && b.is_number() => x == y || a == b,
        _ => a == b,
    }
}

fn check(generated: &Generated) -> Result<(), TestCaseError> {
    let got = replies(&generated.line);
    let ids: Vec<Value> = got
        .iter()
        .map(|r| match r {
            Reply::ByRmcp(id) | Reply::Here(id, _) => id.clone(),
        })
        .collect();
    let text = String::from_utf8_lossy(&generated.line);
    if generated.truncated {
        prop_assert!(ids.len() <= 1, "{text}: {got:?}");
        if let (Some(id), Some(Some(expected))) = (ids.first(), &generated.expect) {
            prop_assert!(id.is_null() || same_id(id, expected), "{text}: {got:?}");
        }
        return Ok(());
    }
    match &generated.expect {
        None => prop_assert!(
            ids.is_empty(),
            "{text}: a notification was answered: {got:?}"
        ),
        Some(expected) => {
            prop_assert_eq!(ids.len(), 1, "{}: {:?}", text, got);
            let expected = expected.clone().unwrap_or(Value::Null);
            prop_assert!(same_id(&ids[0], &expected), "{text}: {got:?}");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Every request line gets exactly one reply with its id (from rmcp or from
    /// here), a notification none, a line cut short at most one.
    #[test]
    fn every_request_gets_exactly_one_reply_with_its_id(generated in any_message()) {
        check(&generated)?;
    }

    /// A batch of generated messages: one refusal per element with an id.
    #[test]
    fn a_batch_gets_one_refusal_per_request(items in prop::collection::vec(any_message(), 1..5)) {
        let items: Vec<Generated> = items
            .into_iter()
            .filter(|g| !g.truncated && std::str::from_utf8(&g.line).is_ok())
            .collect();
        prop_assume!(!items.is_empty());
        let mut line = b"[".to_vec();
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                line.push(b',');
            }
            line.extend_from_slice(&item.line);
        }
        line.push(b']');
        let got = here(std::str::from_utf8(&line).unwrap());
        let with_id = items.iter().filter(|g| g.has_id).count();
        let invalid = items.iter().any(|g| !g.has_id && !g.has_method);
        let expected = if with_id == 0 { usize::from(invalid) } else { with_id };
        prop_assert!(got.iter().all(|(_, code)| *code == INVALID_REQUEST));
        prop_assert_eq!(got.len(), expected, "{:?}", got);
    }

    /// Any bytes at all: no panic, and every reply is one JSON line.
    #[test]
    fn any_bytes_get_at_most_one_well_formed_reply(line in prop::collection::vec(any::<u8>(), 0..200)) {
        let line: Vec<u8> = line.into_iter().filter(|b| *b != b'\n').collect();
        let got = replies(&line);
        prop_assert!(got.len() <= 1 || line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'['));
    }
}
