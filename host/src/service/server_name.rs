//! The name the agent host registered our MCP server under, which it builds our tools'
//! names from (docs/adr/0019-registered-server-name.md). In order:
//!
//! 1. `CONTEXT_MODE_SERVER_NAME`, when set (an explicit answer beats any guess);
//! 2. a Claude Code plugin: hooks of a plugin run with `CLAUDE_PLUGIN_ROOT`; the
//!    plugin's server is `plugin:<plugin>:<server>` (its `plugin.json` name, and the
//!    `mcpServers` key of `plugin.json` or `.mcp.json` that runs `cm serve`);
//! 3. the entry that runs `cm serve` in the MCP config files the adapter's setup plan
//!    writes (`mcpServers` / `mcp_servers`, the key the plan itself uses, such as
//!    OpenCode's `mcp` whose `command` is an argv array, and Claude's per-project
//!    `projects.<dir>.mcpServers`), read only when one of them changed since the last
//!    hook: the answer is cached beside the data with each file's size and mtime;
//! 4. [`MCP_SERVER_NAME`], the name `cm setup` registers.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::limits::PLANNED_ADAPTERS_MAX;
use crate::model::{ConfigFormat, EditKind, MCP_SERVER_NAME};
use crate::state_memo::StateMemo;

pub use crate::env::SERVER_NAME as SERVER_NAME_ENV;

/// Set by Claude Code for the hooks a plugin registers.
const CLAUDE_PLUGIN_ROOT_ENV: &str = "CLAUDE_PLUGIN_ROOT";

/// One MCP config file the host reads servers from.
#[derive(Debug, Clone)]
pub struct McpConfigFile {
    pub path: PathBuf,
    pub format: ConfigFormat,
    /// Where the adapter's plan keeps servers in this file (`["mcp"]` for OpenCode,
    /// `["context_servers"]` for Zed, `["mcp", "servers"]` for OpenClaw); empty when
    /// the plan does not say.
    pub servers_at: Vec<String>,
}

