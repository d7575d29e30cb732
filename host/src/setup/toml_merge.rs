//! Key-by-key merge of a plan document into a TOML file with `toml_edit`: the user's
//! tables, comments, blank lines and order are kept; only what we add is new text.

use serde_json::Value as Json;
use toml_edit::{Array, ArrayOfTables, DocumentMut, Item, Table, TableLike, Value};

use super::error::ContentError;
use super::model::{Change, MergeOutcome, Op, dotted, entry_path};
use super::signature::{argv_invocation, invocations, is_ours_for};

/// Merges `content` (a TOML document) into `existing` (absent: a new file).
pub fn merge(existing: Option<&str>, content: &str) -> Result<MergeOutcome, ContentError> {
    let ours = parse(content).map_err(|e| ContentError::BadPlan(Box::new(e)))?;
    let text = existing.unwrap_or("");
    let mut doc = parse(text)?;
    let non_empty = !text.trim().is_empty();
    let mut out = MergeOutcome::default();
    merge_table(
        doc.as_table_mut(),
        ours.as_table(),
        &[],
        non_empty,
        &mut out,
    );
    out.text = if out.changes.is_empty() {
        text.to_owned()
    } else {
        doc.to_string()
    };
    Ok(out)
}

/// Takes out what `ops` added, leaving everything else.
pub fn unmerge(existing: &str, ops: &[Op]) -> Result<MergeOutcome, ContentError> {
    let mut doc = parse(existing)?;
    let mut out = MergeOutcome::default();
    for op in ops.iter().rev() {
        match op {
            Op::SetKey {
                path,
                value,
                previous,
            } => {
                let Some((key, parent)) = path.split_last() else {
                    continue;
                };
                if let Some(table) = find_table(doc.as_table_mut(), parent) {
                    unset(table, key, path, value, previous.as_ref(), &mut out);
                }
            }
            Op::AddEntry { path, entry } => {
                let Some((key, parent)) = path.split_last() else {
                    continue;
                };
                if let Some(item) =
                    find_table(doc.as_table_mut(), parent).and_then(|t| t.get_mut(key))
                {
                    remove_entry(item, entry, path, &mut out);
                }
            }
            Op::WholeFile | Op::TextBlock { .. } => {}
        }
    }
    out.text = doc.to_string();
    Ok(out)
}

/// A TOML file as a plain JSON value, for inspection.
pub fn to_value(text: &str) -> Result<Json, ContentError> {
    Ok(table_json(parse(text)?.as_table()))
}

fn parse(text: &str) -> Result<DocumentMut, ContentError> {
    text.parse().map_err(|e: toml_edit::TomlError| {
        ContentError::NotToml(crate::human::one_line(&e.to_string()))
    })
}

fn merge_table(
    target: &mut dyn TableLike,
    ours: &dyn TableLike,
    path: &[String],
    spaced: bool,
    out: &mut MergeOutcome,
) {
    for (key, item) in ours.iter() {
        let key_path = child(path, key);
        let Some(existing) = target.get_mut(key) else {
            let mut fresh = item.clone();
            detach(&mut fresh, spaced);
            let value = item_json(item);
            out.changes.push(Change::add(dotted(&key_path), &value));
            target.insert(key, fresh);
            out.ops.push(Op::SetKey {
                path: key_path,
                value,
                previous: None,
            });
            continue;
        };
        if let (Some(inner), Some(ours_inner)) =
            (existing.as_table_like_mut(), item.as_table_like())
        {
            merge_table(inner, ours_inner, &key_path, spaced, out);
            continue;
        }
        // An argv array (`["/path/cm", "serve"]`) is one value, replaced whole below.
        if let (Some(array), Some(entries)) = (existing.as_array_mut(), item.as_array())
            && argv_invocation(&item_json(item)).is_none()
        {
            merge_array(array, entries, &key_path, out);
            continue;
        }
        if let (Some(tables), Some(entries)) =
            (existing.as_array_of_tables_mut(), item.as_array_of_tables())
        {
            merge_tables(tables, entries, &key_path, out);
            continue;
        }
        let before = item_json(existing);
        let after = item_json(item);
        if before != after {
            let mut fresh = item.clone();
            detach(&mut fresh, false);
            if let (Some(old), Some(new)) = (existing.as_value(), fresh.as_value_mut()) {
                *new.decor_mut() = old.decor().clone();
            }
            *existing = fresh;
            out.changes
                .push(Change::replace(dotted(&key_path), &before, &after));
            out.ops.push(Op::SetKey {
                path: key_path,
                value: after,
                previous: Some(before),
            });
        }
    }
}

