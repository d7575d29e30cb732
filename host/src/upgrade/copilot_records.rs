//! What GitHub Copilot CLI 1.0.102 records of the context-mode plugin it installed (ADR
//! 40): an `installedPlugins` entry named `context-mode` in `<copilot home>/config.json`
//! (copied installs), or `enabledPlugins."context-mode@<m>"` in `settings.json` (a local
//! marketplace's plugin, loaded where it is). Read by `cm upgrade` (its update line) and
//! by doctor (a plugin beside `cm setup` runs every hook twice).

use std::path::{Path, PathBuf};

use serde_json::Value;

const PLUGIN: &str = "context-mode";

/// Copilot CLI's home: `COPILOT_HOME` when absolute, else `~/.copilot`.
pub fn copilot_home(home: &Path) -> PathBuf {
    std::env::var_os("COPILOT_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .unwrap_or_else(|| home.join(".copilot"))
}

/// Copilot CLI writes these files with `//` comment lines above the JSON.
fn read_jsonc(path: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    crate::permissions::parse_settings_value(&text).ok()
}

/// The enabled copies of the plugin Copilot CLI installed (`config.json`): for each, its
/// marketplace (empty for a direct install of a folder or repository) and its folder.
pub fn copied_installs(copilot_home: &Path) -> Vec<(String, String)> {
    let config = read_jsonc(&copilot_home.join("config.json"));
    config
        .as_ref()
        .and_then(|c| c["installedPlugins"].as_array())
        .into_iter()
        .flatten()
        .filter(|p| p["name"] == PLUGIN && p["enabled"] != false)
        .map(|p| {
            let text = |key: &str| p[key].as_str().unwrap_or_default().to_owned();
            (text("marketplace"), text("cache_path"))
        })
        .collect()
}

/// Where the enabled plugin is, when Copilot CLI has it installed.
pub fn installed(copilot_home: &Path) -> Option<String> {
    let copied = copied_installs(copilot_home)
        .into_iter()
        .next()
        .map(|(_, at)| at);
    copied.or_else(|| {
        let settings = read_jsonc(&copilot_home.join("settings.json"))?;
        settings["enabledPlugins"]
            .as_object()?
            .iter()
            .find(|(key, on)| key.starts_with(&format!("{PLUGIN}@")) && **on == true)
            .map(|(key, _)| key.clone())
    })
}
