//! What setup wrote, per file, under `<root>/setup/manifest.json`: whether the file
//! existed, its bytes before the first setup (stored by hash), the hash setup left it
//! with, and the operations it made — so `--remove` can restore the exact bytes when the
//! file is untouched since, or take out only our parts when the user edited it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::apply::FilePlan;
use super::error::{Result, SetupError};
use super::files::write_atomic;
use super::model::Op;
use super::signature::{invocations, is_ours_for};
use crate::plugins::registry::sha256_hex;

const MANIFEST_FORMAT: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FileRecord {
    pub agents: BTreeSet<String>,
    /// `json`, `toml` or `text`.
    pub format: String,
    pub existed_before: bool,
    /// Hash of the bytes before the first setup, stored under `originals/`; none when
    /// the user edited the file between two setups (then only structural removal).
    pub original_sha256: Option<String>,
    pub after_sha256: String,
    pub ops: Vec<Op>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Manifest {
    format: u32,
    pub files: BTreeMap<PathBuf, FileRecord>,
}

pub fn setup_dir(root: &Path) -> PathBuf {
    root.join("setup")
}

impl Manifest {
    pub fn load(root: &Path) -> Result<Manifest> {
        let path = setup_dir(root).join("manifest.json");
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|error| SetupError::BadManifest { path, error }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Manifest::default()),
            Err(e) => Err(SetupError::io("read", path, e)),
        }
    }

    pub fn save(&mut self, root: &Path) -> Result<()> {
        self.format = MANIFEST_FORMAT;
        let text = serde_json::to_string_pretty(self).map_err(|error| SetupError::Encode {
            what: "the setup manifest",
            error,
        })?;
        write_atomic(&setup_dir(root).join("manifest.json"), text.as_bytes()).map(|_| ())
    }

    /// True when setup created `path` as a whole text file of its own and it still
    /// holds `current`, the bytes setup left (so a new version of it replaces the
    /// file; once the user edits it, only a marked block is ever added).
    pub fn owns_whole(&self, path: &Path, current: &[u8]) -> bool {
        self.files.get(path).is_some_and(|r| {
            !r.existed_before
                && r.ops.contains(&Op::WholeFile)
                && r.after_sha256 == sha256_hex(current)
        })
    }

    /// The agents with at least one file recorded.
    pub fn agents(&self) -> BTreeSet<String> {
        self.files
            .values()
            .flat_map(|r| r.agents.iter().cloned())
            .collect()
    }

    /// Records one applied file, chaining onto an earlier record of the same file.
    pub fn record(&mut self, root: &Path, file: &FilePlan) -> Result<()> {
        let (path, agents, format, ops) = (&file.path, &file.agents, file.format, file.ops.clone());
        let before = file.before.as_deref();
        let after = file.after.as_deref().unwrap_or_default();
        let after_sha256 = sha256_hex(after);
        if let (Some(record), Some(before)) = (self.files.get_mut(path), before) {
            if sha256_hex(before) != record.after_sha256 {
                // Edited by the user since: its pre-setup bytes would lose those edits.
                record.original_sha256 = None;
            }
            record.agents.extend(agents.iter().cloned());
            record.after_sha256 = after_sha256;
            fold(&mut record.ops, ops);
            return Ok(());
        }
        let original_sha256 = match before {
            Some(bytes) => Some(store_original(root, bytes)?),
            None => None,
        };
        self.files.insert(
            path.to_path_buf(),
            FileRecord {
                agents: agents.clone(),
                format: format.to_owned(),
                existed_before: before.is_some(),
                original_sha256,
                after_sha256,
                ops,
            },
        );
        Ok(())
    }
}

fn store_original(root: &Path, bytes: &[u8]) -> Result<String> {
    let sha = sha256_hex(bytes);
    let path = setup_dir(root).join("originals").join(&sha);
    if !path.exists() {
        write_atomic(&path, bytes)?;
    }
    Ok(sha)
}

pub fn original_bytes(root: &Path, sha256: &str) -> Option<Vec<u8>> {
    let bytes = std::fs::read(setup_dir(root).join("originals").join(sha256)).ok()?;
    (sha256_hex(&bytes) == sha256).then_some(bytes)
}

