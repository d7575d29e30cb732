//! Key-by-key merge of a plan document into a JSON (or JSONC) file, on its concrete
//! syntax tree: the user's keys, their order, indentation and comments are kept, and
//! only the nodes we add or replace are new text.

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstArray, CstInputValue, CstNode, CstObject, CstRootNode};
use serde_json::Value;

use super::error::ContentError;
use super::model::{Change, MergeOutcome, Op, dotted, entry_path};
use super::signature::{argv_invocation, invocations, is_ours_for};

/// Merges `content` (a JSON object) into `existing` (absent: a new file).
pub fn merge(existing: Option<&str>, content: &str) -> Result<MergeOutcome, ContentError> {
    let plan = parse(content).map_err(|e| ContentError::BadPlan(Box::new(e)))?;
    let ours = match plan.value().map(|v| to_tree(&v)) {
        Some(CstInputValue::Object(pairs)) => pairs,
        _ => return Err(ContentError::BadPlan(Box::new(ContentError::NotJsonObject))),
    };
    let text = existing.unwrap_or("");
    let root = if text.trim().is_empty() {
        parse("{}\n")?
    } else {
        parse(text)?
    };
    let object = root_object(&root)?;
    let mut outcome = MergeOutcome::default();
    merge_object(&object, &ours, &[], &mut outcome);
    outcome.text = root.to_string();
    if !outcome.text.ends_with('\n') {
        outcome.text.push('\n');
    }
    if existing.is_some_and(|t| !t.trim().is_empty()) && outcome.changes.is_empty() {
        // Nothing to do: keep the bytes exactly, trailing newline or not.
        outcome.text = text.to_owned();
    }
    Ok(outcome)
}

/// Takes out what `ops` added, leaving everything else; notes what was left because
/// it changed since setup.
pub fn unmerge(existing: &str, ops: &[Op]) -> Result<MergeOutcome, ContentError> {
    let root = parse(existing)?;
    let object = root_object(&root)?;
    let mut outcome = MergeOutcome::default();
    for op in ops.iter().rev() {
        match op {
            Op::SetKey {
                path,
                value,
                previous,
            } => unset_key(&object, path, value, previous.as_ref(), &mut outcome),
            Op::AddEntry { path, entry } => {
                if let Some(array) = find_array(&object, path) {
                    remove_entry(&array, entry, path, &mut outcome);
                }
            }
            Op::WholeFile | Op::TextBlock { .. } => {}
        }
    }
    outcome.text = root.to_string();
    Ok(outcome)
}

/// A JSONC file as a plain value (comments dropped), for inspection.
pub fn to_value(text: &str) -> Result<Value, ContentError> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    let root = parse(text)?;
    Ok(root
        .value()
        .and_then(|v| v.to_serde_value())
        .unwrap_or(Value::Null))
}

fn parse(text: &str) -> Result<CstRootNode, ContentError> {
    CstRootNode::parse(text, &ParseOptions::default())
        .map_err(|e| ContentError::NotJson(crate::human::first_line(&e.to_string()).to_string()))
}

fn root_object(root: &CstRootNode) -> Result<CstObject, ContentError> {
    match root.value() {
        // A file holding only comments gets an object.
        None => Ok(root.object_value_or_set()),
        Some(value) => value.as_object().ok_or(ContentError::NotJsonObject),
    }
}

fn merge_object(
    object: &CstObject,
    ours: &[(String, CstInputValue)],
    path: &[String],
    out: &mut MergeOutcome,
) {
    for (key, value) in ours {
        let key_path = child(path, key);
        let Some(prop) = object.get(key) else {
            object.append(key, value.clone());
            let value = tree_json(value);
            describe_added(&key_path, &value, out);
            out.ops.push(Op::SetKey {
                path: key_path,
                value,
                previous: None,
            });
            continue;
        };
        let existing = prop.value();
        match (value, existing.as_ref()) {
            (CstInputValue::Object(children), Some(node)) if node.as_object().is_some() => {
                if let Some(inner) = node.as_object() {
                    merge_object(&inner, children, &key_path, out);
                }
            }
            // An argv array (`["/path/cm", "serve"]`) is one value, not a list of
            // entries: merged entry by entry, a moved `cm` would be appended to it.
            (CstInputValue::Array(entries), Some(node))
                if node.as_array().is_some() && argv_invocation(&tree_json(value)).is_none() =>
            {
                if let Some(array) = node.as_array() {
                    merge_array(&array, entries, &key_path, out);
                }
            }
            _ => {
                let before = existing.as_ref().and_then(CstNode::to_serde_value);
                let after = tree_json(value);
                if before.as_ref() != Some(&after) {
                    prop.set_value(value.clone());
                    let shown_before = before.clone().unwrap_or(Value::Null);
                    out.changes
                        .push(Change::replace(dotted(&key_path), &shown_before, &after));
                    out.ops.push(Op::SetKey {
                        path: key_path,
                        value: after,
                        previous: before,
                    });
                }
            }
        }
    }
}