/// The MCP config files of a setup plan's `mcp-server` edits, resolved.
pub fn mcp_config_files(
    plan: &crate::model::SetupPlan,
    home: &Path,
    project: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Vec<McpConfigFile> {
    let mut files: Vec<McpConfigFile> = plan
        .edits
        .iter()
        .filter(|e| e.kind == EditKind::McpServer)
        .filter_map(|e| {
            let path = crate::setup::agents::expand(&e.file, home, Some(project), env).ok()?;
            Some(McpConfigFile {
                path,
                format: e.format,
                servers_at: servers_path(&e.content, e.format).unwrap_or_default(),
            })
        })
        .collect();
    files.dedup_by(|a, b| a.path == b.path);
    files
}

/// The keys leading to the object that holds our server in a plan document.
fn servers_path(content: &str, format: ConfigFormat) -> Option<Vec<String>> {
    fn find(value: &Value, at: &mut Vec<String>) -> bool {
        let Some(map) = value.as_object() else {
            return false;
        };
        if map.get(MCP_SERVER_NAME).is_some_and(Value::is_object) {
            return true;
        }
        for (key, child) in map {
            at.push(key.clone());
            if find(child, at) {
                return true;
            }
            at.pop();
        }
        false
    }
    let document: Value = match format {
        ConfigFormat::Toml => serde_json::to_value(content.parse::<toml::Table>().ok()?).ok()?,
        ConfigFormat::Json => serde_json::from_str(content).ok()?,
        _ => return None,
    };
    let mut at = Vec::new();
    find(&document, &mut at).then_some(at)
}

/// Our tools' names on `descriptor`'s host when it registered us under another name
/// than the default the descriptor was named for; `None` when it did not (or the
/// adapter speaks contract 0.2.0, whose names are one fixed prefix).
pub fn renamed_tools(
    adapter: &mut crate::plugins::Adapter,
    descriptor: &crate::model::Descriptor,
    root: &Path,
    project: &Path,
) -> Result<Option<crate::model::CtxToolNames>, crate::plugins::PluginError> {
    let declared = |name: &str| {
        descriptor
            .env_vars
            .iter()
            .any(|d| d == name)
            .then(|| std::env::var(name).ok())
            .flatten()
    };
    let process_env = |name: &str| std::env::var(name).ok();
    let home = crate::paths::home_dir();
    // The plan's files are asked of the adapter only when the answer cached for this
    // adapter, home and environment has a file that changed since (ADR 35): the hook
    // of every tool call used to run `setup` in the guest just to learn what to stat.
    let plan = plan_key(descriptor, home.as_deref(), &declared);
    let server = match overridden(&descriptor.id, &process_env)
        .or_else(|| cached_by_stamps(root, &descriptor.id, project, &plan))
    {
        Some(name) => name,
        None => {
            let setup = adapter.setup_plan(crate::model::SetupInput {
                cm_command: "cm".into(),
                project_dir: Some(project.display().to_string()),
            })?;
            let files = match &home {
                Some(home) => mcp_config_files(&setup, home, project, &declared),
                None => Vec::new(),
            };
            registered_for(root, &descriptor.id, project, &files, &process_env, &plan)
        }
    };
    if server == MCP_SERVER_NAME {
        return Ok(None);
    }
    adapter.ctx_tool_names(&server)
}

/// What the plan's list of files depends on besides the project: this `cm`, the
/// adapter (all it declares), the home directory and the variables the adapter reads.
fn plan_key(
    descriptor: &crate::model::Descriptor,
    home: Option<&Path>,
    declared: &dyn Fn(&str) -> Option<String>,
) -> String {
    use sha2::{Digest, Sha256};
    /// The keys this process computed: `cm serve` asks on every hook with the same
    /// descriptor, whose full text and digest cost more than comparing it.
    type Planned = Vec<(crate::model::Descriptor, Option<PathBuf>, PlanEnv, String)>;
    static PLANNED: std::sync::Mutex<Planned> = std::sync::Mutex::new(Vec::new());
    let env: PlanEnv = descriptor
        .env_vars
        .iter()
        .map(|name| (name.clone(), declared(name)))
        .collect();
    let home = home.map(Path::to_path_buf);
    if let Ok(planned) = PLANNED.lock()
        && let Some((.., key)) = planned
            .iter()
            .find(|(d, h, e, _)| d == descriptor && *h == home && *e == env)
    {
        return key.clone();
    }
    let text = format!(
        "{}|{descriptor:?}|{:?}|{env:?}",
        env!("CARGO_PKG_VERSION"),
        home.as_deref()
    );
    let key = hex::encode(&Sha256::digest(text.as_bytes())[..16]);
    if let Ok(mut planned) = PLANNED.lock() {
        if planned.len() >= PLANNED_ADAPTERS_MAX {
            planned.clear();
        }
        planned.push((descriptor.clone(), home, env, key.clone()));
    }
    key
}

/// The variables an adapter declares, with their values in this process.
type PlanEnv = Vec<(String, Option<String>)>;

/// The name the environment gives: the explicit variable, or a Claude Code plugin's.
fn overridden(platform: &str, env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    if let Some(name) = env(SERVER_NAME_ENV).filter(|n| !n.trim().is_empty()) {
        return Some(name.trim().to_string());
    }
    env(CLAUDE_PLUGIN_ROOT_ENV)
        .filter(|_| platform == "claude-code")
        .and_then(|plugin_root| claude_plugin_server(Path::new(&plugin_root)))
}

/// The cached answer for this plan and project, when none of the files it was read
/// from changed since.
fn cached_by_stamps(root: &Path, platform: &str, project: &Path, plan: &str) -> Option<String> {
    let cached = CACHES.read(&cache_path(root, platform), |bytes| {
        serde_json::from_slice::<Cached>(bytes).ok()
    })?;
    let fresh = cached.plan == plan
        && cached.key.project == project.display().to_string()
        && cached
            .key
            .stamps
            .iter()
            .all(|stamp| Stamp::of(&stamp.path) == *stamp);
    fresh.then_some(cached.name)
}

/// The registered server name for `platform` in `project`.
pub fn registered(
    root: &Path,
    platform: &str,
    project: &Path,
    files: &[McpConfigFile],
    env: &dyn Fn(&str) -> Option<String>,
) -> String {
    registered_for(root, platform, project, files, env, "")
}

/// [`registered`], caching the answer under the plan it read `files` from.
fn registered_for(
    root: &Path,
    platform: &str,
    project: &Path,
    files: &[McpConfigFile],
    env: &dyn Fn(&str) -> Option<String>,
    plan: &str,
) -> String {
    if let Some(name) = overridden(platform, env) {
        return name;
    }
    let stamps: Vec<Stamp> = files.iter().map(|f| Stamp::of(&f.path)).collect();
    let cache = cache_path(root, platform);
    let key = CacheKey {
        project: project.display().to_string(),
        stamps,
    };
    if let Some(cached) = read_cache(&cache, &key) {
        if cached.plan != plan {
            write_cache(&cache, &key, &cached.name, plan);
        }
        return cached.name;
    }
    let name = files
        .iter()
        .find_map(|f| in_file(f, project))
        .unwrap_or_else(|| MCP_SERVER_NAME.to_string());
    write_cache(&cache, &key, &name, plan);
    name
}

/// The server a Claude Code plugin registers: `plugin:<plugin>:<server>`.
fn claude_plugin_server(plugin_root: &Path) -> Option<String> {
    let manifest = read_json(&plugin_root.join(".claude-plugin/plugin.json"))?;
    let plugin = manifest.get("name")?.as_str()?.to_string();
    let server = manifest.get("mcpServers").and_then(ours_in).or_else(|| {
        read_json(&plugin_root.join(".mcp.json"))
            .and_then(|v| v.get("mcpServers").and_then(ours_in))
    })?;
    Some(format!("plugin:{plugin}:{server}"))
}

/// The first server in `file` that runs `cm serve`: the project's own scope first.
fn in_file(file: &McpConfigFile, project: &Path) -> Option<String> {
    let value = match file.format {
        ConfigFormat::Toml => {
            let text = std::fs::read_to_string(&file.path).ok()?;
            let table: toml::Table = text.parse().ok()?;
            serde_json::to_value(table).ok()?
        }
        _ => read_json(&file.path)?,
    };
    let project_scope = value
        .get("projects")
        .and_then(|p| p.get(project.display().to_string()))
        .and_then(|p| p.get("mcpServers"));
    let planned = (!file.servers_at.is_empty())
        .then(|| file.servers_at.iter().try_fold(&value, |v, key| v.get(key)))
        .flatten();
    [
        project_scope,
        planned,
        value.get("mcpServers"),
        value.get("mcp_servers"),
    ]
    .into_iter()
    .flatten()
    .find_map(ours_in)
}

/// The key of the entry in a server map that runs `cm serve`; our default name first.
fn ours_in(servers: &Value) -> Option<String> {
    let servers = servers.as_object()?;
    let runs_serve = |entry: &Value| {
        use crate::setup::signature::{argv_invocation, invocations};
        invocations(entry).iter().any(|tail| tail == "serve")
            || entry
                .get("command")
                .and_then(argv_invocation)
                .is_some_and(|tail| tail == "serve")
            // A plugin's launcher script run by `sh` (the Copilot CLI bundle's entry, and
            // the Claude Code plugin's before ADR 43 named the launcher itself).
            || (entry.get("command").and_then(Value::as_str) == Some("sh")
                && entry
                    .get("args")
                    .and_then(argv_invocation)
                    .is_some_and(|tail| tail == "serve"))
    };
    if servers.get(MCP_SERVER_NAME).is_some_and(runs_serve) {
        return Some(MCP_SERVER_NAME.to_string());
    }
    servers
        .iter()
        .find(|(_, entry)| runs_serve(entry))
        .map(|(name, _)| name.clone())
}

fn read_json(path: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    crate::setup::json_merge::to_value(&text).ok()
}

/// What a config file looked like: its size and modification time, or absent.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Stamp {
    path: PathBuf,
    len: Option<u64>,
    modified_ns: Option<u128>,
}