/// Folds a later apply's operations into the recorded ones: a key set again keeps its
/// first `previous`; a change inside a subtree we created patches that subtree; a
/// refreshed entry of ours replaces the stale one.
pub fn fold(recorded: &mut Vec<Op>, later: Vec<Op>) {
    for op in later {
        match op {
            Op::SetKey {
                path,
                value,
                previous,
            } => {
                if let Some(Op::SetKey { value: old, .. }) = recorded
                    .iter_mut()
                    .find(|o| matches!(o, Op::SetKey { path: p, .. } if *p == path))
                {
                    *old = value;
                } else if let Some((old, rest)) = enclosing(recorded, &path) {
                    set_at(old, &rest, value);
                } else {
                    recorded.push(Op::SetKey {
                        path,
                        value,
                        previous,
                    });
                }
            }
            Op::AddEntry { path, entry } => {
                let signature = invocations(&entry);
                if let Some((old, rest)) = enclosing(recorded, &path) {
                    if let Some(Value::Array(items)) = get_at(old, &rest) {
                        match items.iter().position(|i| *i == entry || is_ours_for(i, &signature)) {
                            Some(i) => items[i] = entry,
                            None => items.push(entry),
                        }
                    }
                } else if let Some(Op::AddEntry { entry: old, .. }) = recorded.iter_mut().find(|o| {
                    matches!(o, Op::AddEntry { path: p, entry: e } if *p == path && (*e == entry || is_ours_for(e, &signature)))
                }) {
                    *old = entry;
                } else {
                    recorded.push(Op::AddEntry { path, entry });
                }
            }
            Op::WholeFile => {
                if !recorded.contains(&Op::WholeFile) {
                    recorded.push(Op::WholeFile);
                }
            }
            // The first record keeps the separator put before the block.
            Op::TextBlock { separator } => {
                if !recorded.iter().any(|o| matches!(o, Op::TextBlock { .. })) {
                    recorded.push(Op::TextBlock { separator });
                }
            }
        }
    }
}

/// A recorded new-key subtree that contains `path`, and the rest of the path inside it.
fn enclosing<'a>(recorded: &'a mut [Op], path: &[String]) -> Option<(&'a mut Value, Vec<String>)> {
    recorded.iter_mut().find_map(|op| match op {
        Op::SetKey {
            path: p,
            value,
            previous: None,
        } if p.len() < path.len() && path.starts_with(p) => Some((value, path[p.len()..].to_vec())),
        _ => None,
    })
}

fn get_at<'a>(value: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    path.iter().try_fold(value, |v, key| v.get_mut(key))
}

fn set_at(value: &mut Value, path: &[String], new: Value) {
    let Some((last, parents)) = path.split_last() else {
        *value = new;
        return;
    };
    let mut cursor = value;
    for key in parents {
        let Value::Object(map) = cursor else { return };
        cursor = map
            .entry(key.clone())
            .or_insert_with(|| Value::Object(Default::default()));
    }
    if let Value::Object(map) = cursor {
        map.insert(last.clone(), new);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn path(p: &str) -> Vec<String> {
        p.split('.').map(str::to_owned).collect()
    }

    #[test]
    fn a_refresh_patches_the_subtree_we_created() {
        let mut recorded = vec![Op::SetKey {
            path: path("hooks"),
            value: json!({"Stop": [{"hooks": [{"command": "/old/cm hook x stop"}]}]}),
            previous: None,
        }];
        fold(
            &mut recorded,
            vec![
                Op::AddEntry {
                    path: path("hooks.Stop"),
                    entry: json!({"hooks": [{"command": "/new/cm hook x stop"}]}),
                },
                Op::SetKey {
                    path: path("hooks.Extra"),
                    value: json!(1),
                    previous: None,
                },
            ],
        );
        assert_eq!(recorded.len(), 1);
        let Op::SetKey { value, .. } = &recorded[0] else {
            panic!()
        };
        assert_eq!(
            value["Stop"][0]["hooks"][0]["command"],
            "/new/cm hook x stop"
        );
        assert_eq!(value["Stop"].as_array().unwrap().len(), 1);
        assert_eq!(value["Extra"], 1);
    }

    #[test]
    fn a_key_set_twice_keeps_its_first_previous_value() {
        let mut recorded = vec![Op::SetKey {
            path: path("statusLine.command"),
            value: json!("/old/cm statusline"),
            previous: Some(json!("mine")),
        }];
        fold(
            &mut recorded,
            vec![Op::SetKey {
                path: path("statusLine.command"),
                value: json!("/new/cm statusline"),
                previous: Some(json!("/old/cm statusline")),
            }],
        );
        assert_eq!(
            recorded,
            vec![Op::SetKey {
                path: path("statusLine.command"),
                value: json!("/new/cm statusline"),
                previous: Some(json!("mine")),
            }]
        );
    }
}
