//! Generated hook stdin for property tests: arbitrary bytes, and the golden
//! payloads cut short, with a field of the wrong type or a huge string, with deep
//! nesting or a lone surrogate. Native only (feature `hostile-inputs`); the host's
//! black-box hook tests include this same file.

use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::Value;

/// Stands for a value spliced in as raw text after serialisation (deep nesting,
/// lone surrogates: things a `Value` cannot hold).
const RAW: &str = "\u{1}cm-raw\u{1}";

/// The golden payloads (`*.stdin.json`) in `dir`, with `project` for `__PROJECT__`.
pub fn golden_payloads(dir: &std::path::Path, project: &str) -> Vec<Value> {
    let mut payloads: Vec<Value> = std::fs::read_dir(dir)
        .expect("golden dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".stdin.json"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("read golden");
            serde_json::from_str(&text.replace("__PROJECT__", project)).expect("golden JSON")
        })
        .collect();
    payloads.sort_by_key(|v| v.to_string());
    payloads
}

/// JSON pointers of every value inside `value` (the root excluded).
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    let children: Vec<(String, &Value)> = match value {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| (k.replace('~', "~0").replace('/', "~1"), v))
            .collect(),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), v))
            .collect(),
        _ => Vec::new(),
    };
    for (key, child) in children {
        let pointer = format!("{at}/{key}");
        out.push(pointer.clone());
        pointers(child, pointer, out);
    }
}

/// A value of the wrong type (or of a hostile size) for any field.
fn wrong_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        ".{0,40}".prop_map(Value::String),
        Just(serde_json::json!([])),
        Just(serde_json::json!({})),
        proptest::collection::vec(any::<i32>(), 0..8).prop_map(|v| serde_json::json!(v)),
        (1usize..2_000_000).prop_map(|n| Value::String("x".repeat(n))),
    ]
}

/// Raw JSON text for the spliced value: deep nesting, or a lone surrogate.
fn raw_text() -> impl Strategy<Value = String> {
    prop_oneof![
        (1usize..20_000).prop_map(|d| format!("{}{}", "[".repeat(d), "]".repeat(d))),
        (1usize..20_000).prop_map(|d| format!("{}1{}", "{\"a\":".repeat(d), "}".repeat(d))),
        Just("\"\\ud83d\"".to_string()),
        Just("\"\\udc00 tail\"".to_string()),
    ]
}

fn with_value(payload: &Value, at: Index, value: Value) -> Vec<u8> {
    let mut paths = Vec::new();
    pointers(payload, String::new(), &mut paths);
    let mut edited = payload.clone();
    match paths.get(at.index(paths.len().max(1))) {
        Some(path) => {
            if let Some(slot) = edited.pointer_mut(path) {
                *slot = value;
            }
        }
        None => edited = value,
    }
    edited.to_string().into_bytes()
}

/// Arbitrary bytes; a golden payload cut anywhere; one of its fields (at any
/// depth) given a wrong type or a huge string; one field replaced by deeply
/// nested JSON or a lone surrogate; the whole payload wrapped in deep nesting.
pub fn hostile_stdin(goldens: Vec<Value>) -> impl Strategy<Value = Vec<u8>> {
    let goldens = std::sync::Arc::new(goldens);
    let pick = {
        let goldens = goldens.clone();
        move |i: Index| goldens[i.index(goldens.len())].clone()
    };
    let (pick_a, pick_b, pick_c) = (pick.clone(), pick.clone(), pick);
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..4096),
        (any::<Index>(), any::<Index>()).prop_map(move |(g, cut)| {
            let text = pick_a(g).to_string().into_bytes();
            text[..cut.index(text.len())].to_vec()
        }),
        (any::<Index>(), any::<Index>(), wrong_value()).prop_map(move |(g, at, value)| with_value(
            &pick_b(g),
            at,
            value
        )),
        (any::<Index>(), any::<Index>(), raw_text()).prop_map(move |(g, at, raw)| {
            let text = with_value(&pick_c(g), at, Value::String(RAW.into()));
            let text = String::from_utf8(text).expect("serde_json writes UTF-8");
            let marker = serde_json::to_string(RAW).expect("marker");
            text.replacen(&marker, &raw, 1).into_bytes()
        }),
        (1usize..20_000, any::<bool>()).prop_map(|(d, object)| {
            let (open, close) = if object { ("{\"a\":", "}") } else { ("[", "]") };
            format!("{}{{}}{}", open.repeat(d), close.repeat(d)).into_bytes()
        }),
    ]
}