/// Adds each of our entries unless an equal one is there; an entry of ours that is
/// stale (same `cm` invocation, older path or matcher) is replaced in place, and
/// further copies of it are dropped.
fn merge_array(
    array: &CstArray,
    entries: &[CstInputValue],
    path: &[String],
    out: &mut MergeOutcome,
) {
    for entry in entries {
        let wanted = tree_json(entry);
        let signature = invocations(&wanted);
        let elements = array.elements();
        let values: Vec<Option<Value>> = elements.iter().map(CstNode::to_serde_value).collect();
        let exact = values.iter().position(|v| v.as_ref() == Some(&wanted));
        let keep = match exact {
            Some(i) => i,
            None => {
                let stale = values
                    .iter()
                    .position(|v| v.as_ref().is_some_and(|v| is_ours_for(v, &signature)));
                match stale {
                    Some(i) => {
                        let before = values[i].clone().unwrap_or(Value::Null);
                        elements[i].clone().remove();
                        array.insert(i, entry.clone());
                        out.changes
                            .push(Change::replace(entry_path(path), &before, &wanted));
                        i
                    }
                    None => {
                        array.append(entry.clone());
                        out.changes.push(Change::add(entry_path(path), &wanted));
                        elements.len()
                    }
                }
            }
        };
        if exact.is_none() {
            out.ops.push(Op::AddEntry {
                path: path.to_vec(),
                entry: wanted.clone(),
            });
        }
        if signature.is_empty() {
            continue;
        }
        let elements = array.elements();
        for (i, element) in elements.into_iter().enumerate().rev() {
            if i == keep {
                continue;
            }
            if let Some(value) = element.to_serde_value()
                && (value == wanted || is_ours_for(&value, &signature))
            {
                element.remove();
                out.changes.push(Change::remove(
                    format!("{} (duplicate)", entry_path(path)),
                    &value,
                ));
            }
        }
    }
}

/// Undoes one SetKey: back to the previous value, or the key removed; a value the user
/// changed since is subtracted structurally (our parts out, theirs kept).
fn unset_key(
    root: &CstObject,
    path: &[String],
    value: &Value,
    previous: Option<&Value>,
    out: &mut MergeOutcome,
) {
    let Some((parent_path, key)) = path.split_last().map(|(k, p)| (p, k)) else {
        return;
    };
    let Some(parent) = find_object(root, parent_path) else {
        return;
    };
    let Some(prop) = parent.get(key) else { return };
    let Some(node) = prop.value() else { return };
    let current = node.to_serde_value();
    if current.as_ref() == Some(value) {
        out.changes.push(Change::remove(dotted(path), value));
        match previous {
            Some(previous) => prop.set_value(json_tree(previous)),
            None => prop.remove(),
        }
        return;
    }
    match (value, node.as_object(), node.as_array()) {
        (Value::Object(ours), Some(object), _) => {
            subtract_object(&object, ours, path, out);
            if previous.is_none() && object.properties().is_empty() {
                prop.remove();
            }
        }
        (Value::Array(ours), _, Some(array)) => {
            for entry in ours {
                remove_entry(&array, entry, path, out);
            }
            if previous.is_none() && array.elements().is_empty() {
                prop.remove();
            }
        }
        _ => out
            .notes
            .push(format!("{} changed since setup; left as is", dotted(path))),
    }
}

fn subtract_object(
    object: &CstObject,
    ours: &serde_json::Map<String, Value>,
    path: &[String],
    out: &mut MergeOutcome,
) {
    for (key, value) in ours {
        let key_path = child(path, key);
        unset_key_in(object, &key_path, key, value, out);
    }
}

