//! Trust some agents ask for before they use what setup registered (ADR 19):
//!
//! - Codex runs a hook from `hooks.json` only when `config.toml` holds
//!   `[hooks.state."<hooks.json path>:<event>:<group>:<handler>"] trusted_hash` equal to
//!   the hook's current hash (`codex-rs/hooks/src/engine/discovery.rs`:
//!   `hook_trust_status`, `command_hook_hash`; `codex-rs/config/src/fingerprint.rs`:
//!   `version_for_toml`). `--dangerously-bypass-hook-trust` skips exactly that check.
//! - Gemini CLI disables a project's MCP servers unless the folder is trusted in
//!   `~/.gemini/trustedFolders.json` (or `$GEMINI_CLI_TRUSTED_FOLDERS_PATH`): the
//!   longest rule that contains the folder decides, `TRUST_PARENT` meaning the rule
//!   path's parent; `GEMINI_CLI_TRUST_WORKSPACE=true` and
//!   `security.folderTrust.enabled: false` trust every folder (0.61.0 bundle,
//!   `checkPathTrust`, `isPathTrusted`, `isFolderTrustEnabled`).

use crate::platform::fs::Canonical as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::agents::ResolvedEdit;
use super::apply::FilePlan;
use crate::model::{ConfigFormat, EditKind};

