//! The npm packages (ADR 36): one launcher package, `context-mode`, whose bins are a few
//! lines of JS (npm/launcher/), and one package per platform holding the native binary,
//! selected by npm through `os`/`cpu`/`libc` as the launcher's optional dependencies —
//! the layout of `@openai/codex`, Biome and esbuild. Each is packed with `npm pack`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::targets::{TARGETS, Target};

pub const LAUNCHER_PACKAGE: &str = "context-mode";

/// The host plugins the launcher package carries (ADR 41): each the very file `cm setup`
/// writes, copied at pack time with its placeholders unfilled, which it reads as "a
/// package install". `plugins/<host>.js` for the Pi extension and the OMP plugin, which
/// take the adapter id from that file name.
pub const HOST_PLUGINS: &[(&str, &str)] = &[
    ("plugins/opencode.js", "configs/opencode/context-mode.js"),
    ("plugins/pi.js", "configs/pi/context-mode.js"),
    ("plugins/omp.js", "configs/pi/context-mode.js"),
];
const DESCRIPTION: &str = "context-mode: keeps tool output out of a coding agent's context and rebuilds its state after compaction";

/// The platform package of `target`, its binary copied from `binary`, packed into
/// `out_dir`. Returns the tarball.
pub fn pack_platform(
    root: &Path,
    out_dir: &Path,
    version: &str,
    target: &Target,
    binary: &Path,
) -> Result<PathBuf> {
    let dir = out_dir
        .join("build")
        .join(format!("cm-{}", target.platform()));
    fresh_dir(&dir)?;
    let bin_dir = dir.join("bin");
    std::fs::create_dir_all(&bin_dir)
        .with_context(|| format!("cannot create {}", bin_dir.display()))?;
    let exe = bin_dir.join(target.exe_name());
    std::fs::copy(binary, &exe)
        .with_context(|| format!("cannot copy {} to {}", binary.display(), exe.display()))?;
    make_executable(&exe)?;
    write_json(
        &dir.join("package.json"),
        &platform_manifest(version, target),
    )?;
    std::fs::write(
        dir.join("README.md"),
        format!(
            "# {}\n\nThe `cm` binary of context-mode for {} {}. Install `{LAUNCHER_PACKAGE}` instead: \
             it depends on this package for this platform only.\n",
            target.npm_package(),
            target.node_os,
            target.node_cpu
        ),
    )
    .context("cannot write the platform package README")?;
    copy_license(root, &dir)?;
    pack(&dir, out_dir)
}

/// The launcher package, its optional dependencies naming every platform at `version`.
pub fn pack_launcher(root: &Path, out_dir: &Path, version: &str) -> Result<PathBuf> {
    let dir = out_dir.join("build").join(LAUNCHER_PACKAGE);
    fresh_dir(&dir)?;
    let bin_dir = dir.join("bin");
    std::fs::create_dir_all(&bin_dir)
        .with_context(|| format!("cannot create {}", bin_dir.display()))?;
    let launcher = bin_dir.join("cm.js");
    let source = root.join("npm/launcher/bin/cm.js");
    std::fs::copy(&source, &launcher)
        .with_context(|| format!("cannot copy {}", source.display()))?;
    make_executable(&launcher)?;
    let plugin_dir = dir.join("plugins");
    std::fs::create_dir_all(&plugin_dir)
        .with_context(|| format!("cannot create {}", plugin_dir.display()))?;
    for (entry, source) in HOST_PLUGINS {
        let source = root.join(source);
        std::fs::copy(&source, dir.join(entry))
            .with_context(|| format!("cannot copy {}", source.display()))?;
    }
    let readme = root.join("npm/launcher/README.md");
    std::fs::copy(&readme, dir.join("README.md"))
        .with_context(|| format!("cannot copy {}", readme.display()))?;
    copy_license(root, &dir)?;
    write_json(&dir.join("package.json"), &launcher_manifest(version))?;
    pack(&dir, out_dir)
}

pub fn launcher_manifest(version: &str) -> Value {
    let optional: serde_json::Map<String, Value> = TARGETS
        .iter()
        .map(|t| (t.npm_package(), Value::String(version.to_string())))
        .collect();
    json!({
        "name": LAUNCHER_PACKAGE,
        "version": version,
        "description": DESCRIPTION,
        "license": "MIT",
        "bin": { "context-mode": "bin/cm.js", "cm": "bin/cm.js" },
        // OpenCode's `opencode plugin` takes `main` as the server plugin; Pi's `pi install`
        // lists packages by the keyword and loads `pi.extensions`; OMP's `omp plugin
        // install` loads `omp.extensions` (before `pi`).
        "main": "plugins/opencode.js",
        "keywords": ["pi-package", "opencode-plugin", "omp-plugin", "mcp", "context"],
        "pi": { "extensions": ["./plugins/pi.js"] },
        "omp": { "extensions": ["./plugins/omp.js"] },
        "files": ["bin/", "plugins/", "README.md", "LICENSE"],
        "engines": { "node": ">=16" },
        "optionalDependencies": optional,
    })
}