fn unset_key_in(
    object: &CstObject,
    path: &[String],
    key: &str,
    value: &Value,
    out: &mut MergeOutcome,
) {
    let Some(prop) = object.get(key) else { return };
    let Some(node) = prop.value() else { return };
    if node.to_serde_value().as_ref() == Some(value) {
        out.changes.push(Change::remove(dotted(path), value));
        prop.remove();
        return;
    }
    match (value, node.as_object(), node.as_array()) {
        (Value::Object(ours), Some(inner), _) => {
            subtract_object(&inner, ours, path, out);
            if inner.properties().is_empty() {
                prop.remove();
            }
        }
        (Value::Array(ours), _, Some(array)) => {
            for entry in ours {
                remove_entry(&array, entry, path, out);
            }
            if array.elements().is_empty() {
                prop.remove();
            }
        }
        _ => out
            .notes
            .push(format!("{} changed since setup; left as is", dotted(path))),
    }
}

/// Removes our entry: the equal one, else one that is recognisably ours for the same
/// `cm` invocation.
fn remove_entry(array: &CstArray, entry: &Value, path: &[String], out: &mut MergeOutcome) {
    let signature = invocations(entry);
    let elements = array.elements();
    let values: Vec<Option<Value>> = elements.iter().map(CstNode::to_serde_value).collect();
    let found = values
        .iter()
        .position(|v| v.as_ref() == Some(entry))
        .or_else(|| {
            values
                .iter()
                .position(|v| v.as_ref().is_some_and(|v| is_ours_for(v, &signature)))
        });
    if let Some(i) = found {
        let removed = values[i].clone().unwrap_or(Value::Null);
        elements[i].clone().remove();
        out.changes.push(Change::remove(entry_path(path), &removed));
    }
}

fn find_object(root: &CstObject, path: &[String]) -> Option<CstObject> {
    path.iter()
        .try_fold(root.clone(), |object, key| object.object_value(key))
}

fn find_array(root: &CstObject, path: &[String]) -> Option<CstArray> {
    let (key, parent) = path.split_last()?;
    find_object(root, parent)?.array_value(key)
}

fn child(path: &[String], key: &str) -> Vec<String> {
    let mut path = path.to_vec();
    path.push(key.to_owned());
    path
}

/// A new key's content as changes: one line per leaf or array entry, so the plan shows
/// each hook rather than one cut-off blob.
fn describe_added(path: &[String], value: &Value, out: &mut MergeOutcome) {
    match value {
        Value::Object(map) if map.values().any(is_structured) => {
            for (key, inner) in map {
                describe_added(&child(path, key), inner, out);
            }
        }
        Value::Array(entries) if !entries.is_empty() => {
            for entry in entries {
                out.changes.push(Change::add(entry_path(path), entry));
            }
        }
        other => out.changes.push(Change::add(dotted(path), other)),
    }
}

/// An object, or an array holding objects or arrays: shown entry by entry.
fn is_structured(value: &Value) -> bool {
    match value {
        Value::Object(_) => true,
        Value::Array(items) => items.iter().any(|i| i.is_object() || i.is_array()),
        _ => false,
    }
}

/// A CST value as an ordered tree (key order of the plan kept).
fn to_tree(node: &CstNode) -> CstInputValue {
    if let Some(object) = node.as_object() {
        let pairs = object
            .properties()
            .iter()
            .filter_map(|p| Some((p.decoded_name()?, to_tree(&p.value()?))))
            .collect();
        return CstInputValue::Object(pairs);
    }
    if let Some(array) = node.as_array() {
        return CstInputValue::Array(array.elements().iter().map(to_tree).collect());
    }
    if let Some(text) = node.as_string_lit() {
        return CstInputValue::String(text.decoded_value().unwrap_or_else(|_| text.raw_value()));
    }
    if let Some(flag) = node.as_boolean_lit() {
        return CstInputValue::Bool(flag.value());
    }
    if node.as_null_keyword().is_some() {
        return CstInputValue::Null;
    }
    if let Some(number) = node.as_number_lit() {
        return CstInputValue::Number(number.to_string());
    }
    CstInputValue::String(node.to_string())
}

fn tree_json(tree: &CstInputValue) -> Value {
    match tree {
        CstInputValue::Null => Value::Null,
        CstInputValue::Bool(b) => Value::Bool(*b),
        CstInputValue::Number(n) => serde_json::from_str(n).unwrap_or(Value::String(n.clone())),
        CstInputValue::String(s) => Value::String(s.clone()),
        CstInputValue::Array(items) => Value::Array(items.iter().map(tree_json).collect()),
        CstInputValue::Object(pairs) => Value::Object(
            pairs
                .iter()
                .map(|(k, v)| (k.clone(), tree_json(v)))
                .collect(),
        ),
    }
}

fn json_tree(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(json_tree).collect()),
        Value::Object(map) => {
            CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), json_tree(v))).collect())
        }
    }
}

#[cfg(test)]
mod tests;