impl Stamp {
    fn of(path: &Path) -> Stamp {
        let meta = std::fs::metadata(path).ok();
        Stamp {
            path: path.to_path_buf(),
            len: meta.as_ref().map(std::fs::Metadata::len),
            modified_ns: meta
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_nanos()),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct CacheKey {
    project: String,
    stamps: Vec<Stamp>,
}

/// The cache files this process read or wrote: `cm serve` checks one on every hook.
static CACHES: StateMemo<Cached> = StateMemo::new();

#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct Cached {
    key: CacheKey,
    name: String,
    /// The [`plan_key`] the key's files came from ("" when not known).
    #[serde(default)]
    plan: String,
}

fn cache_path(root: &Path, platform: &str) -> PathBuf {
    let safe: String = platform
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    root.join("server-names").join(format!("{safe}.json"))
}

fn read_cache(path: &Path, key: &CacheKey) -> Option<Cached> {
    let cached = CACHES.read(path, |bytes| serde_json::from_slice::<Cached>(bytes).ok())?;
    (cached.key == *key).then_some(cached)
}

/// Best effort: a cache that cannot be written only costs the next hook a read.
fn write_cache(path: &Path, key: &CacheKey, name: &str, plan: &str) {
    let cached = Cached {
        key: key.clone(),
        name: name.to_string(),
        plan: plan.to_string(),
    };
    let (Some(dir), Ok(text)) = (path.parent(), serde_json::to_string(&cached)) else {
        return;
    };
    let tmp = crate::paths::temp_name(dir, "server-name");
    let written = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&tmp, text))
        .and_then(|()| crate::platform::fs::replace_state_file(&tmp, path));
    if written.is_ok() {
        CACHES.wrote(path, cached);
    }
}

#[cfg(test)]
mod tests;