/// The trust edits for `agent`'s planned files: Codex's `hooks.state` entries for our
/// hooks in the planned `hooks.json`, and Gemini CLI's trusted folder for `project`.
pub fn edits(
    agent: &str,
    files: &[FilePlan],
    home: &Path,
    project: Option<&Path>,
) -> Vec<ResolvedEdit> {
    match agent {
        "codex" => codex_edits(files),
        "gemini-cli" => project
            .filter(|p| !gemini_trusts(home, p))
            .map(|p| vec![gemini_edit(home, p)])
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// Without `--project` setup trusts no folder (trust is the user's call about a
/// checkout's own config), but a Gemini CLI user must learn why our tools are missing
/// in the folder setup ran in: one note naming the command that trusts it.
pub fn untrusted_folder_note(agent: &str, home: &Path, project: Option<&Path>) -> Option<String> {
    if agent != "gemini-cli" || project.is_some() {
        return None;
    }
    let here = std::env::current_dir().ok()?;
    if gemini_trusts(home, &here) {
        return None;
    }
    Some(format!(
        "Gemini CLI starts MCP servers only in trusted folders and {} is not trusted: \
         `cm setup --agents gemini-cli --project` trusts it (or trust it in Gemini)",
        here.display()
    ))
}

fn codex_edits(files: &[FilePlan]) -> Vec<ResolvedEdit> {
    let planned = files.iter().find(|f| {
        f.agents.contains("codex") && f.path.file_name().is_some_and(|n| n == "hooks.json")
    });
    let Some(planned) = planned else {
        return Vec::new();
    };
    let Some(hooks_json) = planned
        .after
        .as_deref()
        .and_then(|bytes| serde_json::from_slice::<Value>(bytes).ok())
    else {
        return Vec::new();
    };
    let hooks = codex_hooks(&planned.path, &hooks_json);
    let Some(dir) = planned.path.parent() else {
        return Vec::new();
    };
    if hooks.is_empty() {
        return Vec::new();
    }
    let content = codex_trust_toml(&hooks);
    let shown = planned.shown.replace("hooks.json", "config.toml");
    vec![ResolvedEdit {
        kind: EditKind::Feature,
        path: dir.join("config.toml"),
        shown,
        format: ConfigFormat::Toml,
        content,
        summary: "Trust the context-mode hooks (Codex runs only trusted hooks)".to_owned(),
    }]
}

fn gemini_edit(home: &Path, project: &Path) -> ResolvedEdit {
    let path = gemini_trusted_folders(home);
    let shown = path
        .strip_prefix(home)
        .map(|rest| format!("~/{}", rest.display()))
        .unwrap_or_else(|_| path.display().to_string());
    ResolvedEdit {
        kind: EditKind::Feature,
        path,
        shown,
        format: ConfigFormat::Json,
        content: json!({ project.display().to_string(): "TRUST_FOLDER" }).to_string(),
        summary: format!(
            "Trust the folder {} (Gemini CLI starts MCP servers only in trusted folders)",
            project.display()
        ),
    }
}

/// The `config.toml` tables that trust `hooks`:
/// `[hooks.state."<key>"] trusted_hash = "<hash>"` each.
pub fn codex_trust_toml(hooks: &[CodexHook]) -> String {
    hooks
        .iter()
        .map(|hook| {
            format!(
                "[hooks.state.{}]\ntrusted_hash = {}\n",
                toml::Value::from(hook.key.as_str()),
                toml::Value::from(hook.hash.as_str())
            )
        })
        .collect()
}

/// `$CODEX_HOME`, else `~/.codex`.
pub fn codex_home(home: &Path) -> PathBuf {
    std::env::var_os("CODEX_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(".codex"))
}

/// One of our hooks in Codex's `hooks.json`: the state key and the hash Codex trusts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodexHook {
    pub key: String,
    pub hash: String,
}

/// Our hooks (`cm hook codex …`) in `hooks_json` (the file at `hooks_path`).
pub fn codex_hooks(hooks_path: &Path, hooks_json: &Value) -> Vec<CodexHook> {
    hooks_keyed(&hooks_path.display().to_string(), hooks_json, |command| {
        crate::setup::signature::invocation_tail(command)
            .is_some_and(|tail| tail.starts_with("hook codex "))
    })
}

/// Every command hook of a Codex plugin's `hooks_json`, keyed as Codex 0.171.0 keys a
/// plugin's hooks (`<plugin>@<marketplace>:<hooks file relative to the plugin>`, its
/// `plugin_hook_key_source`), with the hash Codex trusts (ADR 38, Codex).
pub fn codex_plugin_hooks(plugin_id: &str, relative: &str, hooks_json: &Value) -> Vec<CodexHook> {
    hooks_keyed(&format!("{plugin_id}:{relative}"), hooks_json, |_| true)
}

fn hooks_keyed(
    key_source: &str,
    hooks_json: &Value,
    ours: impl Fn(&str) -> bool,
) -> Vec<CodexHook> {
    let Some(events) = hooks_json.get("hooks").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (event, groups) in events {
        let label = snake_case(event);
        for (group_index, group) in groups.as_array().into_iter().flatten().enumerate() {
            let matcher = group.get("matcher").and_then(Value::as_str);
            let handlers = group.get("hooks").and_then(Value::as_array);
            for (handler_index, handler) in handlers.into_iter().flatten().enumerate() {
                let Some(command) = handler.get("command").and_then(Value::as_str) else {
                    continue;
                };
                if !ours(command) {
                    continue;
                }
                found.push(CodexHook {
                    key: format!("{key_source}:{label}:{group_index}:{handler_index}"),
                    hash: codex_hook_hash(&label, matcher, handler),
                });
            }
        }
    }
    found
}

/// Codex's `command_hook_hash`: SHA-256 of the compact, key-sorted JSON of the hook's
/// normalized identity (absent fields dropped, as its TOML round trip drops them).
fn codex_hook_hash(event_label: &str, matcher: Option<&str>, handler: &Value) -> String {
    let timeout = handler
        .get("timeout")
        .and_then(Value::as_u64)
        .unwrap_or(600)
        .max(1);
    let mut normalized = json!({
        "type": "command",
        "command": handler.get("command").cloned().unwrap_or(Value::Null),
        "timeout": timeout,
        "async": handler.get("async").and_then(Value::as_bool).unwrap_or(false),
    });
    if let Some(message) = handler.get("statusMessage").filter(|m| m.is_string()) {
        normalized["statusMessage"] = message.clone();
    }
    let mut identity = json!({ "event_name": event_label, "hooks": [normalized] });
    if let Some(matcher) = matcher {
        identity["matcher"] = Value::from(matcher);
    }
    // serde_json's map is ordered by key (no `preserve_order` feature), so this is
    // already the canonical form Codex hashes.
    let text = identity.to_string();
    let digest = Sha256::digest(text.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// `PreToolUse` → `pre_tool_use`, Codex's event key label.
fn snake_case(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The keys of `hooks` whose trusted hash in `config` is missing or stale.
pub fn untrusted<'a>(hooks: &'a [CodexHook], config: &toml::Table) -> Vec<&'a CodexHook> {
    let state = config
        .get("hooks")
        .and_then(|h| h.get("state"))
        .and_then(toml::Value::as_table);
    hooks
        .iter()
        .filter(|hook| {
            let trusted = state
                .and_then(|s| s.get(&hook.key))
                .and_then(|entry| entry.get("trusted_hash"))
                .and_then(toml::Value::as_str);
            trusted != Some(hook.hash.as_str())
        })
        .collect()
}

/// Where Gemini CLI keeps trusted folders.
pub fn gemini_trusted_folders(home: &Path) -> PathBuf {
    std::env::var_os("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(".gemini/trustedFolders.json"))
}

/// Whether Gemini CLI trusts `project`, by its own rules.
pub fn gemini_trusts(home: &Path, project: &Path) -> bool {
    match std::env::var("GEMINI_CLI_TRUST_WORKSPACE").as_deref() {
        Ok("true") => return true,
        Ok("false") => return false,
        _ => {}
    }
    let settings = std::fs::read_to_string(home.join(".gemini/settings.json"))
        .ok()
        .and_then(|t| crate::setup::json_merge::to_value(&t).ok());
    let trust_enabled = settings
        .as_ref()
        .and_then(|s| s.pointer("/security/folderTrust/enabled"))
        .and_then(Value::as_bool)
        .unwrap_or(true);
    if !trust_enabled {
        return true;
    }
    let rules = std::fs::read_to_string(gemini_trusted_folders(home))
        .ok()
        .and_then(|t| crate::setup::json_merge::to_value(&t).ok());
    let Some(Value::Object(rules)) = rules else {
        return false;
    };
    let project = project
        .canonical()
        .unwrap_or_else(|_| project.to_path_buf());
    let decisive = rules
        .iter()
        .filter_map(|(rule, level)| {
            let level = level.as_str()?;
            let rule_path = Path::new(rule);
            let effective = if level == "TRUST_PARENT" {
                rule_path.parent()?
            } else {
                rule_path
            };
            let effective = effective
                .canonical()
                .unwrap_or_else(|_| effective.to_path_buf());
            project
                .starts_with(&effective)
                .then_some((rule.len(), level))
        })
        .max_by_key(|(len, _)| *len);
    matches!(decisive, Some((_, "TRUST_FOLDER" | "TRUST_PARENT")))
}

#[cfg(test)]
mod tests;
