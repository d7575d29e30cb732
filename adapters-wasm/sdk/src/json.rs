//! Panic-free reading of host payloads and deterministic building of replies.
//!
//! `serde_json` is built with `preserve_order`, so objects keep insertion
//! order: replies come out with keys in the order they were put (golden files
//! compare bytes) and a host's tool input keeps its own key order when echoed.

use serde_json::{Map, Value};

/// A trimmed, non-empty copy of a host string field; blank counts as absent.
pub fn non_empty(value: Option<&str>) -> Option<String> {
    value
        .map(str::trim)
        .filter(|value| !value.is_empty())
        .map(str::to_owned)
}

/// Parses stdin text as one JSON object. Errors are one line, fit for a log.
pub fn parse_object(text: &str) -> Result<Map<String, Value>, String> {
    let text = text.trim_start_matches('\u{feff}').trim();
    if text.is_empty() {
        return Err("stdin is empty; expected a JSON object".to_owned());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(other) => Err(format!(
            "stdin is a JSON {}, expected an object",
            type_name(&other)
        )),
        Err(error) => Err(format!("stdin is not valid JSON: {}", one_line(&error))),
    }
}

/// The JSON type of a value, in words.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn one_line(error: &serde_json::Error) -> String {
    error.to_string().replace(['\n', '\r'], " ")
}

/// The string at `key`, when present and a string.
pub fn get_str<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    object.get(key).and_then(Value::as_str)
}

/// The first of `keys` holding a non-empty string.
pub fn first_str<'a>(object: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .filter_map(|key| get_str(object, key))
        .find(|value| !value.is_empty())
}

/// A boolean, also accepting the strings "true"/"false" that some hosts send.
pub fn get_bool(object: &Map<String, Value>, key: &str) -> Option<bool> {
    match object.get(key)? {
        Value::Bool(flag) => Some(*flag),
        Value::String(text) => match text.trim() {
            t if t.eq_ignore_ascii_case("true") => Some(true),
            t if t.eq_ignore_ascii_case("false") => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// An integer, also accepting a number written as a string.
pub fn get_i64(object: &Map<String, Value>, key: &str) -> Option<i64> {
    match object.get(key)? {
        Value::Number(number) => number.as_i64().or_else(|| {
            number
                .as_f64()
                .filter(|f| f.fract() == 0.0)
                .map(|f| f as i64)
        }),
        Value::String(text) => text.trim().parse().ok(),
        _ => None,
    }
}

/// A non-negative integer (durations, sizes).
pub fn get_u64(object: &Map<String, Value>, key: &str) -> Option<u64> {
    get_i64(object, key).and_then(|n| u64::try_from(n).ok())
}

/// Compact JSON text of a value.
pub fn to_compact(value: &Value) -> String {
    // Serializing a `Value` cannot fail: its keys are strings and it holds no
    // non-finite floats; an empty string keeps this total anyway.
    serde_json::to_string(value).unwrap_or_default()
}

/// Pretty JSON text of a value (two-space indent), for files a user may read.
pub fn to_pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// Builds a JSON object whose keys keep the order they were put in.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JsonObject(Map<String, Value>);

impl JsonObject {
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `key` (a later put of the same key replaces the value in place).
    pub fn put(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.0.insert(key.to_owned(), value.into());
        self
    }

    /// Sets `key` only when `value` is `Some`.
    pub fn put_opt<V: Into<Value>>(self, key: &str, value: Option<V>) -> Self {
        match value {
            Some(value) => self.put(key, value),
            None => self,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn into_value(self) -> Value {
        Value::Object(self.0)
    }

    /// Compact JSON text.
    pub fn to_compact(&self) -> String {
        serde_json::to_string(&self.0).unwrap_or_default()
    }
}

impl From<JsonObject> for Value {
    fn from(object: JsonObject) -> Self {
        object.into_value()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_an_object_with_bom_and_whitespace() {
        let object = parse_object("\u{feff}  {\"a\": 1}\n").unwrap();
        assert_eq!(object.get("a"), Some(&json!(1)));
    }

    #[test]
    fn rejects_non_objects_and_garbage_with_one_line() {
        for (input, needle) in [
            ("", "empty"),
            ("   \n", "empty"),
            ("[1,2]", "array"),
            ("\"x\"", "string"),
            ("{\"a\":", "not valid JSON"),
            ("{\n\"a\"\n:\nnope}", "not valid JSON"),
        ] {
            let error = parse_object(input).unwrap_err();
            assert!(error.contains(needle), "{input:?} -> {error}");
            assert!(!error.contains('\n'), "{error}");
        }
    }

    #[test]
    fn typed_getters_are_lenient_but_never_guess() {
        let object = parse_object(
            r#"{"s":"x","e":"","t":true,"ts":"TRUE","f":"false","n":42,"ns":" 7 ","neg":-3,"fl":2.0,"bad":"x1"}"#,
        )
        .unwrap();
        assert_eq!(get_str(&object, "s"), Some("x"));
        assert_eq!(get_str(&object, "n"), None);
        assert_eq!(first_str(&object, &["missing", "e", "s"]), Some("x"));
        assert_eq!(get_bool(&object, "t"), Some(true));
        assert_eq!(get_bool(&object, "ts"), Some(true));
        assert_eq!(get_bool(&object, "f"), Some(false));
        assert_eq!(get_bool(&object, "s"), None);
        assert_eq!(get_i64(&object, "n"), Some(42));
        assert_eq!(get_i64(&object, "ns"), Some(7));
        assert_eq!(get_i64(&object, "fl"), Some(2));
        assert_eq!(get_i64(&object, "bad"), None);
        assert_eq!(get_u64(&object, "neg"), None);
        assert_eq!(get_u64(&object, "n"), Some(42));
    }

    #[test]
    fn builder_keeps_insertion_order() {
        let text = JsonObject::new()
            .put("zeta", "z")
            .put("alpha", 1)
            .put_opt("skipped", None::<String>)
            .put_opt("beta", Some(true))
            .to_compact();
        assert_eq!(text, r#"{"zeta":"z","alpha":1,"beta":true}"#);
    }

    #[test]
    fn nested_objects_and_escaping() {
        let inner = JsonObject::new().put("quote", "a \"b\"\n");
        let text = JsonObject::new().put("outer", inner).to_compact();
        assert_eq!(text, r#"{"outer":{"quote":"a \"b\"\n"}}"#);
    }
}
