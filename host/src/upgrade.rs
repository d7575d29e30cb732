//! How this `cm` was installed and the exact commands that update it that way (ADR 37):
//! the channel is read from where the running binary really is — an npm platform
//! package, cargo's bin directory, a checkout's `target/` directory, anything else a
//! release archive unpacked by hand — plus the update of a context-mode host plugin
//! (Claude Code, Codex) when one is installed. Nothing is downloaded or run here: the
//! commands are for a person or an agent.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::platform::Os;
use crate::platform::fs::Canonical as _;

/// The version of this binary.
pub const INSTALLED_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The npm scope of the platform packages (`@context-mode/cm-linux-x64`, …) and the
/// launcher package that depends on them.
const NPM_SCOPE: &str = "@context-mode";
const NPM_LAUNCHER: &str = "context-mode";
/// The folder npx keeps the packages it fetched in (`~/.npm/_npx/<hash>/`).
const NPX_CACHE_DIR: &str = "_npx";
/// The profile folders of `target/` whose binaries are source builds.
const BUILD_PROFILES: [&str; 3] = ["release", "debug", "dist"];
/// The name our Claude Code and Codex plugins have in their marketplaces.
const PLUGIN_NAME: &str = "context-mode";

/// The source tree this binary was built from (recorded at build time).
pub fn source_dir() -> PathBuf {
    let host = Path::new(env!("CARGO_MANIFEST_DIR"));
    host.parent().unwrap_or(host).to_path_buf()
}

/// How the running binary got where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Channel {
    /// An npm platform package (`node_modules/@context-mode/cm-<platform>/bin/cm`).
    Npm {
        package: String,
        install: NpmInstall,
    },
    /// `cargo install`'s bin directory.
    Cargo,
    /// `<checkout>/target/[<triple>/]<profile>/cm`.
    SourceBuild { checkout: PathBuf, profile: String },
    /// Anywhere else: a release archive unpacked by hand (or a copy).
    Archive,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NpmInstall {
    /// `npm install -g context-mode`: the platform package nested in the launcher's.
    Global,
    /// npx's cache: each `npx -y context-mode@latest` fetches the newest on its own.
    Npx,
    /// A dependency of the project at this directory.
    Project(PathBuf),
    /// The package an agent host installed as its own plugin (ADR 41): OMP's Bun in
    /// `~/.omp/plugins/`, OpenCode's installer in `~/.cache/opencode/packages/`. The
    /// host's own command updates it.
    Host {
        host: &'static str,
        update: &'static str,
    },
}

/// The hosts that install the npm package as their plugin into a folder of their own:
/// (two words of that folder, in order, the host, its update command).
const PACKAGE_HOSTS: [(&str, &str, &str, &str); 2] = [
    (
        ".omp",
        "plugins",
        "OMP",
        "omp plugin install context-mode --force",
    ),
    (
        "opencode",
        "packages",
        "OpenCode",
        "opencode plugin context-mode -g -f",
    ),
];

/// Where `exe` (an absolute, canonical path as `os` writes it) came from. `cargo_bin`:
/// where `cargo install` puts binaries. Pure: reads nothing.
pub fn classify(exe: &str, cargo_bin: &str, os: Os) -> Channel {
    let words = os.path_words(exe);
    let cm = os.executable_name("cm");
    if words.last().is_none_or(|name| !os.same_name(name, &cm)) {
        return Channel::Archive;
    }
    let dir = &words[..words.len() - 1];
    if let Some(channel) = npm_channel(exe, dir, os) {
        return channel;
    }
    let bin = os.path_words(cargo_bin);
    if dir.len() == bin.len() && dir.iter().zip(&bin).all(|(a, b)| os.same_name(a, b)) {
        return Channel::Cargo;
    }
    // `target/<profile>/cm` or, cross-built, `target/<triple>/<profile>/cm`.
    let n = dir.len();
    for target_at in [n.checked_sub(2), n.checked_sub(3)].into_iter().flatten() {
        if os.same_name(dir[target_at], "target")
            && let Some(profile) = dir.last()
            && BUILD_PROFILES.iter().any(|p| os.same_name(profile, p))
            && target_at > 0
        {
            return Channel::SourceBuild {
                checkout: PathBuf::from(before(exe, dir[target_at])),
                profile: profile.to_ascii_lowercase(),
            };
        }
    }
    Channel::Archive
}