fn merge_array(array: &mut Array, entries: &Array, path: &[String], out: &mut MergeOutcome) {
    for entry in entries.iter() {
        let wanted = value_json(entry);
        let signature = invocations(&wanted);
        let values: Vec<Json> = array.iter().map(value_json).collect();
        if values.contains(&wanted) {
            continue;
        }
        let mut fresh = entry.clone();
        fresh.decor_mut().clear();
        match values.iter().position(|v| is_ours_for(v, &signature)) {
            Some(i) => {
                array.replace(i, fresh);
                out.changes
                    .push(Change::replace(entry_path(path), &values[i], &wanted));
            }
            None => {
                array.push(fresh);
                out.changes.push(Change::add(entry_path(path), &wanted));
            }
        }
        out.ops.push(Op::AddEntry {
            path: path.to_vec(),
            entry: wanted,
        });
    }
}

fn merge_tables(
    tables: &mut ArrayOfTables,
    entries: &ArrayOfTables,
    path: &[String],
    out: &mut MergeOutcome,
) {
    for entry in entries.iter() {
        let wanted = table_json(entry);
        let signature = invocations(&wanted);
        let values: Vec<Json> = tables.iter().map(|t| table_json(t)).collect();
        if values.contains(&wanted) {
            continue;
        }
        let mut fresh = entry.clone();
        fresh.set_position(None);
        if let Some(i) = values.iter().position(|v| is_ours_for(v, &signature)) {
            if let Some(slot) = tables.get_mut(i) {
                *slot = fresh;
            }
            out.changes
                .push(Change::replace(entry_path(path), &values[i], &wanted));
        } else {
            tables.push(fresh);
            out.changes.push(Change::add(entry_path(path), &wanted));
        }
        out.ops.push(Op::AddEntry {
            path: path.to_vec(),
            entry: wanted,
        });
    }
}

/// An item copied from the plan document gets no position of that document (so it
/// lands after the user's tables) and, in a non-empty file, a blank line before it;
/// each table of an array of tables (`[[hooks]]`) too.
fn detach(item: &mut Item, spaced: bool) {
    match item {
        Item::Table(table) => detach_table(table, spaced),
        Item::ArrayOfTables(tables) => {
            for table in tables.iter_mut() {
                detach_table(table, spaced);
            }
        }
        _ => {}
    }
}

fn detach_table(table: &mut Table, spaced: bool) {
    table.set_position(None);
    if spaced && !table.is_implicit() {
        table.decor_mut().set_prefix("\n");
    }
    for (_, child) in table.iter_mut() {
        if let Item::Table(inner) = child {
            detach_table(inner, spaced);
        }
    }
}

fn unset(
    table: &mut dyn TableLike,
    key: &str,
    path: &[String],
    value: &Json,
    previous: Option<&Json>,
    out: &mut MergeOutcome,
) {
    let Some(item) = table.get_mut(key) else {
        return;
    };
    if item_json(item) == *value {
        out.changes.push(Change::remove(dotted(path), value));
        match previous.and_then(json_item) {
            Some(old) => {
                let decor = item.as_value().map(|v| v.decor().clone());
                *item = old;
                if let (Some(decor), Some(v)) = (decor, item.as_value_mut()) {
                    *v.decor_mut() = decor;
                }
            }
            None => {
                table.remove(key);
            }
        }
        return;
    }
    match value {
        Json::Object(ours) => {
            let Some(inner) = item.as_table_like_mut() else {
                out.notes
                    .push(format!("{} changed since setup; left as is", dotted(path)));
                return;
            };
            for (child_key, child_value) in ours {
                unset(
                    inner,
                    child_key,
                    &child(path, child_key),
                    child_value,
                    None,
                    out,
                );
            }
            if previous.is_none() && inner.is_empty() {
                table.remove(key);
            }
        }
        Json::Array(entries) => {
            for entry in entries {
                remove_entry(item, entry, path, out);
            }
        }
        _ => out
            .notes
            .push(format!("{} changed since setup; left as is", dotted(path))),
    }
}

