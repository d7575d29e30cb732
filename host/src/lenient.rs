//! Lenient deserializers for MCP tool inputs, accepting values the way agents send
//! them: a bare string where a list is expected, a JSON array inside a string,
//! `"true"`/`"false"` strings for booleans, numbers as strings.
//!
//! Use with `#[serde(default, deserialize_with = "crate::lenient::...")]`.

use serde::Deserialize;
use serde::de::{Deserializer, Error as _};
use serde_json::Value;

/// A list of strings from: a list, a bare string, or a string holding a JSON array.
pub fn string_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let value = Option::<Value>::deserialize(d)?;
    string_list_from(value.unwrap_or(Value::Null))
}

/// Like [`string_list`], for `Option<Vec<String>>` fields.
pub fn opt_string_list<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    let value = Option::<Value>::deserialize(d)?;
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(v) => string_list_from(v).map(Some),
    }
}

fn string_list_from<E: serde::de::Error>(value: Value) -> Result<Vec<String>, E> {
    match value {
        Value::Null => Ok(Vec::new()),
        Value::String(s) => {
            let trimmed = s.trim();
            if trimmed.starts_with('[')
                && let Ok(Value::Array(items)) = serde_json::from_str::<Value>(trimmed)
            {
                return items.into_iter().map(scalar_to_string).collect();
            }
            Ok(vec![s])
        }
        Value::Array(items) => items.into_iter().map(scalar_to_string).collect(),
        other => scalar_to_string(other).map(|s| vec![s]),
    }
}

fn scalar_to_string<E: serde::de::Error>(value: Value) -> Result<String, E> {
    match value {
        Value::String(s) => Ok(s),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        other => Err(E::custom(format!("expected a string, got {other}"))),
    }
}

/// A list of objects (or anything `T` deserializes from) from: a list, a single
/// item, or a string holding a JSON array or object.
pub fn item_list<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    let value = Option::<Value>::deserialize(d)?;
    item_list_from(value.unwrap_or(Value::Null)).map_err(D::Error::custom)
}

fn item_list_from<T: serde::de::DeserializeOwned>(value: Value) -> Result<Vec<T>, String> {
    let value = match value {
        Value::String(s) if s.trim_start().starts_with(['[', '{']) => {
            serde_json::from_str::<Value>(s.trim())
                .map_err(|e| format!("invalid JSON list: {e}"))?
        }
        v => v,
    };
    match value {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items
            .into_iter()
            .map(|item| serde_json::from_value(item).map_err(|e| e.to_string()))
            .collect(),
        single => serde_json::from_value(single)
            .map(|item| vec![item])
            .map_err(|e| e.to_string()),
    }
}

/// The one reading of an on/off word, for tool inputs and environment variables alike:
/// `1`, `true`, `yes`, `on` and `0`, `false`, `no`, `off`, `` (empty), in any case,
/// surrounding blanks ignored. `None` for anything else.
pub fn flag(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" | "" => Some(false),
        _ => None,
    }
}

/// An on/off environment variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvFlag {
    Unset,
    Set(bool),
    /// A value [`flag`] does not know; callers choose the safe side and say so.
    Unknown(String),
}

impl EnvFlag {
    pub fn read(name: &str) -> EnvFlag {
        Self::of(std::env::var_os(name))
    }

    pub fn of(value: Option<std::ffi::OsString>) -> EnvFlag {
        match value {
            None => EnvFlag::Unset,
            Some(value) => {
                let text = value.to_string_lossy();
                flag(&text).map_or_else(|| EnvFlag::Unknown(text.into_owned()), EnvFlag::Set)
            }
        }
    }
}

/// An optional bool from a bool, a number, or an on/off word (see [`flag`]).
pub fn opt_bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(b)),
        Some(Value::String(s)) => flag(&s)
            .map(Some)
            .ok_or_else(|| D::Error::custom(format!("expected true or false, got {:?}", s.trim()))),
        Some(Value::Number(n)) => Ok(Some(n.as_f64().unwrap_or(0.0) != 0.0)),
        Some(other) => Err(D::Error::custom(format!(
            "expected true or false, got {other}"
        ))),
    }
}

/// An optional non-negative integer from a number or a numeric string.
pub fn opt_u64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
            .map(Some)
            .ok_or_else(|| D::Error::custom(format!("expected a non-negative number, got {n}"))),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => s
            .trim()
            .parse::<u64>()
            .map(Some)
            .map_err(|_| D::Error::custom(format!("expected a non-negative number, got {s:?}"))),
        Some(other) => Err(D::Error::custom(format!("expected a number, got {other}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize, Debug)]
    struct Probe {
        #[serde(default, deserialize_with = "string_list")]
        queries: Vec<String>,
        #[serde(default, deserialize_with = "opt_bool")]
        force: Option<bool>,
        #[serde(default, deserialize_with = "opt_u64")]
        limit: Option<u64>,
    }

    fn probe(json: &str) -> Probe {
        serde_json::from_str(json).expect("probe json")
    }

    #[test]
    fn bare_string_becomes_one_item() {
        assert_eq!(probe(r#"{"queries":"a b"}"#).queries, vec!["a b"]);
    }

    #[test]
    fn json_array_inside_string_is_unpacked() {
        assert_eq!(
            probe(r#"{"queries":"[\"x\",\"y\"]"}"#).queries,
            vec!["x", "y"]
        );
    }

    #[test]
    fn string_booleans_and_numbers() {
        let p = probe(r#"{"force":"TRUE","limit":"5"}"#);
        assert_eq!((p.force, p.limit), (Some(true), Some(5)));
        assert_eq!(probe(r#"{"force":"false"}"#).force, Some(false));
        assert!(serde_json::from_str::<Probe>(r#"{"force":"maybe"}"#).is_err());
    }

    #[test]
    fn on_off_words_are_read_one_way() {
        for on in ["1", "true", " TRUE ", "yes", "On", "ON\n"] {
            assert_eq!(flag(on), Some(true), "{on:?}");
        }
        for off in ["0", "false", "No", "off", " ", ""] {
            assert_eq!(flag(off), Some(false), "{off:?}");
        }
        assert_eq!(flag("maybe"), None);
        assert_eq!(EnvFlag::of(None), EnvFlag::Unset);
        assert_eq!(EnvFlag::of(Some("on".into())), EnvFlag::Set(true));
        assert_eq!(
            EnvFlag::of(Some("strict".into())),
            EnvFlag::Unknown("strict".into())
        );
    }

    #[test]
    fn missing_fields_are_empty() {
        let p = probe("{}");
        assert!(p.queries.is_empty() && p.force.is_none() && p.limit.is_none());
    }

    #[derive(Deserialize, Debug, PartialEq)]
    struct Cmd {
        label: String,
    }

    #[test]
    fn item_list_accepts_single_item_and_json_text() {
        let one: Vec<Cmd> = item_list_from(serde_json::json!({"label":"a"})).expect("single");
        assert_eq!(one, vec![Cmd { label: "a".into() }]);
        let text: Vec<Cmd> =
            item_list_from(Value::String(r#"[{"label":"b"}]"#.into())).expect("text");
        assert_eq!(text, vec![Cmd { label: "b".into() }]);
    }
}