/// `…/node_modules/@context-mode/cm-<platform>/bin` at the end of `dir`.
fn npm_channel(exe: &str, dir: &[&str], os: Os) -> Option<Channel> {
    let [.., modules, scope, package, bin] = dir else {
        return None;
    };
    let ours = os.same_name(modules, "node_modules")
        && os.same_name(scope, NPM_SCOPE)
        && package.starts_with("cm-")
        && os.same_name(bin, "bin");
    if !ours {
        return None;
    }
    let package = format!("{NPM_SCOPE}/{package}");
    let above = &dir[..dir.len() - 4];
    let host = PACKAGE_HOSTS.iter().find(|(first, second, ..)| {
        above
            .windows(2)
            .any(|w| os.same_name(w[0], first) && os.same_name(w[1], second))
    });
    let install = if above.iter().any(|w| os.same_name(w, NPX_CACHE_DIR)) {
        NpmInstall::Npx
    } else if let Some((.., host, update)) = host {
        NpmInstall::Host { host, update }
    } else if let [.., parent, launcher] = above
        && os.same_name(parent, "node_modules")
        && os.same_name(launcher, NPM_LAUNCHER)
    {
        // npm nests a global package's dependencies inside it; a project's are
        // hoisted to the project's own node_modules.
        NpmInstall::Global
    } else {
        NpmInstall::Project(PathBuf::from(before(exe, modules)))
    };
    Some(Channel::Npm { package, install })
}

/// The part of `path` before `word`, one of its words (a sub-slice of it), without the
/// separator: the directory that holds it.
fn before<'a>(path: &'a str, word: &str) -> &'a str {
    let at = (word.as_ptr() as usize).saturating_sub(path.as_ptr() as usize);
    let head = path.get(..at).unwrap_or(path);
    match head.trim_end_matches(['/', '\\']) {
        // The root itself (`/target/debug/cm`).
        "" => &head[..head.len().min(1)],
        trimmed => trimmed,
    }
}

/// What is at a source tree now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The tree is there: its workspace version and, for a git checkout, its commit.
    Present {
        version: Option<String>,
        commit: Option<String>,
        git: bool,
    },
    /// The tree was moved or deleted since the build.
    Missing,
}

impl Source {
    fn at(repo: &Path) -> Source {
        if repo.join("host").join("Cargo.toml").is_file() {
            Source::Present {
                version: workspace_version(repo),
                commit: git_commit(repo),
                git: repo.join(".git").exists(),
            }
        } else {
            Source::Missing
        }
    }
}

#[derive(Debug, Clone)]
pub struct UpgradeInfo {
    pub installed_version: &'static str,
    /// The running binary, canonical.
    pub exe: PathBuf,
    pub channel: Channel,
    /// The tree the commands build from (cargo: the recorded one; source build: the
    /// checkout the binary is in), when the channel builds from source.
    pub source: Option<(PathBuf, Source)>,
    /// One line on the channel, and what to know about it.
    pub notes: Vec<String>,
    /// Commands to run in order, each a full shell line.
    pub commands: Vec<String>,
    /// `(host, update command)` for each context-mode host plugin installed.
    pub plugins: Vec<(String, String)>,
}

/// The running binary's channel and commands.
pub fn info() -> UpgradeInfo {
    let exe = std::env::current_exe()
        .and_then(|exe| exe.canonical())
        .unwrap_or_else(|_| PathBuf::from(Os::current().executable_name("cm")));
    let home = crate::paths::home_dir();
    info_for(&exe, &cargo_bin(), home.as_deref(), &source_dir())
}

