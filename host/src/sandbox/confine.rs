//! Confinement mode (issue 19, ADR 0026): with `CONTEXT_MODE_CONFINE=1|true|on`, every
//! process the sandbox spawns runs confined by the rules of its call ([`Plan`]):
//!
//! - reads and execution everywhere, except the files the user's `Read(...)` deny
//!   rules name where they can be resolved to paths (a literal path, or a `*`/`?`
//!   glob in its last component only);
//! - writes (create, remove, rename, truncate) only beneath the project, the call's
//!   private temp dir (also the child's `TMPDIR`), the runtime's caches
//!   (`confine_write` in `runtimes/*.toml`) and a few devices (`/dev/null` …);
//! - network: unchanged, unless `CONTEXT_MODE_CONFINE_NET=off` (no TCP connect or
//!   bind) or a comma-separated list of TCP ports that may be connected to.
//!
//! This module decides the rules; the platform layer enforces them (Landlock on
//! Linux, a Seatbelt profile on macOS; Windows refuses with one line), and a system
//! that cannot enforce every rule makes the call fail with one line, never run
//! unconfined.

use crate::platform::fs::Canonical as _;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub use crate::platform::child::{Net, Plan};

use crate::permissions::{self, Effect};

/// Switches confinement on: `1`, `true`, `yes` or `on` (any case; see [`is_on`]).
pub const CONFINE_ENV: &str = "CONTEXT_MODE_CONFINE";
/// `off`: no TCP connect or bind; `443,80`: connects only to these TCP ports.
pub const CONFINE_NET_ENV: &str = "CONTEXT_MODE_CONFINE_NET";

/// The line added to a reply whose stderr shows a refused access while confinement is on.
pub const REFUSED_NOTE: &str = "confinement: writes outside the project, its temp dir and the runtime caches are refused (CONTEXT_MODE_CONFINE)";

/// Devices every child may write to.
const WRITABLE_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/pts",
    "/dev/shm",
];

/// Confinement as switched on by the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub net: Net,
}

/// Whether `value` switches confinement on: `1`, `true`, `yes`, `on` (any case) do,
/// `0`, `false`, `no`, `off` and empty do not, and a value [`crate::lenient::flag`]
/// does not know does (the safe side: never unconfined by a typo).
pub fn is_on(value: &str) -> bool {
    crate::lenient::flag(value).unwrap_or(true)
}

/// The settings from `CONTEXT_MODE_CONFINE` / `CONTEXT_MODE_CONFINE_NET` alone (no
/// project to read settings files for); `None` = off.
pub fn from_env() -> Option<Settings> {
    with_env_over(FileSettings::default())
}

/// The key of the settings files (`.claude/settings.local.json`, `.claude/settings.json`,
/// `~/.claude/settings.json`, the files the permission rules come from) that switches
/// confinement: `{"contextMode": {"confine": true, "confineNet": "off" | "443,80"}}`.
pub const SETTINGS_KEY: &str = "contextMode";

/// Confinement for a server working on `project`: `CONTEXT_MODE_CONFINE` when it is set
/// (it wins, so one run can switch it either way), else the closest settings file that
/// says `contextMode.confine`. The network mode comes the same way. A settings file that
/// cannot be parsed says nothing here: the permission guard already refuses the calls
/// its rules could govern.
pub fn resolve(project: &Path, home: Option<&Path>) -> Option<Settings> {
    with_env_over(settings_from_files(project, home))
}

/// The environment's values where set (and not blank), else the files'.
fn with_env_over(files: FileSettings) -> Option<Settings> {
    let set = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let on = match set(CONFINE_ENV) {
        Some(value) => is_on(&value),
        None => files.confine.unwrap_or(false),
    };
    let net = set(CONFINE_NET_ENV).or(files.net);
    on.then(|| Settings {
        net: parse_net(net.as_deref()),
    })
}

/// What the settings files say, closest file first for each key.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct FileSettings {
    pub confine: Option<bool>,
    pub net: Option<String>,
}

pub fn settings_from_files(project: &Path, home: Option<&Path>) -> FileSettings {
    let mut found = FileSettings::default();
    for (_, path) in crate::permissions::settings_files(project, home) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let here = parse_settings(&text);
        found.confine = found.confine.or(here.confine);
        found.net = found.net.or(here.net);
    }
    found
}