/// What an adapter's `parse` answered, in the terms [`check_parse_total`] checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parsed {
    Event,
    UnknownEvent,
    BadInput,
}

/// Property of an adapter's `parse(native event, stdin)`: on generated stdin (from
/// the golden payloads in `golden_dir`) for each of `events` and for a name that is
/// none of them, it returns instead of panicking; an unknown name is
/// `UnknownEvent`; stdin that is not a JSON object is `BadInput`. 256 cases unless
/// `PROPTEST_CASES` says otherwise.
pub fn check_parse_total(
    golden_dir: &std::path::Path,
    events: &[&str],
    parse: impl Fn(&str, &str) -> Parsed,
) {
    use proptest::test_runner::{Config, TestCaseError, TestRunner};
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let goldens = golden_payloads(golden_dir, "/tmp/golden-project");
    let names: Vec<String> = events
        .iter()
        .map(|e| e.to_string())
        .chain(["no-such-event".to_string()])
        .collect();
    let strategy = (proptest::sample::select(names), hostile_stdin(goldens));
    let outcome = TestRunner::new(config).run(&strategy, |(native, stdin)| {
        let stdin = String::from_utf8_lossy(&stdin).into_owned();
        let parsed = parse(&native, &stdin);
        let trimmed = stdin.trim_start_matches('\u{feff}').trim();
        let object = serde_json::from_str::<Value>(trimmed).is_ok_and(|v| v.is_object());
        let expected = if !events.contains(&native.as_str()) {
            Some(Parsed::UnknownEvent)
        } else if !object {
            Some(Parsed::BadInput)
        } else {
            None
        };
        match expected {
            Some(expected) if parsed != expected => Err(TestCaseError::fail(format!(
                "{native}: {parsed:?}, expected {expected:?}, stdin {:?}",
                &stdin.chars().take(300).collect::<String>()
            ))),
            _ => Ok(()),
        }
    });
    if let Err(error) = outcome {
        panic!("{error}");
    }
}

/// The `#[test]` every adapter runs: [`check_parse_total`] over its `crate::parse::parse`,
/// its `crate::describe::EVENTS` and its golden payloads. Adapters share the layout
/// (`parse`, `describe`), so one macro serves them all; `crate` is meant
/// to name the calling adapter.
#[macro_export]
#[allow(clippy::crate_in_macro_def)]
macro_rules! generated_parse_test {
    ($platform:literal) => {
        $crate::generated_parse_test!($platform, seeded_by = $platform);
    };
    // A host without payloads of its own (MCP only) seeds from another host's goldens.
    ($platform:literal, seeded_by = $seed:literal) => {
        /// Generated stdin never makes `parse` panic; the errors are the typed ones.
        #[test]
        fn generated_stdin_parses_or_fails_typed() {
            use $crate::adapter::{ParseError, ParseInput};
            use $crate::hostile::{Parsed, check_parse_total};
            let events: Vec<&str> = crate::describe::EVENTS.iter().map(|e| e.cli).collect();
            let dir = $crate::golden::golden_dir($seed);
            check_parse_total(std::path::Path::new(&dir), &events, |native, stdin| {
                let input = ParseInput {
                    native_event: native.to_owned(),
                    stdin: stdin.to_owned(),
                    env: Vec::new(),
                    parent_pid: 1,
                };
                match crate::parse::parse(&input) {
                    Ok(_) => Parsed::Event,
                    Err(ParseError::UnknownEvent(_)) => Parsed::UnknownEvent,
                    Err(ParseError::BadInput(_)) => Parsed::BadInput,
                }
            });
        }
    };
}