/// [`info`] for a binary at `exe`, with cargo's bin directory, the home holding the
/// agents' plugin records and the recorded source tree given.
pub fn info_for(exe: &Path, cargo_bin: &Path, home: Option<&Path>, recorded: &Path) -> UpgradeInfo {
    let os = Os::current();
    let bin = cargo_bin
        .canonical()
        .unwrap_or_else(|_| cargo_bin.to_path_buf());
    let channel = classify(&exe.display().to_string(), &bin.display().to_string(), os);
    let exe_word = shell_word(&exe.display().to_string());
    let refresh = format!("{exe_word} upgrade");
    let mut notes = Vec::new();
    let mut commands = Vec::new();
    let mut source = None;
    match &channel {
        Channel::Npm { package, install } => match install {
            NpmInstall::Global => {
                notes.push(format!("channel: npm, global install ({package})"));
                commands.push(format!("npm install -g {NPM_LAUNCHER}@latest"));
                commands.push(refresh);
            }
            NpmInstall::Npx => {
                notes.push(format!("channel: npx cache ({package})"));
                notes.push(format!(
                    "nothing to upgrade in place: each `npx -y {NPM_LAUNCHER}@latest …` fetches the newest release; run setup through it so the agents point at that one"
                ));
                commands.push(format!("npx -y {NPM_LAUNCHER}@latest setup"));
            }
            NpmInstall::Host { host, update } => {
                notes.push(format!(
                    "channel: npm package installed by {host} as its plugin ({package})"
                ));
                notes.push(format!(
                    "{host} runs this package's cm wherever its update puts it: nothing to refresh"
                ));
                commands.push((*update).to_owned());
            }
            NpmInstall::Project(project) => {
                notes.push(format!(
                    "channel: npm, a dependency of {} ({package})",
                    project.display()
                ));
                commands.push(format!(
                    "npm install --prefix {} {NPM_LAUNCHER}@latest",
                    shell_word(&project.display().to_string())
                ));
                commands.push(refresh);
            }
        },
        Channel::Cargo => {
            notes.push(format!("channel: cargo install ({})", bin.display()));
            let tree = Source::at(recorded);
            if let Source::Present { git, .. } = &tree {
                if *git {
                    commands.push(format!(
                        "git -C {} pull --ff-only",
                        shell_word(&recorded.display().to_string())
                    ));
                }
                commands.push(format!(
                    "cargo install --locked --path {}",
                    shell_word(&recorded.join("host").display().to_string())
                ));
                commands.push(refresh);
            }
            source = Some((recorded.to_path_buf(), tree));
        }
        Channel::SourceBuild { checkout, profile } => {
            notes.push(format!(
                "channel: source build ({profile} profile of {})",
                checkout.display()
            ));
            let tree = Source::at(checkout);
            if let Source::Present { git, .. } = &tree {
                let repo = shell_word(&checkout.display().to_string());
                if *git {
                    commands.push(format!("git -C {repo} pull --ff-only"));
                }
                let manifest = shell_word(&checkout.join("Cargo.toml").display().to_string());
                commands.push(match profile.as_str() {
                    "debug" => format!("cargo build --locked -p cm --manifest-path {manifest}"),
                    "release" => {
                        format!("cargo build --locked --release -p cm --manifest-path {manifest}")
                    }
                    // target/dist holds what `cargo xtask dist` builds.
                    _ => format!("cd {repo} && cargo xtask dist"),
                });
                commands.push(refresh);
            }
            source = Some((checkout.clone(), tree));
        }
        Channel::Archive => {
            notes.push("channel: a release archive (or a copy) unpacked by hand".into());
            notes.push(format!(
                "release archives are what `cargo xtask dist` builds in a context-mode checkout: cm-<version>-<target>.tar.gz (.zip for Windows), each with a .sha256 beside it; check the sha256, unpack, replace {} with the new cm, then run:",
                exe.display()
            ));
            commands.push(refresh);
        }
    }
    UpgradeInfo {
        installed_version: INSTALLED_VERSION,
        exe: exe.to_path_buf(),
        channel,
        source,
        notes,
        commands,
        plugins: home
            .map(|home| {
                let mut plugins = host_plugins(&home.join(".claude"), &codex_home(home));
                plugins.extend(copilot_plugins(&copilot_records::copilot_home(home)));
                plugins.extend(package_plugins(home));
                plugins
            })
            .unwrap_or_default(),
    }
}

/// The one command that puts a sound copy of this `cm` back where it was installed from:
/// doctor's fix when the binary itself is broken (its plugin engine, its SQLite).
pub fn reinstall_line() -> String {
    reinstall_line_for(&info())
}