/// `contextMode.confine` (a boolean, or a string such as `"on"`) and
/// `contextMode.confineNet` (a string, or a list of ports) of one settings file's text.
pub fn parse_settings(text: &str) -> FileSettings {
    let Ok(value) = crate::permissions::parse_settings_value(text) else {
        return FileSettings::default();
    };
    let section = &value[SETTINGS_KEY];
    let confine = match &section["confine"] {
        serde_json::Value::Bool(on) => Some(*on),
        serde_json::Value::String(text) => Some(is_on(text)),
        _ => None,
    };
    let net = match &section["confineNet"] {
        serde_json::Value::String(text) => Some(text.clone()),
        serde_json::Value::Array(ports) => Some(
            ports
                .iter()
                .map(|p| match p {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect::<Vec<_>>()
                .join(","),
        ),
        _ => None,
    };
    FileSettings { confine, net }
}

/// `None`/empty/`on` = unchanged; `off` = none; `443, 80` = those TCP ports. An
/// unparsable entry is dropped (so a typo narrows, never widens, what is allowed).
pub fn parse_net(value: Option<&str>) -> Net {
    let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Net::On;
    };
    match value.to_ascii_lowercase().as_str() {
        "on" | "1" | "true" | "all" => Net::On,
        "off" | "0" | "false" | "none" => Net::Off,
        list => Net::Ports(
            list.split(',')
                .filter_map(|p| p.trim().parse::<u16>().ok())
                .collect(),
        ),
    }
}

/// Why confinement cannot be applied; the call is refused with this one line.
pub fn refusal(reason: &str) -> String {
    format!(
        "confinement is on ({CONFINE_ENV}) but cannot be enforced here: {reason}; nothing was run"
    )
}

/// The domain for one call: `project`, the call's `work` dir, the runtime's caches.
pub fn plan(
    settings: &Settings,
    project: &Path,
    work: &Path,
    caches: &[String],
    env: &[(OsString, OsString)],
) -> Plan {
    let home = lookup(env, "HOME").map(PathBuf::from);
    let mut write = vec![project.to_path_buf(), work.to_path_buf()];
    for cache in caches {
        // A cache that does not exist yet is not granted (nor created in the user's
        // home): the runtime's attempt to create it is refused like any other write.
        if let Some(path) = cache_path(cache, env, home.as_deref()).filter(|p| p.exists()) {
            write.push(path);
        }
    }
    write.extend(WRITABLE_DEVICES.iter().map(PathBuf::from));
    Plan {
        write,
        read_denied: read_denials(project, home.as_deref()),
        net: match &settings.net {
            Net::On => None,
            other => Some(other.clone()),
        },
    }
}

fn lookup<'a>(env: &'a [(OsString, OsString)], name: &str) -> Option<&'a OsString> {
    env.iter()
        .rev()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
        .filter(|v| !v.is_empty())
}

/// `"$GOCACHE|~/.cache/go-build"`: the first alternative that resolves. `$VAR` or
/// `$VAR/rest` needs the variable set; `~/rest` needs `HOME`; a relative result is
/// dropped.
pub fn cache_path(
    entry: &str,
    env: &[(OsString, OsString)],
    home: Option<&Path>,
) -> Option<PathBuf> {
    entry.split('|').map(str::trim).find_map(|alt| {
        let path = if let Some(var) = alt.strip_prefix('$') {
            let (name, rest) = var.split_once('/').unwrap_or((var, ""));
            let base = PathBuf::from(lookup(env, name)?);
            if rest.is_empty() {
                base
            } else {
                base.join(rest)
            }
        } else if let Some(rest) = alt.strip_prefix("~/") {
            home?.join(rest)
        } else {
            PathBuf::from(alt)
        };
        path.is_absolute().then_some(path)
    })
}

/// The existing files the user's `Read(...)` deny rules name, as far as Landlock can
/// express them (see the module doc); canonical paths.
pub fn read_denials(project: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let (rules, _) = permissions::load(project, home);
    let mut denied: Vec<PathBuf> = rules
        .iter()
        .filter(|r| r.effect == Effect::Deny)
        .filter_map(|r| {
            r.pattern
                .strip_prefix("Read(")
                .and_then(|s| s.strip_suffix(')'))
        })
        .flat_map(|spec| spec_paths(spec, project, home))
        .filter_map(|p| p.canonical().ok())
        .collect();
    denied.sort();
    denied.dedup();
    denied
}

/// The existing paths a specifier names, or none when it cannot be expressed
/// (`**`, a bare name that matches at any depth, a glob above the last component).
fn spec_paths(spec: &str, project: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let spec = spec.trim().trim_end_matches('/');
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(abs) = spec.strip_prefix("//") {
        candidates.push(Path::new("/").join(abs));
    } else if let Some(rest) = spec.strip_prefix("~/") {
        if let Some(home) = home {
            candidates.push(home.join(rest));
        }
    } else if let Some(rest) = spec.strip_prefix('/') {
        candidates.push(Path::new("/").join(rest));
        candidates.push(project.join(rest));
    } else if let Some(rest) = spec.strip_prefix("./") {
        candidates.push(project.join(rest));
    } else if spec.contains('/') && !spec.starts_with("**") {
        candidates.push(project.join(spec));
    } else {
        return Vec::new();
    }
    candidates
        .into_iter()
        .flat_map(|path| expand_last(&path))
        .collect()
}

/// `path` itself, or the entries of its parent its last component matches when only
/// that component has `*` / `?`.
fn expand_last(path: &Path) -> Vec<PathBuf> {
    let wild = |s: &str| s.contains(['*', '?', '[']);
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Vec::new();
    };
    if wild(&parent.to_string_lossy()) {
        return Vec::new();
    }
    let name = name.to_string_lossy();
    if !wild(&name) {
        return vec![path.to_path_buf()];
    }
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| glob_match(name.as_bytes(), e.file_name().to_string_lossy().as_bytes()))
        .map(|e| e.path())
        .collect()
}

