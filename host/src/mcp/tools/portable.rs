//! Input schemas every MCP client accepts (ADR 20). schemars writes draft 2020-12 with
//! `$defs`/`$ref`, `"type": [X, "null"]` for an `Option`, `"format": "uint64"` for a
//! `u64`, `oneOf` of `const`s for an enum and a `title`/`description` naming the Rust
//! type. Strict Ajv (the TypeScript SDK) rejects unknown formats; Gemini's function
//! declarations take an OpenAPI 3.0 subset (one `type` per schema, `enum`, no `$ref`,
//! no `const`; gemini-cli's `mcp-client.ts` only rewrites the two-element type array
//! into `nullable`). So the schema is rewritten to the part they share: references
//! inlined, an optional field is simply not in `required`, integers keep `minimum: 0`
//! without a format, enums are `enum`, and the per-property descriptions stay.

use serde_json::{Map, Value};

/// Every keyword [`portable`] may leave in a schema: the ones the OpenAPI 3.0 subset of
/// Gemini's `Schema` accepts that also mean the same in draft 2020-12.
pub const PORTABLE_KEYWORDS: &[&str] = &[
    "type",
    "description",
    "properties",
    "required",
    "items",
    "enum",
    "anyOf",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "default",
];

/// The schema of a parameter struct, rewritten to the portable subset.
pub fn portable(schema: Value) -> Map<String, Value> {
    let Value::Object(mut root) = schema else {
        return Map::new();
    };
    let defs = match root.remove("$defs") {
        Some(Value::Object(defs)) => defs,
        _ => Map::new(),
    };
    // The root's title and description name the Rust type: nothing a model can use.
    for noise in ["$schema", "title", "description"] {
        root.remove(noise);
    }
    let mut out = clean(Value::Object(root), &defs);
    if let Value::Object(map) = &mut out {
        map.insert("type".into(), "object".into());
        if !map.contains_key("properties") {
            map.insert("properties".into(), Value::Object(Map::new()));
        }
        return std::mem::take(map);
    }
    Map::new()
}

fn clean(node: Value, defs: &Map<String, Value>) -> Value {
    match node {
        Value::Object(map) => Value::Object(clean_object(map, defs)),
        Value::Array(items) => Value::Array(items.into_iter().map(|v| clean(v, defs)).collect()),
        other => other,
    }
}

fn clean_object(mut map: Map<String, Value>, defs: &Map<String, Value>) -> Map<String, Value> {
    if let Some(target) = map.remove("$ref").and_then(|r| referenced(&r, defs)) {
        map = merged(target, map);
    }
    // `anyOf: [X, {"type": "null"}]` (an optional reference): X itself.
    if let Some(Value::Array(options)) = map.get("anyOf") {
        let non_null: Vec<Value> = options
            .iter()
            .filter(|o| o.get("type") != Some(&Value::from("null")))
            .cloned()
            .collect();
        if non_null.len() == 1 && non_null.len() < options.len() {
            map.remove("anyOf");
            let only = clean(non_null[0].clone(), defs);
            if let Value::Object(only) = only {
                map = merged(only, map);
            }
        }
    }
    // `oneOf` of string constants (a unit enum): `enum`.
    if let Some(Value::Array(variants)) = map.get("oneOf") {
        let constants: Option<Vec<Value>> =
            variants.iter().map(|v| v.get("const").cloned()).collect();
        if let Some(constants) = constants {
            map.remove("oneOf");
            map.insert("type".into(), "string".into());
            map.insert("enum".into(), Value::Array(constants));
        }
    }
    if let Some(Value::Array(types)) = map.get("type") {
        let concrete: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
        if let [only] = concrete.as_slice() {
            let only = (*only).clone();
            map.insert("type".into(), only);
        }
    }
    if map.get("default") == Some(&Value::Null) {
        map.remove("default");
    }
    for noise in ["format", "title", "$schema", "const"] {
        map.remove(noise);
    }
    let keys: Vec<String> = map.keys().cloned().collect();
    for key in keys {
        let Some(value) = map.remove(&key) else {
            continue;
        };
        let value = match key.as_str() {
            "properties" => match value {
                Value::Object(props) => Value::Object(
                    props
                        .into_iter()
                        .map(|(name, schema)| (name, clean(schema, defs)))
                        .collect(),
                ),
                other => other,
            },
            "items" | "anyOf" => clean(value, defs),
            _ => value,
        };
        map.insert(key, value);
    }
    map
}