fn reinstall_line_for(info: &UpgradeInfo) -> String {
    match &info.channel {
        Channel::Cargo => match &info.source {
            Some((tree, Source::Present { .. })) => format!(
                "cargo install --locked --force --path {}",
                shell_word(&tree.join("host").display().to_string())
            ),
            _ => "cargo install --locked --force --path host   # in a context-mode checkout".into(),
        },
        Channel::Archive => format!(
            "replace {} with the cm of a fresh release archive",
            shell_word(&info.exe.display().to_string())
        ),
        // The channel's own update, not the `git pull` before it or `cm upgrade` after.
        Channel::Npm { .. } | Channel::SourceBuild { .. } => info
            .commands
            .iter()
            .find(|line| !line.starts_with("git ") && !line.ends_with(" upgrade"))
            .cloned()
            .unwrap_or_else(|| {
                "reinstall cm the way it was installed (cm upgrade says how)".into()
            }),
    }
}

/// The report both `cm upgrade` and `ctx_upgrade` give.
pub fn report(info: &UpgradeInfo) -> String {
    let mut lines = vec![format!(
        "installed: cm {} ({})",
        info.installed_version,
        info.exe.display()
    )];
    lines.extend(info.notes.iter().cloned());
    match &info.source {
        Some((
            dir,
            Source::Present {
                version, commit, ..
            },
        )) => lines.push(format!(
            "source: {} (version {}{})",
            dir.display(),
            version.as_deref().unwrap_or("unknown"),
            commit
                .as_deref()
                .map(|c| format!(", commit {c}"))
                .unwrap_or_default()
        )),
        Some((dir, Source::Missing)) => lines.push(format!(
            "source: {} no longer exists; clone context-mode again and run `cargo install --locked --path <clone>/host`",
            dir.display()
        )),
        None => {}
    }
    if !info.commands.is_empty() {
        lines.push("to update cm and refresh the agents' hooks, run:".into());
        lines.extend(info.commands.iter().map(|c| format!("  {c}")));
    }
    for (host, command) in &info.plugins {
        lines.push(format!("{host} plugin installed; update it with:"));
        lines.push(format!("  {command}"));
    }
    lines.join("\n")
}

/// Where Codex keeps its config: `$CODEX_HOME` when set, else `~/.codex` (as Codex and
/// our codex adapter read it).
fn codex_home(home: &Path) -> PathBuf {
    std::env::var_os("CODEX_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(".codex"))
}

/// The update command of each context-mode plugin a host has installed. Claude Code:
/// a `context-mode@<marketplace>` key in `<claude>/plugins/installed_plugins.json`
/// (`{"plugins": {"<name>@<marketplace>": …}}`, versions 1 and 2 of its schema). Codex
/// (0.171.0, seen by installing a plugin with the real client): a
/// `[plugins."context-mode@<marketplace>"]` table in `<codex>/config.toml`; a Git
/// marketplace is upgraded with its plugins, a local one (`[marketplaces.<m>]
/// source_type = "local"`) is read from its folder, so adding the plugin again installs
/// what the folder now holds. A file that is absent or unreadable counts as none.
fn host_plugins(claude: &Path, codex: &Path) -> Vec<(String, String)> {
    let ours = |key: &str| {
        key.split_once('@')
            .filter(|(name, marketplace)| *name == PLUGIN_NAME && !marketplace.is_empty())
            .map(|(_, marketplace)| marketplace.to_owned())
    };
    let mut found = Vec::new();
    let record = claude.join("plugins").join("installed_plugins.json");
    if let Some(plugins) = std::fs::read_to_string(record)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|doc| doc.get("plugins")?.as_object().cloned())
    {
        for key in plugins.keys().filter(|k| ours(k).is_some()) {
            found.push((
                "Claude Code".to_owned(),
                format!("claude plugin update {key}"),
            ));
        }
    }
    let Some(config) = std::fs::read_to_string(codex.join("config.toml"))
        .ok()
        .and_then(|text| text.parse::<toml::Table>().ok())
    else {
        return found;
    };
    let plugins = config.get("plugins").and_then(toml::Value::as_table);
    for marketplace in plugins
        .into_iter()
        .flat_map(|t| t.keys())
        .filter_map(|k| ours(k))
    {
        let local = config
            .get("marketplaces")
            .and_then(|m| m.get(&marketplace))
            .and_then(|m| m.get("source_type"))
            .and_then(toml::Value::as_str)
            == Some("local");
        found.push((
            "Codex".to_owned(),
            if local {
                format!("codex plugin add {PLUGIN_NAME}@{marketplace}")
            } else {
                format!("codex plugin marketplace upgrade {marketplace}")
            },
        ));
    }
    found
}