pub fn platform_manifest(version: &str, target: &Target) -> Value {
    let mut manifest = json!({
        "name": target.npm_package(),
        "version": version,
        "description": format!("The cm binary of context-mode for {} {}", target.node_os, target.node_cpu),
        "license": "MIT",
        "os": [target.node_os],
        "cpu": [target.node_cpu],
        "files": ["bin/", "README.md", "LICENSE"],
        "preferUnplugged": true,
    });
    // The Linux binaries link glibc: on musl (Alpine) npm then skips the package and the
    // launcher says so, instead of installing a binary that cannot start.
    if target.node_os == "linux" {
        manifest["libc"] = json!(["glibc"]);
    }
    manifest
}

fn fresh_dir(dir: &Path) -> Result<()> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).with_context(|| format!("cannot clear {}", dir.display()))?;
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))
}

fn write_json(path: &Path, value: &Value) -> Result<()> {
    let text = serde_json::to_string_pretty(value).context("cannot render package.json")?;
    std::fs::write(path, text + "\n").with_context(|| format!("cannot write {}", path.display()))
}

fn copy_license(root: &Path, dir: &Path) -> Result<()> {
    let license = root.join("LICENSE");
    std::fs::copy(&license, dir.join("LICENSE"))
        .with_context(|| format!("cannot copy {}", license.display()))?;
    Ok(())
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .with_context(|| format!("cannot make {} executable", path.display()))
}

#[cfg(not(unix))]
fn make_executable(_path: &Path) -> Result<()> {
    Ok(())
}

/// `npm pack` of `dir` into `out_dir`; returns the tarball npm names.
fn pack(dir: &Path, out_dir: &Path) -> Result<PathBuf> {
    let npm = if cfg!(windows) { "npm.cmd" } else { "npm" };
    let output = Command::new(npm)
        .args(["pack", "--json", "--loglevel=error", "--pack-destination"])
        .arg(out_dir)
        .current_dir(dir)
        .output()
        .with_context(|| {
            format!(
                "cannot run npm pack in {} (is Node.js installed?)",
                dir.display()
            )
        })?;
    if !output.status.success() {
        bail!(
            "npm pack in {} failed: {}",
            dir.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let report: Value = serde_json::from_slice(&output.stdout)
        .with_context(|| format!("npm pack in {} printed no JSON report", dir.display()))?;
    let Some(name) = report[0]["filename"].as_str() else {
        bail!("npm pack in {} named no tarball", dir.display());
    };
    Ok(out_dir.join(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_launcher_depends_on_every_platform_at_its_own_version() {
        let manifest = launcher_manifest("1.2.3");
        let optional = manifest["optionalDependencies"].as_object().cloned();
        let optional = optional.unwrap_or_default();
        assert_eq!(optional.len(), TARGETS.len());
        for t in TARGETS {
            assert_eq!(optional[&t.npm_package()], "1.2.3");
        }
        assert_eq!(manifest["bin"]["cm"], "bin/cm.js");
    }

    #[test]
    fn every_plugin_entry_the_manifest_names_is_packed() {
        let manifest = launcher_manifest("1.0.0");
        let packed: Vec<String> = HOST_PLUGINS.iter().map(|(e, _)| format!("./{e}")).collect();
        for named in [
            &manifest["pi"]["extensions"][0],
            &manifest["omp"]["extensions"][0],
        ] {
            assert!(packed.iter().any(|p| named == p.as_str()), "{named}");
        }
        assert!(packed.contains(&format!(
            "./{}",
            manifest["main"].as_str().unwrap_or_default()
        )));
    }

    /// The package's binary lookup and its fail-open log line, written out in both
    /// plugin files (`cm setup` writes each whole, so they cannot import a shared one).
    #[test]
    fn both_plugins_find_cm_with_the_same_code() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let lookup = |file: &str| {
            let text = std::fs::read_to_string(root.join(file)).unwrap_or_default();
            let start = text.find("function packagedCm()");
            let end = text.find("// The log is a courtesy");
            match (start, end) {
                (Some(start), Some(end)) if start < end => text[start..end].to_owned(),
                _ => panic!("{file} has no packagedCm … logMissing"),
            }
        };
        assert_eq!(
            lookup("configs/opencode/context-mode.js"),
            lookup("configs/pi/context-mode.js")
        );
    }

    #[test]
    fn only_linux_packages_ask_for_glibc() {
        for t in TARGETS {
            let manifest = platform_manifest("1.0.0", t);
            assert_eq!(manifest["os"][0], t.node_os);
            assert_eq!(manifest["cpu"][0], t.node_cpu);
            assert_eq!(manifest.get("libc").is_some(), t.node_os == "linux");
        }
    }
}
