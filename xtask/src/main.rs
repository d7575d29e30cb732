//! `cargo xtask dist [--target T …] [--profile P]`: `cm` built for each shipped platform
//! (default: all of them) into target/dist/ as an archive with its sha256 file, and the
//! npm packages of the targets built, packed into target/dist/npm/ (ADR 36).

mod archive;
mod compile;
mod npm;
mod targets;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};

use crate::targets::{TARGETS, Target};

#[derive(Parser)]
#[command(
    name = "cargo xtask",
    about = "Release tasks of the context-mode workspace"
)]
struct Cli {
    #[command(subcommand)]
    command: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Build the release archives and npm packages into target/dist/.
    Dist {
        /// A Rust target triple or npm platform (linux-x64, linux-arm64, darwin-x64,
        /// darwin-arm64, win32-x64); repeat for several. Default: every one.
        #[arg(long = "target", value_name = "T")]
        targets: Vec<String>,
        /// The cargo profile. `dist` is what ships; `dev` packs a quick build of this
        /// machine's target for tests.
        #[arg(long, default_value = compile::SHIPPED_PROFILE)]
        profile: String,
        /// Where the archives and target/dist/npm/ go.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
}

fn main() {
    if let Err(error) = run(Cli::parse()) {
        eprintln!("xtask: {error:#}");
        std::process::exit(1);
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Task::Dist {
            targets,
            profile,
            out,
        } => {
            let root = workspace_root();
            let out = out.unwrap_or_else(|| root.join("target/dist"));
            dist(&root, &out, &chosen_targets(&targets)?, &profile)
        }
    }
}

fn chosen_targets(names: &[String]) -> Result<Vec<&'static Target>> {
    if names.is_empty() {
        return Ok(TARGETS.iter().collect());
    }
    names
        .iter()
        .map(|name| {
            Target::find(name).with_context(|| {
                let known: Vec<String> = TARGETS.iter().map(Target::platform).collect();
                format!("unknown target {name}: one of {}", known.join(", "))
            })
        })
        .collect()
}

fn workspace_root() -> PathBuf {
    let xtask = Path::new(env!("CARGO_MANIFEST_DIR"));
    xtask.parent().unwrap_or(xtask).to_path_buf()
}

fn dist(root: &Path, out: &Path, targets: &[&Target], profile: &str) -> Result<()> {
    let version = workspace_version(root)?;
    let npm_dir = out.join("npm");
    std::fs::create_dir_all(&npm_dir)
        .with_context(|| format!("cannot create {}", npm_dir.display()))?;
    let mut lines = Vec::new();
    for target in targets {
        let build = compile::Build {
            root,
            target,
            profile,
        };
        let binary = build.run()?;
        let size = std::fs::metadata(&binary).map(|m| m.len()).unwrap_or(0);
        let effort = if profile == compile::SHIPPED_PROFILE {
            archive::Effort::Smallest
        } else {
            archive::Effort::Fastest
        };
        let readme = root.join("README.md");
        let archive = archive::write(out, &version, target, &binary, &readme, effort)?;
        let tarball = npm::pack_platform(root, &npm_dir, &version, target, &binary)?;
        lines.push(format!(
            "{:<14} binary {:>5.1} MB  {}  sha256 {}…  {}",
            target.platform(),
            size as f64 / 1e6,
            archive.path.display(),
            &archive.sha256[..12],
            tarball.display()
        ));
    }
    let launcher = npm::pack_launcher(root, &npm_dir, &version)?;
    lines.push(format!("launcher       {}", launcher.display()));
    for line in lines {
        println!("{line}");
    }
    Ok(())
}

/// `[workspace.package] version` of the root Cargo.toml: the version every package ships.
fn workspace_version(root: &Path) -> Result<String> {
    let manifest = root.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest)
        .with_context(|| format!("cannot read {}", manifest.display()))?;
    let parsed: toml::Table =
        toml::from_str(&text).with_context(|| format!("cannot parse {}", manifest.display()))?;
    match parsed
        .get("workspace")
        .and_then(|w| w.get("package"))
        .and_then(|p| p.get("version"))
        .and_then(|v| v.as_str())
    {
        Some(version) => Ok(version.to_string()),
        None => bail!("{} has no [workspace.package] version", manifest.display()),
    }
}