/// The update command of each copy of the plugin Copilot CLI (1.0.102) installed: `copilot
/// plugin update context-mode` for a folder or repository installed directly,
/// `…@<marketplace>` from a marketplace (it fetches the marketplace first). A local
/// marketplace's plugin is loaded where it is and has nothing to update (ADR 40).
fn copilot_plugins(copilot_home: &Path) -> Vec<(String, String)> {
    copilot_records::copied_installs(copilot_home)
        .into_iter()
        .map(|(marketplace, _)| {
            let name = match marketplace.as_str() {
                "" => PLUGIN_NAME.to_owned(),
                m => format!("{PLUGIN_NAME}@{m}"),
            };
            (
                "GitHub Copilot CLI".to_owned(),
                format!("copilot plugin update {name}"),
            )
        })
        .collect()
}

/// The hosts that installed the npm package as their plugin (ADR 41), from their own
/// records: OpenCode's `plugin` list (`~/.config/opencode/opencode.json` or `.jsonc`),
/// Pi's `packages` (`~/.pi/agent/settings.json`), OMP's plugin dependencies
/// (`~/.omp/plugins/package.json`). A record that is absent or unreadable counts as none.
fn package_plugins(home: &Path) -> Vec<(String, String)> {
    let read = |path: PathBuf| {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|text| crate::permissions::parse_settings_value(&text).ok())
    };
    let names_us = |entry: &serde_json::Value, prefix: &str| {
        entry.as_str().is_some_and(|e| {
            e.strip_prefix(prefix).is_some_and(|name| {
                name == NPM_LAUNCHER || name.starts_with(&format!("{NPM_LAUNCHER}@"))
            })
        })
    };
    let listed = |doc: Option<serde_json::Value>, key: &str, prefix: &str| {
        doc.as_ref()
            .and_then(|d| d[key].as_array())
            .is_some_and(|list| list.iter().any(|e| names_us(e, prefix)))
    };
    let opencode = home.join(".config").join("opencode");
    let mut found = Vec::new();
    if ["opencode.json", "opencode.jsonc"]
        .iter()
        .any(|file| listed(read(opencode.join(file)), "plugin", ""))
    {
        found.push(("OpenCode", PACKAGE_HOSTS[1].3));
    }
    if listed(
        read(home.join(".pi").join("agent").join("settings.json")),
        "packages",
        "npm:",
    ) {
        found.push(("Pi", "pi update --extensions"));
    }
    if read(home.join(".omp").join("plugins").join("package.json"))
        .is_some_and(|p| p["dependencies"].get(NPM_LAUNCHER).is_some())
    {
        found.push(("OMP", PACKAGE_HOSTS[0].3));
    }
    found
        .into_iter()
        .map(|(host, update)| (host.to_owned(), update.to_owned()))
        .collect()
}

fn workspace_version(repo: &Path) -> Option<String> {
    let text = std::fs::read_to_string(repo.join("Cargo.toml")).ok()?;
    let doc: toml::Table = toml::from_str(&text).ok()?;
    doc.get("workspace")?
        .get("package")?
        .get("version")?
        .as_str()
        .map(str::to_owned)
}

fn git_commit(repo: &Path) -> Option<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["rev-parse", "--short=12", "HEAD"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let commit = String::from_utf8(output.stdout).ok()?.trim().to_owned();
    (output.status.success() && !commit.is_empty()).then_some(commit)
}

/// Where `cargo install` puts binaries: `$CARGO_INSTALL_ROOT/bin`, `$CARGO_HOME/bin`,
/// else `~/.cargo/bin`.
fn cargo_bin() -> PathBuf {
    let set = |var: &str| {
        std::env::var_os(var)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    set("CARGO_INSTALL_ROOT")
        .or_else(|| set("CARGO_HOME"))
        .or_else(|| crate::paths::home_dir().map(|h| h.join(".cargo")))
        .unwrap_or_else(|| PathBuf::from("~/.cargo"))
        .join("bin")
}

/// A path as one shell word: bare when safe, else single-quoted.
fn shell_word(word: &str) -> String {
    if word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,~".contains(c))
    {
        return word.to_owned();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

pub mod copilot_records;

#[cfg(test)]
mod tests;