/// `*` (any run) and `?` (one byte) within one path component.
fn glob_match(pattern: &[u8], name: &[u8]) -> bool {
    match (pattern.first(), name.first()) {
        (None, None) => true,
        (Some(b'*'), _) => {
            glob_match(&pattern[1..], name) || (!name.is_empty() && glob_match(pattern, &name[1..]))
        }
        (Some(b'?'), Some(_)) => glob_match(&pattern[1..], &name[1..]),
        (Some(p), Some(n)) if p == n => glob_match(&pattern[1..], &name[1..]),
        _ => false,
    }
}

/// Whether stderr shows an access the confinement may have refused.
pub fn looks_refused(stderr: &str) -> bool {
    [
        "Permission denied",
        "Operation not permitted",
        "EACCES",
        "EPERM",
        "Invalid cross-device link",
    ]
    .iter()
    .any(|m| stderr.contains(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_settings_key_takes_a_flag_or_a_word_and_ports_as_text_or_a_list() {
        let parsed = parse_settings(
            r#"{ // comment
  "contextMode": { "confine": true, "confineNet": [443, "80"] },
}"#,
        );
        assert_eq!(
            parsed,
            FileSettings {
                confine: Some(true),
                net: Some("443,80".into())
            }
        );
        assert_eq!(
            parse_settings(r#"{"contextMode":{"confine":"off"}}"#).confine,
            Some(false)
        );
        assert_eq!(
            parse_settings(r#"{"contextMode":{"confine":"enabled"}}"#).confine,
            Some(true)
        );
        assert_eq!(
            parse_settings(r#"{"permissions":{}}"#),
            FileSettings::default()
        );
        assert_eq!(parse_settings("{ not json"), FileSettings::default());
        assert_eq!(parse_net(Some("443,80")), Net::Ports(vec![443, 80]));
    }

    #[test]
    fn switch_values() {
        for v in ["1", "true", "ON", " on "] {
            assert!(is_on(v), "{v}");
        }
        assert!(is_on("enabled"), "unknown values confine");
        for v in ["", "0", "off", "FALSE", "no"] {
            assert!(!is_on(v), "{v}");
        }
        assert_eq!(parse_net(None), Net::On);
        assert_eq!(parse_net(Some("off")), Net::Off);
        assert_eq!(parse_net(Some("443, 80,x")), Net::Ports(vec![443, 80]));
    }

    #[test]
    fn cache_alternatives_take_the_first_that_resolves() {
        // Absolute on this OS (`/c/go` is not absolute on Windows).
        let go = std::env::temp_dir().join("go");
        let home_dir = std::env::temp_dir().join("h");
        let env = vec![(OsString::from("GOCACHE"), go.clone().into_os_string())];
        let home = Some(home_dir.as_path());
        assert_eq!(
            cache_path("$GOCACHE|~/.cache/go-build", &env, home),
            Some(go.clone())
        );
        assert_eq!(
            cache_path("$NOPE/x|~/.npm", &env, home),
            Some(home_dir.join(".npm"))
        );
        assert_eq!(cache_path("$GOCACHE/sub", &env, home), Some(go.join("sub")));
        assert_eq!(cache_path("~/.npm", &env, None), None);
        assert_eq!(cache_path("relative", &env, home), None);
    }

    #[test]
    fn an_unenforceable_confinement_is_one_line_that_says_nothing_ran() {
        let line = crate::sandbox::SandboxError::Unconfinable(refusal(
            "Landlock is built into the kernel but not enabled",
        ))
        .to_string();
        assert_eq!(
            line,
            "confinement is on (CONTEXT_MODE_CONFINE) but cannot be enforced here: Landlock is built into the kernel but not enabled; nothing was run"
        );
        assert!(!line.contains('\n'));
    }

    #[test]
    fn globs_in_one_component() {
        assert!(glob_match(b".env*", b".env.local"));
        assert!(glob_match(b".env*", b".env"));
        assert!(glob_match(b"?.txt", b"a.txt"));
        assert!(!glob_match(b".env*", b"x.env"));
    }

    #[test]
    fn read_specs_anchor_like_the_policy() {
        let project = tempfile::tempdir().expect("tempdir");
        let p = project.path();
        std::fs::write(p.join(".env"), "S").expect("write");
        std::fs::write(p.join(".env.local"), "S").expect("write");
        std::fs::create_dir_all(p.join("sub")).expect("mkdir");
        std::fs::write(p.join("sub/key"), "S").expect("write");
        assert_eq!(spec_paths("./.env", p, None), vec![p.join(".env")]);
        assert_eq!(spec_paths("sub/key", p, None), vec![p.join("sub/key")]);
        let mut globbed = spec_paths("./.env*", p, None);
        globbed.sort();
        assert_eq!(globbed, vec![p.join(".env"), p.join(".env.local")]);
        assert!(spec_paths("**/.env", p, None).is_empty());
        assert!(spec_paths(".env", p, None).is_empty());
    }
}