fn remove_entry(item: &mut Item, entry: &Json, path: &[String], out: &mut MergeOutcome) {
    let signature = invocations(entry);
    let pick = |values: &[Json]| {
        values
            .iter()
            .position(|v| v == entry)
            .or_else(|| values.iter().position(|v| is_ours_for(v, &signature)))
    };
    if let Some(array) = item.as_array_mut() {
        let values: Vec<Json> = array.iter().map(value_json).collect();
        if let Some(i) = pick(&values) {
            array.remove(i);
            out.changes
                .push(Change::remove(entry_path(path), &values[i]));
        }
    } else if let Some(tables) = item.as_array_of_tables_mut() {
        let values: Vec<Json> = tables.iter().map(|t| table_json(t)).collect();
        if let Some(i) = pick(&values) {
            tables.remove(i);
            out.changes
                .push(Change::remove(entry_path(path), &values[i]));
        }
    }
}

fn find_table<'a>(root: &'a mut Table, path: &[String]) -> Option<&'a mut dyn TableLike> {
    let mut current: &mut dyn TableLike = root;
    for key in path {
        current = current.get_mut(key)?.as_table_like_mut()?;
    }
    Some(current)
}

fn child(path: &[String], key: &str) -> Vec<String> {
    let mut path = path.to_vec();
    path.push(key.to_owned());
    path
}

fn item_json(item: &Item) -> Json {
    match item {
        Item::None => Json::Null,
        Item::Value(value) => value_json(value),
        Item::Table(table) => table_json(table),
        Item::ArrayOfTables(tables) => Json::Array(tables.iter().map(|t| table_json(t)).collect()),
    }
}

fn table_json(table: &dyn TableLike) -> Json {
    Json::Object(
        table
            .iter()
            .map(|(k, v)| (k.to_owned(), item_json(v)))
            .collect(),
    )
}

fn value_json(value: &Value) -> Json {
    match value {
        Value::String(s) => Json::String(s.value().clone()),
        Value::Integer(i) => Json::from(*i.value()),
        Value::Float(f) => {
            serde_json::Number::from_f64(*f.value()).map_or(Json::Null, Json::Number)
        }
        Value::Boolean(b) => Json::Bool(*b.value()),
        Value::Datetime(d) => Json::String(d.value().to_string()),
        Value::Array(items) => Json::Array(items.iter().map(value_json).collect()),
        Value::InlineTable(table) => table_json(table),
    }
}

/// A recorded value back as TOML (to restore what a key held before setup).
fn json_item(json: &Json) -> Option<Item> {
    match json {
        Json::Object(map) => {
            let mut table = Table::new();
            for (k, v) in map {
                table.insert(k, json_item(v)?);
            }
            Some(Item::Table(table))
        }
        other => json_value(other).map(Item::Value),
    }
}

fn json_value(json: &Json) -> Option<Value> {
    Some(match json {
        Json::Null => return None,
        Json::Bool(b) => Value::from(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::from(i),
            None => Value::from(n.as_f64()?),
        },
        Json::String(s) => Value::from(s.as_str()),
        Json::Array(items) => Value::Array(items.iter().filter_map(json_value).collect()),
        Json::Object(map) => {
            let mut table = toml_edit::InlineTable::new();
            for (k, v) in map {
                table.insert(k, json_value(v)?);
            }
            Value::InlineTable(table)
        }
    })
}

#[cfg(test)]
mod tests;