/// The definition a `#/$defs/<name>` reference points to.
fn referenced(reference: &Value, defs: &Map<String, Value>) -> Option<Map<String, Value>> {
    let name = reference.as_str()?.strip_prefix("#/$defs/")?;
    match defs.get(name)? {
        Value::Object(def) => Some(clean_object(def.clone(), defs)),
        _ => None,
    }
}

/// `base` with every key of `over` on top (the property's own description wins over
/// the description of its type).
fn merged(mut base: Map<String, Value>, over: Map<String, Value>) -> Map<String, Value> {
    for (key, value) in over {
        base.insert(key, value);
    }
    base
}

/// Why a schema is outside the portable subset: keywords not in
/// [`PORTABLE_KEYWORDS`], a type that is not one string, a property missing from
/// `properties` but `required`. Empty when it is portable.
pub fn portability_problems(schema: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    walk(schema, "", &mut problems);
    problems
}

fn walk(schema: &Value, at: &str, problems: &mut Vec<String>) {
    let Value::Object(map) = schema else {
        problems.push(format!("{at}: not an object schema"));
        return;
    };
    for (key, value) in map {
        if !PORTABLE_KEYWORDS.contains(&key.as_str()) {
            problems.push(format!("{at}: keyword {key:?}"));
        }
        if key == "type" && !value.is_string() {
            problems.push(format!("{at}: type {value} is not one type"));
        }
    }
    if let Some(Value::Object(props)) = map.get("properties") {
        for (name, prop) in props {
            walk(prop, &format!("{at}/{name}"), problems);
        }
        if let Some(Value::Array(required)) = map.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !props.contains_key(name) {
                    problems.push(format!("{at}: required {name:?} has no property"));
                }
            }
        }
    }
    if let Some(items) = map.get("items") {
        walk(items, &format!("{at}[]"), problems);
    }
    if let Some(Value::Array(options)) = map.get("anyOf") {
        for (i, option) in options.iter().enumerate() {
            walk(option, &format!("{at}|{i}"), problems);
        }
    }
    if map.get("type") == Some(&Value::from("object")) && !map.contains_key("properties") {
        problems.push(format!("{at}: object without properties"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn optional_references_enums_and_formats_become_the_portable_subset() {
        let raw = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "P", "description": "`p` parameters.",
            "$defs": {"Scope": {"description": "Where.", "oneOf": [
                {"const": "a", "type": "string", "description": "A."},
                {"const": "b", "type": "string"}]}},
            "properties": {
                "n": {"type": ["integer", "null"], "format": "uint64", "minimum": 0,
                      "default": null, "description": "Count."},
                "scope": {"anyOf": [{"$ref": "#/$defs/Scope"}, {"type": "null"}],
                          "description": "Own words."}
            },
            "type": "object"
        });
        let out = Value::Object(portable(raw));
        assert_eq!(
            out,
            json!({"type": "object", "properties": {
                "n": {"type": "integer", "minimum": 0, "description": "Count."},
                "scope": {"type": "string", "enum": ["a", "b"], "description": "Own words."}
            }})
        );
        assert_eq!(portability_problems(&out), Vec::<String>::new());
    }

    #[test]
    fn the_check_names_what_is_not_portable() {
        let problems = portability_problems(&json!({"type": "object", "properties": {
            "x": {"type": ["string", "null"], "format": "uint32"},
            "y": {"$ref": "#/$defs/Y"}}, "required": ["z"]}));
        for expected in [
            "/x: type",
            "/x: keyword \"format\"",
            "/y: keyword \"$ref\"",
            "required \"z\"",
        ] {
            assert!(
                problems.iter().any(|p| p.contains(expected)),
                "{expected} not in {problems:?}"
            );
        }
    }
}
